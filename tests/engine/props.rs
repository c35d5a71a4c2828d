//! Cases for props (to be written).
