//! Object expression operators.

pub mod merge_objects;
