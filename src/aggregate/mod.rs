//! Aggregation pipelines. STUB: the aggregation issue replaces this body; keep the signatures.

use bson::{Bson, Document};

use crate::env::Env;
use crate::error::{Error, ErrorKind, Result};

/// What a pipeline may read besides its input: other collections (`$lookup`, `$unionWith`,
/// `$graphLookup`). Implemented by the database.
pub trait Catalog {
    /// The documents of a collection in natural order (empty when it does not exist).
    fn documents(&self, collection: &str) -> Vec<Document>;
}

/// Where `$out`/`$merge` send the results; the database performs the write.
#[derive(Debug, Clone, PartialEq)]
pub enum OutTarget {
    Out { collection: String },
    Merge { spec: Document },
}

/// The result of running a pipeline.
#[derive(Debug, Clone, Default)]
pub struct Output {
    pub docs: Vec<Document>,
    pub out: Option<OutTarget>,
}

/// A parsed pipeline.
#[derive(Debug, Clone)]
pub struct Pipeline {
    _stages: Vec<Bson>,
}

impl Pipeline {
    /// Parses the stages (unknown stage: 40324, ...).
    pub fn parse(stages: &[Bson]) -> Result<Pipeline> {
        Ok(Pipeline { _stages: stages.to_vec() })
    }

    /// Runs the pipeline over `input`.
    pub fn run(&self, _input: Vec<Document>, _catalog: &dyn Catalog, _env: &Env) -> Result<Output> {
        Err(Error::new(ErrorKind::NotImplemented, "aggregation is not implemented yet"))
    }
}
