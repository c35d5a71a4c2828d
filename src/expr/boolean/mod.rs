//! Boolean expression operators.

pub mod and_or;
pub mod not;
