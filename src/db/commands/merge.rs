//! `$merge`'s writes, as the server's `MergeProcessor`: each result is matched to the target on
//! the `on` fields (which need a unique index, but `_id`) and merged, replaced, kept, inserted,
//! discarded or rejected as `whenMatched`/`whenNotMatched` say.
//!
//! The server builds a batch first (generating `_id`s, reading the `on` values, evaluating
//! `let`), so an error there writes nothing of the batch; then it sends the batch as one
//! unordered write, so every write of it is tried and the first error is raised afterwards (as
//! is `whenNotMatched: "fail"`'s, once the batch's matches are written). The results form one
//! batch here. Not atomic: what was written before an error stays written.

use bson::{Bson, Document};

use crate::aggregate::util::{get_nested, set_path};
use crate::aggregate::Pipeline;
use crate::error::{Error, ErrorKind, Result};
use crate::expr::Expr;
use crate::value;

use super::super::report::{WriteOp, WriteReport};
use super::super::validate;
use super::super::{Collection, Database};
use super::write;
use super::{let_scope, Ctx};

/// The target and `on` fields of a `$merge` spec (validated by the stage's parser).
pub(crate) struct Target {
    pub db: String,
    pub coll: String,
    pub on: Vec<String>,
    /// The `on` fields were given explicitly (then even `_id` is checked for an index).
    pub explicit: bool,
}

/// The `into` and `on` of a spec.
pub(crate) fn target(spec: &Document, default_db: &str) -> Result<Target> {
    let (db, coll) = match spec.get("into") {
        Some(Bson::String(s)) => (default_db.to_string(), s.clone()),
        Some(Bson::Document(d)) => {
            let db = d.get_str("db").unwrap_or(default_db).to_string();
            let coll = d.get_str("coll").map_err(|_| Error::failed_to_parse("$merge 'into' requires 'coll'"))?.to_string();
            (db, coll)
        }
        _ => return Err(Error::failed_to_parse("$merge requires 'into'")),
    };
    let (on, explicit) = match spec.get("on") {
        None => (vec!["_id".to_string()], false),
        Some(v) => (crate::aggregate::stages::merge::on_fields(v)?, true),
    };
    Ok(Target { db, coll, on, explicit })
}

/// The server's `fieldsHaveSupportingUniqueIndex`, checked before the pipeline runs: `on`
/// fields other than `_id` need a unique, non-partial index on exactly them (51183). A missing
/// collection has only its future `_id` index.
pub(crate) fn check_on_fields(db: &Database, t: &Target) -> Result<()> {
    if !t.explicit {
        return Ok(());
    }
    let only_id = t.on.len() == 1 && t.on[0] == "_id";
    let supported = match db.collection(&t.db, &t.coll) {
        None => only_id,
        Some(c) => supporting_index(c, &t.on).is_some() || (only_id && c.has_id_index()),
    };
    if supported {
        Ok(())
    } else {
        Err(Error::code(51183, "Cannot find index to verify that join fields will be unique"))
    }
}

/// The index whose key fields are exactly `on` and that guarantees uniqueness.
fn supporting_index<'c>(c: &'c Collection, on: &[String]) -> Option<&'c super::super::index::Index> {
    c.indexes.iter().find(|ix| {
        (ix.unique || ix.is_id()) && !ix.is_partial() && ix.key.len() == on.len() && ix.key.keys().all(|k| on.iter().any(|f| f == k))
    })
}

/// One result ready to write: the document (with a generated `_id` when `on` holds `_id`), its
/// `on` key, and the `let` variables of a pipeline.
struct Item {
    doc: Document,
    key: Document,
    vars: Vec<(String, Bson)>,
}

