//! Variable expression operators: `$let`.

pub mod let_;
