//! The write paths shared by `update`, `delete`, `findAndModify`, `$merge` and the update
//! preview: one update or delete statement over one collection, with the server's upsert rules,
//! `_id` immutability, storage validation and size limits, and a write report per document.

use bson::{Bson, Document};

use crate::env::Env;
use crate::error::{Error, Result};
use crate::expr::VarScope;
use crate::query::MatchDetails;
use crate::update::{Undo, Update};
use crate::value;

use super::super::collection::KeyMoves;
use super::super::exec::{self, Filter, Sort};
use super::super::report::{WriteOp, WriteReport};
use super::super::validate;
use super::super::Database;

/// A parsed update (operators, a pipeline, or a replacement document) of one statement.
#[derive(Debug, Clone)]
pub(crate) struct UpdateSpec(Update);

impl UpdateSpec {
    /// Parses `u` of an update statement with the variables in `scope` (the command's `let`
    /// and the statement's constants). A replacement may not be `multi`.
    pub fn parse(u: &Bson, array_filters: Option<&[Document]>, multi: bool, scope: &VarScope) -> Result<UpdateSpec> {
        let parsed = Update::parse_with(u, array_filters, scope)?;
        if parsed.is_replacement() && multi {
            return Err(Error::failed_to_parse("multi update is not supported for replacement-style update"));
        }
        Ok(UpdateSpec(parsed))
    }

    pub fn is_replacement(&self) -> bool {
        self.0.is_replacement()
    }
}

/// One document after an update.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub doc: Document,
    pub changed_paths: Vec<String>,
    pub modified: bool,
}

/// Applies an update to a stored document. The update module checks what the server's update
/// driver checks (`_id` unchanged, field names, size); the storage layer adds the nesting limit.
pub(crate) fn apply_to_existing(spec: &UpdateSpec, old: &Document, positional: Option<usize>, env: &Env) -> Result<Outcome> {
    let a = spec.0.apply(old, positional, false, env)?;
    if !a.modified {
        return Ok(Outcome { doc: a.doc, changed_paths: Vec::new(), modified: false });
    }
    validate::check_depth(&a.doc)?;
    Ok(Outcome { doc: a.doc, changed_paths: a.changed_paths, modified: true })
}

/// Applies an update to a stored document in place (see [`Collection::update_in_place`]): the
/// same checks as [`apply_to_existing`], the nesting limit only on what the update changed
/// (`undo` knows which fields those are; the rest was checked when it was stored).
pub(crate) fn apply_in_place(
    spec: &UpdateSpec,
    doc: &mut Document,
    undo: &Undo,
    stored_size: usize,
    positional: Option<usize>,
    env: &Env,
) -> Result<crate::update::InPlace> {
    let r = spec.0.apply_stored_in_place(doc, positional, env, undo, stored_size)?;
    if r.modified {
        validate::check_depth_of(&undo.changed_values(doc))?;
    }
    Ok(r)
}

/// A document's new bytes and the paths the update changed (see [`apply_bytes`]).
pub(crate) type BytesWritten<'a> = (Vec<u8>, Vec<&'a str>);

/// [`apply_in_place`] on a stored document's bytes, when the bytes path can do it
/// (`Update::apply_bytes`; `None` otherwise, and when a check would fail: the general path then
/// words the error): `Ok(None)` when nothing changes, else the new bytes and the changed paths.
pub(crate) fn apply_bytes<'a>(spec: &'a UpdateSpec, raw: &bson::RawDocument, env: &Env) -> Option<Result<Option<BytesWritten<'a>>>> {
    let u = spec.0.apply_bytes(raw, env)?;
    if !u.modified() {
        return Some(Ok(None));
    }
    for v in u.changed_values() {
        validate::check_depth_of(&[v]).ok()?;
    }
    Some(super::super::wire::splice_edits(raw.as_bytes(), &u.edits, u.size).and_then(|bytes| {
        if bytes.len() != u.size {
            return Err(Error::new(crate::error::ErrorKind::InternalError, "update: the size of an updated document was miscounted"));
        }
        Ok(Some((bytes, u.changed_paths)))
    }))
}

