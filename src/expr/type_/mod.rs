//! Type expression operators: `$type`, `$isNumber`, `$convert` and its shorthands.

pub mod convert;
pub mod type_of;
