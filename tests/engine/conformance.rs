//! The MongoDB CRUD specification cases runnable on one plain server
//! (../shared/conformance/crud_cases.jsonl; matching rules in its README.md).
//!
//! Each case runs on a fresh [`Database`]: the initial data is inserted, each operation is mapped
//! onto server commands exactly as the Node driver maps it (client-side `_id` generation and
//! validation included), results are shaped as the driver returns them, and the expected results,
//! errors and final collection contents are matched.
//!
//! Cases that fail for a known reason are listed in tests/conformance_expected_failures.txt
//! (`<file>: <description> -> <reason>`). The test fails when a case fails that is not listed,
//! or when a listed case passes.

use std::collections::{BTreeMap, HashMap};

use bson::{doc, oid::ObjectId, Bson, Document};
use pattern_playground::db::Database;
use pattern_playground::value;

/// `../shared/conformance` next to the repository (a worktree under `wt/` looks one level up).
pub fn dir() -> std::path::PathBuf {
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [base.join("../shared/conformance"), base.join("../../shared/conformance")];
    candidates.iter().find(|p| p.is_dir()).cloned().unwrap_or_else(|| candidates[0].clone())
}

fn expected_failures_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance_expected_failures.txt")
}

// ---------------------------------------------------------------------------------------------
// Driver emulation

/// An operation's failure, as the driver reports it.
#[derive(Debug, Clone)]
struct OpError {
    /// Raised by the driver before anything was sent.
    client: bool,
    message: String,
    code: Option<i32>,
    /// The server's error document (`errorResponse`): the command reply or the write error.
    response: Document,
    /// The partial result of a bulk write error.
    partial: Option<Bson>,
}

impl OpError {
    fn client(message: &str) -> OpError {
        OpError { client: true, message: message.into(), code: None, response: Document::new(), partial: None }
    }

    fn server(response: Document) -> OpError {
        let code = match response.get("code") {
            Some(Bson::Int32(c)) => Some(*c),
            Some(Bson::Int64(c)) => Some(*c as i32),
            Some(Bson::Double(c)) => Some(*c as i32),
            _ => None,
        };
        let message = response.get_str("errmsg").unwrap_or("").to_string();
        OpError { client: false, message, code, response, partial: None }
    }
}

type OpResult = Result<Bson, OpError>;

/// Where an entity points.
#[derive(Debug, Clone)]
struct Target {
    db: String,
    coll: Option<String>,
}

struct Driver {
    db: Database,
}

fn get_doc(args: &Document, k: &str) -> Option<Document> {
    args.get_document(k).ok().cloned()
}

/// Node's `hasAtomicOperators`: the first key of the document (of any pipeline stage) starts
/// with `$`.
fn has_atomic_operators(u: &Bson) -> bool {
    match u {
        Bson::Array(a) => a.iter().any(has_atomic_operators),
        Bson::Document(d) => d.keys().next().map(|k| k.starts_with('$')).unwrap_or(false),
        _ => false,
    }
}

/// The update statement of `updateOne`/`updateMany`/`replaceOne` (or the bulk model of that
/// name), with the driver's checks: an update needs operators, a replacement may not have any.
fn update_statement(name: &str, args: &Document) -> Result<Document, OpError> {
    let (u, multi) = if name == "replaceOne" {
        let r = args.get("replacement").cloned().unwrap_or(Bson::Null);
        if has_atomic_operators(&r) {
            return Err(OpError::client("Replacement document must not contain atomic operators"));
        }
        (r, false)
    } else {
        let u = args.get("update").cloned().unwrap_or(Bson::Null);
        if !has_atomic_operators(&u) {
            return Err(OpError::client("Update document requires atomic operators"));
        }
        (u, name == "updateMany")
    };
    let mut st = doc! {"q": get_doc(args, "filter").unwrap_or_default(), "u": u};
    for k in ["upsert", "arrayFilters", "hint", "sort", "collation"] {
        if let Some(v) = args.get(k) {
            st.insert(k, v.clone());
        }
    }
    st.insert("multi", multi);
    Ok(st)
}

