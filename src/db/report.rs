//! What each write did to each document, for the UI's diff and size views.

use bson::Bson;
use serde::Serialize;

/// The kind of write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum WriteOp {
    Insert,
    /// An update with operators or a pipeline.
    Update,
    /// A replacement-style update.
    Replace,
    /// An upsert that inserted.
    Upsert,
    Delete,
}

/// One document written by a command.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteReport {
    /// The collection's name (without the database).
    pub collection: String,
    /// The document's `_id`.
    pub id: Bson,
    /// BSON size before the write (`None` for inserts and upserts).
    pub before_size: Option<usize>,
    /// BSON size after the write (`None` for deletes).
    pub after_size: Option<usize>,
    /// Dotted paths changed, in the order the update changed them (every top-level field for
    /// inserts and deletes; the differing top-level fields for replacements).
    pub changed_paths: Vec<String>,
    pub op: WriteOp,
}
