//! # Pattern Playground engine
//!
//! An in-memory database that answers like MongoDB 8: query filters, update operators, CRUD,
//! aggregation, indexes, statistics and time series collections over [`bson`] documents, with
//! the server's results, error codes and message wording. It has no web dependency and does no
//! IO; the browser reaches it through the thin bindings in `bindings.rs` (feature `wasm`, the
//! only file that touches JavaScript values), and the site's mongosh runtime (`www/runtime/`) talks to it
//! in server commands.
//!
//! ## Entry points
//! - [`db::Database`]: one server. It speaks the server's command protocol:
//!   [`Database::run_command`](db::Database::run_command) takes a command document
//!   (`{ insert: "c", documents: [..] }`, `{ find: "c", filter: {..} }`, ...) and returns the
//!   server's reply (`{ .., ok: 1 }` or `{ ok: 0, errmsg, code, codeName }`); it never panics on
//!   user input. [`run_command_raw`](db::Database::run_command_raw) takes and returns BSON bytes
//!   (what the WebAssembly bindings call); [`run_command_bytes`](db::Database::run_command_bytes)
//!   takes a document and returns bytes. After a command, [`last_cost`](db::Database::last_cost)
//!   gives its cost counters and [`last_write_report`](db::Database::last_write_report) what it
//!   wrote to each document. [`snapshot`](db::Database::snapshot) and
//!   [`restore`](db::Database::restore) turn the whole server into bytes and back.
//! - [`value`]: BSON comparison and type order, numeric promotion, dotted paths. Nothing else
//!   decides equality or order.
//! - [`error`]: one [`Error`] type whose [`ErrorKind`] fixes the server's `code` and `codeName`.
//! - [`query`], [`update`], [`expr`], [`aggregate`]: filters, update operators, aggregation
//!   expressions and stages, one file per operator, in folders named after the manual's families.
//! - [`lesson`]: the lesson file format the site and the headless runner share.
//!
//! ## Example
//! ```
//! use bson::{doc, Bson};
//! use pattern_playground::db::Database;
//!
//! let mut db = Database::new();
//! let reply = db.run_command(&doc! {"insert": "readings", "documents": [{"_id": 1, "v": 3}, {"_id": 2, "v": 9}]});
//! assert_eq!(reply.get_i32("n").ok(), Some(2));
//!
//! let reply = db.run_command(&doc! {"find": "readings", "filter": {"v": {"$gt": 5}}});
//! let batch = reply.get_document("cursor").and_then(|c| c.get_array("firstBatch")).cloned().unwrap_or_default();
//! assert_eq!(batch, vec![Bson::Document(doc! {"_id": 2, "v": 9})]);
//!
//! // Errors come back as the server's error replies.
//! let reply = db.run_command(&doc! {"insert": "readings", "documents": [{"_id": 1}]});
//! let first = reply.get_array("writeErrors").ok().and_then(|e| e.first()).and_then(Bson::as_document).cloned().unwrap_or_default();
//! assert_eq!(first.get_i32("code").ok(), Some(11000));
//! ```
//!
//! How a command travels from a script through the runtime, the bindings, the command table,
//! storage and indexes and back is told in ARCHITECTURE.md; what must stay true (the
//! invariants) is checked by `tests/engine/invariants.rs`.

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

/// Named time zones: the time-zone file the engine is handed (`load_time_zones`).
pub use expr::tzdb;

pub use error::{Error, ErrorKind, Result};
