//! `$sortByCount: <expr>`: `$group` by the expression with `count: { $sum: 1 }` (int32), then
//! `$sort: { count: -1 }` (ties in first-seen order).

use std::sync::Arc;

use bson::{Bson, Document};

use super::group::{parse_id, Group};
use crate::aggregate::accumulator::parse_statement;
use crate::aggregate::stage::blocking;
use crate::aggregate::util::err;
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::error::Result;
use crate::value::compare;

/// The `$group` it is, run as a `$group` runs (over a collection's stored bytes when it can), and
/// its groups then sorted.
#[derive(Debug)]
pub(crate) struct SortByCount {
    group: Group,
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    const MSG: &str = "the sortByCount field must be defined as a $-prefixed path or an expression inside an object";
    match spec {
        Bson::Document(d) => {
            if !d.keys().next().is_some_and(|k| k.starts_with('$')) {
                return Err(err(40147, MSG));
            }
        }
        Bson::String(s) => {
            if !s.starts_with('$') {
                return Err(err(40148, MSG));
            }
        }
        _ => return Err(err(40149, "the sortByCount field must be specified as a string or as an object")),
    }
    let id = parse_id(spec, &pcx.scope)?;
    let count = parse_statement("count", &bson::bson!({ "$sum": 1 }), &pcx.scope)?;
    Ok(Arc::new(SortByCount { group: Group::of(id, vec![count]) }))
}

impl Stage for SortByCount {
    fn name(&self) -> &'static str {
        "$sortByCount"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        blocking(self.group.run(input, cx), |groups| sorted(groups.collect()))
    }

    fn run_records<'r>(&self, records: &mut dyn Iterator<Item = &'r [u8]>, decode: &dyn Fn(&[u8]) -> Result<Document>, cx: &RunCtx) -> Option<Result<Vec<Document>>> {
        self.group.run_records(records, decode, cx).map(sorted)
    }
}

/// The groups, largest count first; a stable sort, so ties stay in the order their groups were
/// first seen.
fn sorted(groups: Result<Vec<Document>>) -> Result<Vec<Document>> {
    let mut docs = groups?;
    docs.sort_by(|a, b| {
        let (x, y) = (a.get("count").unwrap_or(&Bson::Null), b.get("count").unwrap_or(&Bson::Null));
        compare(y, x)
    });
    Ok(docs)
}