/// Builds the document an upsert inserts: the filter's equality fields (only `_id` for a
/// replacement), then the update applied with `inserting = true`, `_id` first (generated when
/// absent), then the storage rules and size.
pub(crate) fn build_upsert(spec: &UpdateSpec, filter: &Document, env: &Env, new_id: &mut dyn FnMut() -> Bson) -> Result<Outcome> {
    let mut seed = crate::query::upsert_seed(filter)?;
    if spec.is_replacement() {
        seed = match seed.get("_id") {
            Some(id) => bson::doc! {"_id": id.clone()},
            None => Document::new(),
        };
    }
    let doc = spec.0.apply(&seed, None, true, env)?.doc;
    let doc = match doc.get("_id") {
        Some(_) if doc.keys().next().map(|k| k == "_id").unwrap_or(false) => doc,
        Some(id) => with_id_first(id.clone(), &doc),
        None => with_id_first(new_id(), &doc),
    };
    if let Some(id) = doc.get("_id") {
        validate::valid_id_field(id)?;
    }
    validate::check_depth(&doc)?;
    let changed_paths = doc.keys().cloned().collect();
    Ok(Outcome { doc, changed_paths, modified: true })
}

/// `doc` with `_id` set to `id` and moved first.
pub(crate) fn with_id_first(id: Bson, doc: &Document) -> Document {
    let mut out = Document::new();
    out.insert("_id", id);
    for (k, v) in doc {
        if k != "_id" {
            out.insert(k.clone(), v.clone());
        }
    }
    out
}

/// Top-level fields that differ between two documents (changed, added, then removed).
pub(crate) fn top_level_diff(old: &Document, new: &Document) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in new {
        match old.get(k) {
            Some(o) if o.element_type() == v.element_type() && value::equal(o, v) => {}
            _ => out.push(k.clone()),
        }
    }
    for k in old.keys() {
        if !new.contains_key(k) {
            out.push(k.clone());
        }
    }
    out
}

/// Options of one update statement.
#[derive(Debug, Clone, Default)]
pub(crate) struct StatementOpts<'a> {
    pub upsert: bool,
    pub multi: bool,
    pub sort: Option<&'a Document>,
    /// Keep each document's before/after (findAndModify, preview).
    pub keep_docs: bool,
    /// `bypassDocumentValidation`.
    pub bypass_validation: bool,
    /// The statement's `hint`.
    pub hint: Option<&'a Bson>,
    /// The command the server's executor names in the errors it raises while the update runs
    /// (`update`, `findAndModify`): see [`executor_context`].
    pub operation: &'a str,
}

/// What the server's executor puts before an error raised while a write runs (matching,
/// applying the update, validation, duplicate keys), not before parse or planning errors:
/// `Plan executor error during update :: caused by :: ...`.
pub(crate) fn executor_context(operation: &str) -> String {
    format!("Plan executor error during {operation}")
}

/// One document an update statement wrote.
#[derive(Debug, Clone)]
pub(crate) struct DocChange {
    /// `None` for an upsert.
    pub before: Option<Document>,
    pub after: Document,
    pub changed_paths: Vec<String>,
}

/// The result of one update statement.
#[derive(Debug, Clone, Default)]
pub(crate) struct UpdateResult {
    pub matched: u64,
    pub modified: u64,
    pub upserted: Option<Bson>,
    pub docs: Vec<DocChange>,
}

