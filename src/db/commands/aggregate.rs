//! `aggregate`: `{ aggregate: "c" | 1, pipeline, cursor, let, explain }` ->
//! `{ cursor: { firstBatch, id: 0, ns } }`, with the writes of `$out` and `$merge`.

use bson::{Bson, Document};

use crate::aggregate::{OutTarget, Pipeline};
use crate::error::{Error, ErrorKind, Result};
use crate::value;

use super::super::args::{self, Fields};
use super::super::exec::{self, Filter, Sort};
use super::super::index::duplicate_key_error;
use super::super::report::{WriteOp, WriteReport};
use super::super::validate;
use super::super::{Collection, Database};
use super::write;
use super::{cursor_reply, let_scope, let_vars, Ctx};

/// Stages that may start a collection-less (`aggregate: 1`) pipeline.
const COLLECTIONLESS_STAGES: &[&str] =
    &["$documents", "$currentOp", "$listLocalSessions", "$changeStream", "$queryStats", "$listSessions"];

/// The target of an aggregate command.
pub(crate) enum Target {
    Collection(String),
    /// `aggregate: 1`.
    Database,
}

pub(crate) fn target(cmd: &Document, db: &str) -> Result<Target> {
    match cmd.iter().next() {
        Some((_, Bson::String(_))) => Ok(Target::Collection(args::collection_name(cmd, db)?)),
        Some((_, v)) if value::Number::from_bson(v).map(|n| n.to_f64() == 1.0).unwrap_or(false) => Ok(Target::Database),
        _ => Err(Error::failed_to_parse(
            "Invalid command format: the 'aggregate' field must specify a collection name or 1",
        )),
    }
}

/// The pipeline stages of an aggregate command, each checked to be a document.
pub(crate) fn stages(cmd: &Document) -> Result<&Vec<Bson>> {
    let f = Fields::new(cmd, "aggregate");
    let pipeline = f.required_array("pipeline")?;
    for s in pipeline {
        if !matches!(s, Bson::Document(_)) {
            return Err(Error::type_mismatch("Each element of the 'pipeline' array must be an object"));
        }
    }
    Ok(pipeline)
}

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let target = target(cmd, &ctx.db)?;
    let stages = stages(cmd)?;
    let f = Fields::new(cmd, "aggregate");
    if f.bool_or("explain", false)? {
        return super::explain::explain_aggregate(db, ctx, cmd, "queryPlanner");
    }
    if f.doc("cursor")?.is_none() {
        return Err(Error::failed_to_parse(
            "The 'cursor' option is required, except for aggregate with the explain argument",
        ));
    }
    let_vars(ctx, f.doc("let")?)?;
    let ns = match &target {
        Target::Collection(c) => format!("{}.{c}", ctx.db),
        Target::Database => format!("{}.$cmd.aggregate", ctx.db),
    };
    let docs = run_pipeline(db, ctx, &target, stages, f.bool_or("bypassDocumentValidation", false)?, cmd.get("hint"))?;
    Ok(cursor_reply(&ns, docs))
}

