//! `distinct`: `{ distinct: "c", key, query }` -> `{ values }`. Array values count element by
//! element; the values come back in BSON order, as the server's set of values returns them.

use std::collections::BTreeSet;

use bson::{doc, Bson, Document};

use crate::error::{Error, ErrorKind, Result};
use crate::value;

use super::super::args::{self, Fields};
use super::super::collection::Record;
use super::super::exec::{self, Filter};
use super::super::Database;
use super::Ctx;

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let values = distinct(db, ctx, &coll, cmd)?;
    let mut reply = Document::new();
    reply.insert("values", values);
    Ok(reply)
}

pub(crate) fn distinct(db: &Database, ctx: &Ctx, coll: &str, cmd: &Document) -> Result<Vec<Bson>> {
    let f = Fields::new(cmd, "distinct");
    let key = match cmd.get("key") {
        Some(Bson::String(k)) => k.clone(),
        Some(other) => return Err(args::wrong_type("distinct.key", other, "string")),
        None => return Err(args::missing("distinct.key")),
    };
    if key.is_empty() {
        return Err(Error::new(ErrorKind::Location(40352), "FieldPath cannot be constructed with empty string"));
    }
    if key.contains('\0') {
        return Err(Error::code(31032, "Key field cannot contain an embedded null byte"));
    }
    let empty = Document::new();
    let query = f.doc("query")?.unwrap_or(&empty);
    let filter = Filter::parse(query, &ctx.env)?.with_hint(cmd.get("hint"));
    if let Some(view) = db.resolve_view(&ctx.db, coll)? {
        let docs = db.view_documents(&ctx.db, &view, &[Bson::Document(doc! {"$match": query.clone()})], &ctx.env)?;
        return Ok(distinct_values(docs.iter(), &key));
    }
    let Some(c) = db.collection(&ctx.db, coll) else { return Ok(Vec::new()) };
    let found = exec::matching(c, &filter, &ctx.env, None)?;
    // Of each document, only the key's top-level field is decoded, one document at a time as
    // the values are collected.
    let top = key.split('.').next().unwrap_or_default();
    let keep = |name: &str| name == top;
    let mut failed = None;
    let docs = found.iter().filter_map(|(rid, _)| c.get(*rid)).map_while(|r| Record::decode_of(r.bytes(), Some(&keep)).map_err(|e| failed = Some(e)).ok());
    let values = distinct_values(docs, &key);
    match failed {
        Some(e) => Err(e),
        None => Ok(values),
    }
}

/// The distinct values of `key` in `docs`, in BSON order (the first of equal values kept).
fn distinct_values<D: std::borrow::Borrow<Document>>(docs: impl Iterator<Item = D>, key: &str) -> Vec<Bson> {
    // An equal value already in the set stays (the first met).
    let mut set: BTreeSet<SortKey> = BTreeSet::new();
    let parts: Vec<&str> = key.split('.').collect();
    for doc in docs {
        let doc = doc.borrow();
        let mut vals = Vec::new();
        if let Some(v) = doc.get(parts[0]) {
            collect(v, &parts[1..], &mut vals);
        }
        for v in vals {
            set.insert(SortKey(v));
        }
    }
    set.into_iter().map(|k| k.0).collect()
}

/// The values a dotted path reaches, with arrays traversed: an array at the end contributes its
/// elements; through an array, the rest of the path applies to each element.
fn collect(v: &Bson, rest: &[&str], out: &mut Vec<Bson>) {
    if rest.is_empty() {
        match v {
            Bson::Array(a) => out.extend(a.iter().cloned()),
            other => out.push(other.clone()),
        }
        return;
    }
    match v {
        Bson::Document(d) => {
            if let Some(next) = d.get(rest[0]) {
                collect(next, &rest[1..], out);
            }
        }
        Bson::Array(a) => {
            if let Some(i) = value::path::array_index(rest[0]) {
                if let Some(e) = a.get(i) {
                    collect(e, &rest[1..], out);
                }
            }
            for e in a {
                if let Bson::Document(_) = e {
                    collect(e, rest, out);
                }
            }
        }
        _ => {}
    }
}

/// A value ordered and deduplicated by the server's comparison.
#[derive(Debug, Clone)]
struct SortKey(Bson);

impl PartialEq for SortKey {
    fn eq(&self, other: &Self) -> bool {
        value::equal(&self.0, &other.0)
    }
}

impl Eq for SortKey {}

impl PartialOrd for SortKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SortKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        value::compare(&self.0, &other.0)
    }
}
