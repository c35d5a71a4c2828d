//! The session log: every write made through the playground (lesson steps, scripts, the data
//! editor, the update composer, repairs), in order, as the exact server commands the engine ran.
//! Replaying it rebuilds the same database; exporting it gives one mongosh script.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::audits::AuditSet;
use crate::protocol::WriteRecord;

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
}

/// The ordered log of a playground session.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Session {
    pub entries: Vec<Entry>,
}

impl Session {
    /// Records an action's writes (nothing if it wrote nothing).
    pub fn record(&mut self, origin: Origin, writes: Vec<WriteRecord>) {
        if !writes.is_empty() {
            self.entries.push(Entry { origin, writes });
        }
    }

    pub fn write_count(&self) -> usize {
        self.entries.iter().map(|e| e.writes.len()).sum()
    }

    /// Every write, in order.
    pub fn writes(&self) -> impl Iterator<Item = &WriteRecord> {
        self.entries.iter().flat_map(|e| e.writes.iter())
    }

    /// The whole session as one mongosh script that rebuilds the database from empty, then
    /// prints the audits' counts as a health check.
    pub fn to_mongosh(&self, title: &str, audits: &AuditSet) -> String {
        let mut s = String::new();
        s.push_str(&format!("// Pattern Playground session: {}\n", one_line(title)));
        s.push_str("// Replays every write of the session, in order, with the exact documents (ids and dates\n");
        s.push_str("// included), then runs the drift audits as a health check. Run it on an empty database.\n");
        for (n, entry) in self.entries.iter().enumerate() {
            let what = match &entry.origin {
                Origin::Script { title } => format!("script: {}", one_line(title)),
                Origin::Ui { action } => one_line(action),
            };
            s.push_str(&format!("\n// {}. {}\n", n + 1, what));
            for w in &entry.writes {
                s.push_str(&statement(w));
                s.push('\n');
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

/// One write as a mongosh statement. Inserts read as `insertMany`; every other command is replayed
/// with `db.runCommand`, so its options come back exactly.
pub fn statement(w: &WriteRecord) -> String {
    let cmd: Value = match serde_json::from_str(&w.command) {
        Ok(v) => v,
        Err(_) => return format!("// unreadable write on {}: {}", js_string(&w.collection), js_string(&w.command)),
    };
    let name = cmd.as_object().and_then(|o| o.keys().next().cloned()).unwrap_or_default();
    if name == "insert" {
        if let Some(docs) = cmd.get("documents") {
            let only_ordered = cmd.as_object().is_some_and(|o| o.keys().all(|k| k == "insert" || k == "documents" || k == "ordered"));
            if only_ordered {
                return format!(
                    "db.getCollection({}).insertMany(EJSON.deserialize({}, {{ relaxed: false }}));",
                    js_string(&w.collection),
                    js_literal(docs)
                );
            }
        }
    }
    format!("db.runCommand(EJSON.deserialize({}, {{ relaxed: false }}));", js_literal(&cmd))
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
        WriteRecord { collection: collection.into(), command: cmd.to_string() }
    }

    #[test]
    fn inserts_read_as_insert_many_and_others_as_run_command() {
        let ins = w("o", json!({"insert": "o", "documents": [{"_id": {"$oid": "65f0a1b2c3d4e5f601234567"}, "n": {"$numberInt": "1"}}]}));
        assert_eq!(
            statement(&ins),
            r#"db.getCollection("o").insertMany(EJSON.deserialize([{"_id":{"$oid":"65f0a1b2c3d4e5f601234567"},"n":{"$numberInt":"1"}}], { relaxed: false }));"#
        );
        let upd = w("o", json!({"update": "o", "updates": [{"q": {}, "u": {"$inc": {"n": {"$numberInt": "1"}}}, "multi": true}]}));
        assert!(statement(&upd).starts_with(r#"db.runCommand(EJSON.deserialize({"update":"o","updates""#));
        let with_opts = w("o", json!({"insert": "o", "documents": [], "bypassDocumentValidation": true}));
        assert!(statement(&with_opts).starts_with("db.runCommand("));
    }

    #[test]
    fn hostile_text_stays_inside_its_literal() {
        let nasty = "</script><script>alert(1)</script> \" \\ \u{2028} é 🍃 ${x} `";
        let ins = w("we\"ird</script>", json!({"insert": "we\"ird</script>", "documents": [{"k": nasty, "a\"b": 1}]}));
        let s = statement(&ins);
        assert!(!s.contains("</script>"), "{s}");
        assert!(!s.contains('\u{2028}'));
        // The literal parses back (as JSON) to the very same values.
        let start = s.find("EJSON.deserialize(").unwrap() + "EJSON.deserialize(".len();
        let lit = &s[start..s.len() - ", { relaxed: false }));".len()];
        let back: Value = serde_json::from_str(lit).unwrap();
        assert_eq!(back[0]["k"], json!(nasty));
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
        let text = s.to_mongosh("T", &audits);
        let seed = text.find("// 1. script: Seed").unwrap();
        let edit = text.find("// 2. Edit document in o").unwrap();
        assert!(seed < edit, "{text}");
    }
}
