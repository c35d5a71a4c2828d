//! Cases for expr (to be written).
