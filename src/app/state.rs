//! The playground's saved state: versioned JSON kept in localStorage and carried, compressed, in
//! share links (`#s=<base64url(deflate(json))>`). Old versions are migrated; corrupt or foreign
//! state is an error the UI reports, and the text is kept aside (never deleted).
//!
//! [`Store`] lays the saved work out in localStorage, under a prefix naming the deployment (its
//! directory path: two playgrounds on one origin, `/a/` and `/b/`, never share a key):
//!
//! ```text
//! <ns>/lesson/<id>     one saved state per lesson (encoded)
//! <ns>/current         the id of the lesson open last
//! <ns>/backup/<n>      work that something replaced (a share link, Reset lesson, a restore):
//!                      { at, reason, lesson, state }, the newest MAX_BACKUPS kept
//! <ns>/aside/<n>       text that could not be read (damaged, or written by a newer playground):
//!                      kept as it was, never deleted
//! ```
//!
//! The single slot of earlier versions ([`LEGACY_KEY`]) is moved into this layout on first load.

use std::collections::BTreeMap;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::audits::Audit;
use super::session::Session;

/// The marker that tells our state from anything else stored under the same key.
pub const APP: &str = "pattern-playground";
/// The current version of [`Saved`]. Version 3 added the writes' BSON bytes (`bson`, base64);
/// version 4 the runs of a lesson's own scripts (`lesson_run`), whose writes a share link leaves
/// out (an earlier playground refuses such a link rather than open it without them).
pub const VERSION: u32 = 4;
/// The one localStorage key of earlier versions (every deployment on the origin shared it).
pub const LEGACY_KEY: &str = "pattern-playground/state";
/// The URL fragment prefix of a share link.
pub const SHARE_PREFIX: &str = "s=";
/// The most a share link or saved state may inflate to: inflating stops there (and a state
/// larger than this is not saved).
pub const MAX_INFLATED: usize = 32 << 20;
/// The longest script a state may carry (and the editor may run), in bytes.
pub const MAX_SCRIPT: usize = 1 << 20;
/// How many backups are kept (the oldest go first).
pub const MAX_BACKUPS: usize = 20;

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
    /// Larger than the playground opens.
    TooLarge(String),
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateError::Corrupt(m) => write!(f, "the saved playground is damaged ({m})"),
            StateError::Foreign(m) => write!(f, "the saved playground cannot be opened here ({m})"),
            StateError::TooLarge(m) => write!(f, "the saved playground is too large ({m})"),
        }
    }
}

/// Migrations: `MIGRATIONS[i]` turns version `i + 1` into version `i + 2`.
const MIGRATIONS: [fn(Value) -> Value; 3] = [v1_to_v2, v2_to_v3, v3_to_v4];

/// Version 4 reads version 3 as it is (no run is known to be a lesson's own).
fn v3_to_v4(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.insert("v".into(), Value::from(4));
    }
    v
}

/// Version 2 had the writes' text only; version 3 reads that as it is (a write without bytes
/// replays its text).
fn v2_to_v3(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.insert("v".into(), Value::from(3));
    }
    v
}

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
    let saved: Saved = serde_json::from_value(v).map_err(|e| StateError::Corrupt(e.to_string()))?;
    saved.session.check().map_err(|e| StateError::Foreign(format!("it holds {e}")))?;
    if let Some((step, script)) = saved.scripts.iter().find(|(_, s)| s.len() > MAX_SCRIPT) {
        return Err(StateError::TooLarge(format!(
            "the script of step {} is {}; a script may be at most {}",
            step + 1,
            super::human_bytes(script.len() as f64),
            super::human_bytes(MAX_SCRIPT as f64)
        )));
    }
    Ok(saved)
}

pub fn to_json(s: &Saved) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Compressed, URL-safe text of the state.
pub fn encode(s: &Saved) -> String {
    let json = to_json(s);
    URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9))
}

