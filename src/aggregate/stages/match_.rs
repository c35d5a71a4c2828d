//! `$match`: keeps the documents a query filter matches (`$expr` included).

use std::sync::Arc;

use bson::Bson;

use crate::aggregate::util::err;
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::error::Result;
use crate::query::Matcher;

#[derive(Debug)]
pub(crate) struct Match {
    filter: Matcher,
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let Bson::Document(d) = spec else {
        return Err(err(15959, "the match filter must be an expression in an object"));
    };
    let filter = Matcher::parse_with_scope(d, &pcx.scope)?;
    check_paths(d)?;
    Ok(Arc::new(Match { filter }))
}

/// The paths a `$match` reads must be field paths (the server tracks them as the stage's
/// dependencies): `{"a.$c": 4}` is refused (16410), though a find accepts it.
fn check_paths(filter: &bson::Document) -> Result<()> {
    for (k, v) in filter {
        if let Some(op) = k.strip_prefix('$') {
            if let ("and" | "or" | "nor", Bson::Array(items)) = (op, v) {
                for item in items {
                    if let Bson::Document(sub) = item {
                        check_paths(sub)?;
                    }
                }
            }
            continue;
        }
        crate::query::field_path::validate(k)?;
    }
    Ok(())
}

impl Stage for Match {
    fn name(&self) -> &'static str {
        "$match"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        Box::new(input.filter_map(move |d| match d {
            Ok(d) => match self.filter.matches(&d, cx.env) {
                Ok(true) => Some(Ok(d)),
                Ok(false) => None,
                Err(e) => Some(Err(e)),
            },
            Err(e) => Some(Err(e)),
        }))
    }

    fn as_filter(&self) -> Option<&Matcher> {
        Some(&self.filter)
    }

    fn keeps_metadata(&self) -> bool {
        true
    }
}
