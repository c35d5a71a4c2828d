//! Conditional expression operators.

pub mod cond;
pub mod if_null;
pub mod switch;
