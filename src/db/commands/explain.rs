//! `explain`: `{ explain: { find | aggregate | count | distinct | update | delete |
//! findAndModify ... }, verbosity }`. The plan shows how the engine reads the collection
//! (`EXPRESS_IDHACK` / `IXSCAN` on `_id_` through the `_id` index, else `COLLSCAN`); with
//! `executionStats` the command runs on a copy of the database and its cost counters are reported
//! per stage, plus two extensions: `executionStats.bytesRead` and `executionStats.bytesWritten`
//! (the BSON bytes of the documents examined and written, as `Database::last_cost` counts them).

use bson::{doc, Bson, Document};

use crate::error::{Error, ErrorKind, Result};

use super::super::args::{self, Fields};
use super::super::exec::Sort;
use super::super::planner;
use super::super::Database;
use super::server::VERSION;
use super::{dispatch, number, Ctx};

const VERBOSITIES: &[&str] = &["queryPlanner", "executionStats", "allPlansExecution"];

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let inner = match cmd.get("explain") {
        Some(Bson::Document(d)) => d.clone(),
        Some(other) => return Err(args::wrong_type("explain", other, "object")),
        None => return Err(args::missing("explain")),
    };
    let f = Fields::new(cmd, "explain");
    let verbosity = f.string("verbosity")?.unwrap_or("allPlansExecution").to_string();
    if !VERBOSITIES.contains(&verbosity.as_str()) {
        return Err(Error::bad_value(format!(
            "Enumeration value '{verbosity}' for field 'explain.verbosity' is not a valid value."
        )));
    }
    let name = inner.keys().next().cloned().unwrap_or_default();
    match name.as_str() {
        "aggregate" => explain_aggregate(db, ctx, &inner, &verbosity),
        "find" | "count" | "distinct" | "update" | "delete" | "findAndModify" | "findandmodify" => {
            explain_query(db, ctx, &inner, &name, &verbosity)
        }
        _ => Err(Error::new(ErrorKind::CommandNotFound, format!("Explain failed due to unknown command: {name}"))),
    }
}

/// The filter, sort and hint of an explained command.
fn filter_of(inner: &Document, name: &str) -> (Document, Option<Document>, Option<Bson>) {
    let get_doc = |d: &Document, k: &str| d.get_document(k).ok().cloned();
    let hint = inner.get("hint").cloned();
    match name {
        "find" => (get_doc(inner, "filter").unwrap_or_default(), get_doc(inner, "sort"), hint),
        "count" | "distinct" => (get_doc(inner, "query").unwrap_or_default(), None, hint),
        "findAndModify" | "findandmodify" => (get_doc(inner, "query").unwrap_or_default(), get_doc(inner, "sort"), hint),
        "update" | "delete" => {
            let list = if name == "update" { "updates" } else { "deletes" };
            let first = inner.get_array(list).ok().and_then(|a| a.first()).and_then(|v| v.as_document()).cloned().unwrap_or_default();
            (get_doc(&first, "q").unwrap_or_default(), get_doc(&first, "sort"), first.get("hint").cloned())
        }
        _ => (Document::new(), None, None),
    }
}

/// The winning plan for reading `coll` with `filter`, `sort` and `skip + limit`.
fn plan(db: &Database, dbname: &str, coll: &str, filter: &Document, sort: Option<&Document>, want: Option<usize>, hint: Option<&Bson>) -> Result<Document> {
    let parsed_sort = Sort::parse(sort)?;
    let c = db.collection(dbname, coll);
    let plan = match c {
        Some(c) => planner::plan_with_hint(c, filter, parsed_sort.as_ref(), want, hint)?,
        None => planner::Plan::CollScan { reverse: false },
    };
    let mut p = planner::describe(c, &plan, filter);
    if let (Some(sort), false) = (sort, plan.provides_sort()) {
        if !sort.is_empty() {
            p = doc! {"stage": "SORT", "sortPattern": sort.clone(), "memLimit": 104_857_600i64, "type": "simple", "inputStage": p};
        }
    }
    Ok(p)
}

fn server_info() -> Document {
    doc! {"host": "localhost", "port": 27017, "version": VERSION, "gitVersion": "pattern-playground"}
}

fn explain_query(db: &mut Database, ctx: &mut Ctx, inner: &Document, name: &str, verbosity: &str) -> Result<Document> {
    let coll = args::collection_name(inner, &ctx.db)?;
    let (filter, sort, hint) = filter_of(inner, name);
    // Parse errors surface as they would when running the command.
    crate::query::Matcher::parse(&filter)?;
    let want = match (inner.get("limit"), inner.get("skip")) {
        (Some(l), s) => {
            let n = |v: Option<&Bson>| v.and_then(crate::value::Number::from_bson).and_then(|n| n.to_exact_i64()).unwrap_or(0).max(0) as usize;
            let l = n(Some(l));
            if l > 0 { Some(l + n(s)) } else { None }
        }
        _ => None,
    };
    let winning = plan(db, &ctx.db, &coll, &filter, sort.as_ref(), want, hint.as_ref())?;
    let mut reply = doc! {
        "explainVersion": "1",
        "queryPlanner": {
            "namespace": format!("{}.{coll}", ctx.db),
            "parsedQuery": filter.clone(),
            "indexFilterSet": false,
            "winningPlan": winning.clone(),
            "rejectedPlans": [],
        },
    };
    if verbosity != "queryPlanner" {
        let stats = execution_stats(db, ctx, inner, &winning)?;
        reply.insert("executionStats", stats);
    }
    let mut command = inner.clone();
    command.insert("$db", ctx.db.clone());
    reply.insert("command", command);
    reply.insert("serverInfo", server_info());
    Ok(reply)
}

