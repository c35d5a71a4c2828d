//! type_ expression operators.
