//! Miscellaneous query operators: `$comment`, `$sampleRate`, the internal `$alwaysTrue` and
//! `$alwaysFalse`, and top-level `$id`/`$ref`/`$db` (DBRef fields).

pub mod always;
pub mod comment;
pub mod dbref;
pub mod sample_rate;
