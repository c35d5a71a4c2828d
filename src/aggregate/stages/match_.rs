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
    Ok(Arc::new(Match { filter: Matcher::parse_with_scope(d, &pcx.scope)? }))
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
}
