//! `ppAdvise` (an engine extension for the advisor; no server has it): `{ ppAdvise: "c",
//! queries: [{ filter, sort, lookups }], arrayLength, documentBytes, medianFactor, lookupReads,
//! sameShapeCollections }` -> `{ collection, findings }` (see `crate::advisor`). Each query is
//! planned as `find` plans it, to know which indexes it would use.

use bson::{Bson, Document};

use crate::advisor::{self, Query, Scope, Thresholds};
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
    if let Some(n) = f.i64("lookupReads")? {
        t.lookup_reads = usize::try_from(n.max(1)).unwrap_or(usize::MAX);
    }
    if let Some(n) = f.i64("sameShapeCollections")? {
        t.same_shape_collections = usize::try_from(n.max(2)).unwrap_or(usize::MAX);
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
            let lookups = match q.get("lookups") {
                None => Vec::new(),
                Some(Bson::Array(items)) => items.iter().filter_map(|l| l.as_document().cloned()).collect(),
                Some(other) => return Err(args::wrong_type(&format!("ppAdvise.queries.{i}.lookups"), other, "array")),
            };
            let sort = Sort::parse(sort_doc.as_ref())?;
            let name = |i: usize| c.indexes.get(i).map(|ix| ix.name.clone());
            let indexes_used = match planner::plan(c, &filter, sort.as_ref(), None) {
                Plan::IdHack { .. } => vec![super::super::index::ID_INDEX_NAME.to_string()],
                Plan::Ixscan(s) => name(s.index).into_iter().collect(),
                // Every branch's index counts as used.
                Plan::Or(scans) => scans.iter().filter_map(|s| name(s.index)).collect(),
                Plan::CollScan { .. } => Vec::new(),
            };
            queries.push(Query { filter, sort: sort_doc, indexes_used, lookups });
        }
    }
    let names: Vec<String> = db.collection_names(&ctx.db).into_iter().filter(|n| !n.starts_with("system.")).collect();
    let others: Vec<(&str, &crate::db::Collection)> =
        names.iter().filter_map(|n| db.collection(&ctx.db, n).filter(|o| !o.is_timeseries()).map(|o| (n.as_str(), o))).collect();
    let scope = Scope { name: &coll, collection: c, others };
    let findings: Vec<Bson> = advisor::advise(&scope, &queries, &t).into_iter().map(Bson::Document).collect();
    let mut reply = Document::new();
    reply.insert("collection", coll);
    reply.insert("findings", findings);
    Ok(reply)
}