/// The text of a share link: [`encode`] of the state with its session shortened
/// ([`Session::shorten`]: the runs of the lesson's own scripts, `scripts` by step, carried as
/// what makes them again instead of their writes). `None` when the session holds imported
/// files, which a link cannot carry (the Data tab exports them).
pub fn share_text(s: &Saved, scripts: &[&str]) -> Option<String> {
    if s.session.has_imports() {
        return None;
    }
    let short = Saved { session: s.session.shorten(scripts), ..s.clone() };
    Some(encode(&short))
}

/// Reads [`encode`]'s text.
pub fn decode(text: &str) -> Result<Saved, StateError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(text.trim().trim_end_matches('='))
        .map_err(|e| StateError::Corrupt(format!("not base64url: {e}")))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&bytes, MAX_INFLATED).map_err(|e| match e.status {
        miniz_oxide::inflate::TINFLStatus::HasMoreOutput => {
            StateError::TooLarge(format!("it inflates to more than {}", super::human_bytes(MAX_INFLATED as f64)))
        }
        status => StateError::Corrupt(format!("not a compressed playground: {status:?}")),
    })?;
    let text = String::from_utf8(json).map_err(|_| StateError::Corrupt("not UTF-8".into()))?;
    from_json(&text)
}

/// Stored text: [`encode`]d, or plain JSON (as some earlier versions stored it).
fn read_stored(text: &str) -> Result<Saved, StateError> {
    if text.trim_start().starts_with('{') { from_json(text) } else { decode(text) }
}

/// The state carried by a URL fragment (`#s=...`), if it carries one.
pub fn from_fragment(hash: &str) -> Option<Result<Saved, StateError>> {
    let h = hash.strip_prefix('#').unwrap_or(hash);
    h.strip_prefix(SHARE_PREFIX).map(decode)
}


/// True if the state holds work of the learner's: an edited script, a write or an audit.
pub fn has_work(s: &Saved) -> bool {
    !s.scripts.is_empty() || s.session.write_count() > 0 || !s.audits.is_empty()
}

/// True if two states hold the same work (the open step and the time limit aside).
pub fn same_work(a: &Saved, b: &Saved) -> bool {
    a.lesson == b.lesson && a.scripts == b.scripts && a.session.same_work(&b.session) && a.audits == b.audits
}

/// A string key-value store: localStorage in the browser, a map in the tests.
pub trait Kv {
    fn get(&self, key: &str) -> Option<String>;
    /// Fails when the storage is full or unavailable.
    fn set(&self, key: &str, value: &str) -> Result<(), String>;
    fn remove(&self, key: &str);
    fn keys(&self) -> Vec<String>;
}

/// The key prefix of the deployment served at `pathname` (`/a/index.html` and `/a/` give
/// `pattern-playground@/a`; keys follow it after a `/`).
pub fn namespace(pathname: &str) -> String {
    let dir = match pathname.rfind('/') {
        Some(i) => &pathname[..i],
        None => "",
    };
    format!("{APP}@{dir}")
}

/// Work that something replaced, kept so that the learner can bring it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Backup {
    /// The storage key (not stored in the value).
    #[serde(skip)]
    pub key: String,
    /// When, in milliseconds since the epoch.
    pub at: f64,
    /// What replaced it ("a share link", "Reset lesson", ...).
    pub reason: String,
    pub lesson: String,
    /// The state, [`encode`]d.
    pub state: String,
}

impl Backup {
    pub fn saved(&self) -> Result<Saved, StateError> {
        decode(&self.state)
    }
}

/// What a slot of the store holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Slot {
    Empty,
    Saved(Saved),
    /// It could not be read; its text was kept aside under `aside` (the slot may be reused).
    Unreadable { error: StateError, aside: String },
}

/// The playground's saved work in a [`Kv`], laid out as the module documentation says.
pub struct Store<K: Kv> {
    pub kv: K,
    pub ns: String,
}

impl<K: Kv> Store<K> {
    pub fn new(kv: K, ns: String) -> Store<K> {
        Store { kv, ns }
    }

    fn lesson_key(&self, id: &str) -> String {
        format!("{}/lesson/{id}", self.ns)
    }