/// Runs one update statement on collection `coll` of database `dbname`. On an error in a
/// multi-document update the documents already updated stay updated (as on the server); the
/// failing document is unchanged.
pub(crate) fn update_statement(
    db: &mut Database,
    dbname: &str,
    coll: &str,
    q: &Document,
    spec: &UpdateSpec,
    opts: &StatementOpts,
    env: &Env,
) -> Result<UpdateResult> {
    db.check_not_view(dbname, coll)?;
    let filter = Filter::parse(q, env)?.with_hint(opts.hint).in_executor(executor_context(opts.operation));
    let ex = |e: Error| filter.executor_error(e);
    let sort = Sort::parse(opts.sort)?;
    let targets: Vec<(u64, MatchDetails)> = match db.collection(dbname, coll) {
        None => Vec::new(),
        Some(c) => {
            if opts.multi {
                exec::matching(c, &filter, env, None)?
            } else {
                exec::select(c, &filter, sort.as_ref(), 0, 1, env)?
            }
        }
    };
    let mut result = UpdateResult::default();
    if targets.is_empty() {
        if opts.upsert {
            let out = build_upsert(spec, q, env, &mut || Bson::ObjectId(db.new_object_id())).map_err(ex)?;
            let id = exec::id_of(&out.doc);
            let size = value::bson_size(&out.doc);
            let c = db.collection_or_create(dbname, coll)?;
            if !opts.bypass_validation {
                c.check_validator(&out.doc, None, env).map_err(ex)?;
            }
            let (stored, after) = if opts.keep_docs { (out.doc.clone(), Some(out.doc)) } else { (out.doc, None) };
            c.insert(stored).map_err(ex)?;
            env.add_written(size as u64);
            db.report(|| WriteReport {
                collection: coll.to_string(),
                id: id.clone(),
                before_size: None,
                after_size: Some(size),
                changed_paths: out.changed_paths.clone(),
                op: WriteOp::Upsert,
            });
            result.matched = 0;
            result.upserted = Some(id);
            if let Some(after) = after {
                result.docs.push(DocChange { before: None, after, changed_paths: out.changed_paths });
            }
        }
        return Ok(result);
    }
    let op = if spec.is_replacement() { WriteOp::Replace } else { WriteOp::Update };
    // An operator update reads only the top-level fields its paths start with.
    let fields = spec.0.top_fields();
    // Index key moves put off (see `KeyMoves`): applied whatever the loop's outcome, before
    // anything else reads the indexes.
    let mut moves = KeyMoves::default();
    // Nobody needs the old documents (no before-image, no validator to run: the statement
    // changes neither): the stored ones are updated in place.
    let in_place = !opts.keep_docs && (opts.bypass_validation || !db.collection(dbname, coll).is_some_and(|c| c.has_validator()));
    let looped = (|| -> Result<()> {
        for (rid, details) in targets {
            if in_place {
                let mut changed_paths = Vec::new();
                let wants_report = db.wants_report();
                let Some(cm) = db.collection_mut(dbname, coll) else { break };
                let before_size = cm.get(rid).map(|r| r.size()).unwrap_or(0);
                let found = std::cell::Cell::new(false);
                let fast_paths = std::cell::RefCell::new(None);
                let written = cm
                    .update_in_place(
                        rid,
                        fields.as_deref(),
                        Some(&mut moves),
                        |raw| {
                            let r = apply_bytes(spec, raw, env)?;
                            found.set(true);
                            Some(r.map(|r| {
                                r.map(|(bytes, paths)| {
                                    *fast_paths.borrow_mut() = Some(paths);
                                    bytes
                                })
                            }))
                        },
                        |doc| spec.0.undo_point(doc),
                        |doc, undo| {
                            found.set(true);
                            let r = apply_in_place(spec, doc, undo, before_size, details.elem_index, env)?;
                            changed_paths = r.changed_paths;
                            Ok(r.modified.then_some(r.size))
                        },
                    )
                    .map_err(ex)?;
                // (the bytes path's names become strings only for a report kept)
                let fast_paths: Option<Vec<&str>> = fast_paths.into_inner();
                if !found.get() {
                    continue;
                }
                result.matched += 1;
                let Some(size) = written else { continue };
                let id = if wants_report { cm.get(rid).map(|r| r.id()).unwrap_or(Bson::Null) } else { Bson::Null };
                env.add_written(size as u64);
                result.modified += 1;
                db.report(|| {
                    let changed_paths = match fast_paths {
                        Some(paths) => paths.into_iter().map(String::from).collect(),
                        None => changed_paths,
                    };
                    WriteReport { collection: coll.to_string(), id, before_size: Some(before_size), after_size: Some(size), changed_paths, op }
                });
                continue;
            }
            if !moves.is_empty() {
                // (the whole-document path below reads and moves every index's keys)
                if let Some(cm) = db.collection_mut(dbname, coll) {
                    cm.apply_key_moves(&mut moves);
                }
            }
            let Some(c) = db.collection(dbname, coll) else { break };
            let Some(rec) = c.get(rid) else { continue };
            let before_size = rec.size();
            let old = rec.doc()?;
            let out = apply_to_existing(spec, &old, details.elem_index, env).map_err(ex)?;
            result.matched += 1;
            if !out.modified {
                if opts.keep_docs {
                    result.docs.push(DocChange { before: Some(old.clone()), after: old, changed_paths: Vec::new() });
                }
                continue;
            }
            let id = exec::id_of(&out.doc);
            let size = value::bson_size(&out.doc);
            if !opts.bypass_validation {
                c.check_validator(&out.doc, Some(&old), env).map_err(ex)?;
            }
            let before = if opts.keep_docs { Some(old) } else { None };
            let Some(cm) = db.collection_mut(dbname, coll) else { break };
            // The new document moves into the collection; a copy is kept only when asked for
            // (copying large documents dominated the cost of updates, e.g. `$push` into buckets).
            let after = if opts.keep_docs { Some(out.doc.clone()) } else { None };
            cm.replace(rid, out.doc).map_err(ex)?;
            env.add_written(size as u64);
            result.modified += 1;
            db.report(|| WriteReport {
                collection: coll.to_string(),
                id,
                before_size: Some(before_size),
                after_size: Some(size),
                changed_paths: out.changed_paths.clone(),
                op,
            });
            if let Some(after) = after {
                result.docs.push(DocChange { before, after, changed_paths: out.changed_paths });
            }
        }
        Ok(())
    })();
    if let Some(cm) = db.collection_mut(dbname, coll) {
        cm.apply_key_moves(&mut moves);
    }
    looped?;
    Ok(result)
}

