//! string expression operators.