    fn current_key(&self) -> String {
        format!("{}/current", self.ns)
    }

    /// The first free key `<ns>/<kind>/<n>`, n counting up from the largest in use.
    fn next_key(&self, kind: &str) -> String {
        let prefix = format!("{}/{kind}/", self.ns);
        let n = self.kv.keys().iter().filter_map(|k| k.strip_prefix(&prefix)?.parse::<u64>().ok()).max().map_or(1, |n| n + 1);
        format!("{prefix}{n}")
    }

    /// Keeps a text that could not be read, under a key of its own; returns the key.
    pub fn put_aside(&self, text: &str) -> Result<String, String> {
        let key = self.next_key("aside");
        self.kv.set(&key, text)?;
        Ok(key)
    }

    /// The keys of the texts kept aside.
    #[cfg(test)]
    pub fn aside(&self) -> Vec<String> {
        let prefix = format!("{}/aside/", self.ns);
        self.kv.keys().into_iter().filter(|k| k.starts_with(&prefix)).collect()
    }

    /// The saved state of a lesson. An unreadable one is copied aside first, so that saving over
    /// the slot loses nothing.
    pub fn load_lesson(&self, id: &str) -> Slot {
        let key = self.lesson_key(id);
        let Some(text) = self.kv.get(&key) else { return Slot::Empty };
        match read_stored(&text) {
            Ok(mut s) => {
                s.lesson = id.to_string();
                Slot::Saved(s)
            }
            Err(error) => match self.put_aside(&text) {
                Ok(aside) => {
                    self.kv.remove(&key);
                    Slot::Unreadable { error, aside }
                }
                // Could not copy it: leave it where it is (the caller must not save over it).
                Err(_) => Slot::Unreadable { error, aside: key },
            },
        }
    }

    /// Saves the state in its lesson's slot and makes that lesson the current one.
    pub fn save(&self, s: &Saved) -> Result<(), String> {
        let json = to_json(s);
        if json.len() > MAX_INFLATED {
            return Err(format!(
                "the playground is {}, more than the {} it can open again; export it",
                super::human_bytes(json.len() as f64),
                super::human_bytes(MAX_INFLATED as f64)
            ));
        }
        let text = URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9));
        self.kv.set(&self.lesson_key(&s.lesson), &text)?;
        self.kv.set(&self.current_key(), &s.lesson)
    }

    /// The lesson open last.
    pub fn current(&self) -> Option<String> {
        self.kv.get(&self.current_key())
    }

    /// Keeps `s` as a backup (if it holds any work); the oldest backups beyond [`MAX_BACKUPS`]
    /// go. Returns the backup's key.
    pub fn backup(&self, s: &Saved, reason: &str, now: f64) -> Result<Option<String>, String> {
        if !has_work(s) {
            return Ok(None);
        }
        let key = self.next_key("backup");
        let b = Backup { key: String::new(), at: now, reason: reason.into(), lesson: s.lesson.clone(), state: encode(s) };
        self.kv.set(&key, &serde_json::to_string(&b).map_err(|e| e.to_string())?)?;
        let all = self.backups();
        for old in all.iter().skip(MAX_BACKUPS) {
            self.kv.remove(&old.key);
        }
        Ok(Some(key))
    }

    /// Every backup, newest first.
    pub fn backups(&self) -> Vec<Backup> {
        let prefix = format!("{}/backup/", self.ns);
        let mut out: Vec<(u64, Backup)> = self
            .kv
            .keys()
            .into_iter()
            .filter_map(|k| {
                let n = k.strip_prefix(&prefix)?.parse::<u64>().ok()?;
                let mut b: Backup = serde_json::from_str(&self.kv.get(&k)?).ok()?;
                b.key = k;
                Some((n, b))
            })
            .collect();
        out.sort_by(|a, b| b.0.cmp(&a.0));
        out.into_iter().map(|(_, b)| b).collect()
    }

    pub fn get_backup(&self, key: &str) -> Option<Backup> {
        self.backups().into_iter().find(|b| b.key == key)
    }

    /// Moves the single slot of earlier versions into this layout: into its lesson's slot when
    /// that is empty, else into a backup; unreadable text goes aside. The old key is removed only
    /// once its content is stored here. Returns what happened, if there was anything.
    pub fn migrate_legacy(&self, now: f64) -> Option<Result<Saved, StateError>> {
        let text = self.kv.get(LEGACY_KEY)?;
        let r = read_stored(&text);
        let stored = match &r {
            Ok(s) => match self.load_lesson(&s.lesson) {
                Slot::Empty => self.save(s),
                _ => self.backup(s, "saved by an earlier version of the playground", now).map(|_| ()),
            },
            Err(_) => self.put_aside(&text).map(|_| ()),
        };
        if stored.is_ok() {
            self.kv.remove(LEGACY_KEY);
        }
        Some(r)
    }
}

