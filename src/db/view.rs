//! Views: a catalog entry whose options hold `viewOn` and `pipeline`. Reads of a view run its
//! pipeline (and those of the views it is defined on) over the underlying collection; writes are
//! refused with `CommandNotSupportedOnView`.

use bson::{Bson, Document};

use crate::aggregate::Pipeline;
use crate::env::Env;
use crate::error::{Error, ErrorKind, Result};
use crate::expr::VarScope;

use super::{Collection, Database};

/// The deepest chain of views on views the server follows.
const MAX_VIEW_DEPTH: usize = 20;

impl Collection {
    /// True for a view (`create` with `viewOn`).
    pub fn is_view(&self) -> bool {
        self.options.contains_key("viewOn")
    }
}

/// A view resolved to the collection it reads and the stages that run over it.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub collection: String,
    pub pipeline: Vec<Bson>,
}

impl Database {
    /// The collection `name` reads from with the stages its views add, or `None` when `name` is
    /// not a view.
    pub(crate) fn resolve_view(&self, db: &str, name: &str) -> Result<Option<Resolved>> {
        let mut pipeline: Vec<Bson> = Vec::new();
        let mut current = name.to_string();
        let mut depth = 0;
        while let Some(c) = self.collection(db, &current).filter(|c| c.is_view()) {
            depth += 1;
            if depth > MAX_VIEW_DEPTH {
                return Err(Error::new(
                    ErrorKind::ViewDepthLimitExceeded,
                    format!("View depth too deep or view cycle detected. Maximum depth is {MAX_VIEW_DEPTH}"),
                ));
            }
            let mut stages = c.options.get_array("pipeline").cloned().unwrap_or_default();
            stages.extend(pipeline);
            pipeline = stages;
            current = c.options.get_str("viewOn").unwrap_or_default().to_string();
        }
        Ok(if depth == 0 { None } else { Some(Resolved { collection: current, pipeline }) })
    }

    /// Refuses to write to a view.
    pub(crate) fn check_not_view(&self, db: &str, name: &str) -> Result<()> {
        match self.collection(db, name) {
            Some(c) if c.is_view() => Err(Error::new(
                ErrorKind::CommandNotSupportedOnView,
                format!("Namespace {db}.{name} is a view, not a collection"),
            )),
            _ => Ok(()),
        }
    }

    /// Runs `stages` over the documents of collection `coll` (no `$out`/`$merge` writes).
    pub(crate) fn run_read_pipeline(&self, db: &str, coll: &str, stages: &[Bson], env: &Env) -> Result<Vec<Document>> {
        let pipeline = Pipeline::parse_with(stages, &VarScope::with_names(env.vars.keys().cloned()))?;
        let input: Vec<Document> = match self.collection(db, coll) {
            Some(c) => {
                env.add_docs_examined(c.len() as u64, c.data_size() as u64);
                c.documents()?
            }
            None => Vec::new(),
        };
        let catalog = self.catalog(db, env.now);
        Ok(pipeline.run(input, &catalog, env)?.docs)
    }

    /// The results of view `name`.
    pub(crate) fn view_documents(&self, db: &str, view: &Resolved, extra: &[Bson], env: &Env) -> Result<Vec<Document>> {
        let mut stages = view.pipeline.clone();
        stages.extend(extra.iter().cloned());
        self.run_read_pipeline(db, &view.collection, &stages, env)
    }
}

/// Checks the options of a view being created: `viewOn` names a collection of the database and
/// `pipeline` is an array of stages that parses.
pub(crate) fn check_view_options(options: &Document) -> Result<()> {
    match options.get("viewOn") {
        Some(Bson::String(s)) if !s.is_empty() => {}
        Some(Bson::String(_)) => return Err(Error::bad_value("'viewOn' cannot be empty")),
        Some(other) => return Err(super::args::wrong_type("create.viewOn", other, "string")),
        None => {
            if options.contains_key("pipeline") {
                return Err(Error::new(ErrorKind::InvalidOptions, "'pipeline' requires 'viewOn' to also be specified"));
            }
            return Ok(());
        }
    }
    match options.get("pipeline") {
        None => Ok(()),
        Some(Bson::Array(stages)) => {
            Pipeline::parse(stages)?;
            Ok(())
        }
        Some(other) => Err(super::args::wrong_type("create.pipeline", other, "array")),
    }
}