/// Writes the results into the target.
pub(crate) fn merge(db: &mut Database, ctx: &mut Ctx, spec: &Document, docs: Vec<Document>, bypass: bool) -> Result<()> {
    let t = target(spec, &ctx.db)?;
    let when_matched = spec.get("whenMatched").cloned().unwrap_or(Bson::String("merge".into()));
    let when_not_matched = spec.get_str("whenNotMatched").unwrap_or("insert").to_string();
    // `let` (default `{ new: "$$ROOT" }`): expressions on each result document.
    let mut let_exprs: Vec<(String, Expr)> = Vec::new();
    let matched_pipeline = match &when_matched {
        Bson::Array(stages) => {
            let scope = let_scope(ctx);
            let root = || Expr::parse(&Bson::String("$$ROOT".into()), &scope);
            match spec.get("let") {
                Some(Bson::Document(l)) => {
                    for (k, v) in l {
                        let_exprs.push((k.clone(), Expr::parse(v, &scope)?));
                    }
                    // An insert may need the new document: `new` is always defined then.
                    if !l.contains_key("new") && when_not_matched == "insert" {
                        let_exprs.push(("new".into(), root()?));
                    }
                }
                _ => let_exprs.push(("new".into(), root()?)),
            }
            let mut pipeline_scope = scope.clone();
            pipeline_scope.names.extend(let_exprs.iter().map(|(k, _)| k.clone()));
            Some(Pipeline::parse_with(stages, &pipeline_scope)?)
        }
        _ => None,
    };
    db.check_not_view(&t.db, &t.coll)?;
    if db.collection(&t.db, &t.coll).is_none() {
        db.create_collection(&t.db, &t.coll, Document::new())?;
    }
    let includes_id = t.on.iter().any(|f| f == "_id");

    // The batch: an error here writes nothing.
    let mut batch = Vec::with_capacity(docs.len());
    for d in docs {
        let doc = if includes_id && !d.contains_key("_id") { write::with_id_first(Bson::ObjectId(db.new_object_id()), &d) } else { d };
        let mut key = Document::new();
        for f in &t.on {
            let parts: Vec<&str> = f.split('.').collect();
            let v = get_nested(&doc, &parts);
            if let Some(Bson::Array(_)) = v {
                return Err(Error::code(51185, format!("$merge write error: 'on' field '{f}' is an array")));
            }
            match v {
                None | Some(Bson::Null) | Some(Bson::Undefined) => {
                    return Err(Error::code(51132, format!("$merge write error: 'on' field '{f}' cannot be missing, null, undefined or an array")));
                }
                Some(v) => {
                    key.insert(f.clone(), v.clone());
                }
            }
        }
        let mut vars = Vec::with_capacity(let_exprs.len());
        for (name, e) in &let_exprs {
            vars.push((name.clone(), e.evaluate(&doc, &ctx.env)?.unwrap_or(Bson::Null)));
        }
        batch.push(Item { doc, key, vars });
    }

    // The writes: every one is tried; the first error is raised after.
    let mut first_error: Option<Error> = None;
    let mut unmatched = false;
    for item in batch {
        let result = if when_matched.as_str() == Some("fail") {
            // Inserted as they are; a duplicate is the insert's own error.
            insert(db, ctx, &t, item.doc, bypass)
                .map_err(|e| if e.kind == ErrorKind::DuplicateKey { e.add_context("$merge failed due to a DuplicateKey error") } else { e })
        } else {
            match find_match(db, &t, &item.key) {
                Some(rid) => update(db, ctx, &t, rid, &item, &when_matched, matched_pipeline.as_ref(), bypass),
                None => match when_not_matched.as_str() {
                    "insert" => {
                        let doc = match &when_matched {
                            // An upsert of the new document itself.
                            Bson::Array(_) => item.doc,
                            Bson::String(s) if s == "replace" => item.doc,
                            // An upsert by `$set`/`$setOnInsert`: the query's fields first.
                            _ => upserted(&item.key, &item.doc),
                        };
                        insert(db, ctx, &t, doc, bypass)
                    }
                    "fail" => {
                        unmatched = true;
                        Ok(())
                    }
                    _ => Ok(()),
                },
            }
        };
        if let Err(e) = result {
            first_error.get_or_insert(e);
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    if unmatched {
        return Err(Error::new(
            ErrorKind::MergeStageNoMatchingDocument,
            "$merge could not find a matching document in the target collection for at least one document in the source collection",
        ));
    }
    Ok(())
}

/// The target document whose `on` fields equal `key`: by `_id`, else through the unique index.
fn find_match(db: &Database, t: &Target, key: &Document) -> Option<u64> {
    let c = db.collection(&t.db, &t.coll)?;
    if t.on.len() == 1 && t.on[0] == "_id" && c.has_id_index() {
        return key.get("_id").and_then(|id| c.rid_by_id(id));
    }
    match supporting_index(c, &t.on) {
        Some(ix) => {
            let mut ordered = Document::new();
            for k in ix.key.keys() {
                ordered.insert(k.clone(), key.get(k).cloned().unwrap_or(Bson::Null));
            }
            ix.entries().first_rid(&ix.index_key(&ordered))
        }
        // No index (a collection without `_id` index): compare every document.
        None => c
            .iter()
            .find(|(_, r)| {
                // Stored documents always decode (the engine wrote them).
                let Ok(doc) = r.doc() else { return false };
                key.iter().all(|(f, v)| {
                    let parts: Vec<&str> = f.split('.').collect();
                    get_nested(&doc, &parts).is_some_and(|x| value::equal(x, v))
                })
            })
            .map(|(rid, _)| rid),
    }
}

/// The document an upsert by `{ $set: doc }` inserts: the query's equality fields, then the
/// document's fields, `_id` first.
fn upserted(key: &Document, doc: &Document) -> Document {
    let mut out = Document::new();
    for (f, v) in key {
        let parts: Vec<&str> = f.split('.').collect();
        set_path(&mut out, &parts, v.clone());
    }
    for (k, v) in doc {
        out.insert(k.clone(), v.clone());
    }
    match out.get("_id").cloned() {
        Some(id) => write::with_id_first(id, &out),
        None => out,
    }
}

fn insert(db: &mut Database, ctx: &Ctx, t: &Target, doc: Document, bypass: bool) -> Result<()> {
    let prepared = write::prepare_insert(db, &doc)?;
    write::insert_prepared(db, &t.db, &t.coll, prepared, bypass, &ctx.env)
}

/// The `ImmutableField` error of an update that changed `_id`, with `$merge`'s context.
fn id_changed(message: String) -> Error {
    Error::new(ErrorKind::ImmutableField, message)
        .add_context("$merge failed to update the matching document, did you attempt to modify the _id or the shard key?")
}

/// Updates the matched target document `rid` as `whenMatched` says.
#[allow(clippy::too_many_arguments)]
fn update(db: &mut Database, ctx: &mut Ctx, t: &Target, rid: u64, item: &Item, when_matched: &Bson, pipeline: Option<&Pipeline>, bypass: bool) -> Result<()> {
    let Some(old) = db.collection(&t.db, &t.coll).and_then(|c| c.get(rid)).map(|r| r.doc()).transpose()? else { return Ok(()) };
    let old_id = old.get("_id").cloned();
    let changed_id = |new_id: Option<&Bson>| match (&old_id, new_id) {
        (Some(a), Some(b)) => value::compare(a, b) != std::cmp::Ordering::Equal,
        _ => false,
    };
    let d = &item.doc;
    let new = match when_matched {
        Bson::String(s) if s == "merge" => {
            // `{ $set: doc }`.
            if changed_id(d.get("_id")) {
                return Err(id_changed("Performing an update on the path '_id' would modify the immutable field '_id'".into()));
            }
            let mut m = old.clone();
            for (k, v) in d {
                m.insert(k.clone(), v.clone());
            }
            m
        }
        Bson::String(s) if s == "replace" => {
            if changed_id(d.get("_id")) {
                return Err(id_changed(altered(d.get("_id"))));
            }
            match &old_id {
                Some(id) if !d.contains_key("_id") => write::with_id_first(id.clone(), d),
                _ => d.clone(),
            }
        }
        Bson::String(s) if s == "keepExisting" => return Ok(()),
        Bson::Array(_) => {
            let Some(p) = pipeline else { return Ok(()) };
            let saved = ctx.env.vars.clone();
            for (k, v) in &item.vars {
                ctx.env.vars.insert(k.clone(), v.clone());
            }
            let r = {
                let catalog = db.catalog(&ctx.db, ctx.env.now);
                p.run(vec![old.clone()], &catalog, &ctx.env)
            };
            ctx.env.vars = saved;
            let Some(x) = r?.docs.into_iter().next() else { return Ok(()) };
            if changed_id(x.get("_id")) {
                return Err(id_changed(altered(x.get("_id"))));
            }
            match &old_id {
                Some(id) if !x.contains_key("_id") => write::with_id_first(id.clone(), &x),
                _ => x,
            }
        }
        _ => return Err(Error::bad_value("Enumeration value for whenMatched is not valid")),
    };
    validate::check_updated_size(&new)?;
    if !bypass {
        if let Some(c) = db.collection(&t.db, &t.coll) {
            c.check_validator(&new, Some(&old), &ctx.env)?;
        }
    }
    let size = value::bson_size(&new);
    let before = value::bson_size(&old);
    let paths = write::top_level_diff(&old, &new);
    let id = new.get("_id").cloned().unwrap_or(Bson::Null);
    if let Some(c) = db.collection_mut(&t.db, &t.coll) {
        c.replace(rid, new)?;
    }
    ctx.env.add_written(size as u64);
    db.report(|| WriteReport { collection: t.coll.clone(), id, before_size: Some(before), after_size: Some(size), changed_paths: paths, op: WriteOp::Replace });
    Ok(())
}

fn altered(id: Option<&Bson>) -> String {
    format!(
        "After applying the update, the (immutable) field '_id' was found to have been altered to {}",
        value::display::element("_id", id.unwrap_or(&Bson::Null))
    )
}
