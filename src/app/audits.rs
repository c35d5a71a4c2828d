//! Drift audits: named queries that find documents whose copied or computed fields went stale.
//! A lesson defines some; the learner may add more. Each may carry a repair (a pipeline update).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ejson;
use super::session::{js_literal, js_string};

/// One audit. `filter` and `repair` are canonical Extended JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Audit {
    pub name: String,
    pub collection: String,
    pub filter: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair: Option<Value>,
    /// True for audits the learner added (they can be removed; the lesson's cannot).
    #[serde(default)]
    pub user: bool,
}

/// The audits of a playground: the lesson's, then the learner's.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AuditSet {
    pub audits: Vec<Audit>,
}

impl AuditSet {
    /// The lesson's audits (their filters and repairs are relaxed Extended JSON).
    pub fn from_lesson(audits: &[crate::app::lesson::Audit]) -> AuditSet {
        AuditSet {
            audits: audits
                .iter()
                .map(|a| Audit {
                    name: a.name.clone(),
                    collection: a.collection.clone(),
                    filter: ejson::to_canonical(&a.filter),
                    repair: a.repair.as_ref().map(ejson::to_canonical),
                    user: false,
                })
                .collect(),
        }
    }

    pub fn user_audits(&self) -> Vec<Audit> {
        self.audits.iter().filter(|a| a.user).cloned().collect()
    }

    /// Adds a learner's audit from the form's texts. `filter` is a query (e.g. `{"$expr": ...}`),
    /// `repair` an optional pipeline.
    pub fn add(&mut self, name: &str, collection: &str, filter: &str, repair: &str) -> Result<(), String> {
        let name = name.trim();
        let collection = collection.trim();
        if name.is_empty() {
            return Err("give the audit a name".into());
        }
        if self.audits.iter().any(|a| a.name == name) {
            return Err(format!("an audit named \"{name}\" exists already"));
        }
        if collection.is_empty() {
            return Err("name the collection to audit".into());
        }
        let filter = ejson::parse_object(filter).map_err(|e| format!("filter: {e}"))?;
        let repair = if repair.trim().is_empty() {
            None
        } else {
            let r = ejson::parse_value(repair).map_err(|e| format!("repair: {e}"))?;
            if !r.is_array() {
                return Err("repair: a pipeline update is an array of stages: [ { \"$set\": ... } ]".into());
            }
            Some(r)
        };
        self.audits.push(Audit { name: name.into(), collection: collection.into(), filter, repair, user: true });
        Ok(())
    }

    /// Removes a learner's audit.
    pub fn remove(&mut self, name: &str) {
        self.audits.retain(|a| !(a.user && a.name == name));
    }

    #[cfg_attr(not(test), allow(dead_code))]
    pub fn get(&self, name: &str) -> Option<&Audit> {
        self.audits.iter().find(|a| a.name == name)
    }

    /// The mongosh health check appended to an exported session.
    pub fn health_check_js(&self) -> String {
        if self.audits.is_empty() {
            return String::new();
        }
        let mut s = String::from("\n// Health check: how many documents each drift audit finds (0 = healthy).\n");
        for a in &self.audits {
            s.push_str(&format!(
                "print({} + \": \" + db.getCollection({}).countDocuments(EJSON.deserialize({}, {{ relaxed: false }})));\n",
                js_string(&a.name),
                js_string(&a.collection),
                js_literal(&a.filter)
            ));
        }
        s
    }
}

impl Audit {
    /// The command that counts the drifted documents.
    pub fn count_command(&self) -> Value {
        serde_json::json!({
            "aggregate": self.collection,
            "pipeline": [ { "$match": self.filter }, { "$count": "n" } ],
            "cursor": {},
        })
    }

    /// The command that lists (the first `limit` of) the drifted documents.
    pub fn list_command(&self, limit: i64) -> Value {
        serde_json::json!({ "find": self.collection, "filter": self.filter, "limit": ejson::int(limit) })
    }

    /// The update that repairs every drifted document, if the audit has a repair.
    pub fn repair_command(&self) -> Option<Value> {
        let repair = self.repair.as_ref()?;
        Some(serde_json::json!({
            "update": self.collection,
            "updates": [ { "q": self.filter, "u": repair, "multi": true } ],
        }))
    }
}

