//! Cases for bson_corpus (to be written).