/// What a delete statement removed: how many documents, and the first of them (a `deleteMany`
/// keeps none: holding every removed document decoded would take many times the collection's
/// size).
#[derive(Debug, Default)]
pub(crate) struct Removed {
    pub n: usize,
    pub first: Option<Document>,
}

/// Runs one delete statement: removes the first matching document (after `sort`) when
/// `just_one`, else every match.
pub(crate) fn delete_statement(
    db: &mut Database,
    dbname: &str,
    coll: &str,
    q: &Document,
    just_one: bool,
    sort: Option<&Document>,
    hint: Option<&Bson>,
    operation: &str,
    env: &Env,
) -> Result<Removed> {
    db.check_not_view(dbname, coll)?;
    let filter = Filter::parse(q, env)?.with_hint(hint).in_executor(executor_context(operation));
    let sort = Sort::parse(sort)?;
    let targets = match db.collection(dbname, coll) {
        None => return Ok(Removed::default()),
        Some(c) => {
            if just_one {
                exec::select(c, &filter, sort.as_ref(), 0, 1, env)?
            } else {
                exec::matching(c, &filter, env, None)?
            }
        }
    };
    let mut removed = Removed::default();
    if !just_one {
        // Every match at once (`Collection::remove_many`); the reports kept are made as before
        // (in match order, from the `_id` and the field names read in place).
        let rids: Vec<u64> = targets.iter().map(|(rid, _)| *rid).collect();
        let room = db.report_room();
        let mut kept: Vec<(usize, Bson, Vec<String>)> = Vec::new();
        let Some(c) = db.collection_mut(dbname, coll) else { return Ok(removed) };
        removed.n = c.remove_many(&rids, |rec| {
            if kept.len() < room {
                kept.push((rec.size(), rec.id(), rec.top_keys()?));
            }
            Ok(kept.len() < room)
        })?;
        let unkept = removed.n.saturating_sub(kept.len());
        for (size, id, keys) in kept {
            db.report(|| WriteReport {
                collection: coll.to_string(),
                id,
                before_size: Some(size),
                after_size: None,
                changed_paths: keys,
                op: WriteOp::Delete,
            });
        }
        db.count_reports(unkept);
        return Ok(removed);
    }
    for (rid, _) in targets {
        // The document is decoded only when someone reads it: the one a single delete returns,
        // and the reports kept (`Database::report`); the removal reads the index keys from the
        // stored bytes.
        let wants_report = db.wants_report();
        let Some(c) = db.collection_mut(dbname, coll) else { break };
        let doc = match c.get(rid) {
            Some(r) if just_one || wants_report => Some(r.doc()?),
            _ => None,
        };
        if let Some(rec) = c.remove_record(rid)? {
            let size = rec.size();
            db.report(|| WriteReport {
                collection: coll.to_string(),
                id: doc.as_ref().map(exec::id_of).unwrap_or(Bson::Null),
                before_size: Some(size),
                after_size: None,
                changed_paths: doc.as_ref().map(|d| d.keys().cloned().collect()).unwrap_or_default(),
                op: WriteOp::Delete,
            });
            removed.n += 1;
            if just_one {
                removed.first = doc;
            }
        }
    }
    Ok(removed)
}

