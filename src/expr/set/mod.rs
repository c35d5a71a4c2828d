//! set expression operators.