fn as_i64(v: Option<&Bson>) -> i64 {
    v.and_then(|v| value::Number::from_bson(v)).and_then(|n| n.to_exact_i64()).unwrap_or(0)
}

/// One write of a bulk, as the driver batches it.
#[derive(Debug, Clone)]
enum Write {
    Insert(Document),
    Update(Document),
    Delete(Document),
}

impl Write {
    fn kind(&self) -> u8 {
        match self {
            Write::Insert(_) => 0,
            Write::Update(_) => 1,
            Write::Delete(_) => 2,
        }
    }
}

/// The running totals of a bulk write (the driver's `BulkWriteResult`).
#[derive(Debug, Default)]
struct BulkTotals {
    inserted: i64,
    matched: i64,
    modified: i64,
    deleted: i64,
    upserted: BTreeMap<usize, Bson>,
    inserted_ids: BTreeMap<usize, Bson>,
    errors: Vec<Document>,
}

impl BulkTotals {
    fn to_bson(&self) -> Bson {
        let mut upserted = Document::new();
        for (i, id) in &self.upserted {
            upserted.insert(i.to_string(), id.clone());
        }
        let mut inserted_ids = Document::new();
        for (i, id) in &self.inserted_ids {
            inserted_ids.insert(i.to_string(), id.clone());
        }
        Bson::Document(doc! {
            "insertedCount": self.inserted,
            "matchedCount": self.matched,
            "modifiedCount": self.modified,
            "deletedCount": self.deleted,
            "upsertedCount": self.upserted.len() as i64,
            "upsertedIds": upserted,
            "insertedIds": inserted_ids,
        })
    }
}

impl Driver {
    fn new() -> Driver {
        let mut db = Database::new();
        db.set_fixed_time(1_700_000_000_000);
        db.set_seed(42);
        Driver { db }
    }

    fn command(&mut self, target: &Target, mut cmd: Document) -> Result<Document, OpError> {
        cmd.insert("$db", target.db.clone());
        let reply = self.db.run_command(&cmd);
        let ok = reply.get("ok").and_then(|v| value::Number::from_bson(v)).map(|n| n.to_f64() == 1.0).unwrap_or(false);
        if ok {
            Ok(reply)
        } else {
            Err(OpError::server(reply))
        }
    }

    fn coll(target: &Target) -> Result<String, OpError> {
        target.coll.clone().ok_or_else(|| OpError::client("operation needs a collection"))
    }

    /// The client-side `_id` the driver adds to an insert.
    fn with_id(&mut self, d: &Document) -> Document {
        if d.contains_key("_id") {
            return d.clone();
        }
        let mut out = doc! {"_id": ObjectId::from_bytes(self.next_oid())};
        for (k, v) in d {
            out.insert(k.clone(), v.clone());
        }
        out
    }

    fn next_oid(&mut self) -> [u8; 12] {
        self.db.new_object_id().bytes()
    }