/// Inserts one document (already prepared: `_id` first) and records it.
pub(crate) fn insert_prepared(db: &mut Database, dbname: &str, coll: &str, doc: Document, bypass_validation: bool, env: &Env) -> Result<()> {
    let size = value::bson_size(&doc);
    let report = db.wants_report().then(|| (exec::id_of(&doc), doc.keys().cloned().collect::<Vec<String>>()));
    db.check_not_view(dbname, coll)?;
    let c = db.collection_or_create(dbname, coll)?;
    if !bypass_validation {
        c.check_validator(&doc, None, env)?;
    }
    c.insert(doc)?;
    env.add_written(size as u64);
    db.report(|| {
        let (id, paths) = report.unwrap_or_default();
        WriteReport { collection: coll.to_string(), id, before_size: None, after_size: Some(size), changed_paths: paths, op: WriteOp::Insert }
    });
    Ok(())
}

/// [`insert_prepared`] of a document prepared as bytes ([`prepare_insert_raw`]), for a
/// collection that needs no decoded document (no validator to run, not time series): the
/// bytes become the record.
pub(crate) fn insert_prepared_raw(db: &mut Database, dbname: &str, coll: &str, bytes: Vec<u8>, env: &Env) -> Result<()> {
    let size = bytes.len();
    let report = if db.wants_report() {
        let raw = bson::RawDocument::from_bytes(&bytes).map_err(|e| Error::new(crate::error::ErrorKind::InvalidBSON, e.to_string()))?;
        let id = raw.get("_id").ok().flatten().and_then(|v| value::raw::decode_value(v).ok()).unwrap_or(Bson::Null);
        let paths = raw.iter().filter_map(|e| e.ok().map(|(k, _)| k.as_str().to_string())).collect::<Vec<String>>();
        Some((id, paths))
    } else {
        None
    };
    db.check_not_view(dbname, coll)?;
    let c = db.collection_or_create(dbname, coll)?;
    c.insert_bytes(bytes)?;
    env.add_written(size as u64);
    db.report(|| {
        let (id, paths) = report.unwrap_or_default();
        WriteReport { collection: coll.to_string(), id, before_size: None, after_size: Some(size), changed_paths: paths, op: WriteOp::Insert }
    });
    Ok(())
}

