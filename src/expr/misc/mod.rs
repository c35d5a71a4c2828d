//! Miscellaneous operators: `$literal`, `$rand`, `$bsonSize`, `$binarySize`, `$meta`.

pub mod binary_size;
pub mod bson_size;
pub mod literal;
pub mod meta;
pub mod rand;
pub mod timestamp;