    fn run(&mut self, target: &Target, name: &str, args: &Document) -> OpResult {
        match name {
            "insertOne" => {
                let Some(d) = get_doc(args, "document") else { return Err(OpError::client("document required")) };
                let d = self.with_id(&d);
                let id = d.get("_id").cloned().unwrap_or(Bson::Null);
                let r = self.bulk(target, vec![Write::Insert(d)], true, args)?;
                let _ = r;
                Ok(Bson::Document(doc! {"insertedId": id}))
            }
            "insertMany" => {
                let docs = args.get_array("documents").map_err(|_| OpError::client("documents required"))?;
                let mut writes = Vec::new();
                for d in docs {
                    let Bson::Document(d) = d else { return Err(OpError::client("documents must be documents")) };
                    writes.push(Write::Insert(self.with_id(d)));
                }
                let ordered = args.get_bool("ordered").unwrap_or(true);
                let totals = self.bulk(target, writes, ordered, args)?;
                let Bson::Document(t) = totals else { return Ok(Bson::Null) };
                Ok(Bson::Document(doc! {
                    "insertedCount": t.get("insertedCount").cloned().unwrap_or(Bson::Null),
                    "insertedIds": t.get("insertedIds").cloned().unwrap_or(Bson::Null),
                }))
            }
            "updateOne" | "updateMany" | "replaceOne" => {
                let st = update_statement(name, args)?;
                let totals = self.bulk(target, vec![Write::Update(st)], true, args)?;
                let Bson::Document(t) = totals else { return Ok(Bson::Null) };
                let mut out = doc! {
                    "matchedCount": t.get("matchedCount").cloned().unwrap_or(Bson::Null),
                    "modifiedCount": t.get("modifiedCount").cloned().unwrap_or(Bson::Null),
                    "upsertedCount": t.get("upsertedCount").cloned().unwrap_or(Bson::Null),
                };
                if let Ok(ids) = t.get_document("upsertedIds") {
                    if let Some(id) = ids.get("0") {
                        out.insert("upsertedId", id.clone());
                    }
                }
                Ok(Bson::Document(out))
            }
            "deleteOne" | "deleteMany" => {
                let filter = get_doc(args, "filter").unwrap_or_default();
                let mut st = doc! {"q": filter, "limit": if name == "deleteOne" { 1 } else { 0 }};
                for k in ["hint", "collation"] {
                    if let Some(v) = args.get(k) {
                        st.insert(k, v.clone());
                    }
                }
                let totals = self.bulk(target, vec![Write::Delete(st)], true, args)?;
                let Bson::Document(t) = totals else { return Ok(Bson::Null) };
                Ok(Bson::Document(doc! {"deletedCount": t.get("deletedCount").cloned().unwrap_or(Bson::Null)}))
            }
            "bulkWrite" => {
                let requests = args.get_array("requests").map_err(|_| OpError::client("requests required"))?;
                let mut writes = Vec::new();
                for r in requests {
                    let Bson::Document(r) = r else { return Err(OpError::client("bad request")) };
                    let Some((model, spec)) = r.iter().next() else { return Err(OpError::client("empty request")) };
                    let Bson::Document(spec) = spec else { return Err(OpError::client("bad request")) };
                    let filter = get_doc(spec, "filter").unwrap_or_default();
                    let w = match model.as_str() {
                        "insertOne" => Write::Insert(self.with_id(&get_doc(spec, "document").unwrap_or_default())),
                        "updateOne" | "updateMany" | "replaceOne" => Write::Update(update_statement(model, spec)?),
                        "deleteOne" | "deleteMany" => {
                            let mut st = doc! {"q": filter, "limit": if model == "deleteOne" { 1 } else { 0 }};
                            for k in ["hint", "collation"] {
                                if let Some(v) = spec.get(k) {
                                    st.insert(k, v.clone());
                                }
                            }
                            Write::Delete(st)
                        }
                        other => return Err(OpError::client(&format!("unknown bulk model {other}"))),
                    };
                    writes.push(w);
                }
                let ordered = args.get_bool("ordered").unwrap_or(true);
                self.bulk(target, writes, ordered, args)
            }
            "findOneAndUpdate" | "findOneAndReplace" | "findOneAndDelete" => {
                let coll = Self::coll(target)?;
                let mut cmd = doc! {"findAndModify": coll, "query": get_doc(args, "filter").unwrap_or_default()};
                match name {
                    "findOneAndDelete" => {
                        cmd.insert("remove", true);
                    }
                    _ => {
                        let u = if name == "findOneAndReplace" {
                            let r = args.get("replacement").cloned().unwrap_or(Bson::Null);
                            if has_atomic_operators(&r) {
                                return Err(OpError::client("Replacement document must not contain atomic operators"));
                            }
                            r
                        } else {
                            let u = args.get("update").cloned().unwrap_or(Bson::Null);
                            if !has_atomic_operators(&u) {
                                return Err(OpError::client("Update document requires atomic operators"));
                            }
                            u
                        };
                        cmd.insert("update", u);
                        let after = args.get_str("returnDocument").map(|s| s.eq_ignore_ascii_case("after")).unwrap_or(false);
                        cmd.insert("new", after);
                        if let Some(v) = args.get("upsert") {
                            cmd.insert("upsert", v.clone());
                        }
                        if let Some(v) = args.get("arrayFilters") {
                            cmd.insert("arrayFilters", v.clone());
                        }
                    }
                }
                if let Some(v) = args.get("projection") {
                    cmd.insert("fields", v.clone());
                }
                for k in ["sort", "hint", "let", "comment", "collation"] {
                    if let Some(v) = args.get(k) {
                        cmd.insert(k, v.clone());
                    }
                }
                let reply = self.command(target, cmd)?;
                Ok(reply.get("value").cloned().unwrap_or(Bson::Null))
            }
            "find" | "findOne" => {
                let coll = Self::coll(target)?;
                let mut cmd = doc! {"find": coll, "filter": get_doc(args, "filter").unwrap_or_default()};
                for k in ["sort", "skip", "limit", "batchSize", "projection", "let", "comment", "hint", "collation"] {
                    if let Some(v) = args.get(k) {
                        cmd.insert(k, v.clone());
                    }
                }
                if name == "findOne" {
                    cmd.insert("limit", 1);
                    cmd.insert("singleBatch", true);
                }
                let docs = self.cursor(target, cmd)?;
                if name == "findOne" {
                    return Ok(docs.into_iter().next().unwrap_or(Bson::Null));
                }
                Ok(Bson::Array(docs))
            }
            "aggregate" => {
                let pipeline = args.get_array("pipeline").cloned().unwrap_or_default();
                let head: Bson = match &target.coll {
                    Some(c) => Bson::String(c.clone()),
                    None => Bson::Int32(1),
                };
                let mut cursor = Document::new();
                if let Some(b) = args.get("batchSize") {
                    cursor.insert("batchSize", b.clone());
                }
                let mut cmd = doc! {"aggregate": head, "pipeline": pipeline, "cursor": cursor};
                for k in ["let", "comment", "hint", "collation", "allowDiskUse", "maxTimeMS"] {
                    if let Some(v) = args.get(k) {
                        cmd.insert(k, v.clone());
                    }
                }
                Ok(Bson::Array(self.cursor(target, cmd)?))
            }
            "countDocuments" => {
                let coll = Self::coll(target)?;
                let mut pipeline = vec![Bson::Document(doc! {"$match": get_doc(args, "filter").unwrap_or_default()})];
                if let Some(s) = args.get("skip") {
                    pipeline.push(Bson::Document(doc! {"$skip": s.clone()}));
                }
                if let Some(l) = args.get("limit") {
                    pipeline.push(Bson::Document(doc! {"$limit": l.clone()}));
                }
                pipeline.push(Bson::Document(doc! {"$group": {"_id": 1, "n": {"$sum": 1}}}));
                let mut cmd = doc! {"aggregate": coll, "pipeline": pipeline, "cursor": {}};
                for k in ["comment", "hint", "collation", "maxTimeMS"] {
                    if let Some(v) = args.get(k) {
                        cmd.insert(k, v.clone());
                    }
                }
                let docs = self.cursor(target, cmd)?;
                let n = docs.first().and_then(|d| d.as_document()).map(|d| as_i64(d.get("n"))).unwrap_or(0);
                Ok(Bson::Int64(n))
            }
            "estimatedDocumentCount" | "count" => {
                let coll = Self::coll(target)?;
                let mut cmd = doc! {"count": coll};
                if name == "count" {
                    if let Some(f) = args.get("filter") {
                        cmd.insert("query", f.clone());
                    }
                    for k in ["skip", "limit", "hint", "collation"] {
                        if let Some(v) = args.get(k) {
                            cmd.insert(k, v.clone());
                        }
                    }
                }
                for k in ["maxTimeMS", "comment"] {
                    if let Some(v) = args.get(k) {
                        cmd.insert(k, v.clone());
                    }
                }
                let reply = self.command(target, cmd)?;
                Ok(Bson::Int64(as_i64(reply.get("n"))))
            }
            "distinct" => {
                let coll = Self::coll(target)?;
                let mut cmd = doc! {
                    "distinct": coll,
                    "key": args.get("fieldName").cloned().unwrap_or(Bson::Null),
                    "query": get_doc(args, "filter").unwrap_or_default(),
                };
                for k in ["comment", "hint", "collation", "maxTimeMS"] {
                    if let Some(v) = args.get(k) {
                        cmd.insert(k, v.clone());
                    }
                }
                let reply = self.command(target, cmd)?;
                Ok(reply.get("values").cloned().unwrap_or(Bson::Null))
            }
            "createIndex" => {
                let coll = Self::coll(target)?;
                let keys = get_doc(args, "keys").unwrap_or_default();
                let name = match args.get_str("name") {
                    Ok(n) => n.to_string(),
                    Err(_) => keys.iter().map(|(k, v)| format!("{k}_{}", as_i64(Some(v)))).collect::<Vec<_>>().join("_"),
                };
                let mut spec = doc! {"key": keys, "name": name.clone()};
                if let Some(u) = args.get("unique") {
                    spec.insert("unique", u.clone());
                }
                self.command(target, doc! {"createIndexes": coll, "indexes": [spec]})?;
                Ok(Bson::String(name))
            }
            other => Err(OpError::client(&format!("operation {other} is not emulated"))),
        }
    }

