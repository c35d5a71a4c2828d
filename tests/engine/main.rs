//! The one integration-test binary: data-driven `check(input, expected)` cases per area,
//! the conformance runner over `../shared/conformance`, and property tests.

mod advisor;
mod aggregate;
mod bson_corpus;
mod common;
mod conformance;
mod create_index;
mod crud;
mod delete_many;
mod doc_validation_error;
mod cursors;
mod expr;
mod gen;
mod import;
mod merge;
mod indexes;
mod invariants;
mod keystring;
mod props;
mod query;
mod raw_distinct;
mod raw_fields;
mod raw_group;
mod raw_insert;
mod raw_match;
mod raw_sort;
mod raw_update;
mod raw_update_command;
mod schema;
mod time_zones;
mod update;
mod transactions;
mod validation;
mod wildcard;