/// [`prepare_insert`] of a document given as bytes that `value::raw::check_stored_form`
/// found in the stored form and within the storage depth: the same ObjectIds and timestamps
/// drawn, the same checks; the prepared document's bytes (`bytes` itself when it needs no
/// change).
pub(crate) fn prepare_insert_raw(db: &mut Database, bytes: Vec<u8>) -> Result<Vec<u8>> {
    let bad = |e: bson::error::Error| Error::new(crate::error::ErrorKind::InvalidBSON, e.to_string());
    let raw = bson::RawDocument::from_bytes(&bytes).map_err(bad)?;
    let mut needs_id = true;
    let mut zero_ts = 0;
    for el in raw.iter_elements() {
        let el = el.map_err(bad)?;
        needs_id &= el.key().as_str() != "_id";
        if el.element_type() == bson::spec::ElementType::Timestamp && matches!(el.value(), Ok(bson::RawBsonRef::Timestamp(t)) if t.time == 0 && t.increment == 0) {
            zero_ts += 1;
        }
    }
    let (mut ids, mut tss) = draw_for_insert(db, needs_id, zero_ts);
    let out = validate::prepare_insert_raw(
        &bytes,
        &mut || ids.next().unwrap_or(Bson::Null),
        &mut || tss.next().unwrap_or(bson::Timestamp { time: 0, increment: 0 }),
    )?;
    Ok(out.unwrap_or(bytes))
}

/// What preparing one document for insertion draws from the database: an ObjectId when it has
/// no `_id`, and a timestamp for each top-level `Timestamp(0, 0)`. Counted first, so no id is
/// consumed for a document that has one.
fn draw_for_insert(db: &mut Database, needs_id: bool, zero_ts: usize) -> (std::vec::IntoIter<Bson>, std::vec::IntoIter<bson::Timestamp>) {
    let ids: Vec<Bson> = if needs_id { vec![Bson::ObjectId(db.new_object_id())] } else { Vec::new() };
    let tss: Vec<bson::Timestamp> = (0..zero_ts).map(|_| db.next_timestamp()).collect();
    (ids.into_iter(), tss.into_iter())
}

/// Prepares a user document for insertion (`fixDocumentForInsert`), drawing ObjectIds and
/// timestamps from the database.
pub(crate) fn prepare_insert(db: &mut Database, doc: &Document) -> Result<Document> {
    let needs_id = !doc.contains_key("_id");
    let zero_ts = doc.values().filter(|v| matches!(v, Bson::Timestamp(t) if t.time == 0 && t.increment == 0)).count();
    let (mut ids, mut tss) = draw_for_insert(db, needs_id, zero_ts);
    validate::prepare_insert(
        doc,
        &mut || ids.next().unwrap_or(Bson::Null),
        &mut || tss.next().unwrap_or(bson::Timestamp { time: 0, increment: 0 }),
    )
}

/// Runs the statements of a write command: `run(i)` for each, collecting the write errors; an
/// ordered command stops at the first error. Returns the successful results with their index.
pub(crate) fn each_statement<T>(count: usize, ordered: bool, mut run: impl FnMut(usize) -> Result<T>) -> (Vec<(usize, T)>, Vec<Bson>) {
    let mut done = Vec::new();
    let mut errors = Vec::new();
    for i in 0..count {
        match run(i) {
            Ok(r) => done.push((i, r)),
            Err(e) => {
                errors.push(Bson::Document(write_error(i, &e)));
                if ordered {
                    break;
                }
            }
        }
    }
    (done, errors)
}

/// The reply of `insert`/`delete`: `{ n, writeErrors? }`.
pub(crate) fn n_reply(n: i64, errors: Vec<Bson>) -> Document {
    let mut reply = Document::new();
    reply.insert("n", super::number(n));
    if !errors.is_empty() {
        reply.insert("writeErrors", errors);
    }
    reply
}

/// A write error entry of a write command reply: `{ index, code, [keyPattern, keyValue,] errmsg }`.
pub(crate) fn write_error(index: usize, e: &Error) -> Document {
    let mut d = Document::new();
    d.insert("index", index as i32);
    d.insert("code", e.code_num());
    if let Some(info) = &e.info {
        for (k, v) in info {
            d.insert(k.clone(), v.clone());
        }
    }
    d.insert("errmsg", e.message.clone());
    d
}
