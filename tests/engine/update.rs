//! Cases for update (to be written).