    /// Runs a cursor command and collects every batch.
    fn cursor(&mut self, target: &Target, cmd: Document) -> Result<Vec<Bson>, OpError> {
        let reply = self.command(target, cmd)?;
        let cursor = reply.get_document("cursor").map_err(|_| OpError::client("reply without cursor"))?;
        let mut docs = cursor.get_array("firstBatch").cloned().unwrap_or_default();
        let mut id = as_i64(cursor.get("id"));
        let ns = cursor.get_str("ns").unwrap_or("").to_string();
        while id != 0 {
            let coll = ns.split_once('.').map(|(_, c)| c.to_string()).unwrap_or_default();
            let more = self.command(target, doc! {"getMore": id, "collection": coll})?;
            let c = more.get_document("cursor").map_err(|_| OpError::client("getMore without cursor"))?;
            docs.extend(c.get_array("nextBatch").cloned().unwrap_or_default());
            id = as_i64(c.get("id"));
        }
        Ok(docs)
    }

    /// Executes writes as the Node driver's bulk does: consecutive writes of one kind form a
    /// batch (ordered), or all writes of one kind do (unordered); indexes map back to the
    /// caller's. Returns the `BulkWriteResult` or the bulk write error with it.
    fn bulk(&mut self, target: &Target, writes: Vec<Write>, ordered: bool, args: &Document) -> OpResult {
        let coll = Self::coll(target)?;
        let mut batches: Vec<(u8, Vec<(usize, Write)>)> = Vec::new();
        if ordered {
            for (i, w) in writes.into_iter().enumerate() {
                match batches.last_mut() {
                    Some((k, b)) if *k == w.kind() => b.push((i, w)),
                    _ => batches.push((w.kind(), vec![(i, w)])),
                }
            }
        } else {
            for kind in 0..3u8 {
                let b: Vec<(usize, Write)> = writes.iter().cloned().enumerate().filter(|(_, w)| w.kind() == kind).collect();
                if !b.is_empty() {
                    batches.push((kind, b));
                }
            }
        }
        let mut totals = BulkTotals::default();
        for (kind, batch) in batches {
            let items: Vec<Bson> = batch
                .iter()
                .map(|(_, w)| match w {
                    Write::Insert(d) | Write::Update(d) | Write::Delete(d) => Bson::Document(d.clone()),
                })
                .collect();
            let mut cmd = match kind {
                0 => doc! {"insert": coll.clone(), "documents": items},
                1 => doc! {"update": coll.clone(), "updates": items},
                _ => doc! {"delete": coll.clone(), "deletes": items},
            };
            cmd.insert("ordered", ordered);
            for k in ["let", "comment", "bypassDocumentValidation"] {
                if let Some(v) = args.get(k) {
                    cmd.insert(k, v.clone());
                }
            }
            let reply = self.command(target, cmd)?;
            let n = as_i64(reply.get("n"));
            let mut failed: Vec<usize> = Vec::new();
            if let Ok(errs) = reply.get_array("writeErrors") {
                for e in errs {
                    if let Bson::Document(e) = e {
                        let idx = as_i64(e.get("index")) as usize;
                        failed.push(idx);
                        let mut e = e.clone();
                        e.insert("index", batch.get(idx).map(|(i, _)| *i as i64).unwrap_or(-1));
                        totals.errors.push(e);
                    }
                }
            }
            match kind {
                0 => {
                    totals.inserted += n;
                    for (bi, (i, w)) in batch.iter().enumerate() {
                        if failed.contains(&bi) || (ordered && failed.iter().any(|f| *f < bi)) {
                            continue;
                        }
                        if let Write::Insert(d) = w {
                            totals.inserted_ids.insert(*i, d.get("_id").cloned().unwrap_or(Bson::Null));
                        }
                    }
                }
                1 => {
                    let mut upserts = 0;
                    if let Ok(ups) = reply.get_array("upserted") {
                        for u in ups {
                            if let Bson::Document(u) = u {
                                let bi = as_i64(u.get("index")) as usize;
                                if let Some((i, _)) = batch.get(bi) {
                                    totals.upserted.insert(*i, u.get("_id").cloned().unwrap_or(Bson::Null));
                                    upserts += 1;
                                }
                            }
                        }
                    }
                    totals.matched += n - upserts;
                    totals.modified += as_i64(reply.get("nModified"));
                }
                _ => totals.deleted += n,
            }
            if ordered && !totals.errors.is_empty() {
                break;
            }
        }
        if let Some(first) = totals.errors.first().cloned() {
            let mut e = OpError::server(first);
            e.partial = Some(totals.to_bson());
            return Err(e);
        }
        Ok(totals.to_bson())
    }
}

