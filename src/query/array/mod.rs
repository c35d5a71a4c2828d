//! Array query operators: `$all`, `$elemMatch`, `$size`. `$elemMatch` and `$size` see a leaf
//! array whole (not element by element).

pub mod all;
pub mod elem_match;
pub mod size;
