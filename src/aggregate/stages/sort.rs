//! `$sort`: a stable sort by a sort specification (the server's order of mixed types; an array
//! sorts by its smallest element ascending and its largest descending; missing as null).

use std::sync::Arc;

use bson::Bson;

use crate::aggregate::stage::blocking;
use crate::aggregate::util::err;
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::error::Result;
use crate::query::sort::SortSpec;

#[derive(Debug)]
pub(crate) struct Sort {
    spec: SortSpec,
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, _pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let Bson::Document(d) = spec else {
        return Err(err(15973, "the $sort key specification must be an object"));
    };
    if d.is_empty() {
        return Err(err(15976, "$sort stage must have at least one sort key"));
    }
    let spec = SortSpec::parse(d)?;
    Ok(Arc::new(Sort { spec }))
}

impl Stage for Sort {
    fn name(&self) -> &'static str {
        "$sort"
    }

    fn sort_spec(&self) -> Option<&SortSpec> {
        Some(&self.spec)
    }

    fn run<'a>(&'a self, input: DocStream<'a>, _cx: &'a RunCtx<'a>) -> DocStream<'a> {
        blocking(input, move |input| {
            let mut docs = input.collect::<Result<Vec<_>>>()?;
            self.spec.sort(&mut docs, |d| d);
            Ok(docs)
        })
    }
}
