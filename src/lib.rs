//! # Pattern Playground engine
//!
//! An in-memory database that answers like MongoDB 8: query filters, update operators, CRUD and
//! an aggregation subset over [`bson`] documents, with the server's results, error codes and
//! message wording. It has no web dependency and does no IO; the browser reaches it through the
//! thin bindings in `bindings.rs` (feature `wasm`).
//!
//! ## The pieces
//! - [`value`]: BSON comparison and type order, numeric promotion, dotted paths. Nothing else
//!   decides equality.
//! - [`error`]: one [`Error`] type whose kind fixes the server's `code` and `codeName`.
//!
//! ## Quick start
//! ```
//! use pattern_playground::value;
//! use bson::doc;
//! assert_eq!(value::bson_size(&doc! {}), 5);
//! ```

pub mod advisor;
pub mod aggregate;
#[cfg(feature = "wasm")]
pub mod bindings;
pub mod db;
pub mod env;
pub mod error;
pub mod export;
pub mod expr;
pub mod import;
pub mod lesson;
pub mod query;
pub mod schema;
pub mod update;
pub mod value;

pub use error::{Error, ErrorKind, Result};
