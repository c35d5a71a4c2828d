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
        s.push_str("// Every document is Extended JSON text, read with EJSON.parse when the script runs.\n");
        let mut index = 0;
        for (n, entry) in self.entries.iter().enumerate() {
            let what = match &entry.origin {
                Origin::Script { title } => format!("script: {}", one_line(title)),
                Origin::Ui { action } => one_line(action),
            };
            s.push_str(&format!("\n// {}. {}\n", n + 1, what));
            for w in &entry.writes {
                if w.inexact && exact_statement(w).is_none() {
                    s.push_str("// Note: a document below has a field named like an Extended JSON type ($date, $oid, ...),\n");
                    s.push_str("// which EJSON.parse reads as that type: on a server this write differs from the playground's.\n");
                }
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
            let last = o.get("pipeline").and_then(Value::as_array).and_then(|p| p.last()).and_then(Value::as_object);
            let into = match last {
                Some(stage) if stage.len() == 1 && stage.contains_key("$out") => stage.get("$out"),
                Some(stage) if stage.len() == 1 && stage.contains_key("$merge") => stage.get("$merge").map(|m| m.get("into").unwrap_or(m)),
                _ => return Err("an aggregate that writes nothing (no $out or $merge at its end)".into()),
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

/// One write as a mongosh statement, its documents as Extended JSON text parsed when the script
/// runs (`EJSON.parse`: every key is data, `"__proto__"` included, never a JavaScript object
/// literal). Inserts read as `insertMany`, a rename as `renameCollection`; every other command is
/// replayed with `db.runCommand`, so its options come back exactly. A write that is not one the
/// playground records gives the reason instead.
///
/// An `inexact` write (a document has a field named like an Extended JSON type, `{ $date: "…" }`,
/// which `EJSON.parse` would read as that type) is written from its BSON bytes instead: each
/// document holding a `$` field is built with `Object.fromEntries` (its keys data, its values
/// built the same way), everything else is still Extended JSON text.
pub fn statement(w: &WriteRecord) -> Result<String, String> {
    let mut cmd = check_write(w)?;
    if w.inexact {
        if let Some(st) = exact_statement(w) {
            return Ok(st);
        }
    }
    let target = db_expr(write_db(&cmd));
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
    let o = cmd.as_object_mut().ok_or("not a document")?;
    o.remove("$db");
    let name = o.keys().next().map(String::as_str).unwrap_or_default();
    let coll = o.values().next().and_then(Value::as_str).unwrap_or_default();
    match name {
        "insert" => {
            if let Some(docs) = o.get("documents") {
                if as_insert_many(o) {
                    return Ok(format!("{target}.getCollection({}).insertMany({});", js_string(coll), ejson(docs)));
                }
            }
        }
        "renameCollection" => {
            let split = |v: Option<&Value>| v.and_then(Value::as_str).and_then(|ns| ns.split_once('.')).map(|(d, c)| (d.to_string(), c.to_string()));
            if let (Some((from_db, from)), Some((to_db, to))) = (split(o.get("renameCollection")), split(o.get("to"))) {
                if from_db == to_db {
                    let drop_target = o.get("dropTarget").and_then(Value::as_bool).unwrap_or(false);
                    return Ok(format!("{}.getCollection({}).renameCollection({}, {drop_target});", db_expr(&from_db), js_string(&from), js_string(&to)));
                }
            }
            // Between databases: an admin command naming both.
            return Ok(format!("db.adminCommand({});", ejson(&cmd)));
        }
        "dropDatabase" => return Ok(format!("{target}.dropDatabase();")),
        _ => {}
    }
    Ok(format!("{target}.runCommand({});", ejson(&cmd)))
}

/// An insert that `insertMany` replays as it was: no fields but its documents, `ordered` and
/// `$db` (any other option goes through `runCommand`).
fn as_insert_many(o: &serde_json::Map<String, Value>) -> bool {
    o.keys().all(|k| ["insert", "documents", "ordered", "$db"].contains(&k.as_str()))
}

fn ejson(v: &Value) -> String {
    format!("EJSON.parse({}, {{ relaxed: false }})", js_string(&serde_json::to_string(v).unwrap_or_default()))
}

/// The statement of a checked write built from its BSON bytes, where every key is data whatever
/// its name ([`statement`]); `None` without bytes, or if the bytes and the text disagree.
fn exact_statement(w: &WriteRecord) -> Option<String> {
    let cmd: Value = serde_json::from_str(&w.command).ok()?;
    let raw = bson::RawDocument::from_bytes(w.bson.as_deref()?).ok()?;
    let target = db_expr(write_db(&cmd));
    let o = cmd.as_object()?;
    if o.keys().next().map(String::as_str) == Some("insert") && as_insert_many(o) {
        let docs = raw.get_array("documents").ok()?;
        let (docs, _) = exact_js(o.get("documents")?, bson::RawBsonRef::Array(docs))?;
        let coll = o.get("insert")?.as_str()?;
        return Some(format!("{target}.getCollection({}).insertMany({docs});", js_string(coll)));
    }
    // The command without its `$db` (the statement's target names the database).
    let mut fields = Vec::new();
    let mut texts = o.iter().filter(|(k, _)| *k != "$db");
    for el in raw {
        let (k, v) = el.ok()?;
        if k.as_str() == "$db" {
            continue;
        }
        let (tk, tv) = texts.next()?;
        if k.as_str() != tk {
            return None;
        }
        let (js, _) = exact_js(tv, v)?;
        fields.push(format!("[{}, {js}]", js_string(tk)));
    }
    if texts.next().is_some() {
        return None;
    }
    Some(format!("{target}.runCommand(Object.fromEntries([{}]));", fields.join(", ")))
}

/// A JavaScript expression giving the value `raw` (whose canonical Extended JSON is `json`) to
/// mongosh exactly, and whether it had to be built (it holds a document with a `$` field). Walks
/// the bytes and the text side by side: the bytes say which objects are documents, the text gives
/// each value's Extended JSON. `None` if they disagree.
fn exact_js(json: &Value, raw: bson::RawBsonRef) -> Option<(String, bool)> {
    let (parts, dollar) = match raw {
        bson::RawBsonRef::Document(d) => {
            let o = json.as_object()?;
            let mut parts = Vec::with_capacity(o.len());
            let mut dollar = false;
            let mut texts = o.iter();
            for el in d {
                let (k, v) = el.ok()?;
                let (tk, tv) = texts.next()?;
                if k.as_str() != tk {
                    return None;
                }
                dollar |= tk.starts_with('$');
                parts.push((Some(tk), exact_js(tv, v)?));
            }
            if texts.next().is_some() {
                return None;
            }
            (parts, dollar)
        }
        bson::RawBsonRef::Array(a) => {
            let items = json.as_array()?;
            let mut parts = Vec::with_capacity(items.len());
            let mut texts = items.iter();
            for el in a {
                parts.push((None, exact_js(texts.next()?, el.ok()?)?));
            }
            if texts.next().is_some() {
                return None;
            }
            (parts, false)
        }
        _ if matches!(json, Value::String(_) | Value::Bool(_) | Value::Null) => return Some((js_literal(json), false)),
        _ => return Some((ejson(json), false)),
    };
    if !dollar && parts.iter().all(|(_, (_, built))| !built) {
        return Some((ejson(json), false));
    }
    let list = |with_keys: bool| {
        let items: Vec<String> = parts
            .iter()
            .map(|(k, (js, _))| match k {
                Some(k) if with_keys => format!("[{}, {js}]", js_string(k)),
                _ => js.clone(),
            })
            .collect();
        items.join(", ")
    };
    Some(match raw {
        bson::RawBsonRef::Document(_) => (format!("Object.fromEntries([{}])", list(true)), true),
        _ => (format!("[{}]", list(false)), true),
    })
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
    use serde_json::json;

    fn w(collection: &str, cmd: Value) -> WriteRecord {
        WriteRecord::text(collection, cmd.to_string())
    }

    /// The JavaScript string literal inside `EJSON.parse(<literal>, ...)`, read back (JSON's string
    /// syntax is a subset of JavaScript's) and parsed: what the statement hands the server.
    fn parsed_literals(st: &str) -> Vec<Value> {
        let mut out = vec![];
        let mut rest = st;
        while let Some(i) = rest.find("EJSON.parse(") {
            rest = &rest[i + "EJSON.parse(".len()..];
            let mut de = serde_json::Deserializer::from_str(rest).into_iter::<String>();
            let text = de.next().unwrap().unwrap();
            out.push(serde_json::from_str(&text).unwrap());
            rest = &rest[de.byte_offset()..];
        }
        out
    }

    #[test]
    fn inserts_read_as_insert_many_and_others_as_run_command() {
        let ins = w("o", json!({"insert": "o", "documents": [{"_id": {"$oid": "65f0a1b2c3d4e5f601234567"}, "n": {"$numberInt": "1"}}]}));
        assert_eq!(
            statement(&ins).unwrap(),
            r#"db.getCollection("o").insertMany(EJSON.parse("[{\"_id\":{\"$oid\":\"65f0a1b2c3d4e5f601234567\"},\"n\":{\"$numberInt\":\"1\"}}]", { relaxed: false }));"#
        );
        let upd = w("o", json!({"update": "o", "updates": [{"q": {}, "u": {"$inc": {"n": {"$numberInt": "1"}}}, "multi": true}]}));
        assert!(statement(&upd).unwrap().starts_with(r#"db.runCommand(EJSON.parse("{\"update\":\"o\",\"updates\""#));
        let with_opts = w("o", json!({"insert": "o", "documents": [], "bypassDocumentValidation": true}));
        assert!(statement(&with_opts).unwrap().starts_with("db.runCommand("));
        let rename = w("o", json!({"renameCollection": "test.o", "to": "test.p\"", "dropTarget": true}));
        assert_eq!(statement(&rename).unwrap(), r#"db.getCollection("o").renameCollection("p\"", true);"#);
        assert_eq!(statement(&w("", json!({"dropDatabase": 1}))).unwrap(), "db.dropDatabase();");
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
        // Removed nothing here; as an object literal `{"__proto__": {...}}` would be `{}` on a server: delete all.
        let del = w("o", json!({"delete": "o", "deletes": [{"q": {"__proto__": {"x": 1}}, "limit": {"$numberInt": "0"}}]}));
        let st = statement(&del).unwrap();
        assert!(st.starts_with("db.runCommand(EJSON.parse(\""), "{st}");
        // No object literal anywhere: the only JavaScript around the text is the call.
        assert!(!st.contains("({"), "{st}");
        let back = parsed_literals(&st);
        assert_eq!(back, vec![json!({"delete": "o", "deletes": [{"q": {"__proto__": {"x": 1}}, "limit": {"$numberInt": "0"}}]})]);
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
        // An inexact write whose bytes do not match its text is exported from the text, with a note.
        let mut s = Session::default();
        ok.inexact = true;
        s.record(Origin::Script { title: "x".into() }, vec![ok]);
        assert!(s.to_mongosh("T", &AuditSet::default(), &BTreeMap::new()).contains("// Note: a document below has a field named like"));
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
            r#"db.getCollection("t").insertMany([Object.fromEntries([["_id", EJSON.parse("{\"$numberInt\":\"1\"}", { relaxed: false })], ["a", Object.fromEntries([["$date", "2020-01-01T00:00:00Z"]])], ["b", [Object.fromEntries([["$oid", "x"]]), EJSON.parse("{\"$numberInt\":\"2\"}", { relaxed: false })]], ["c", EJSON.parse("{\"d\":{\"$numberDouble\":\"1.5\"}}", { relaxed: false })]])]);"#
        );
        // Other commands are built the same way, "__proto__" included as data.
        let upd = recorded("t", bson::doc! { "update": "t", "updates": [ { "q": { "__proto__": { "$oid": "y" } }, "u": { "$set": { "n": 1 } } } ] });
        let st = statement(&upd).unwrap();
        assert!(st.starts_with(r#"db.runCommand(Object.fromEntries([["update", "t"], ["updates", [Object.fromEntries([["q", Object.fromEntries([["__proto__", Object.fromEntries([["$oid", "y"]])]])]"#), "{st}");
        let mut s = Session::default();
        s.record(Origin::Script { title: "x".into() }, vec![ins, upd]);
        assert!(!s.to_mongosh("T", &AuditSet::default(), &BTreeMap::new()).contains("// Note:"));
        // Text that disagrees with the bytes: the text's statement, and the note.
        let mut off = recorded("t", bson::doc! { "insert": "t", "documents": [ { "a": { "$date": "x" } } ] });
        off.command = r#"{"insert":"t","documents":[{"b":{"$date":"x"}}]}"#.into();
        assert!(statement(&off).unwrap().starts_with("db.getCollection(\"t\").insertMany(EJSON.parse("));
    }

    #[test]
    fn writes_into_other_databases_export_through_get_sibling_db() {
        let archive = |cmd: Value| w("o", cmd);
        let ins = archive(json!({"insert": "o", "documents": [{"_id": 1}], "$db": "archive"}));
        assert_eq!(statement(&ins).unwrap(), r#"db.getSiblingDB("archive").getCollection("o").insertMany(EJSON.parse("[{\"_id\":1}]", { relaxed: false }));"#);
        let upd = archive(json!({"update": "o", "updates": [{"q": {}, "u": {"$set": {"a": 1}}}], "$db": "archive"}));
        let st = statement(&upd).unwrap();
        assert!(st.starts_with(r#"db.getSiblingDB("archive").runCommand(EJSON.parse("{\"update\":\"o\",\"updates\""#), "{st}");
        assert!(!st.contains("$db"), "{st}");
        let same = archive(json!({"renameCollection": "archive.o", "to": "archive.p", "$db": "admin"}));
        assert!(statement(&same).unwrap_err().contains("admin"));
        let same = archive(json!({"renameCollection": "archive.o", "to": "archive.p"}));
        assert_eq!(statement(&same).unwrap(), r#"db.getSiblingDB("archive").getCollection("o").renameCollection("p", false);"#);
        let across = archive(json!({"renameCollection": "test.o", "to": "archive.o"}));
        assert!(statement(&across).unwrap().starts_with(r#"db.adminCommand(EJSON.parse("{\"renameCollection\":\"test.o\""#));
        let drop = archive(json!({"dropDatabase": 1, "$db": "archive"}));
        assert_eq!(statement(&drop).unwrap(), r#"db.getSiblingDB("archive").dropDatabase();"#);
        // Built from the bytes too, `$db` left out of the command.
        let exact = recorded("o", bson::doc! { "update": "o", "updates": [ { "q": { "a": { "$oid": "x" } }, "u": { "$set": { "n": 1 } } } ], "$db": "archive" });
        let st = statement(&exact).unwrap();
        assert!(st.starts_with(r#"db.getSiblingDB("archive").runCommand(Object.fromEntries([["update", "o"], ["updates", "#), "{st}");
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
        assert!(lines.iter().any(|l| l.starts_with("db.runCommand(EJSON.parse(\"{\\\"drop\\\"")), "{text}");
    }

    #[test]
    fn hostile_text_stays_inside_its_literal() {
        let nasty = "</script><script>alert(1)</script> \" \\ \u{2028} é 🍃 ${x} `";
        let ins = w("we\"ird</script>", json!({"insert": "we\"ird</script>", "documents": [{"k": nasty, "a\"b": 1}]}));
        let s = statement(&ins).unwrap();
        assert!(!s.contains("</script>"), "{s}");
        assert!(!s.contains('\u{2028}'));
        assert!(!s.contains('\n'));
        // The literal reads back to the very same values.
        let back = parsed_literals(&s);
        assert_eq!(back[0][0]["k"], json!(nasty));
        assert!(s.starts_with(r#"db.getCollection("we\"ird\u003c/script\u003e")"#), "{s}");
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