/// Runs the inner command on a copy of the database and reports its counters.
fn execution_stats(db: &Database, ctx: &Ctx, inner: &Document, winning: &Document) -> Result<Document> {
    let mut copy = db.clone();
    let mut cmd = inner.clone();
    cmd.insert("$db", ctx.db.clone());
    let env = crate::env::Env::new(ctx.env.now);
    let (dispatched, cost) = dispatch(&mut copy, &cmd, ctx.db.clone(), env, None).map_err(|(e, _)| e)?;
    let reply = &dispatched.reply;
    // A cursor's results are all counted when the command runs, its first batch or not.
    let n_returned: i64 = match reply.get_document("cursor").ok() {
        Some(_) => cost.docs_returned as i64,
        None => match reply.get("n") {
            Some(Bson::Int32(n)) => *n as i64,
            Some(Bson::Int64(n)) => *n,
            _ => match reply.get_array("values") {
                Ok(v) => v.len() as i64,
                Err(_) => cost.docs_returned as i64,
            },
        },
    };
    let mut stages = winning.clone();
    annotate(&mut stages, n_returned, &cost);
    Ok(doc! {
        "executionSuccess": true,
        "nReturned": number(n_returned),
        "executionTimeMillis": 0,
        "totalKeysExamined": number(cost.keys_examined as i64),
        "totalDocsExamined": number(cost.docs_examined as i64),
        "executionStages": stages,
        // Extension: the BSON bytes of the documents examined and written (`Database::last_cost`).
        "bytesRead": number(cost.bytes_read as i64),
        "bytesWritten": number(cost.bytes_written as i64),
    })
}

/// Adds the execution figures to a stage tree: every stage gets `nReturned` and
/// `executionTimeMillisEstimate: 0`; the stage that reads the index gets `keysExamined`, the one
/// that reads documents `docsExamined` (a `FETCH` passes on one index entry per document, so
/// the `IXSCAN` below it returns as many as were examined).
fn annotate(stage: &mut Document, n_returned: i64, cost: &crate::env::Cost) {
    let name = stage.get_str("stage").unwrap_or("").to_string();
    stage.insert("nReturned", number(n_returned));
    stage.insert("executionTimeMillisEstimate", 0);
    let reads_keys = name.contains("IXSCAN") || name.starts_with("EXPRESS") || name == "COUNT_SCAN" || name == "IDHACK";
    let reads_docs = matches!(name.as_str(), "FETCH" | "COLLSCAN" | "IDHACK") || name.starts_with("EXPRESS");
    if reads_keys {
        stage.insert("keysExamined", number(cost.keys_examined as i64));
    }
    if reads_docs {
        stage.insert("docsExamined", number(cost.docs_examined as i64));
    }
    let below = if name == "FETCH" { cost.docs_examined as i64 } else { n_returned };
    if let Ok(input) = stage.get_document("inputStage") {
        let mut input = input.clone();
        annotate(&mut input, below, cost);
        stage.insert("inputStage", input);
    }
    if let Ok(inputs) = stage.get_array("inputStages") {
        // Branches of an OR: the totals stay on the parent.
        let branches: Vec<Bson> = inputs
            .iter()
            .map(|b| match b {
                Bson::Document(d) => {
                    let mut d = d.clone();
                    d.insert("executionTimeMillisEstimate", 0);
                    Bson::Document(d)
                }
                other => other.clone(),
            })
            .collect();
        stage.insert("inputStages", branches);
    }
}

/// Explains a pipeline: a `$cursor` stage reading the collection (with a leading `$match` as
/// its query), then the other stages as given.
pub(super) fn explain_aggregate(db: &mut Database, ctx: &mut Ctx, inner: &Document, verbosity: &str) -> Result<Document> {
    let target = super::aggregate::target(inner, &ctx.db)?;
    let stages = super::aggregate::stages(inner)?.clone();
    crate::aggregate::Pipeline::parse(&stages)?;
    let coll = match &target {
        super::aggregate::Target::Collection(c) => c.clone(),
        super::aggregate::Target::Database => String::new(),
    };
    let (filter, rest): (Document, Vec<Bson>) = match stages.first() {
        Some(Bson::Document(d)) if d.keys().next().map(|k| k == "$match").unwrap_or(false) => {
            (d.get_document("$match").cloned().unwrap_or_default(), stages[1..].to_vec())
        }
        _ => (Document::new(), stages.clone()),
    };
    let winning = plan(db, &ctx.db, &coll, &filter, None, None, inner.get("hint"))?;
    let mut cursor = doc! {
        "queryPlanner": {
            "namespace": format!("{}.{coll}", ctx.db),
            "parsedQuery": filter,
            "indexFilterSet": false,
            "winningPlan": winning.clone(),
            "rejectedPlans": [],
        }
    };
    if verbosity != "queryPlanner" {
        let mut cmd = inner.clone();
        cmd.remove("explain");
        if !cmd.contains_key("cursor") {
            cmd.insert("cursor", Document::new());
        }
        cursor.insert("executionStats", execution_stats(db, ctx, &cmd, &winning)?);
    }
    let mut all = vec![Bson::Document(doc! {"$cursor": cursor})];
    all.extend(rest);
    let mut command = inner.clone();
    command.insert("$db", ctx.db.clone());
    Ok(doc! {
        "explainVersion": "1",
        "stages": all,
        "command": command,
        "serverInfo": server_info(),
    })
}
