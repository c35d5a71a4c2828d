//! Update operators and pipeline-style updates. STUB: the engine-core issue replaces this body;
//! keep the signatures.

use bson::{Bson, Document};

use crate::env::Env;
use crate::error::{Error, ErrorKind, Result};

/// What one update did to one document.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// The document after the update.
    pub doc: Document,
    /// Dotted paths the update changed, in the order it changed them (feeds the diff UI).
    pub changed_paths: Vec<String>,
    /// False when the update left every byte as it was (a no-op `$set`, ...).
    pub modified: bool,
}

/// A parsed update: operators (`{ $set: .. }`) or a pipeline (`[ { $set: .. } ]`).
#[derive(Debug, Clone)]
pub struct Update {
    _spec: Bson,
}

impl Update {
    /// Parses an update document or pipeline, with the `arrayFilters` of the command.
    pub fn parse(spec: &Bson, _array_filters: Option<&[Document]>) -> Result<Update> {
        Ok(Update { _spec: spec.clone() })
    }

    /// Applies the update to `doc`. `positional` is the index the query matched (for `$`);
    /// `inserting` is true when the document is being created by an upsert (`$setOnInsert`).
    pub fn apply(&self, _doc: &Document, _positional: Option<usize>, _inserting: bool, _env: &Env) -> Result<Applied> {
        Err(Error::new(ErrorKind::NotImplemented, "updates are not implemented yet"))
    }
}
