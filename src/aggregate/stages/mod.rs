//! Aggregation stages, one file per stage (registered in `aggregate::stage`).

pub mod add_fields;
pub mod bucket;
pub mod bucket_auto;
pub mod count;
pub mod documents;
pub mod facet;
pub mod graph_lookup;
pub mod group;
pub mod limit;
pub mod lookup;
pub mod match_;
pub mod merge;
pub mod out;
pub mod project;
pub mod redact;
pub mod replace_root;
pub mod sample;
pub mod skip;
pub mod sort;
pub mod sort_by_count;
pub mod union_with;
pub mod unset;
pub mod unwind;