/// Parses and runs a pipeline over its target, performing `$out`/`$merge`; returns the
/// documents the cursor returns (none after `$out`/`$merge`).
pub(crate) fn run_pipeline(db: &mut Database, ctx: &mut Ctx, target: &Target, stages: &[Bson], bypass: bool, hint: Option<&Bson>) -> Result<Vec<Document>> {
    if let (Target::Database, Some(Bson::Document(first))) = (target, stages.first()) {
        let name = first.keys().next().cloned().unwrap_or_default();
        if !COLLECTIONLESS_STAGES.contains(&name.as_str()) {
            return Err(Error::new(
                ErrorKind::InvalidNamespace,
                format!("{{aggregate: 1}} is not valid for '{name}'; a collection is required."),
            ));
        }
    }
    // `$collStats` reads the catalog, not documents: its one document goes through the rest.
    if let (Target::Collection(c), Some(Bson::Document(first))) = (target, stages.first()) {
        if let Some(spec) = first.get("$collStats").filter(|_| first.len() == 1) {
            let stats = super::stats::coll_stats_stage(db, ctx, c, spec)?;
            let rest = Pipeline::parse_with(&stages[1..], &let_scope(ctx))?;
            let catalog = db.catalog(&ctx.db, ctx.env.now);
            let out = rest.run(vec![stats], &catalog, &ctx.env)?;
            return Ok(out.docs);
        }
    }
    // A view's stages run first, over the collection it is defined on.
    let (source, all_stages) = match target {
        Target::Collection(c) => match db.resolve_view(&ctx.db, c)? {
            Some(view) => {
                let mut all = view.pipeline;
                all.extend(stages.iter().cloned());
                (Target::Collection(view.collection), all)
            }
            None => (Target::Collection(c.clone()), stages.to_vec()),
        },
        Target::Database => (Target::Database, stages.to_vec()),
    };
    let pipeline = Pipeline::parse_with(&all_stages, &let_scope(ctx))?;
    // Errors raised while the pipeline runs carry the server's executor context (naming the
    // namespace the command named, a view's included).
    let context = format!(
        "Executor error during aggregate command on namespace: {}",
        match target {
            Target::Collection(c) => format!("{}.{c}", ctx.db),
            Target::Database => format!("{}.$cmd.aggregate", ctx.db),
        }
    );
    let executor = |e: Error| e.add_context(&context);
    let output = {
        // The collection's documents are read in place (copied only by stages that need them).
        let (input, matched_first) = match &source {
            Target::Collection(c) => match db.collection(&ctx.db, c) {
                Some(coll) => read_input(coll, &all_stages, hint, &context, &ctx.env)?,
                None => (Vec::new(), false),
            },
            Target::Database => (Vec::new(), false),
        };
        let catalog = db.catalog(&ctx.db, ctx.env.now);
        pipeline.run_on_refs(input, matched_first, &catalog, &ctx.env).map_err(executor)?
    };
    match output.out {
        None => {
            ctx.env.add_returned(output.docs.len() as u64);
            Ok(output.docs)
        }
        Some(OutTarget::Out { collection }) => {
            out(db, ctx, &collection, output.docs, bypass)?;
            Ok(Vec::new())
        }
        Some(OutTarget::Merge { spec }) => {
            merge(db, ctx, &spec, output.docs, bypass)?;
            Ok(Vec::new())
        }
    }
}

/// The documents a pipeline starts from. A leading `$match` (with a `$sort` and `$limit` right
/// after it) is answered by the query planner, as the server pushes them down; the stages still
/// run over the documents it returns (which they leave as they are), but for that `$match`.
/// `executor` is the context of errors raised while the plan runs.
fn read_input<'c>(coll: &'c Collection, stages: &[Bson], hint: Option<&Bson>, executor: &str, env: &crate::env::Env) -> Result<(Vec<&'c Document>, bool)> {
    let stage = |i: usize, name: &str| match stages.get(i) {
        Some(Bson::Document(d)) if d.len() == 1 => d.get(name),
        _ => None,
    };
    let Some(Bson::Document(filter)) = stage(0, "$match") else {
        env.add_docs_examined(coll.len() as u64, coll.data_size() as u64);
        return Ok((coll.iter().map(|(_, r)| &r.doc).collect(), false));
    };
    let sort_doc = match stage(1, "$sort") {
        Some(Bson::Document(s)) => Some(s.clone()),
        _ => None,
    };
    let limit_at = if sort_doc.is_some() { 2 } else { 1 };
    let limit = match stage(limit_at, "$limit") {
        Some(v) => value::Number::from_bson(v).and_then(|n| n.to_exact_i64()).filter(|n| *n > 0).unwrap_or(0) as u64,
        None => 0,
    };
    let filter = Filter::parse(filter, env)?.with_hint(hint).in_executor(executor);
    let sort = Sort::parse(sort_doc.as_ref())?;
    let found = exec::select(coll, &filter, sort.as_ref(), 0, limit, env)?;
    Ok((found.into_iter().filter_map(|(rid, _)| coll.get(rid).map(|r| &r.doc)).collect(), true))
}

