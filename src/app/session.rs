//! The session log: every write made through the playground (lesson steps, scripts, the data
//! editor, the update composer, repairs), in order, as the exact server commands the engine ran.
//! Replaying it rebuilds the same database; exporting it gives one mongosh script.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::audits::AuditSet;
use crate::protocol::{IdSpec, WriteRecord};

/// Where a group of writes came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "camelCase")]
pub enum Origin {
    /// A script run from the editor (a lesson step, possibly edited).
    Script { title: String },
    /// An action of the playground's own controls ("Edit document", "Apply update", "Repair").
    Ui { action: String },
}

/// One action and the writes it made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub origin: Origin,
    pub writes: Vec<WriteRecord>,
    /// Set when the action was a run of the lesson's own script of a step, as the lesson has it:
    /// running it again with the same ObjectIds makes the same writes, so a share link carries
    /// this instead of them ([`Session::shorten`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lesson_run: Option<LessonRun>,
}

/// A run of a lesson's own script ([`Entry::lesson_run`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonRun {
    /// The step (0-based) whose script ran.
    pub step: usize,
    /// [`digest`] of the script's text when it ran: a lesson whose script changed since then is
    /// not re-run in its place.
    pub script: String,
    /// How the run made its ObjectIds.
    pub ids: IdSpec,
    /// In a short share link only: the writes were left out; `count` of them, whose [`digest`]
    /// is `writes` (the receiver checks that its run made the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_out: Option<LeftOut>,
}

/// The writes a short link left out of an entry ([`LessonRun::left_out`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    pub count: usize,
    pub writes: String,
}

/// A short fingerprint of text or bytes (64-bit FNV-1a, hex): tells a changed lesson script, or
/// writes that came out otherwise, from the recorded ones. Not a defence against anyone: what a
/// link carries is checked on its own terms.
pub fn digest(parts: &[&[u8]]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.iter().chain(&(p.len() as u64).to_le_bytes()) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// [`digest`] of writes: each one's collection and bytes (its text when it has none).
pub fn writes_digest(writes: &[WriteRecord]) -> String {
    let parts: Vec<&[u8]> = writes.iter().flat_map(|w| [w.collection.as_bytes(), w.bson.as_deref().unwrap_or(w.command.as_bytes())]).collect();
    digest(&parts)
}

/// The ordered log of a playground session.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Session {
    pub entries: Vec<Entry>,
}

impl Session {
    /// Records an action's writes (nothing if it wrote nothing).
    pub fn record(&mut self, origin: Origin, writes: Vec<WriteRecord>) {
        self.record_run(origin, writes, None);
    }

    /// [`Session::record`] of a script's run, with what makes it again if it was the lesson's own.
    pub fn record_run(&mut self, origin: Origin, writes: Vec<WriteRecord>, lesson_run: Option<LessonRun>) {
        if !writes.is_empty() {
            self.entries.push(Entry { origin, writes, lesson_run });
        }
    }

    /// The session as a short share link carries it: the writes of every run of a lesson's own
    /// script (`scripts`: the lesson's, by step) left out when that script is still the one that
    /// ran; the receiver runs it again ([`Session::left_out`]). Every other write stays.
    pub fn shorten(&self, scripts: &[&str]) -> Session {
        let entries = self
            .entries
            .iter()
            .map(|e| match &e.lesson_run {
                Some(run) if run.left_out.is_none() && scripts.get(run.step).is_some_and(|s| digest(&[s.as_bytes()]) == run.script) && matches!(e.origin, Origin::Script { .. }) => Entry {
                    origin: e.origin.clone(),
                    writes: Vec::new(),
                    lesson_run: Some(LessonRun { left_out: Some(LeftOut { count: e.writes.len(), writes: writes_digest(&e.writes) }), ..run.clone() }),
                },
                _ => e.clone(),
            })
            .collect();
        Session { entries }
    }

    /// How many writes the session made (those a short link left out included).
    pub fn write_count(&self) -> usize {
        self.entries.iter().map(|e| e.writes.len() + e.lesson_run.as_ref().and_then(|r| r.left_out.as_ref()).map_or(0, |l| l.count)).sum()
    }

    /// True if both hold the same work: entry by entry the same, where writes a short link left
    /// out match the writes they stand for.
    pub fn same_work(&self, other: &Session) -> bool {
        fn short(e: &Entry) -> (Option<&LessonRun>, String, usize) {
            match e.lesson_run.as_ref() {
                Some(r) => match &r.left_out {
                    Some(l) => (Some(r), l.writes.clone(), l.count),
                    None => (Some(r), writes_digest(&e.writes), e.writes.len()),
                },
                None => (None, writes_digest(&e.writes), e.writes.len()),
            }
        }
        let strip = |r: Option<&LessonRun>| r.map(|r| (r.step, r.script.clone(), r.ids.clone()));
        self.entries.len() == other.entries.len()
            && self.entries.iter().zip(&other.entries).all(|(a, b)| {
                if a == b {
                    return true;
                }
                let ((ra, da, na), (rb, db, nb)) = (short(a), short(b));
                a.origin == b.origin && strip(ra) == strip(rb) && da == db && na == nb
            })
    }

    /// Every write, in order.
    pub fn writes(&self) -> impl Iterator<Item = &WriteRecord> {
        self.entries.iter().flat_map(|e| e.writes.iter())
    }

    /// True when the log holds an imported file (`WriteRecord::import` writes `ppImport` first).
    pub fn has_imports(&self) -> bool {
        self.writes().any(|w| w.command.starts_with(&format!("{{\"{IMPORT}\"")))
    }

    /// Checks that every write is one the playground records ([`RECORDED`]): a state from a
    /// link or storage carrying anything else is refused.
    pub fn check(&self) -> Result<(), String> {
        for e in &self.entries {
            if let Some(LessonRun { left_out: Some(_), step, .. }) = &e.lesson_run {
                if !e.writes.is_empty() || !matches!(e.origin, Origin::Script { .. }) {
                    return Err(format!("a run of step {} whose writes are both left out and there", step + 1));
                }
            }
        }
        self.writes().try_for_each(|w| check_write(w).map(|_| ()))
    }

