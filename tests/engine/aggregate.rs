//! Cases for aggregate (to be written).
