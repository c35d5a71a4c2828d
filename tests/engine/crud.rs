//! Cases for crud (to be written).
