//! date expression operators.
