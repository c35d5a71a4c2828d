//! Query filters (`{ qty: { $gt: 5 } }`). STUB: the engine-core issue replaces this body; keep the
//! signatures.

pub mod sort;

use bson::Document;

use crate::env::Env;
use crate::error::{Error, ErrorKind, Result};

/// The outcome of matching one document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatchDetails {
    pub matched: bool,
    /// The array position the positional `$` update/projection operator refers to.
    pub elem_index: Option<usize>,
}

/// A parsed filter.
#[derive(Debug, Clone)]
pub struct Matcher {
    _filter: Document,
}

impl Matcher {
    pub fn parse(filter: &Document) -> Result<Matcher> {
        Ok(Matcher { _filter: filter.clone() })
    }

    pub fn matches(&self, doc: &Document, env: &Env) -> Result<bool> {
        Ok(self.match_details(doc, env)?.matched)
    }

    pub fn match_details(&self, _doc: &Document, _env: &Env) -> Result<MatchDetails> {
        Err(Error::new(ErrorKind::NotImplemented, "query filters are not implemented yet"))
    }
}
