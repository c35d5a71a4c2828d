//! The playground's saved state: versioned JSON kept in localStorage and carried, compressed, in
//! share links (`#s=<base64url(deflate(json))>`). Old versions are migrated; corrupt or foreign
//! state is an error the UI reports before starting fresh.

use std::collections::BTreeMap;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::audits::Audit;
use super::session::Session;

/// The marker that tells our state from anything else stored under the same key.
pub const APP: &str = "pattern-playground";
/// The current version of [`Saved`].
pub const VERSION: u32 = 2;
/// The localStorage key.
pub const STORAGE_KEY: &str = "pattern-playground/state";
/// The URL fragment prefix of a share link.
pub const SHARE_PREFIX: &str = "s=";
/// The most a share link or saved state may inflate to.
const MAX_INFLATED: usize = 64 << 20;

/// What the playground keeps between visits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    pub app: String,
    pub v: u32,
    /// The open lesson's id.
    pub lesson: String,
    /// The open step (0-based).
    pub step: usize,
    /// Scripts the learner edited, by step index.
    #[serde(default)]
    pub scripts: BTreeMap<usize, String>,
    /// Every write so far, in order: replayed to rebuild the database.
    #[serde(default)]
    pub session: Session,
    /// Audits the learner added.
    #[serde(default)]
    pub audits: Vec<Audit>,
    /// The script time limit.
    #[serde(default = "default_limit")]
    pub time_limit_ms: u32,
}

fn default_limit() -> u32 {
    10_000
}

impl Saved {
    pub fn new(lesson: &str) -> Saved {
        Saved {
            app: APP.into(),
            v: VERSION,
            lesson: lesson.into(),
            step: 0,
            scripts: BTreeMap::new(),
            session: Session::default(),
            audits: Vec::new(),
            time_limit_ms: default_limit(),
        }
    }
}

/// Why saved state could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateError {
    /// Not readable: bad base64, bad deflate stream, bad JSON, wrong shape.
    Corrupt(String),
    /// Readable, but not ours or from a newer playground.
    Foreign(String),
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateError::Corrupt(m) => write!(f, "the saved playground is damaged ({m})"),
            StateError::Foreign(m) => write!(f, "the saved playground cannot be opened here ({m})"),
        }
    }
}

/// Migrations: `MIGRATIONS[i]` turns version `i + 1` into version `i + 2`.
const MIGRATIONS: [fn(Value) -> Value; 1] = [v1_to_v2];

/// Version 1 kept the log as `log: [{ title, writes }]` (scripts only) and the limit in seconds.
fn v1_to_v2(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        let log = o.remove("log").unwrap_or(Value::Array(vec![]));
        let entries: Vec<Value> = log
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|e| {
                        serde_json::json!({
                            "origin": { "by": "script", "title": e.get("title").cloned().unwrap_or(Value::from("script")) },
                            "writes": e.get("writes").cloned().unwrap_or(Value::Array(vec![])),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        o.insert("session".into(), serde_json::json!({ "entries": entries }));
        if let Some(secs) = o.remove("timeLimit").and_then(|s| s.as_f64()) {
            o.insert("time_limit_ms".into(), Value::from((secs * 1000.0) as u32));
        }
        o.insert("v".into(), Value::from(2));
    }
    v
}

/// Reads saved JSON of any known version.
pub fn from_json(text: &str) -> Result<Saved, StateError> {
    let mut v: Value = serde_json::from_str(text).map_err(|e| StateError::Corrupt(e.to_string()))?;
    if v.get("app").and_then(Value::as_str) != Some(APP) {
        return Err(StateError::Foreign("it was not saved by Pattern Playground".into()));
    }
    let version = v.get("v").and_then(Value::as_u64).ok_or_else(|| StateError::Corrupt("no version".into()))?;
    if version == 0 || version > u64::from(VERSION) {
        return Err(StateError::Foreign(format!("version {version}; this playground reads 1 to {VERSION}")));
    }
    for m in &MIGRATIONS[(version as usize - 1)..] {
        v = m(v);
    }
    serde_json::from_value(v).map_err(|e| StateError::Corrupt(e.to_string()))
}

pub fn to_json(s: &Saved) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Compressed, URL-safe text of the state.
pub fn encode(s: &Saved) -> String {
    let json = to_json(s);
    URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9))
}

/// Reads [`encode`]'s text.
pub fn decode(text: &str) -> Result<Saved, StateError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(text.trim().trim_end_matches('='))
        .map_err(|e| StateError::Corrupt(format!("not base64url: {e}")))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&bytes, MAX_INFLATED)
        .map_err(|e| StateError::Corrupt(format!("not a compressed playground: {:?}", e.status)))?;
    let text = String::from_utf8(json).map_err(|_| StateError::Corrupt("not UTF-8".into()))?;
    from_json(&text)
}

/// The state carried by a URL fragment (`#s=...`), if it carries one.
pub fn from_fragment(hash: &str) -> Option<Result<Saved, StateError>> {
    let h = hash.strip_prefix('#').unwrap_or(hash);
    h.strip_prefix(SHARE_PREFIX).map(decode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::session::Origin;
    use crate::protocol::WriteRecord;

    fn sample() -> Saved {
        let mut s = Saved::new("subset");
        s.step = 2;
        s.scripts.insert(1, "print(\"é </script> \\\\ 🍃\")".into());
        s.session.record(
            Origin::Ui { action: "Insert".into() },
            vec![WriteRecord { collection: "c".into(), command: r#"{"insert":"c","documents":[{"$k":"\u2028"}]}"#.into() }],
        );
        s
    }

    #[test]
    fn share_text_round_trips() {
        let s = sample();
        let text = encode(&s);
        assert!(text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{text}");
        assert_eq!(decode(&text), Ok(s.clone()));
        assert_eq!(from_fragment(&format!("#s={text}")), Some(Ok(s)));
        assert_eq!(from_fragment("#other"), None);
    }

    #[test]
    fn bad_state_is_reported_not_panicked() {
        let cases = [("!!!", "base64"), ("AAAA", "compressed"), ("", "JSON")];
        for (text, needle) in cases {
            let e = decode(text).unwrap_err();
            assert!(matches!(&e, StateError::Corrupt(m) if m.contains(needle) || needle == "JSON"), "{text}: {e:?}");
        }
        let json_cases = [
            ("{", "Corrupt"),
            ("[1,2]", "Foreign"),
            (r#"{"app":"other","v":1}"#, "Foreign"),
            (r#"{"app":"pattern-playground","v":99}"#, "Foreign"),
            (r#"{"app":"pattern-playground"}"#, "Corrupt"),
            (r#"{"app":"pattern-playground","v":2,"lesson":5}"#, "Corrupt"),
        ];
        for (text, kind) in json_cases {
            let e = from_json(text).unwrap_err();
            assert!(format!("{e:?}").starts_with(kind), "{text}: {e:?}");
        }
    }

    #[test]
    fn version_1_is_migrated() {
        let v1 = r#"{"app":"pattern-playground","v":1,"lesson":"subset","step":1,
            "log":[{"title":"Seed","writes":[{"collection":"c","command":"{}"}]}],"timeLimit":3}"#;
        let s = from_json(v1).unwrap();
        assert_eq!(s.v, 2);
        assert_eq!(s.time_limit_ms, 3000);
        assert_eq!(s.session.entries.len(), 1);
        assert_eq!(s.session.entries[0].origin, Origin::Script { title: "Seed".into() });
        assert_eq!(s.session.write_count(), 1);
    }
}
