//! Object expression operators.

pub mod get_field;
pub mod merge_objects;
pub mod set_field;
