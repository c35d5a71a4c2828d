//! `$skip`: drops the first n documents (n a non-negative integer).

use std::sync::Arc;

use bson::Bson;

use crate::aggregate::util::{err, integer_arg};
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::error::Result;
use crate::value::display;

#[derive(Debug)]
pub(crate) struct Skip {
    n: u64,
}

pub(crate) fn parse(name: &'static str, spec: &Bson, _pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let n = integer_arg(name, spec).map_err(|r| err(5107200, format!("invalid argument to $skip stage: {r}")))?;
    if n < 0 {
        return Err(err(
            5107200,
            format!("invalid argument to $skip stage: Expected a non-negative number in: {}", display::element(name, spec)),
        ));
    }
    Ok(Arc::new(Skip { n: n as u64 }))
}

impl Stage for Skip {
    fn name(&self) -> &'static str {
        "$skip"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, _cx: &'a RunCtx<'a>) -> DocStream<'a> {
        // An error among the skipped documents still ends the pipeline.
        let mut left = self.n;
        Box::new(input.filter(move |d| {
            if left > 0 && d.is_ok() {
                left -= 1;
                false
            } else {
                true
            }
        }))
    }
}