    /// The whole session as one mongosh script that rebuilds the database from empty, then
    /// prints the audits' counts as a health check. `failed` holds the writes (by index in
    /// [`Session::writes`]) that failed when the playground replayed them, with the reason: they
    /// are marked and left out.
    pub fn to_mongosh(&self, title: &str, audits: &AuditSet, failed: &BTreeMap<usize, String>) -> String {
        let mut s = String::new();
        s.push_str(&format!("// Pattern Playground session: {}\n", one_line(title)));
        s.push_str("// Replays every write of the session, in order, with the exact documents (ids and dates\n");
        s.push_str("// included), then runs the drift audits as a health check. Run it on an empty database.\n");
        let others: std::collections::BTreeSet<String> =
            self.writes().filter_map(|w| check_write(w).ok()).map(|c| write_db(&c).to_string()).filter(|d| d != DEFAULT_DB).collect();
        if !others.is_empty() {
            let names: Vec<String> = others.iter().map(|d| js_string(d)).collect();
            s.push_str(&format!("// It also writes into the database(s) {}, beside the one it is run against.\n", names.join(", ")));
        }
        s.push_str("// Documents are written as mongosh prints them (ObjectId, ISODate, NumberLong, ...); a whole\n");
        s.push_str("// number is an int32, Double(n) a double.\n");
        let mut index = 0;
        for (n, entry) in self.entries.iter().enumerate() {
            let what = match &entry.origin {
                Origin::Script { title } => format!("script: {}", one_line(title)),
                Origin::Ui { action } => one_line(action),
            };
            s.push_str(&format!("\n// {}. {}\n", n + 1, what));
            for w in &entry.writes {
                match (statement(w), failed.get(&index)) {
                    (Ok(st), None) => s.push_str(&st),
                    (Ok(st), Some(why)) => {
                        s.push_str(&format!("// This write failed when the playground replayed it ({}); left out:\n// {st}", one_line(why)));
                    }
                    (Err(why), _) => s.push_str(&format!("// Left out: {}", one_line(&why))),
                }
                s.push('\n');
                index += 1;
            }
        }
        s.push_str(&audits.health_check_js());
        s
    }
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r', '\u{2028}', '\u{2029}'], " ")
}

