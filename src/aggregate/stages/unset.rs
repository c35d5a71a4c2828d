//! `$unset: "a"` or `$unset: ["a", "b.c"]`: an exclusion projection of those fields.

use std::sync::Arc;

use bson::Bson;

use crate::aggregate::projection::{context, parse_project};
use crate::aggregate::util::err;
use crate::aggregate::{ParseCtx, Stage};
use crate::error::Result;

static ZERO: Bson = Bson::Int32(0);

pub(crate) fn parse(name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let fields: Vec<&Bson> = match spec {
        Bson::String(_) => vec![spec],
        Bson::Array(a) => a.iter().collect(),
        _ => return Err(err(31002, "$unset specification must be a string or an array")),
    };
    if fields.is_empty() {
        return Err(err(31119, "$unset specification must be a string or an array with at least one field"));
    }
    let mut names = Vec::with_capacity(fields.len());
    for f in fields {
        match f {
            Bson::String(s) => names.push(s.as_str()),
            _ => return Err(err(31120, "$unset specification must be a string or an array containing only string values")),
        }
    }
    let projection = parse_project(names.into_iter().map(|n| (n, &ZERO)), &pcx.scope).map_err(context(name))?;
    Ok(super::project::from_projection(name, projection))
}
