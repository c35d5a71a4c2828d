//! Miscellaneous operators: `$literal`, `$rand`, `$bsonSize`, `$binarySize`.

pub mod binary_size;
pub mod bson_size;
pub mod literal;
pub mod rand;
pub mod timestamp;
