//! Cases for conformance (to be written).
