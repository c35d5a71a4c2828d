//! `ppAdvise` (an engine extension for the advisor; no server has it): `{ ppAdvise: "c",
//! queries: [{ filter, sort }], arrayLength, documentBytes, medianFactor }` -> `{ collection,
//! findings }` (see `crate::advisor`). Each query is planned as `find` plans it, to know which
//! index it would use.

use bson::{Bson, Document};

use crate::advisor::{self, Query, Thresholds};
use crate::error::{Error, ErrorKind, Result};

use super::super::args::{self, Fields};
use super::super::exec::Sort;
use super::super::planner::{self, Plan};
use super::super::Database;
use super::Ctx;

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let f = Fields::new(cmd, "ppAdvise");
    let mut t = Thresholds::default();
    if let Some(n) = f.i64("arrayLength")? {
        t.array_length = usize::try_from(n.max(1)).unwrap_or(usize::MAX);
    }
    if let Some(n) = f.i64("documentBytes")? {
        t.document_bytes = usize::try_from(n.max(1)).unwrap_or(usize::MAX);
    }
    if let Some(v) = cmd.get("medianFactor") {
        t.median_factor = crate::value::Number::from_bson(v).map(|n| n.to_f64()).filter(|x| *x > 0.0).ok_or_else(|| args::wrong_type("ppAdvise.medianFactor", v, "number"))?;
    }
    db.check_not_view(&ctx.db, &coll)?;
    let Some(c) = db.collection(&ctx.db, &coll) else {
        return Err(Error::new(ErrorKind::NamespaceNotFound, format!("ns does not exist: {}.{coll}", ctx.db)));
    };
    let mut queries = Vec::new();
    if let Some(list) = cmd.get("queries") {
        let Bson::Array(list) = list else { return Err(args::wrong_type("ppAdvise.queries", list, "array")) };
        for (i, q) in list.iter().enumerate() {
            let Bson::Document(q) = q else { return Err(args::wrong_type(&format!("ppAdvise.queries.{i}"), q, "object")) };
            let filter = match q.get("filter") {
                None => Document::new(),
                Some(Bson::Document(d)) => d.clone(),
                Some(other) => return Err(args::wrong_type(&format!("ppAdvise.queries.{i}.filter"), other, "object")),
            };
            let sort_doc = match q.get("sort") {
                None => None,
                Some(Bson::Document(d)) => Some(d.clone()),
                Some(other) => return Err(args::wrong_type(&format!("ppAdvise.queries.{i}.sort"), other, "object")),
            };
            let sort = Sort::parse(sort_doc.as_ref())?;
            let index_used = match planner::plan(c, &filter, sort.as_ref(), None) {
                Plan::IdHack { .. } => Some(super::super::index::ID_INDEX_NAME.to_string()),
                Plan::Ixscan(s) => c.indexes.get(s.index).map(|ix| ix.name.clone()),
                // Every branch's index counts as used.
                Plan::Or(scans) => {
                    for s in &scans[1..] {
                        if let Some(ix) = c.indexes.get(s.index) {
                            queries.push(Query { filter: Document::new(), sort: None, index_used: Some(ix.name.clone()) });
                        }
                    }
                    scans.first().and_then(|s| c.indexes.get(s.index)).map(|ix| ix.name.clone())
                }
                Plan::CollScan { .. } => None,
            };
            queries.push(Query { filter, sort: sort_doc, index_used });
        }
    }
    let findings: Vec<Bson> = advisor::advise(c, &queries, &t).into_iter().map(Bson::Document).collect();
    let mut reply = Document::new();
    reply.insert("collection", coll);
    reply.insert("findings", findings);
    Ok(reply)
}
