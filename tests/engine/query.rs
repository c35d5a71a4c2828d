//! Cases for query (to be written).