/// `$out`: replaces the target's documents with the results, all or nothing. The target keeps
/// its indexes and options.
fn out(db: &mut Database, ctx: &mut Ctx, coll: &str, docs: Vec<Document>, bypass: bool) -> Result<()> {
    let dbname = ctx.db.clone();
    db.check_not_view(&dbname, coll)?;
    let mut staged: Collection = match db.collection(&dbname, coll) {
        Some(c) => c.clone(),
        None => db.make_collection(&dbname, coll, Document::new())?,
    };
    staged.clear();
    let mut reports = Vec::new();
    for d in &docs {
        let prepared = write::prepare_insert(db, d)?;
        if !bypass {
            staged.check_validator(&prepared, None, &ctx.env)?;
        }
        let size = value::bson_size(&prepared);
        let id = prepared.get("_id").cloned().unwrap_or(Bson::Null);
        let paths = prepared.keys().cloned().collect();
        staged.insert(prepared)?;
        ctx.env.add_written(size as u64);
        reports.push(WriteReport { collection: coll.to_string(), id, before_size: None, after_size: Some(size), changed_paths: paths, op: WriteOp::Insert });
    }
    db.drop_collection(&dbname, coll);
    db.insert_collection(&dbname, staged);
    for r in reports {
        db.report(r);
    }
    Ok(())
}

/// The `into` of a `$merge` spec: a collection name or `{ db, coll }`.
fn merge_into(spec: &Document, default_db: &str) -> Result<(String, String)> {
    match spec.get("into") {
        Some(Bson::String(s)) => Ok((default_db.to_string(), s.clone())),
        Some(Bson::Document(d)) => {
            let db = d.get_str("db").unwrap_or(default_db).to_string();
            let coll = d.get_str("coll").map_err(|_| Error::failed_to_parse("$merge 'into' requires 'coll'"))?.to_string();
            Ok((db, coll))
        }
        _ => Err(Error::failed_to_parse("$merge requires 'into'")),
    }
}

