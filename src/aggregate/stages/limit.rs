//! `$limit`: the first n documents (n a positive integer).

use std::sync::Arc;

use bson::Bson;

use crate::aggregate::util::{err, integer_arg};
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::error::Result;
use crate::value::display;

#[derive(Debug)]
pub(crate) struct Limit {
    n: u64,
}

pub(crate) fn parse(name: &'static str, spec: &Bson, _pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let n = integer_arg(name, spec).map_err(|r| err(5107201, format!("invalid argument to $limit stage: {r}")))?;
    if n < 0 {
        return Err(err(
            5107201,
            format!("invalid argument to $limit stage: Expected a non-negative number in: {}", display::element(name, spec)),
        ));
    }
    if n == 0 {
        return Err(err(15958, "the limit must be positive"));
    }
    Ok(Arc::new(Limit { n: n as u64 }))
}

impl Stage for Limit {
    fn name(&self) -> &'static str {
        "$limit"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, _cx: &'a RunCtx<'a>) -> DocStream<'a> {
        Box::new(input.take(usize::try_from(self.n).unwrap_or(usize::MAX)))
    }
}