/// Reads the count out of a `count_command` reply (no document means 0).
pub fn count_from_reply(reply: &Value) -> Result<i64, String> {
    if let Some(e) = reply_error(reply) {
        return Err(e);
    }
    let batch = reply.pointer("/cursor/firstBatch").and_then(Value::as_array).ok_or("no cursor in the reply")?;
    Ok(batch.first().and_then(|d| d.get("n")).and_then(ejson::as_f64).map(|n| n as i64).unwrap_or(0))
}

/// The server's error in a reply (`ok: 0`), as `errmsg (codeName)`.
pub fn reply_error(reply: &Value) -> Option<String> {
    let ok = reply.get("ok").and_then(ejson::as_f64).unwrap_or(0.0);
    if ok == 1.0 {
        if let Some(we) = reply.get("writeErrors").and_then(Value::as_array).and_then(|a| a.first()) {
            let msg = we.get("errmsg").and_then(Value::as_str).unwrap_or("write error");
            return Some(match we.get("codeName").and_then(Value::as_str) {
                Some(c) => format!("{msg} ({c})"),
                None => msg.to_string(),
            });
        }
        return None;
    }
    let msg = reply.get("errmsg").and_then(Value::as_str).unwrap_or("the command failed");
    Some(match reply.get("codeName").and_then(Value::as_str) {
        Some(c) => format!("{msg} ({c})"),
        None => msg.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn adds_validates_and_removes_user_audits() {
        let mut set = AuditSet::default();
        let cases: [(&str, &str, &str, &str, Option<&str>); 6] = [
            ("", "c", "{}", "", Some("name")),
            ("a", "", "{}", "", Some("collection")),
            ("a", "c", "[1]", "", Some("filter: line 1, column 1: expected a document")),
            ("a", "c", "{\"x\": }", "", Some("filter: line 1")),
            ("a", "c", "{}", "{\"$set\": {}}", Some("array of stages")),
            ("a", "c", "{\"$expr\": {\"$gt\": [\"$n\", 3]}}", "[{\"$set\": {\"n\": 3}}]", None),
        ];
        for (name, coll, filter, repair, err) in cases {
            let r = set.add(name, coll, filter, repair);
            match err {
                Some(needle) => assert!(r.as_ref().unwrap_err().contains(needle), "{r:?}"),
                None => assert_eq!(r, Ok(())),
            }
        }
        assert_eq!(set.add("a", "c", "{}", ""), Err("an audit named \"a\" exists already".into()));
        let a = set.get("a").unwrap();
        assert_eq!(a.filter, json!({"$expr": {"$gt": ["$n", {"$numberInt": "3"}]}}));
        assert_eq!(a.repair_command().unwrap()["updates"][0]["multi"], json!(true));
        assert_eq!(a.count_command()["pipeline"][1], json!({"$count": "n"}));
        set.remove("a");
        assert!(set.audits.is_empty());
    }

    #[test]
    fn counts_and_errors_from_replies() {
        let cases = [
            (json!({"ok": 1, "cursor": {"firstBatch": [{"n": {"$numberInt": "4"}}]}}), Ok(4)),
            (json!({"ok": {"$numberDouble": "1.0"}, "cursor": {"firstBatch": []}}), Ok(0)),
            (json!({"ok": 0, "errmsg": "bad $expr", "codeName": "InvalidPipelineOperator"}), Err("bad $expr (InvalidPipelineOperator)".to_string())),
        ];
        for (reply, expected) in cases {
            assert_eq!(count_from_reply(&reply), expected);
        }
        let we = json!({"ok": 1, "writeErrors": [{"errmsg": "dup", "codeName": "DuplicateKey"}]});
        assert_eq!(reply_error(&we), Some("dup (DuplicateKey)".into()));
    }

    #[test]
    fn health_check_prints_each_audit() {
        let mut set = AuditSet::default();
        set.add("Stale \"names\"", "orders", "{\"a\": 1}", "").unwrap();
        let js = set.health_check_js();
        assert!(js.contains(r#"print("Stale \"names\"" + ": " + db.getCollection("orders").countDocuments(EJSON.deserialize({"a":{"$numberInt":"1"}}, { relaxed: false })));"#), "{js}");
    }
}