/// A JavaScript literal of a JSON value that is safe anywhere: inside a `<script>` element too.
pub fn js_literal(v: &Value) -> String {
    let json = serde_json::to_string(v).unwrap_or_else(|_| "null".into());
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// A JavaScript string literal (double-quoted) for any text.
pub fn js_string(s: &str) -> String {
    js_literal(&Value::String(s.to_string()))
}

/// The write commands the playground records (the runtime's log, www/runtime/client.js, and the
/// UI's own writes). A saved state or share link may carry only these, and only these export;
/// `aggregate` only when its pipeline ends in `$out` or `$merge`.
pub const RECORDED: [&str; 13] = [
    "insert", "update", "delete", "findAndModify", "create", "createIndexes", "drop", "dropIndexes",
    "collMod", "renameCollection", "dropDatabase", "aggregate", IMPORT,
];

/// An imported file in the log (`WriteRecord::import`): its bytes are the file's, not a command.
pub const IMPORT: &str = "ppImport";

/// The recorded writes whose reply counts what they wrote (`n`): the others write whatever
/// they answer.
const COUNTED: [&str; 4] = ["insert", "update", "delete", "findAndModify"];

/// A pipeline's writing stage, when its last stage is `{ $out: … }` or `{ $merge: … }`: the
/// stage's name and value. The recorded-writes check and the Aggregate tab read it.
pub fn writing_stage(pipeline: &[Value]) -> Option<(&str, &Value)> {
    let stage = pipeline.last()?.as_object().filter(|o| o.len() == 1)?;
    let (name, value) = stage.iter().next()?;
    matches!(name.as_str(), "$out" | "$merge").then_some((name.as_str(), value))
}

/// True for a command the log keeps whatever its reply counts: a recorded write whose reply
/// has no `n` (`drop`, `createIndexes`, `dropIndexes`, ...; an `aggregate` only when its
/// pipeline ends by writing).
pub fn writes_uncounted(cmd: &Value) -> bool {
    let Some((name, _)) = cmd.as_object().and_then(|o| o.iter().next()) else { return false };
    match name.as_str() {
        "aggregate" => cmd.get("pipeline").and_then(Value::as_array).is_some_and(|p| writing_stage(p).is_some()),
        n => RECORDED.contains(&n) && !COUNTED.contains(&n) && n != IMPORT,
    }
}

/// The command of a recorded write, if it is one the playground makes: a document whose first
/// key names a [`RECORDED`] command on a collection (a name without NUL), with no `$` field at
/// its top but `$db` naming a user database (never `admin`, `config` or `local`, where the
/// server keeps its own data), the same in its bytes; a rename between user databases.
pub fn check_write(w: &WriteRecord) -> Result<Value, String> {
    let cmd: Value = serde_json::from_str(&w.command).map_err(|e| format!("an unreadable write ({e})"))?;
    let Some(o) = cmd.as_object() else { return Err("a write that is not a document".into()) };
    let Some((name, target)) = o.iter().next() else { return Err("an empty command".into()) };
    let shown: String = name.chars().take(40).collect();
    if !RECORDED.contains(&name.as_str()) {
        return Err(format!("a command the playground never records ({})", js_string(&shown)));
    }
    let db = match o.get("$db") {
        None => None,
        Some(Value::String(db)) => Some(user_db(db)?),
        Some(_) => return Err(format!("a {name} command whose $db is not a name")),
    };
    if name == IMPORT {
        if w.bson.is_none() {
            return Err("an import without its file".into());
        }
        if !o.get("file").is_some_and(Value::is_string) || !o.get("options").is_none_or(Value::is_object) {
            return Err("an import without a file name".into());
        }
    } else if let Some(bytes) = &w.bson {
        let raw = bson::RawDocument::from_bytes(bytes).map_err(|_| format!("a {name} write whose bytes are not a document"))?;
        let first = raw.iter().next().and_then(|e| e.ok()).map(|(k, _)| k.as_str().to_string());
        if first.as_deref() != Some(name.as_str()) {
            return Err(format!("a {name} write whose bytes hold another command"));
        }
        if raw.get_str("$db").ok() != db || (db.is_none() && raw.get("$db").ok().flatten().is_some()) {
            return Err(format!("a {name} write whose bytes name another database"));
        }
    }
    if let Some(k) = o.keys().find(|k| k.starts_with('$') && *k != "$db") {
        return Err(format!("a {name} command with a {} field", js_string(&k.chars().take(40).collect::<String>())));
    }
    let coll_ok = |v: &Value| v.as_str().is_some_and(|c| !c.is_empty() && !c.contains('\0'));
    match name.as_str() {
        "dropDatabase" => {}
        "renameCollection" => {
            let ns_db = |v: &Value| v.as_str().and_then(|ns| ns.split_once('.')).filter(|(_, c)| !c.is_empty()).map(|(d, _)| d.to_string());
            match (ns_db(target), o.get("to").and_then(ns_db)) {
                (Some(a), Some(b)) => {
                    user_db(&a)?;
                    user_db(&b)?;
                }
                _ => return Err("a renameCollection without two namespaces".into()),
            }
        }
        "aggregate" => {
            let into = match o.get("pipeline").and_then(Value::as_array).and_then(|p| writing_stage(p)) {
                Some(("$out", out)) => Some(out),
                Some((_, merge)) => Some(merge.get("into").unwrap_or(merge)),
                None => return Err("an aggregate that writes nothing (no $out or $merge at its end)".into()),
            };
            if let Some(db) = into.and_then(|t| t.get("db")) {
                user_db(db.as_str().ok_or("an aggregate whose target database is not a name")?)?;
            }
            if !(coll_ok(target) || target.as_f64() == Some(1.0) || target.get("$numberInt").and_then(Value::as_str) == Some("1")) {
                return Err("an aggregate without a collection name".into());
            }
        }
        _ if coll_ok(target) => {}
        _ => return Err(format!("a {name} command without a collection name")),
    }
    Ok(cmd)
}

/// `name` if it can name a user database: not empty, none of the characters the server refuses
/// (`/\. "$` and NUL), under 64 bytes, not one the server keeps for itself.
fn user_db(name: &str) -> Result<&str, String> {
    let shown = js_string(&name.chars().take(40).collect::<String>());
    if ["admin", "config", "local"].contains(&name) {
        return Err(format!("a write into the server's own {shown} database"));
    }
    if name.is_empty() || name.len() >= 64 || name.contains(['/', '\\', '.', ' ', '"', '$', '\0']) {
        return Err(format!("a write into the database {shown}, a name the server refuses"));
    }
    Ok(name)
}

/// The database of a checked write: its `$db`, else the playground's default.
pub fn write_db(cmd: &Value) -> &str {
    cmd.get("$db").and_then(Value::as_str).unwrap_or(DEFAULT_DB)
}

pub use crate::protocol::DEFAULT_DB;

/// How the export reaches a database: `db` for the default one (the database the script is run
/// against), `db.getSiblingDB("name")` for the others.
fn db_expr(name: &str) -> String {
    if name == DEFAULT_DB {
        "db".into()
    } else {
        format!("db.getSiblingDB({})", js_string(name))
    }
}

/// One write as a mongosh statement, its documents written as mongosh prints them
/// ([`js_value`]: `ObjectId("…")`, `ISODate("…")`, `NumberLong("…")`, ...), each key a JSON string
/// literal that is always data. Inserts read as `insertMany`, a rename as `renameCollection`; every
/// other command is replayed with `db.runCommand`, so its options come back exactly. A write that
/// is not one the playground records gives the reason instead.
///
/// A script's write is written from its BSON bytes (what a replay sends; a field named like an
/// Extended JSON type, `{ $date: "…" }`, stays a field), checked on its own as [`check_write`]
/// checks the text; the UI's own writes from their Extended JSON text.
pub fn statement(w: &WriteRecord) -> Result<String, String> {
    let cmd = check_write(w)?;
    if cmd.get(IMPORT).is_some() {
        // The file is not in the script: it says how to load it first.
        let file = cmd.get("file").and_then(Value::as_str).unwrap_or_default();
        let coll = cmd.get(IMPORT).and_then(Value::as_str).unwrap_or_default();
        let tool = if file.ends_with(".bson") { "mongorestore" } else { "mongoimport" };
        return Ok(format!(
            "// The playground imported the file {} into {}.{}: load it there with {tool} before running this script.",
            js_string(file),
            one_line(write_db(&cmd)),
            one_line(coll)
        ));
    }
    let mut doc = match &w.bson {
        Some(bytes) => {
            let raw = bson::RawDocument::from_bytes(bytes).map_err(|_| "a write whose bytes are not a document".to_string())?;
            let doc = bson::Document::try_from(raw).map_err(|e| format!("a write whose bytes are not a document ({e})"))?;
            // The bytes pass the same checks as the text.
            let text = bson::Bson::Document(doc.clone()).into_canonical_extjson().to_string();
            check_write(&WriteRecord::text(w.collection.clone(), text))?;
            doc
        }
        None => match bson::Bson::try_from(cmd.clone()) {
            Ok(bson::Bson::Document(d)) => d,
            // Text the Extended JSON reader refuses (`{ "$date": "x", "b": 1 }`): handed to
            // `EJSON.parse` as it is, which reads it as the playground's engine did or refuses it.
            _ => {
                let mut plain = cmd.clone();
                if let Some(o) = plain.as_object_mut() {
                    o.remove("$db");
                }
                return Ok(format!("{}.runCommand({});", db_expr(write_db(&cmd)), ejson(&plain)));
            }
        },
    };
    let db = doc.get_str("$db").unwrap_or(DEFAULT_DB).to_string();
    let target = db_expr(&db);
    doc.remove("$db");
    let name = doc.keys().next().cloned().unwrap_or_default();
    let coll = doc.get_str(&name).unwrap_or_default().to_string();
    match name.as_str() {
        "insert" if as_insert_many(&doc) => {
            if let Ok(docs) = doc.get_array("documents") {
                let mut out = format!("{target}.getCollection({}).insertMany(", js_string(&coll));
                js_value(&bson::Bson::Array(docs.clone()), &mut out);
                if doc.get_bool("ordered").ok() == Some(false) {
                    out.push_str(", { ordered: false }");
                }
                out.push_str(");");
                return Ok(out);
            }
        }
        "renameCollection" => {
            let split = |k: &str| doc.get_str(k).ok().and_then(|ns| ns.split_once('.')).map(|(d, c)| (d.to_string(), c.to_string()));
            if let (Some((from_db, from)), Some((to_db, to))) = (split("renameCollection"), split("to")) {
                if from_db == to_db && doc.keys().all(|k| ["renameCollection", "to", "dropTarget"].contains(&k.as_str())) {
                    let drop_target = doc.get_bool("dropTarget").unwrap_or(false);
                    return Ok(format!("{}.getCollection({}).renameCollection({}, {drop_target});", db_expr(&from_db), js_string(&from), js_string(&to)));
                }
            }
            // Between databases: an admin command naming both.
            let mut out = String::from("db.adminCommand(");
            js_value(&bson::Bson::Document(doc), &mut out);
            out.push_str(");");
            return Ok(out);
        }
        "dropDatabase" => return Ok(format!("{target}.dropDatabase();")),
        _ => {}
    }
    let mut out = format!("{target}.runCommand(");
    js_value(&bson::Bson::Document(doc), &mut out);
    out.push_str(");");
    Ok(out)
}

/// An insert that `insertMany` replays as it was: no fields but its documents, `ordered` (a
/// boolean) and `$db` (any other option goes through `runCommand`).
fn as_insert_many(doc: &bson::Document) -> bool {
    doc.iter().all(|(k, v)| ["insert", "documents", "$db"].contains(&k.as_str()) || (k == "ordered" && matches!(v, bson::Bson::Boolean(_))))
}

/// Canonical Extended JSON of a value, read with `EJSON.parse` when the script runs: for the
/// deprecated types mongosh has no constructor for (undefined, DBPointer).
fn ejson(v: &Value) -> String {
    format!("EJSON.parse({}, {{ relaxed: false }})", js_string(&serde_json::to_string(v).unwrap_or_default()))
}

/// True for a key JavaScript orders before the others in an object (an array index: `0`, `17`,
/// no sign, no leading zero, below 2^32 - 1).
fn index_key(k: &str) -> bool {
    !k.is_empty() && k.len() <= 10 && k.bytes().all(|b| b.is_ascii_digit()) && (k == "0" || !k.starts_with('0')) && k.parse::<u64>().is_ok_and(|n| n < u64::from(u32::MAX))
}

/// Appends the JavaScript expression that gives mongosh (js-bson, as the driver serializes it)
/// the very BSON value `v`: the forms mongosh prints, a plain number for an int32 (what a whole
/// JavaScript number in int32 range becomes) and `Double(…)` for a double such a number would
/// turn into an int32. A document is an object literal whose keys are JSON strings (always data;
/// `__proto__` as a computed key, which an object literal would read as its prototype), or a
/// `new Map([...])` when JavaScript would reorder its keys (index keys come first in an object).
/// Strings are [`js_string`] literals: nothing can end them early, inside a `<script>` either.
pub fn js_value(v: &bson::Bson, out: &mut String) {
    use bson::Bson;
    use std::fmt::Write as _;
    match v {
        Bson::Double(f) => {
            if f.is_nan() {
                out.push_str("NaN");
            } else if f.is_infinite() {
                out.push_str(if *f > 0.0 { "Infinity" } else { "-Infinity" });
            } else if *f == 0.0 && f.is_sign_negative() {
                out.push_str("Double(-0)");
            } else if f.fract() == 0.0 && *f >= f64::from(i32::MIN) && *f <= f64::from(i32::MAX) {
                let _ = write!(out, "Double({})", *f as i64);
            } else {
                // Rust's shortest text that reads back as the same double (JavaScript reads it so too).
                let _ = write!(out, "{f:?}");
            }
        }
        Bson::String(s) => out.push_str(&js_string(s)),
        Bson::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                js_value(item, out);
            }
            out.push(']');
        }
        Bson::Document(d) => {
            let mut seen_other = false;
            let mut last_index: Option<u64> = None;
            let reordered = d.keys().any(|k| {
                if index_key(k) {
                    let n = k.parse::<u64>().unwrap_or(0);
                    let bad = seen_other || last_index.is_some_and(|l| n < l);
                    last_index = Some(n);
                    bad
                } else {
                    seen_other = true;
                    false
                }
            });
            if d.is_empty() {
                out.push_str("{}");
            } else if reordered {
                out.push_str("new Map([");
                for (i, (k, v)) in d.iter().enumerate() {
                    out.push_str(if i > 0 { ", [" } else { "[" });
                    out.push_str(&js_string(k));
                    out.push_str(", ");
                    js_value(v, out);
                    out.push(']');
                }
                out.push_str("])");
            } else {
                out.push_str("{ ");
                for (i, (k, v)) in d.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    if k == "__proto__" {
                        out.push_str("[\"__proto__\"]");
                    } else {
                        out.push_str(&js_string(k));
                    }
                    out.push_str(": ");
                    js_value(v, out);
                }
                out.push_str(" }");
            }
        }
        Bson::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Bson::Null => out.push_str("null"),
        Bson::RegularExpression(r) => {
            let _ = write!(out, "BSONRegExp({}, {})", js_string(r.pattern.as_str()), js_string(r.options.as_str()));
        }
        Bson::JavaScriptCode(code) => {
            let _ = write!(out, "Code({})", js_string(code));
        }
        Bson::JavaScriptCodeWithScope(c) => {
            let _ = write!(out, "Code({}, ", js_string(&c.code));
            js_value(&Bson::Document(c.scope.clone()), out);
            out.push(')');
        }
        Bson::Int32(n) => {
            let _ = write!(out, "{n}");
        }
        Bson::Int64(n) => {
            let _ = write!(out, "NumberLong(\"{n}\")");
        }
        Bson::Timestamp(t) => {
            let _ = write!(out, "Timestamp({{ t: {}, i: {} }})", t.time, t.increment);
        }
        Bson::Binary(b) => {
            use base64::Engine as _;
            match (b.subtype, b.bytes.len()) {
                (bson::spec::BinarySubtype::Uuid, 16) => {
                    let h: String = b.bytes.iter().map(|x| format!("{x:02x}")).collect();
                    let _ = write!(out, "UUID(\"{}-{}-{}-{}-{}\")", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..]);
                }
                (subtype, _) => {
                    let _ = write!(out, "BinData({}, \"{}\")", u8::from(subtype), base64::engine::general_purpose::STANDARD.encode(&b.bytes));
                }
            }
        }
        Bson::ObjectId(id) => {
            let _ = write!(out, "ObjectId(\"{}\")", id.to_hex());
        }
        Bson::DateTime(d) => {
            let ms = d.timestamp_millis();
            match iso_date(ms) {
                Some(iso) => {
                    let _ = write!(out, "ISODate(\"{iso}\")");
                }
                // Years ISODate does not read (before 0 or after 9999), within JavaScript's dates.
                None if ms.unsigned_abs() <= 8_640_000_000_000_000 => {
                    let _ = write!(out, "new Date({ms})");
                }
                None => out.push_str(&ejson(&v.clone().into_canonical_extjson())),
            }
        }
        Bson::Symbol(s) => {
            let _ = write!(out, "BSONSymbol({})", js_string(s));
        }
        Bson::Decimal128(d) => {
            let _ = write!(out, "NumberDecimal(\"{d}\")");
        }
        Bson::MaxKey => out.push_str("MaxKey()"),
        Bson::MinKey => out.push_str("MinKey()"),
        // Deprecated types without a mongosh constructor.
        other => out.push_str(&ejson(&other.clone().into_canonical_extjson())),
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` of a date, for years 0 to 9999 (what `ISODate` reads).
fn iso_date(ms: i64) -> Option<String> {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (year, month, day) = super::ejson::civil_from_days(days);
    if !(0..=9999).contains(&year) {
        return None;
    }
    let (h, m, s, milli) = (rem / 3_600_000, rem / 60_000 % 60, rem / 1000 % 60, rem % 1000);
    Some(format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z"))
}

/// After an upsert that inserted, pins the generated `_id` into the recorded update's filter so
/// that a replay inserts the same document (the server copies the filter's equality fields).
pub fn pin_upserted_ids(command: &Value, reply: &Value) -> Value {
    let mut cmd = command.clone();
    let Some(upserted) = reply.get("upserted").and_then(Value::as_array) else { return cmd };
    for u in upserted {
        let (Some(index), Some(id)) = (u.get("index").and_then(super::ejson::as_f64), u.get("_id")) else { continue };
        let Some(spec) = cmd.get_mut("updates").and_then(|x| x.get_mut(index as usize)) else { continue };
        if let Some(q) = spec.get_mut("q").and_then(Value::as_object_mut) {
            if !q.contains_key("_id") {
                q.insert("_id".into(), id.clone());
            }
        }
    }
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_without_a_count_are_the_recorded_ones_whose_reply_has_no_n() {
        use serde_json::json;
        let pipeline = |last: Value| json!({ "aggregate": "c", "pipeline": [{ "$match": {} }, last], "cursor": {} });
        assert!(writes_uncounted(&json!({ "dropIndexes": "c", "index": "a_1" })));
        assert!(writes_uncounted(&json!({ "drop": "c" })));
        assert!(writes_uncounted(&pipeline(json!({ "$merge": { "into": "d" } }))));
        assert!(writes_uncounted(&pipeline(json!({ "$out": "d" }))));
        assert!(!writes_uncounted(&pipeline(json!({ "$project": { "a": 1 } }))));
        assert!(!writes_uncounted(&json!({ "update": "c", "updates": [] })));
        assert!(!writes_uncounted(&json!({ "find": "c" })));
        assert_eq!(writing_stage(&[json!({ "$merge": { "into": "d" } })]).map(|(n, _)| n), Some("$merge"));
        assert_eq!(writing_stage(&[json!({ "$out": "d", "$merge": {} })]), None);
    }
    use serde_json::json;

    fn w(collection: &str, cmd: Value) -> WriteRecord {
        WriteRecord::text(collection, cmd.to_string())
    }

    #[test]
    fn inserts_read_as_insert_many_and_others_as_run_command() {
        let ins = w("o", json!({"insert": "o", "documents": [{"_id": {"$oid": "65f0a1b2c3d4e5f601234567"}, "n": {"$numberInt": "1"}}]}));
        assert_eq!(statement(&ins).unwrap(), r#"db.getCollection("o").insertMany([{ "_id": ObjectId("65f0a1b2c3d4e5f601234567"), "n": 1 }]);"#);
        let unordered = w("o", json!({"insert": "o", "documents": [{"_id": 1}], "ordered": false}));
        assert_eq!(statement(&unordered).unwrap(), r#"db.getCollection("o").insertMany([{ "_id": 1 }], { ordered: false });"#);
        let upd = w("o", json!({"update": "o", "updates": [{"q": {}, "u": {"$inc": {"n": {"$numberInt": "1"}}}, "multi": true}]}));
        assert_eq!(statement(&upd).unwrap(), r#"db.runCommand({ "update": "o", "updates": [{ "q": {}, "u": { "$inc": { "n": 1 } }, "multi": true }] });"#);
        let odd = w("o", json!({"insert": "o", "documents": [{"a": {"$date": "x", "b": 1}}], "$db": "shop"}));
        assert_eq!(statement(&odd).unwrap(), r#"db.getSiblingDB("shop").runCommand(EJSON.parse("{\"insert\":\"o\",\"documents\":[{\"a\":{\"$date\":\"x\",\"b\":1}}]}", { relaxed: false }));"#);
        let with_opts = w("o", json!({"insert": "o", "documents": [], "bypassDocumentValidation": true}));
        assert!(statement(&with_opts).unwrap().starts_with("db.runCommand({ \"insert\": \"o\""));
        let rename = w("o", json!({"renameCollection": "test.o", "to": "test.p\"", "dropTarget": true}));
        assert_eq!(statement(&rename).unwrap(), r#"db.getCollection("o").renameCollection("p\"", true);"#);
        assert_eq!(statement(&w("", json!({"dropDatabase": 1}))).unwrap(), "db.dropDatabase();");
    }

    #[test]
    fn values_read_as_mongosh_prints_them_and_make_the_same_types() {
        use bson::{spec::BinarySubtype, Binary, Bson};
        let one = |v: Bson| {
            let mut out = String::new();
            js_value(&v, &mut out);
            out
        };
        let cases: Vec<(Bson, &str)> = vec![
            (Bson::Int32(-7), "-7"),
            (Bson::Double(1.0), "Double(1)"),
            (Bson::Double(-0.0), "Double(-0)"),
            (Bson::Double(0.0), "Double(0)"),
            (Bson::Double(1.5), "1.5"),
            (Bson::Double(3e9), "3000000000.0"),
            (Bson::Double(1e300), "1e300"),
            (Bson::Double(f64::NAN), "NaN"),
            (Bson::Double(f64::NEG_INFINITY), "-Infinity"),
            (Bson::Int64(-9_007_199_254_740_993), r#"NumberLong("-9007199254740993")"#),
            (Bson::Decimal128("1.10".parse().unwrap()), r#"NumberDecimal("1.10")"#),
            (Bson::DateTime(bson::DateTime::from_millis(-1)), r#"ISODate("1969-12-31T23:59:59.999Z")"#),
            (Bson::DateTime(bson::DateTime::from_millis(-62_167_219_200_000)), r#"ISODate("0000-01-01T00:00:00.000Z")"#),
            (Bson::DateTime(bson::DateTime::from_millis(253_402_300_800_000)), "new Date(253402300800000)"),
            (Bson::DateTime(bson::DateTime::from_millis(-62_167_219_200_001)), "new Date(-62167219200001)"),
            (Bson::DateTime(bson::DateTime::from_millis(i64::MAX)), r#"EJSON.parse("{\"$date\":{\"$numberLong\":\"9223372036854775807\"}}", { relaxed: false })"#),
            (Bson::Binary(Binary { subtype: BinarySubtype::Uuid, bytes: (0..16).collect() }), r#"UUID("00010203-0405-0607-0809-0a0b0c0d0e0f")"#),
            (Bson::Binary(Binary { subtype: BinarySubtype::UserDefined(0x80), bytes: vec![255, 0] }), r#"BinData(128, "/wA=")"#),
            (Bson::Timestamp(bson::Timestamp { time: 4_294_967_295, increment: 1 }), "Timestamp({ t: 4294967295, i: 1 })"),
            (Bson::RegularExpression(bson::Regex { pattern: "a/\n".try_into().unwrap(), options: "imsx".try_into().unwrap() }), r#"BSONRegExp("a/\n", "imsx")"#),
            (Bson::MinKey, "MinKey()"),
            (Bson::Symbol("s".into()), r#"BSONSymbol("s")"#),
            (Bson::Undefined, r#"EJSON.parse("{\"$undefined\":true}", { relaxed: false })"#),
            (Bson::Document(bson::doc! { "__proto__": { "x": 1 }, "a\"": [] }), r#"{ ["__proto__"]: { "x": 1 }, "a\"": [] }"#),
            // JavaScript would put "1" first: a Map keeps the order.
            (Bson::Document(bson::doc! { "b": 1, "1": 2 }), r#"new Map([["b", 1], ["1", 2]])"#),
            (Bson::Document(bson::doc! { "10": 1, "9": 2 }), r#"new Map([["10", 1], ["9", 2]])"#),
            (Bson::Document(bson::doc! { "0": 1, "2": 2, "01": 3, "4294967295": 4 }), r#"{ "0": 1, "2": 2, "01": 3, "4294967295": 4 }"#),
        ];
        for (v, want) in cases {
            assert_eq!(one(v.clone()), want, "{v:?}");
        }
    }

    #[test]
    fn only_recorded_write_commands_load_or_export() {
        let bad = [
            (json!({"createUser": "evil", "pwd": "x", "roles": ["root"]}), "never records (\"createUser\")"),
            (json!({"eval": "1"}), "never records"),
            (json!({"insert": "c", "documents": [], "$db": "admin"}), "the server's own \"admin\" database"),
            (json!({"insert": "c", "documents": [], "$db": "a.b"}), "a name the server refuses"),
            (json!({"insert": "c", "documents": [], "$db": 1}), "whose $db is not a name"),
            (json!({"insert": "c", "documents": [], "$comment": 1}), "with a \"$comment\" field"),
            (json!({"renameCollection": "test.a", "to": "admin.a"}), "the server's own \"admin\" database"),
            (json!({"renameCollection": "test.a", "to": "a"}), "without two namespaces"),
            (json!({"aggregate": "a", "pipeline": [{"$match": {}}], "cursor": {}}), "writes nothing"),
            (json!({"aggregate": "a", "pipeline": [{"$out": {"db": "admin", "coll": "x"}}], "cursor": {}}), "the server's own \"admin\" database"),
            (json!({"aggregate": "a", "pipeline": [{"$merge": {"into": {"db": "local", "coll": "x"}}}], "cursor": {}}), "the server's own \"local\" database"),
            (json!({"update": {"$ne": 1}, "updates": []}), "without a collection"),
            (json!({"insert": "", "documents": []}), "without a collection"),
            (json!([{"insert": "c"}]), "not a document"),
            (json!({}), "empty"),
        ];
        for (cmd, needle) in bad {
            let e = statement(&w("c", cmd.clone())).unwrap_err();
            assert!(e.contains(needle), "{cmd}: {e}");
            let mut s = Session::default();
            s.record(Origin::Script { title: "x".into() }, vec![w("c", json!({"insert": "c", "documents": []})), w("c", cmd.clone())]);
            assert!(s.check().is_err(), "{cmd}");
            let text = s.to_mongosh("T", &AuditSet::default(), &BTreeMap::new());
            assert!(text.contains("// Left out: "), "{text}");
            assert!(!text.lines().any(|l| l.starts_with("db.") && (l.contains("createUser") || l.contains("admin"))), "{text}");
        }
        let unreadable = WriteRecord::text("c", "{not json");
        assert!(statement(&unreadable).unwrap_err().contains("unreadable"));
        for name in RECORDED {
            if name == IMPORT {
                continue; // imports_are_logged_with_their_file
            }
            let cmd = match name {
                "renameCollection" => json!({"renameCollection": "test.a", "to": "test.b"}),
                "dropDatabase" => json!({"dropDatabase": 1}),
                "aggregate" => json!({"aggregate": "c", "pipeline": [{"$merge": {"into": {"db": "archive", "coll": "c"}}}], "cursor": {}}),
                _ => json!({name: "c"}),
            };
            assert!(statement(&w("c", cmd.clone())).is_ok(), "{cmd}");
        }
    }

    #[test]
    fn imports_are_logged_with_their_file() {
        let rec = WriteRecord::import("shop", "orders", "orders.json", &json!({"stopOnError": true}), b"{\"a\":1}\n".to_vec());
        assert!(check_write(&rec).is_ok());
        assert_eq!(
            statement(&rec).unwrap(),
            r#"// The playground imported the file "orders.json" into shop.orders: load it there with mongoimport before running this script."#
        );
        match rec.clone().replay_request() {
            crate::protocol::Request::Import { file, bytes, db, collection, options, .. } => {
                assert_eq!((file.as_str(), bytes.as_slice(), db.as_str(), collection.as_str()), ("orders.json", &b"{\"a\":1}\n"[..], "shop", "orders"));
                assert_eq!(options, r#"{"stopOnError":true}"#);
            }
            other => panic!("{other:?}"),
        }
        let mut without = rec.clone();
        without.bson = None;
        assert!(check_write(&without).unwrap_err().contains("without its file"));
        let dump = WriteRecord::import("test", "c", "c.bson", &json!({}), vec![0]);
        assert!(statement(&dump).unwrap().contains("mongorestore"));
        let mut s = Session::default();
        s.record(Origin::Script { title: "x".into() }, vec![w("c", json!({"insert": "c", "documents": []}))]);
        assert!(!s.has_imports());
        s.record(Origin::Ui { action: "Import".into() }, vec![dump]);
        assert!(s.has_imports());
    }

    #[test]
    fn proto_keys_stay_data_in_the_export() {
        // As `{"__proto__": {...}}` an object literal would be `{}` on a server: delete all.
        let del = w("o", json!({"delete": "o", "deletes": [{"q": {"__proto__": {"x": 1}}, "limit": {"$numberInt": "0"}}]}));
        let st = statement(&del).unwrap();
        assert_eq!(st, r#"db.runCommand({ "delete": "o", "deletes": [{ "q": { ["__proto__"]: { "x": 1 } }, "limit": 0 }] });"#);
        assert!(!st.contains("\"__proto__\":"), "{st}");
    }

    #[test]
    fn bytes_must_hold_the_command_the_text_names() {
        // {"insert": "c"} and {"createUser": "c"} as BSON.
        let bson = |name: &str| {
            let mut b = vec![0, 0, 0, 0, 2];
            b.extend(name.as_bytes());
            b.extend([0, 2, 0, 0, 0, b'c', 0, 0]);
            let n = b.len() as u32;
            b[..4].copy_from_slice(&n.to_le_bytes());
            b
        };
        let mut ok = w("c", json!({"insert": "c", "documents": []}));
        ok.bson = Some(bson("insert"));
        assert!(check_write(&ok).is_ok());
        let mut bad = ok.clone();
        bad.bson = Some(bson("createUser"));
        assert!(check_write(&bad).unwrap_err().contains("another command"));
        bad.bson = Some(vec![1, 2, 3]);
        assert!(check_write(&bad).is_err());
        // Bytes that would send the write to another database than the text says.
        bad.bson = Some(bson::doc! {"insert": "c", "documents": [], "$db": "admin"}.to_vec().unwrap());
        assert!(check_write(&bad).unwrap_err().contains("another database"));
        let mut elsewhere = w("c", json!({"insert": "c", "documents": [], "$db": "archive"}));
        elsewhere.bson = Some(bson::doc! {"insert": "c", "documents": [], "$db": "shop"}.to_vec().unwrap());
        assert!(check_write(&elsewhere).unwrap_err().contains("another database"));
        elsewhere.bson = Some(bson::doc! {"insert": "c", "documents": [], "$db": "archive"}.to_vec().unwrap());
        assert!(check_write(&elsewhere).is_ok());
    }

    /// A write as the runtime records it: BSON bytes, canonical Extended JSON text, `inexact`.
    fn recorded(collection: &str, cmd: bson::Document) -> WriteRecord {
        let text = bson::Bson::Document(cmd.clone()).into_canonical_extjson().to_string();
        let bytes = cmd.to_vec().unwrap();
        WriteRecord { collection: collection.into(), command: text, bson: Some(bytes), inexact: true }
    }

    #[test]
    fn fields_named_like_extended_json_types_are_built_from_the_bytes() {
        // `a` is a document whose one field is named "$date" (a string), not a date.
        let ins = recorded("t", bson::doc! { "insert": "t", "documents": [ { "_id": 1, "a": { "$date": "2020-01-01T00:00:00Z" }, "b": [ { "$oid": "x" }, 2 ], "c": { "d": 1.5 } } ] });
        assert_eq!(
            statement(&ins).unwrap(),
            r#"db.getCollection("t").insertMany([{ "_id": 1, "a": { "$date": "2020-01-01T00:00:00Z" }, "b": [{ "$oid": "x" }, 2], "c": { "d": 1.5 } }]);"#
        );
        // Text that disagrees with the bytes: the bytes' statement (what a replay sends).
        let mut off = recorded("t", bson::doc! { "insert": "t", "documents": [ { "a": { "$date": "x" } } ] });
        off.command = r#"{"insert":"t","documents":[{"b":{"$date":"x"}}]}"#.into();
        assert_eq!(statement(&off).unwrap(), r#"db.getCollection("t").insertMany([{ "a": { "$date": "x" } }]);"#);
        // Bytes are checked on their own: an aggregate whose bytes write into admin is left out.
        let mut out = recorded("t", bson::doc! { "aggregate": "t", "pipeline": [ { "$out": { "db": "admin", "coll": "x" } } ], "cursor": {} });
        out.command = r#"{"aggregate":"t","pipeline":[{"$out":"x"}],"cursor":{}}"#.into();
        assert!(statement(&out).unwrap_err().contains("admin"));
    }

    #[test]
    fn writes_into_other_databases_export_through_get_sibling_db() {
        let archive = |cmd: Value| w("o", cmd);
        let ins = archive(json!({"insert": "o", "documents": [{"_id": 1}], "$db": "archive"}));
        assert_eq!(statement(&ins).unwrap(), r#"db.getSiblingDB("archive").getCollection("o").insertMany([{ "_id": 1 }]);"#);
        let upd = archive(json!({"update": "o", "updates": [{"q": {}, "u": {"$set": {"a": 1}}}], "$db": "archive"}));
        let st = statement(&upd).unwrap();
        assert!(st.starts_with(r#"db.getSiblingDB("archive").runCommand({ "update": "o", "updates": "#), "{st}");
        assert!(!st.contains("$db"), "{st}");
        let same = archive(json!({"renameCollection": "archive.o", "to": "archive.p", "$db": "admin"}));
        assert!(statement(&same).unwrap_err().contains("admin"));
        let same = archive(json!({"renameCollection": "archive.o", "to": "archive.p"}));
        assert_eq!(statement(&same).unwrap(), r#"db.getSiblingDB("archive").getCollection("o").renameCollection("p", false);"#);
        let across = archive(json!({"renameCollection": "test.o", "to": "archive.o"}));
        assert_eq!(statement(&across).unwrap(), r#"db.adminCommand({ "renameCollection": "test.o", "to": "archive.o" });"#);
        let drop = archive(json!({"dropDatabase": 1, "$db": "archive"}));
        assert_eq!(statement(&drop).unwrap(), r#"db.getSiblingDB("archive").dropDatabase();"#);
        // Built from the bytes too, `$db` left out of the command.
        let exact = recorded("o", bson::doc! { "update": "o", "updates": [ { "q": { "a": { "$oid": "x" } }, "u": { "$set": { "n": 1 } } } ], "$db": "archive" });
        let st = statement(&exact).unwrap();
        assert_eq!(st, r#"db.getSiblingDB("archive").runCommand({ "update": "o", "updates": [{ "q": { "a": { "$oid": "x" } }, "u": { "$set": { "n": 1 } } }] });"#);
        assert!(!st.contains("$db"), "{st}");
        let mut s = Session::default();
        s.record(Origin::Script { title: "x".into() }, vec![ins, w("o", json!({"insert": "o", "documents": []}))]);
        let text = s.to_mongosh("T", &AuditSet::default(), &BTreeMap::new());
        assert!(text.contains("// It also writes into the database(s) \"archive\", beside the one it is run against."), "{text}");
    }

    #[test]
    fn writes_that_failed_on_replay_are_marked_and_left_out() {
        let mut s = Session::default();
        s.record(Origin::Script { title: "Seed".into() }, vec![w("o", json!({"insert": "o", "documents": [{"_id": 1}]})), w("o", json!({"insert": "o", "documents": [{"_id": 1}]}))]);
        s.record(Origin::Ui { action: "Drop".into() }, vec![w("o", json!({"drop": "o"}))]);
        let failed = BTreeMap::from([(1, "E11000 duplicate key\nerror".to_string())]);
        let text = s.to_mongosh("T", &AuditSet::default(), &failed);
        let lines: Vec<&str> = text.lines().collect();
        let marker = lines.iter().position(|l| l.contains("failed when the playground replayed it (E11000 duplicate key error)")).expect(&text);
        assert!(lines[marker + 1].starts_with("// db.getCollection(\"o\").insertMany("), "{text}");
        assert!(lines[marker - 1].starts_with("db.getCollection(\"o\").insertMany("), "{text}");
        assert!(lines.iter().any(|l| l.starts_with(r#"db.runCommand({ "drop": "o" });"#)), "{text}");
    }

    #[test]
    fn hostile_text_stays_inside_its_literal() {
        let nasty = "</script><script>alert(1)</script> \" \\ \u{2028} é 🍃 ${x} `\n";
        let ins = w("we\"ird</script>", json!({"insert": "we\"ird</script>", "documents": [{"k": nasty, nasty: 1}]}));
        let s = statement(&ins).unwrap();
        assert!(!s.contains("</script>"), "{s}");
        assert!(!s.contains('\u{2028}'));
        assert!(!s.contains('\n'));
        // Each string is one JSON string literal (JavaScript reads JSON's strings alike) of the same text.
        let lit = js_string(nasty);
        assert_eq!(serde_json::from_str::<String>(&lit).unwrap(), nasty);
        assert_eq!(s, format!(r#"db.getCollection("we\"ird\u003c/script\u003e").insertMany([{{ "k": {lit}, {lit}: 1 }}]);"#));
    }

    #[test]
    fn upserted_ids_are_pinned_into_the_filter() {
        let cmd = json!({"update": "b", "updates": [{"q": {"day": "x"}, "u": {"$push": {"r": 1}}, "upsert": true}, {"q": {"_id": 5}, "u": {}, "upsert": true}]});
        let reply = json!({"ok": 1, "n": 2, "upserted": [{"index": {"$numberInt": "0"}, "_id": {"$oid": "65f0a1b2c3d4e5f601234567"}}, {"index": 1, "_id": 5}]});
        let pinned = pin_upserted_ids(&cmd, &reply);
        assert_eq!(pinned["updates"][0]["q"], json!({"day": "x", "_id": {"$oid": "65f0a1b2c3d4e5f601234567"}}));
        assert_eq!(pinned["updates"][1]["q"], json!({"_id": 5}));
        assert_eq!(pin_upserted_ids(&cmd, &json!({"ok": 1})), cmd);
    }

    #[test]
    fn export_lists_entries_in_order_with_health_check() {
        let mut s = Session::default();
        s.record(Origin::Script { title: "Seed".into() }, vec![w("o", json!({"insert": "o", "documents": []}))]);
        s.record(Origin::Ui { action: "Nothing".into() }, vec![]);
        s.record(Origin::Ui { action: "Edit document\nin o".into() }, vec![w("o", json!({"delete": "o", "deletes": []}))]);
        assert_eq!(s.write_count(), 2);
        let audits = AuditSet::default();
        let text = s.to_mongosh("T", &audits, &BTreeMap::new());
        let seed = text.find("// 1. script: Seed").unwrap();
        let edit = text.find("// 2. Edit document in o").unwrap();
        assert!(seed < edit, "{text}");
    }
}