/// What to do with a share link's state, given the learner's saved work on its lesson.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkChoice {
    /// Nothing would be lost: open the link.
    Open,
    /// The link would replace work: ask first (and keep the work as a backup).
    Ask,
}

pub fn link_choice(link: &Saved, slot: &Slot) -> LinkChoice {
    match slot {
        Slot::Saved(s) if has_work(s) && !same_work(s, link) => LinkChoice::Ask,
        _ => LinkChoice::Open,
    }
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
            vec![WriteRecord::text("c", r#"{"insert":"c","documents":[{"$k":"\u2028"}]}"#)],
        );
        s
    }


    /// localStorage in a map; `quota` bytes at most (keys and values), like a browser's.
    #[derive(Default)]
    pub struct MemKv {
        pub map: std::cell::RefCell<BTreeMap<String, String>>,
        pub quota: Option<usize>,
    }

    impl Kv for MemKv {
        fn get(&self, key: &str) -> Option<String> {
            self.map.borrow().get(key).cloned()
        }
        fn set(&self, key: &str, value: &str) -> Result<(), String> {
            let mut m = self.map.borrow_mut();
            let used: usize = m.iter().filter(|(k, _)| k.as_str() != key).map(|(k, v)| k.len() + v.len()).sum();
            if self.quota.is_some_and(|q| used + key.len() + value.len() > q) {
                return Err("QuotaExceededError".into());
            }
            m.insert(key.into(), value.into());
            Ok(())
        }
        fn remove(&self, key: &str) {
            self.map.borrow_mut().remove(key);
        }
        fn keys(&self) -> Vec<String> {
            self.map.borrow().keys().cloned().collect()
        }
    }

    fn store() -> Store<MemKv> {
        Store::new(MemKv::default(), namespace("/a/index.html"))
    }

    fn work(lesson: &str, script: &str) -> Saved {
        let mut s = Saved::new(lesson);
        s.scripts.insert(0, script.into());
        s.session.record(
            Origin::Script { title: "Seed".into() },
            vec![WriteRecord::text("c", r#"{"insert":"c","documents":[{"a":{"$numberInt":"1"}}]}"#)],
        );
        s
    }

    #[test]
    fn deployments_on_one_origin_have_their_own_keys() {
        assert_eq!(namespace("/a/index.html"), "pattern-playground@/a");
        assert_eq!(namespace("/a/"), "pattern-playground@/a");
        assert_eq!(namespace("/b/"), "pattern-playground@/b");
        assert_eq!(namespace("/"), "pattern-playground@");
        assert_eq!(namespace(""), "pattern-playground@");
        let kv = MemKv::default();
        let a = Store::new(kv, namespace("/a/"));
        a.save(&work("tree", "print('a')")).unwrap();
        let b = Store::new(a.kv, namespace("/b/index.html"));
        assert_eq!(b.load_lesson("tree"), Slot::Empty);
        assert_eq!(b.current(), None);
        b.save(&work("tree", "print('b')")).unwrap();
        let a = Store::new(b.kv, namespace("/a/"));
        let Slot::Saved(s) = a.load_lesson("tree") else { panic!() };
        assert_eq!(s.scripts[&0], "print('a')");
        assert!(!a.kv.keys().contains(&LEGACY_KEY.to_string()));
    }

    #[test]
    fn each_lesson_keeps_its_own_work() {
        let st = store();
        st.save(&work("subset", "print('subset edit')")).unwrap();
        // Switching to another lesson and working there...
        assert_eq!(st.load_lesson("tree"), Slot::Empty);
        st.save(&work("tree", "print('tree edit')")).unwrap();
        assert_eq!(st.current().as_deref(), Some("tree"));
        // ...and back: the first lesson's work is there.
        let Slot::Saved(s) = st.load_lesson("subset") else { panic!() };
        assert_eq!(s, work("subset", "print('subset edit')"));
    }

    #[test]
    fn a_link_that_would_replace_work_asks_and_the_work_is_restorable() {
        let st = store();
        let mine = work("subset", "print('mine')");
        st.save(&mine).unwrap();
        let link = work("subset", "print('from the link')");
        let slot = st.load_lesson("subset");
        assert_eq!(link_choice(&link, &slot), LinkChoice::Ask);
        // The same work, a fresh lesson, or a lesson without work: nothing to lose.
        assert_eq!(link_choice(&mine, &slot), LinkChoice::Open);
        assert_eq!(link_choice(&link, &Slot::Empty), LinkChoice::Open);
        assert_eq!(link_choice(&link, &Slot::Saved(Saved::new("subset"))), LinkChoice::Open);
        // Accepted: the work goes to a backup, the link's state into the slot.
        let Slot::Saved(replaced) = slot else { panic!() };
        let key = st.backup(&replaced, "a share link", 1000.0).unwrap().unwrap();
        st.save(&link).unwrap();
        let backups = st.backups();
        assert_eq!(backups.len(), 1);
        assert_eq!(backups[0].key, key);
        assert_eq!(backups[0].reason, "a share link");
        assert_eq!(st.get_backup(&key).unwrap().saved(), Ok(mine));
        // Nothing to keep, no backup.
        assert_eq!(st.backup(&Saved::new("tree"), "x", 0.0), Ok(None));
    }

    #[test]
    fn backups_are_bounded_newest_first() {
        let st = store();
        for i in 0..(MAX_BACKUPS + 3) {
            st.backup(&work("tree", &format!("print({i})")), "r", i as f64).unwrap();
        }
        let b = st.backups();
        assert_eq!(b.len(), MAX_BACKUPS);
        assert_eq!(b[0].saved().unwrap().scripts[&0], format!("print({})", MAX_BACKUPS + 2));
        assert_eq!(b[MAX_BACKUPS - 1].saved().unwrap().scripts[&0], "print(3)");
    }

    #[test]
    fn a_newer_or_damaged_state_is_kept_aside_never_deleted() {
        let st = store();
        let newer = r#"{"app":"pattern-playground","v":99,"lesson":"tree","hologram":true}"#;
        st.kv.set(&format!("{}/lesson/tree", st.ns), newer).unwrap();
        let Slot::Unreadable { error, aside } = st.load_lesson("tree") else { panic!() };
        assert!(matches!(error, StateError::Foreign(_)), "{error:?}");
        assert_eq!(st.kv.get(&aside).as_deref(), Some(newer));
        // The slot can be used again; what was aside stays.
        st.save(&work("tree", "x")).unwrap();
        st.kv.set(&format!("{}/lesson/tree", st.ns), "garbage!").unwrap();
        let Slot::Unreadable { aside: aside2, .. } = st.load_lesson("tree") else { panic!() };
        assert_ne!(aside, aside2);
        assert_eq!(st.aside().len(), 2);
        assert_eq!(st.kv.get(&aside).as_deref(), Some(newer));
        assert_eq!(st.kv.get(&aside2).as_deref(), Some("garbage!"));
        // When it cannot be copied (storage full), it stays in its slot.
        let full = Store::new(MemKv { quota: Some(0), ..Default::default() }, namespace("/"));
        full.kv.map.borrow_mut().insert(format!("{}/lesson/tree", full.ns), newer.into());
        let Slot::Unreadable { aside, .. } = full.load_lesson("tree") else { panic!() };
        assert_eq!(aside, format!("{}/lesson/tree", full.ns));
        assert_eq!(full.kv.get(&aside).as_deref(), Some(newer));
    }

    #[test]
    fn the_single_slot_of_earlier_versions_is_migrated() {
        // Into the empty slot of its lesson.
        let st = store();
        let old = work("subset", "print('old')");
        st.kv.set(LEGACY_KEY, &encode(&old)).unwrap();
        assert_eq!(st.migrate_legacy(5.0), Some(Ok(old.clone())));
        assert_eq!(st.load_lesson("subset"), Slot::Saved(old.clone()));
        assert_eq!(st.current().as_deref(), Some("subset"));
        assert_eq!(st.kv.get(LEGACY_KEY), None);
        assert_eq!(st.migrate_legacy(5.0), None);
        // Into a backup when the lesson already has work here.
        st.kv.set(LEGACY_KEY, &encode(&work("subset", "print('older')"))).unwrap();
        assert!(matches!(st.migrate_legacy(6.0), Some(Ok(_))));
        assert_eq!(st.load_lesson("subset"), Slot::Saved(old));
        assert_eq!(st.backups()[0].saved().unwrap().scripts[&0], "print('older')");
        // Unreadable: aside, untouched.
        st.kv.set(LEGACY_KEY, r#"{"app":"pattern-playground","v":7}"#).unwrap();
        assert!(matches!(st.migrate_legacy(7.0), Some(Err(StateError::Foreign(_)))));
        assert_eq!(st.kv.get(&st.aside()[0]).as_deref(), Some(r#"{"app":"pattern-playground","v":7}"#));
        // Storage full: the old key stays.
        let full = Store::new(MemKv { quota: Some(0), ..Default::default() }, namespace("/"));
        full.kv.map.borrow_mut().insert(LEGACY_KEY.into(), encode(&work("tree", "x")));
        assert!(matches!(full.migrate_legacy(1.0), Some(Ok(_))));
        assert!(full.kv.get(LEGACY_KEY).is_some());
    }

    #[test]
    fn inflating_stops_at_the_cap_and_long_scripts_are_refused() {
        // A link of some 50 KB that inflates past the cap: refused there.
        let big = format!(r#"{{"app":"pattern-playground","v":2,"lesson":"x","step":0,"scripts":{{"0":"{}"}}}}"#, "a".repeat(MAX_INFLATED + 10));
        let text = URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(big.as_bytes(), 1));
        assert!(text.len() < 1_000_000, "{}", text.len());
        let e = decode(&text).unwrap_err();
        assert!(matches!(&e, StateError::TooLarge(m) if m.contains("32.0 MiB")), "{e:?}");
        // Nor is a state that large saved (it could not be opened again).
        let mut s = Saved::new("x");
        s.session.record(Origin::Ui { action: "x".into() }, vec![WriteRecord::text("c", "x".repeat(MAX_INFLATED))]);
        assert!(store().save(&s).unwrap_err().contains("export it"));
        // Under the inflate cap, a script over its own cap.
        let long = format!(r#"{{"app":"pattern-playground","v":2,"lesson":"x","step":0,"scripts":{{"3":"{}"}}}}"#, "a".repeat(MAX_SCRIPT + 1));
        let e = from_json(&long).unwrap_err();
        assert!(matches!(&e, StateError::TooLarge(m) if m.contains("step 4")), "{e:?}");
        assert!(e.to_string().contains("too large"), "{e}");
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
    fn a_link_carrying_other_commands_is_refused() {
        let mut s = Saved::new("subset");
        s.session.record(
            Origin::Script { title: "x".into() },
            vec![WriteRecord::text("admin", r#"{"createUser":"evil","pwd":"x","roles":["root"]}"#)],
        );
        let e = decode(&encode(&s)).unwrap_err();
        assert!(matches!(&e, StateError::Foreign(m) if m.contains("createUser")), "{e:?}");
    }

    /// A finished lesson session as the playground records it: each step's own script run once
    /// (`writes` of it each), then an edit made in the Data tab.
    fn finished(lesson: &str, scripts: &[&str], writes: impl Fn(usize) -> Vec<WriteRecord>) -> Saved {
        let mut s = Saved::new(lesson);
        s.step = scripts.len() - 1;
        for (i, code) in scripts.iter().enumerate() {
            let run = crate::app::session::LessonRun {
                step: i,
                script: crate::app::session::digest(&[code.as_bytes()]),
                ids: crate::protocol::IdSpec { seed: 1 << 52 | i as u64, times: vec![(1_764_633_600, 3000)] },
                left_out: None,
            };
            s.session.record_run(Origin::Script { title: format!("Step {i}") }, writes(i), Some(run));
        }
        s.session.record(Origin::Ui { action: "Edit document".into() }, vec![WriteRecord::text("films", r#"{"update":"films","updates":[{"q":{"_id":"F-1001"},"u":{"$set":{"year":{"$numberInt":"2024"}}}}]}"#)]);
        s.scripts.insert(2, "print('my own step 3')".into());
        s
    }

    /// An insert of `n` comments with ObjectIds (their bytes differ, as generated ones do).
    fn comments(n: usize) -> WriteRecord {
        let docs: Vec<bson::Document> = (0..n)
            .map(|i| {
                let mut id = [0u8; 12];
                id[..8].copy_from_slice(&(i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15).to_le_bytes());
                bson::doc! { "_id": bson::oid::ObjectId::from_bytes(id), "filmId": "F-1001", "author": format!("viewer{}", i * 7 % 1200), "stars": (i % 5) as i32 + 1, "text": "moody slow gorgeous clever loud tender odd brilliant", "at": bson::DateTime::from_millis(1_704_067_200_000 + i as i64 * 7_200_000) }
            })
            .collect();
        let cmd = bson::doc! { "insert": "comments", "documents": docs };
        WriteRecord { collection: "comments".into(), command: bson::Bson::Document(cmd.clone()).into_canonical_extjson().to_string(), bson: Some(cmd.to_vec().unwrap()), inexact: false }
    }

    #[test]
    fn a_share_link_leaves_out_the_writes_of_the_lessons_own_scripts() {
        let scripts = ["db.comments.insertMany(...)", "db.films.insertOne(...)", "print(1)", "db.films.updateOne(...)", "db.films.updateMany(...)"];
        let saved = finished("subset", &scripts, |i| if i < 2 { vec![comments(3000)] } else { vec![comments(1)] });
        let long = encode(&saved);
        let short = share_text(&saved, &scripts).unwrap();
        println!("share link: {} characters with every write, {} without the lesson's own runs", long.len(), short.len());
        assert!(long.len() > 100_000, "{}", long.len());
        assert!(short.len() <= 4096, "{}", short.len());
        // What it carries: the lesson, the step, the edited script, the UI's write, and for each
        // run what makes it again (the step, its ObjectIds, what its writes must come out as).
        let opened = decode(&short).unwrap();
        assert_eq!((opened.lesson.as_str(), opened.step, &opened.scripts), ("subset", 4, &saved.scripts));
        assert_eq!(opened.session.entries.len(), 6);
        for (i, e) in opened.session.entries[..5].iter().enumerate() {
            assert!(e.writes.is_empty());
            let run = e.lesson_run.as_ref().unwrap();
            assert_eq!((run.step, run.ids.seed), (i, 1 << 52 | i as u64));
            let left = run.left_out.as_ref().unwrap();
            assert_eq!((left.count, left.writes.as_str()), (1, crate::app::session::writes_digest(&saved.session.entries[i].writes).as_str()));
        }
        assert_eq!(opened.session.entries[5], saved.session.entries[5]);
        // The same work as the session it came from: opening it over that work asks nothing.
        assert_eq!(opened.session.write_count(), saved.session.write_count());
        assert!(same_work(&opened, &saved) && same_work(&saved, &opened));
        assert_eq!(link_choice(&opened, &Slot::Saved(saved.clone())), LinkChoice::Open);
        let mut other = saved.clone();
        other.session.entries[1].writes = vec![comments(2999)];
        assert!(!same_work(&opened, &other));
        assert_eq!(link_choice(&opened, &Slot::Saved(other)), LinkChoice::Ask);
        // A lesson whose script changed since the run: that run's writes stay in the link.
        let mut changed = scripts;
        changed[0] = "db.comments.insertMany(/* another version */)";
        let kept = decode(&share_text(&saved, &changed).unwrap()).unwrap();
        assert_eq!(kept.session.entries[0], saved.session.entries[0]);
        assert!(kept.session.entries[1].writes.is_empty());
        // Imported data: no link (the Data tab exports it).
        let mut imported = saved.clone();
        imported.session.record(Origin::Ui { action: "Import".into() }, vec![WriteRecord::import("test", "c", "c.json", &serde_json::json!({}), b"{}".to_vec())]);
        assert_eq!(share_text(&imported, &scripts), None);
    }

    #[test]
    fn a_link_cannot_leave_out_writes_it_also_carries_or_that_no_lesson_script_made() {
        let scripts = ["db.c.insertOne({})"];
        let saved = finished("subset", &scripts, |_| vec![comments(1)]);
        let short = decode(&share_text(&saved, &scripts).unwrap()).unwrap();
        let mut both = short.clone();
        both.session.entries[0].writes = vec![comments(1)];
        let e = decode(&encode(&both)).unwrap_err();
        assert!(matches!(&e, StateError::Foreign(m) if m.contains("both left out and there")), "{e:?}");
        let mut ui = short.clone();
        ui.session.entries[0].origin = Origin::Ui { action: "Edit".into() };
        assert!(decode(&encode(&ui)).is_err());
        // The writes a link does carry are checked as ever.
        let mut hostile = short;
        hostile.session.record(Origin::Ui { action: "x".into() }, vec![WriteRecord::text("admin", r#"{"createUser":"evil","pwd":"x","roles":["root"]}"#)]);
        assert!(matches!(decode(&encode(&hostile)), Err(StateError::Foreign(m)) if m.contains("createUser")));
    }

    #[test]
    fn a_version_3_link_opens_with_every_write() {
        let v3 = r#"{"app":"pattern-playground","v":3,"lesson":"subset","step":1,"scripts":{},"audits":[],"time_limit_ms":10000,
            "session":{"entries":[{"origin":{"by":"script","title":"Seed"},"writes":[{"collection":"c","command":"{\"insert\":\"c\",\"documents\":[{\"_id\":{\"$numberInt\":\"1\"}}]}","bson":"NAAAAAJpbnNlcnQAAgAAAGMABGRvY3VtZW50cwAWAAAAAzAADgAAABBfaWQAAQAAAAAAAA=="}]}]}}"#;
        let s = from_json(v3).unwrap();
        assert_eq!(s.v, VERSION);
        assert_eq!(s.session.write_count(), 1);
        assert_eq!(s.session.entries[0].lesson_run, None);
        assert!(s.session.entries[0].writes[0].bson.is_some());
    }

    #[test]
    fn version_1_is_migrated() {
        let v1 = r#"{"app":"pattern-playground","v":1,"lesson":"subset","step":1,
            "log":[{"title":"Seed","writes":[{"collection":"c","command":"{\"drop\":\"c\"}"}]}],"timeLimit":3}"#;
        let s = from_json(v1).unwrap();
        assert_eq!(s.v, VERSION);
        assert_eq!(s.time_limit_ms, 3000);
        assert_eq!(s.session.entries.len(), 1);
        assert_eq!(s.session.entries[0].origin, Origin::Script { title: "Seed".into() });
        assert_eq!(s.session.write_count(), 1);
    }
}
