//! Pipeline-style updates (`[ { $set: .. }, { $unset: .. } ]`): the stages an update allows
//! (`$addFields`/`$set`, `$project`, `$unset`, `$replaceRoot`/`$replaceWith`) run by the
//! aggregation engine over the one document; every other stage parses as in `aggregate` and is
//! then refused as the server refuses it (`InvalidOptions`).

use bson::{Bson, Document};

use crate::aggregate::{NoCatalog, Pipeline as Stages};
use crate::env::Env;
use crate::error::{Error, ErrorKind, Result};
use crate::expr::VarScope;

/// The stages allowed in an update (`isAllowedWithinUpdatePipeline`).
const ALLOWED: &[&str] = &["$addFields", "$set", "$project", "$unset", "$replaceRoot", "$replaceWith"];

/// The name the server reports for a stage that expands into others (its first stage).
fn reported_name(stage: &str) -> &str {
    match stage {
        "$count" | "$bucket" | "$sortByCount" => "$group",
        "$fill" => "$setWindowFields",
        "$documents" => "$queue",
        other => other,
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Pipeline {
    stages: Stages,
}

impl Pipeline {
    pub fn parse(stages: &[Bson], scope: &VarScope) -> Result<Pipeline> {
        let mut names = Vec::with_capacity(stages.len());
        for s in stages {
            let Bson::Document(d) = s else {
                return Err(Error::type_mismatch("Each element of the 'pipeline' array must be an object"));
            };
            names.extend(d.keys().next().cloned());
        }
        let parsed = Stages::parse_with(stages, scope)?;
        if let Some(refused) = names.iter().find(|n| !ALLOWED.contains(&n.as_str())) {
            return Err(Error::new(
                ErrorKind::InvalidOptions,
                format!("{} is not allowed to be used within an update", reported_name(refused)),
            ));
        }
        Ok(Pipeline { stages: parsed })
    }

    /// Runs the stages over one document.
    pub fn run(&self, doc: &Document, env: &Env) -> Result<Document> {
        let out = self.stages.run(vec![doc.clone()], &NoCatalog, env)?;
        out.docs.into_iter().next().ok_or_else(|| super::fields::internal("an update pipeline dropped the document"))
    }
}