/// `$merge`: each result is matched to the target on the `on` fields and merged, replaced, kept,
/// inserted, discarded or rejected as `whenMatched`/`whenNotMatched` say. Not atomic: documents
/// before a failure stay written.
fn merge(db: &mut Database, ctx: &mut Ctx, spec: &Document, docs: Vec<Document>, bypass: bool) -> Result<()> {
    let (dbname, coll) = merge_into(spec, &ctx.db)?;
    let on: Vec<String> = match spec.get("on") {
        None => vec!["_id".to_string()],
        Some(Bson::String(s)) => vec![s.clone()],
        Some(Bson::Array(a)) => a.iter().filter_map(|v| v.as_str().map(String::from)).collect(),
        Some(_) => return Err(Error::type_mismatch("$merge 'on' must be a string or an array of strings")),
    };
    let when_matched = spec.get("whenMatched").cloned().unwrap_or(Bson::String("merge".into()));
    let when_not_matched = spec.get("whenNotMatched").and_then(|v| v.as_str()).unwrap_or("insert").to_string();
    let matched_pipeline = match &when_matched {
        Bson::Array(stages) => {
            let mut scope = let_scope(ctx);
            scope.names.push("new".into());
            if let Some(Bson::Document(l)) = spec.get("let") {
                scope.names.extend(l.keys().cloned());
            }
            Some(Pipeline::parse_with(stages, &scope)?)
        }
        _ => None,
    };
    let merge_vars: Vec<(String, Bson)> = match spec.get("let") {
        Some(Bson::Document(l)) => l.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        _ => Vec::new(),
    };
    db.check_not_view(&dbname, &coll)?;
    if db.collection(&dbname, &coll).is_none() {
        db.create_collection(&dbname, &coll, Document::new())?;
    }
    let is_id_only = on.len() == 1 && on[0] == "_id";
    for d in docs {
        let d = if d.contains_key("_id") { d } else { write::with_id_first(Bson::ObjectId(db.new_object_id()), &d) };
        let existing = {
            let Some(c) = db.collection(&dbname, &coll) else { break };
            if is_id_only {
                d.get("_id").and_then(|id| c.rid_by_id(id))
            } else {
                c.iter()
                    .find(|(_, r)| {
                        on.iter().all(|f| match (value::path::get_strict(&r.doc, f), value::path::get_strict(&d, f)) {
                            (Some(a), Some(b)) => value::equal(a, b),
                            (None, None) => true,
                            _ => false,
                        })
                    })
                    .map(|(rid, _)| rid)
            }
        };
        match existing {
            Some(rid) => {
                let Some(old) = db.collection(&dbname, &coll).and_then(|c| c.get(rid)).map(|r| r.doc.clone()) else { continue };
                let new = match &when_matched {
                    Bson::String(s) if s == "merge" => {
                        let mut m = old.clone();
                        for (k, v) in &d {
                            m.insert(k.clone(), v.clone());
                        }
                        m
                    }
                    Bson::String(s) if s == "replace" => d.clone(),
                    Bson::String(s) if s == "keepExisting" => continue,
                    Bson::String(s) if s == "fail" => {
                        let mut key = Document::new();
                        for f in &on {
                            if let Some(v) = value::path::get_strict(&d, f) {
                                key.insert(f.clone(), v.clone());
                            }
                        }
                        let mut pattern = Document::new();
                        for f in &on {
                            pattern.insert(f.clone(), 1);
                        }
                        let ns = format!("{dbname}.{coll}");
                        let name = if is_id_only { "_id_".to_string() } else { super::super::index::default_name(&pattern) };
                        return Err(duplicate_key_error(&ns, &name, &pattern, &key));
                    }
                    Bson::Array(_) => {
                        let Some(p) = &matched_pipeline else { continue };
                        let saved = ctx.env.vars.clone();
                        ctx.env.vars.insert("new".into(), Bson::Document(d.clone()));
                        for (k, v) in &merge_vars {
                            ctx.env.vars.insert(k.clone(), v.clone());
                        }
                        let r = {
                            let catalog = db.catalog(&ctx.db, ctx.env.now);
                            p.run(vec![old.clone()], &catalog, &ctx.env)
                        };
                        ctx.env.vars = saved;
                        match r?.docs.into_iter().next() {
                            Some(x) => x,
                            None => continue,
                        }
                    }
                    _ => return Err(Error::bad_value("Enumeration value for whenMatched is not valid")),
                };
                let new = if new.contains_key("_id") { new } else { write::with_id_first(old.get("_id").cloned().unwrap_or(Bson::Null), &new) };
                validate::check_updated_size(&new)?;
                if !bypass {
                    if let Some(c) = db.collection(&dbname, &coll) {
                        c.check_validator(&new, Some(&old), &ctx.env)?;
                    }
                }
                let size = value::bson_size(&new);
                let before = value::bson_size(&old);
                let paths = write::top_level_diff(&old, &new);
                let id = new.get("_id").cloned().unwrap_or(Bson::Null);
                if let Some(c) = db.collection_mut(&dbname, &coll) {
                    c.replace(rid, new)?;
                }
                ctx.env.add_written(size as u64);
                db.report(WriteReport { collection: coll.clone(), id, before_size: Some(before), after_size: Some(size), changed_paths: paths, op: WriteOp::Replace });
            }
            None => match when_not_matched.as_str() {
                "insert" => {
                    let prepared = write::prepare_insert(db, &d)?;
                    write::insert_prepared(db, &dbname, &coll, prepared, bypass, &ctx.env)?;
                }
                "discard" => {}
                "fail" => {
                    return Err(Error::code(
                        13113,
                        "$merge could not find a matching document in the target collection for at least one document in the source collection",
                    ))
                }
                other => return Err(Error::bad_value(format!("Enumeration value '{other}' for field 'whenNotMatched' is not a valid value."))),
            },
        }
    }
    Ok(())
}
