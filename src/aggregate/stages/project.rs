//! `$project`: an inclusion projection (named fields, computed fields, `_id` unless excluded) or
//! an exclusion projection (every field but the named ones).

use std::sync::Arc;

use bson::Bson;

use crate::aggregate::projection::{context, parse_project, Projection};
use crate::aggregate::slots::SlotRole;
use crate::aggregate::util::{err, tname};
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::error::Result;

#[derive(Debug)]
pub(crate) struct Project {
    name: &'static str,
    projection: Projection,
}

pub(crate) fn parse(name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let Bson::Document(d) = spec else {
        return Err(err(15969, format!("$project specification must be an object, got {}", tname(spec))));
    };
    let projection = parse_project(d.iter().map(|(k, v)| (k.as_str(), v)), &pcx.scope).map_err(context(name))?;
    Ok(Arc::new(Project { name, projection }))
}

/// A `$project`-like stage from an already-built projection (`$unset`).
pub(crate) fn from_projection(name: &'static str, projection: Projection) -> Arc<dyn Stage> {
    Arc::new(Project { name, projection })
}

impl Stage for Project {
    fn name(&self) -> &'static str {
        self.name
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        Box::new(input.map(move |d| self.projection.apply(d?, cx.env)))
    }

    fn slot_role(&self) -> SlotRole<'_> {
        match &self.projection {
            Projection::Exclusion(t) => SlotRole::Removes(t),
            Projection::Inclusion(_) => SlotRole::Other,
        }
    }

    fn keeps_metadata(&self) -> bool {
        true
    }
}
