//! `aggregate`: `{ aggregate: "c" | 1, pipeline, cursor: { batchSize }, let, explain }` ->
//! `{ cursor: { firstBatch, id, ns } }` (the rest through `getMore`, `db::cursors`), with the
//! writes of `$out` and `$merge`.

use bson::{Bson, Document};

use crate::aggregate::{OutTarget, Pipeline};
use crate::error::{Error, ErrorKind, Result};
use crate::value;

use super::super::args::{self, Fields};
use super::super::exec::{self, Filter, Sort};
use super::super::report::{WriteOp, WriteReport};
use super::super::{Collection, Database, Record};
use super::super::cursors::{OpenCursor, Rest};
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
    let Some(cursor_opts) = f.doc("cursor")? else {
        return Err(Error::failed_to_parse(
            "The 'cursor' option is required, except for aggregate with the explain argument",
        ));
    };
    let batch_size = Fields::new(cursor_opts, "cursor").non_negative("batchSize")?;
    let_vars(ctx, f.doc("let")?)?;
    let ns = match &target {
        Target::Collection(c) => format!("{}.{c}", ctx.db),
        Target::Database => format!("{}.$cmd.aggregate", ctx.db),
    };
    let writes = stages.iter().any(|s| matches!(s, Bson::Document(d) if d.contains_key("$out") || d.contains_key("$merge")));
    let docs = run_pipeline(db, ctx, &target, stages, f.bool_or("bypassDocumentValidation", false)?, cmd.get("hint"))?;
    if writes {
        return Ok(cursor_reply(&ns, docs));
    }
    // What the first batch does not hold stays with an open cursor for `getMore`.
    let collection = match &target {
        Target::Collection(c) => c.clone(),
        Target::Database => "$cmd.aggregate".to_string(),
    };
    let cursor = OpenCursor { ns, collection, uuid: None, rest: Rest::Docs(docs.into()), eof_known: false };
    let dbname = ctx.db.clone();
    Ok(db.open_cursor(&dbname, cursor, batch_size, false, &mut ctx.batch))
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
    if matches!(target, Target::Collection(_)) && pipeline.replaces_input() {
        return Err(crate::aggregate::stages::lookup::documents_needs_no_collection());
    }
    // `$merge` checks its `on` fields' unique index before anything runs.
    if let Some(OutTarget::Merge { spec }) = pipeline.out_target() {
        super::merge::check_on_fields(db, &super::merge::target(&spec, &ctx.db)?)?;
    }
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
        // The collection's stored documents, decoded one at a time as the stages pull them (or
        // read in place by a `$group` that reads only field paths: `Pipeline::run_on_records`).
        let (input, done) = match &source {
            Target::Collection(c) => match db.collection(&ctx.db, c) {
                Some(coll) => read_input(coll, &all_stages, &pipeline, hint, &context, &ctx.env)?,
                None => (empty_input(), 0),
            },
            Target::Database => (empty_input(), 0),
        };
        // A pipeline that reads only some fields (up to a `$group`) gets only those decoded.
        let fields = crate::aggregate::deps::group_input_fields(&all_stages);
        let decode = move |r: &[u8]| match &fields {
            Some(fs) => Record::decode_of(r, Some(&|name| fs.iter().any(|f| f == name))),
            None => Record::decode_of(r, None),
        };
        let catalog = db.catalog(&ctx.db, ctx.env.now);
        pipeline.run_on_records(input, decode, done, &catalog, &ctx.env).map_err(executor)?
    };
    match output.out {
        None => {
            ctx.env.add_returned(output.docs.len() as u64);
            Ok(output.docs)
        }
        Some(OutTarget::Out { db: target_db, collection }) => {
            let target_db = target_db.unwrap_or_else(|| ctx.db.clone());
            out(db, ctx, &target_db, &collection, output.docs, bypass)?;
            Ok(Vec::new())
        }
        Some(OutTarget::Merge { spec }) => {
            super::merge::merge(db, ctx, &spec, output.docs, bypass)?;
            Ok(Vec::new())
        }
    }
}

/// The documents a pipeline starts from, and how many of its leading stages they went through.
/// A leading `$match` (with a `$sort` and `$limit` right after it) is answered by the query
/// planner, as the server pushes them down; the stages still run over the documents it returns
/// (which they leave as they are), but for that `$match` and a plain `$sort` after it. A leading
/// plain `$sort` sorts the records by their keys read from the stored bytes
/// (`exec::sort_records`), and the records are read in that order as the stages pull them, so
/// the sort holds no decoded document. `executor` is the context of errors raised while the
/// plan runs.
fn read_input<'c>(coll: &'c Collection, stages: &[Bson], pipeline: &Pipeline, hint: Option<&Bson>, executor: &str, env: &crate::env::Env) -> Result<(Input<'c>, usize)> {
    let stage = |i: usize, name: &str| match stages.get(i) {
        Some(Bson::Document(d)) if d.len() == 1 => d.get(name),
        _ => None,
    };
    let Some(Bson::Document(filter)) = stage(0, "$match") else {
        env.add_docs_examined(coll.len() as u64, coll.data_size() as u64);
        if let (Some(spec), Some(_)) = (pipeline.sorts_at(0), stage(0, "$sort")) {
            // The records' bytes (not the records), so that reading them in sorted order
            // touches only the bytes.
            let records: Vec<&'c [u8]> = coll.iter().map(|(_, r)| r.bytes()).collect();
            let sorted = exec::sort_records(spec, records, |r| r)?;
            return Ok((Box::new(exec::ReadAhead::new(sorted)), 1));
        }
        return Ok((Box::new(coll.iter().map(|(_, r)| r.bytes())), 0));
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
    let found = exec::select_records(coll, &filter, sort.as_ref(), 0, limit, env)?;
    // The records come sorted: a plain `$sort` after the `$match` is done.
    let done = match (pipeline.filters_at(0), sort.is_some() && pipeline.sorts_at(1).is_some()) {
        (false, _) => 0,
        (true, false) => 1,
        (true, true) => 2,
    };
    Ok((Box::new(found.into_iter().map(|(_, _, r)| r.bytes())), done))
}

/// A pipeline's input: the stored documents' bytes, in the order the stages read them.
type Input<'c> = Box<dyn Iterator<Item = &'c [u8]> + 'c>;

fn empty_input<'c>() -> Input<'c> {
    Box::new(std::iter::empty())
}

/// `$out`: replaces the target's documents with the results, all or nothing. The target keeps
/// its indexes and options.
/// `$out` into `dbname.coll`: the collection is replaced by the results (its options and
/// indexes kept), or created.
fn out(db: &mut Database, ctx: &mut Ctx, dbname: &str, coll: &str, docs: Vec<Document>, bypass: bool) -> Result<()> {
    let dbname = dbname.to_string();
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
        db.report(|| r);
    }
    Ok(())
}
