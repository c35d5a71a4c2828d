//! Comparison expression operators: `$cmp`, `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, by the
//! server's full BSON order (`value::compare`). Missing compares like undefined (below null).

pub mod cmp;