// ---------------------------------------------------------------------------------------------
// Matching (unified test format, "Evaluating Matches")

fn type_matches(alias: &str, v: &Bson) -> bool {
    match alias {
        "number" => value::types::is_number(v),
        a => value::types::type_name(v) == a,
    }
}

/// Matches `actual` against `expected`; root-level documents may carry extra fields.
fn matches(expected: &Bson, actual: Option<&Bson>, root: bool, path: &str) -> Result<(), String> {
    if let Bson::Document(e) = expected {
        if e.len() == 1 {
            let (k, v) = e.iter().next().map(|(k, v)| (k.as_str(), v)).unwrap_or(("", &Bson::Null));
            match k {
                "$$unsetOrMatches" => {
                    return match actual {
                        None => Ok(()),
                        Some(a) => matches(v, Some(a), root, path),
                    }
                }
                "$$type" => {
                    let Some(a) = actual else { return Err(format!("{path}: missing, expected type {v}")) };
                    let ok = match v {
                        Bson::String(t) => type_matches(t, a),
                        Bson::Array(ts) => ts.iter().any(|t| t.as_str().map(|t| type_matches(t, a)).unwrap_or(false)),
                        _ => false,
                    };
                    return if ok { Ok(()) } else { Err(format!("{path}: {a} is not of type {v}")) };
                }
                "$$exists" => {
                    let want = matches!(v, Bson::Boolean(true));
                    return if want == actual.is_some() { Ok(()) } else { Err(format!("{path}: exists should be {want}")) };
                }
                _ => {}
            }
        }
    }
    let Some(actual) = actual else { return Err(format!("{path}: missing, expected {expected}")) };
    match (expected, actual) {
        (Bson::Document(e), Bson::Document(a)) => {
            for (k, v) in e {
                matches(v, a.get(k), false, &format!("{path}.{k}"))?;
            }
            if !root {
                for k in a.keys() {
                    if !e.contains_key(k) {
                        return Err(format!("{path}: unexpected field {k} in {a}"));
                    }
                }
            }
            Ok(())
        }
        (Bson::Array(e), Bson::Array(a)) => {
            if e.len() != a.len() {
                return Err(format!("{path}: expected {} elements, got {}: {actual}", e.len(), a.len()));
            }
            for (i, (x, y)) in e.iter().zip(a).enumerate() {
                matches(x, Some(y), root && path.is_empty(), &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (e, a) if value::types::is_number(e) && value::types::is_number(a) => {
            if value::equal(e, a) {
                Ok(())
            } else {
                Err(format!("{path}: expected {e}, got {a}"))
            }
        }
        (e, a) => {
            if e.element_type() == a.element_type() && value::equal(e, a) {
                Ok(())
            } else {
                Err(format!("{path}: expected {e}, got {a}"))
            }
        }
    }
}

/// Exact equality for collection contents: same fields (in any order), numbers by value.
fn exact(expected: &Bson, actual: &Bson) -> bool {
    match (expected, actual) {
        (Bson::Document(e), Bson::Document(a)) => e.len() == a.len() && e.iter().all(|(k, v)| a.get(k).map(|x| exact(v, x)).unwrap_or(false)),
        (Bson::Array(e), Bson::Array(a)) => e.len() == a.len() && e.iter().zip(a).all(|(x, y)| exact(x, y)),
        (e, a) if value::types::is_number(e) && value::types::is_number(a) => value::equal(e, a),
        (e, a) => e.element_type() == a.element_type() && value::equal(e, a),
    }
}

fn check_error(expected: &Document, err: &OpError) -> Result<(), String> {
    if let Ok(c) = expected.get_bool("isClientError") {
        if c != err.client {
            return Err(format!("isClientError should be {c}: {} ({:?})", err.message, err.code));
        }
    }
    if let Some(code) = expected.get("errorCode") {
        let want = as_i64(Some(code)) as i32;
        if err.code != Some(want) {
            return Err(format!("expected error code {want}, got {:?}: {}", err.code, err.message));
        }
    }
    if let Ok(name) = expected.get_str("errorCodeName") {
        if err.response.get_str("codeName").ok() != Some(name) {
            return Err(format!("expected codeName {name}, got {:?}", err.response.get("codeName")));
        }
    }
    if let Ok(sub) = expected.get_str("errorContains") {
        if !err.message.to_lowercase().contains(&sub.to_lowercase()) {
            return Err(format!("error message {:?} does not contain {sub:?}", err.message));
        }
    }
    if let Some(resp) = expected.get("errorResponse") {
        matches(resp, Some(&Bson::Document(err.response.clone())), true, "errorResponse")?;
    }
    if let Some(res) = expected.get("expectResult") {
        matches(res, err.partial.as_ref(), true, "expectResult")?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Running a case

fn to_bson(v: &serde_json::Value) -> Result<Bson, String> {
    Bson::try_from(v.clone()).map_err(|e| format!("extjson: {e}"))
}

fn run_case(case: &serde_json::Value) -> Result<(), String> {
    let mut driver = Driver::new();
    let mut targets: HashMap<String, Target> = HashMap::new();
    if let Some(ents) = case["entities"].as_object() {
        for (id, e) in ents {
            let db = e["databaseName"].as_str().unwrap_or("test").to_string();
            let coll = e["collectionName"].as_str().map(String::from);
            targets.insert(id.clone(), Target { db, coll });
        }
    }
    for init in case["initialData"].as_array().into_iter().flatten() {
        let db = init["databaseName"].as_str().unwrap_or("test").to_string();
        let coll = init["collectionName"].as_str().unwrap_or("coll").to_string();
        let t = Target { db: db.clone(), coll: Some(coll.clone()) };
        driver.command(&t, doc! {"drop": coll.clone()}).map_err(|e| format!("initial drop: {}", e.message))?;
        driver.command(&t, doc! {"create": coll.clone()}).map_err(|e| format!("initial create: {}", e.message))?;
        let docs: Vec<Bson> = init["documents"].as_array().into_iter().flatten().map(to_bson).collect::<Result<_, _>>()?;
        if !docs.is_empty() {
            let reply = driver
                .command(&t, doc! {"insert": coll.clone(), "documents": docs})
                .map_err(|e| format!("initial insert: {}", e.message))?;
            if reply.contains_key("writeErrors") {
                return Err(format!("initial insert: {reply}"));
            }
        }
    }
    for (i, op) in case["operations"].as_array().into_iter().flatten().enumerate() {
        let object = op["object"].as_str().unwrap_or("");
        let name = op["name"].as_str().unwrap_or("");
        let target = targets.get(object).cloned().ok_or_else(|| format!("unknown entity {object}"))?;
        let args = match to_bson(&op["arguments"]) {
            Ok(Bson::Document(d)) => d,
            _ => Document::new(),
        };
        let result = driver.run(&target, name, &args);
        let label = format!("operation {i} ({name})");
        if let Some(expect_error) = op.get("expectError") {
            let Bson::Document(ee) = to_bson(expect_error)? else { return Err("bad expectError".into()) };
            match &result {
                Ok(r) => return Err(format!("{label}: expected an error, got {r}")),
                Err(e) => check_error(&ee, e).map_err(|m| format!("{label}: {m}"))?,
            }
        } else {
            match &result {
                Err(e) => {
                    return Err(format!(
                        "{label}: unexpected {} error {:?}: {}",
                        if e.client { "client" } else { "server" },
                        e.code,
                        e.message
                    ))
                }
                Ok(actual) => {
                    if let Some(expected) = op.get("expectResult") {
                        matches(&to_bson(expected)?, Some(actual), true, "").map_err(|m| format!("{label}: result {m}"))?;
                    }
                }
            }
        }
    }
    if let Some(outcome) = case["expectedOutcome"].as_array() {
        for o in outcome {
            let db = o["databaseName"].as_str().unwrap_or("test");
            let coll = o["collectionName"].as_str().unwrap_or("coll");
            let expected: Vec<Bson> = o["documents"].as_array().into_iter().flatten().map(to_bson).collect::<Result<_, _>>()?;
            let mut actual: Vec<Bson> = driver
                .db
                .collection(db, coll)
                .map(|c| c.iter().map(|(_, r)| Bson::Document(r.doc().unwrap())).collect())
                .unwrap_or_default();
            let id = |d: &Bson| d.as_document().and_then(|d| d.get("_id")).cloned().unwrap_or(Bson::Null);
            actual.sort_by(|a, b| value::compare(&id(a), &id(b)));
            let mut expected_sorted = expected.clone();
            expected_sorted.sort_by(|a, b| value::compare(&id(a), &id(b)));
            let same = expected_sorted.len() == actual.len() && expected_sorted.iter().zip(&actual).all(|(e, a)| exact(e, a));
            if !same {
                return Err(format!(
                    "outcome of {db}.{coll}: expected {}, got {}",
                    Bson::Array(expected_sorted),
                    Bson::Array(actual)
                ));
            }
        }
    }
    Ok(())
}

fn load_expected_failures() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(expected_failures_path()).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(" -> ").map(|(k, v)| (k.trim().to_string(), v.trim().to_string())))
        .collect()
}

#[test]
fn conformance_crud_cases() {
    let text = std::fs::read_to_string(dir().join("crud_cases.jsonl")).expect("crud_cases.jsonl is readable");
    let expected_failures = load_expected_failures();
    let mut passed = 0;
    let mut failed: Vec<(String, String)> = Vec::new();
    let mut unexpected = Vec::new();
    let mut listed_but_passed = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
        let file = case["file"].as_str().unwrap_or("?").trim_end_matches(".json");
        let key = format!("{file}: {}", case["description"].as_str().unwrap_or("?"));
        seen.insert(key.clone());
        let outcome = std::panic::catch_unwind(|| run_case(&case)).unwrap_or_else(|p| {
            let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
            Err(format!("PANIC: {}", msg.unwrap_or_default()))
        });
        match outcome {
            Ok(()) => {
                passed += 1;
                if expected_failures.contains_key(&key) {
                    listed_but_passed.push(key);
                }
            }
            Err(why) => {
                if !expected_failures.contains_key(&key) {
                    unexpected.push(format!("{key} -> {why}"));
                }
                failed.push((key, why));
            }
        }
    }
    eprintln!("conformance: {passed} passed, {} failed", failed.len());
    for (k, why) in &failed {
        let listed = expected_failures.get(k).map(|r| format!(" [expected: {r}]")).unwrap_or_default();
        eprintln!("  FAIL {k}: {why}{listed}");
    }
    let stale: Vec<&String> = expected_failures.keys().filter(|k| !seen.contains(*k)).collect();
    assert!(stale.is_empty(), "expected failures that name no case: {stale:#?}");
    assert!(listed_but_passed.is_empty(), "listed as expected failures but passing (remove them): {listed_but_passed:#?}");
    assert!(unexpected.is_empty(), "unexpected conformance failures:\n{}", unexpected.join("\n"));
}
