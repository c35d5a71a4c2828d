//! The playground controller ([`Pg`], a context every view uses), start-up, persistence and the
//! app shell.

use std::collections::{BTreeMap, HashMap};

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::audits::{self, AuditSet};
use super::catalog;
use super::lesson::Lesson;
use super::session::{self, Origin, Session};
use super::state::{self, Kv, LinkChoice, Saved, Slot, Store};
use super::run_pane::{now_ms, RunPane};
use super::worker::{Engine, EngineError};
use crate::protocol::{Cost, ImportProgress, ImportReport, QueryRecord, WriteRecord};

/// Which tool of the workspace is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Lesson,
    Data,
    Update,
    Aggregate,
    Audits,
    Sizes,
    Schema,
    Export,
}

impl Tab {
    pub const ALL: [Tab; 8] = [Tab::Lesson, Tab::Data, Tab::Update, Tab::Aggregate, Tab::Audits, Tab::Sizes, Tab::Schema, Tab::Export];
    pub fn label(self) -> &'static str {
        match self {
            Tab::Lesson => "Lesson",
            Tab::Data => "Data",
            Tab::Update => "Update",
            Tab::Aggregate => "Aggregate",
            Tab::Audits => "Audits",
            Tab::Sizes => "Sizes",
            Tab::Schema => "Schema",
            Tab::Export => "Export & share",
        }
    }
    pub fn id(self) -> &'static str {
        match self {
            Tab::Lesson => "lesson",
            Tab::Data => "data",
            Tab::Update => "update",
            Tab::Aggregate => "aggregate",
            Tab::Audits => "audits",
            Tab::Sizes => "sizes",
            Tab::Schema => "schema",
            Tab::Export => "export",
        }
    }
}

/// A message at the top of the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub error: bool,
    pub text: String,
    /// A backup the message offers to restore ("Restore previous work").
    pub restore: Option<String>,
}

/// The engine's state as the UI shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineState {
    Starting,
    Ready,
    Broken(String),
}

/// The playground controller: shared signals plus the actions that talk to the engine.
#[derive(Clone, Copy)]
pub struct Pg {
    engine: StoredValue<Engine, LocalStorage>,
    /// The lesson menu (every lesson's id, title, ...; the lessons themselves are fetched).
    pub lessons: StoredValue<Vec<catalog::Entry>>,
    /// The lessons fetched so far, by id (the page's own lesson first).
    fetched: StoredValue<HashMap<String, Lesson>>,
    pub lesson: RwSignal<Option<Lesson>>,
    pub step: RwSignal<usize>,
    /// Scripts the learner edited, by step.
    pub scripts: RwSignal<BTreeMap<usize, String>>,
    /// The output pane (a run's lines, its error and summary).
    pub pane: RunPane,
    pub session: RwSignal<Session>,
    pub audits: RwSignal<AuditSet>,
    pub audit_counts: RwSignal<HashMap<String, Result<i64, String>>>,
    /// Bumped after every write: views that show data refetch.
    pub data_version: RwSignal<u64>,
    pub cost: RwSignal<Option<(String, Cost)>>,
    pub busy: RwSignal<bool>,
    pub notice: RwSignal<Option<Notice>>,
    pub engine_state: RwSignal<EngineState>,
    pub time_limit_ms: RwSignal<u32>,
    /// When the running script started (`performance.now()`), for the elapsed time and Stop.
    pub run_started: RwSignal<Option<f64>>,
    pub tab: RwSignal<Tab>,
    /// True once the saved state was replayed: persistence starts then.
    pub loaded: RwSignal<bool>,
    /// The collection the data tools look at, in [`Pg::database`].
    pub collection: RwSignal<Option<String>>,
    /// The database the Data tab shows ("test", the one scripts start on, unless the learner
    /// picks another); the other tools work in "test".
    pub database: RwSignal<String>,
    /// An update the advisor drafted for the Update tab to preview (taken when it opens).
    pub draft: RwSignal<Option<UpdateDraft>>,
    /// A pipeline the advisor drafted for the Aggregate tab to step through (taken when it opens).
    pub pipeline_draft: RwSignal<Option<PipelineDraft>>,
    /// The scripts' reads since the lesson opened (at most [`MAX_QUERIES`]), for the advisor.
    pub queries: RwSignal<Vec<QueryRecord>>,
    /// The writes (index in the session) that failed when the session was last replayed, and why.
    pub replay_failed: RwSignal<BTreeMap<usize, String>>,
    /// The saved backups (newest first), as the Export tab lists them.
    pub backups: RwSignal<Vec<state::Backup>>,
    /// The import running now: how far it is (the Data tab's progress bar).
    pub import_progress: RwSignal<Option<ImportProgress>>,
    /// Set by Cancel: the running import is undone after its current slice.
    pub import_cancel: RwSignal<bool>,
    /// The last import's report lines (kept here: the panel may be closed, or the learner on
    /// another tab, when it ends).
    pub import_report: RwSignal<Vec<String>>,
}

/// A drafted update: the Update tab's fields (Extended JSON texts).
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateDraft {
    pub collection: String,
    pub filter: String,
    pub update: String,
    pub multi: bool,
}

/// A drafted aggregation: the Aggregate tab's collection and pipeline (Extended JSON text), most
/// often ending in the `$merge` that writes the migration.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineDraft {
    pub collection: String,
    pub pipeline: String,
}

pub fn use_pg() -> Pg {
    expect_context::<Pg>()
}

impl Pg {
    pub fn new() -> Pg {
        Pg {
            engine: StoredValue::new_local(Engine::new()),
            lessons: StoredValue::new(catalog::index()),
            fetched: StoredValue::new(catalog::page_lesson().into_iter().map(|l| (l.id.clone(), l)).collect()),
            lesson: RwSignal::new(None),
            step: RwSignal::new(0),
            scripts: RwSignal::new(BTreeMap::new()),
            pane: RunPane::new(),
            session: RwSignal::new(Session::default()),
            audits: RwSignal::new(AuditSet::default()),
            audit_counts: RwSignal::new(HashMap::new()),
            data_version: RwSignal::new(0),
            cost: RwSignal::new(None),
            busy: RwSignal::new(false),
            notice: RwSignal::new(None),
            engine_state: RwSignal::new(EngineState::Starting),
            time_limit_ms: RwSignal::new(DEFAULT_LIMIT_MS),
            run_started: RwSignal::new(None),
            tab: RwSignal::new(Tab::Lesson),
            loaded: RwSignal::new(false),
            collection: RwSignal::new(None),
            database: RwSignal::new(session::DEFAULT_DB.to_string()),
            draft: RwSignal::new(None),
            pipeline_draft: RwSignal::new(None),
            queries: RwSignal::new(Vec::new()),
            backups: RwSignal::new(Vec::new()),
            replay_failed: RwSignal::new(BTreeMap::new()),
            import_progress: RwSignal::new(None),
            import_cancel: RwSignal::new(false),
            import_report: RwSignal::new(Vec::new()),
        }
    }

    fn engine(&self) -> Engine {
        self.engine.get_value()
    }

    /// The collection the tools working in "test" start on: the Data tab's, when it shows "test".
    pub fn test_collection(&self) -> String {
        if self.database.get_untracked() == session::DEFAULT_DB {
            self.collection.get_untracked().unwrap_or_default()
        } else {
            String::new()
        }
    }

    pub fn info(&self, text: impl Into<String>) {
        self.notice.set(Some(Notice { error: false, text: text.into(), restore: None }));
    }

    pub fn error(&self, text: impl Into<String>) {
        self.notice.set(Some(Notice { error: true, text: text.into(), restore: None }));
    }

    /// The script of a step: the learner's edit, else the lesson's.
    pub fn script(&self, step: usize) -> String {
        if let Some(s) = self.scripts.with(|m| m.get(&step).cloned()) {
            return s;
        }
        self.lesson.with(|l| l.as_ref().and_then(|l| l.steps.get(step)).map(|s| s.script.clone()).unwrap_or_default())
    }

    pub fn set_script(&self, step: usize, text: String) {
        let original = self.lesson.with_untracked(|l| l.as_ref().and_then(|l| l.steps.get(step)).map(|s| s.script.clone()));
        self.scripts.update(|m| {
            if original.as_deref() == Some(text.as_str()) {
                m.remove(&step);
            } else {
                m.insert(step, text);
            }
        });
    }

    /// Runs one server command (canonical Extended JSON in, the reply out). Reads only: writes go
    /// through [`Pg::write`] so that they are logged.
    /// Every command has the script's time limit: past it the engine is restarted and the
    /// database rebuilt from the session (the error says so).
    pub async fn command(&self, cmd: &Value) -> Result<Value, String> {
        let text = cmd.to_string();
        let reply = self.engine().command(text, self.time_limit_ms.get_untracked()).await.map_err(|e| e.to_string())?;
        serde_json::from_str(&reply).map_err(|e| format!("unreadable reply: {e}"))
    }

    /// Runs a read command and returns every document of its cursor: the first batch, then the
    /// `getMore`s of the rest (the engine batches as the server does).
    pub async fn batch(&self, cmd: &Value) -> Result<Vec<Value>, String> {
        let reply = self.command(cmd).await?;
        if let Some(e) = audits::reply_error(&reply) {
            return Err(e);
        }
        let mut docs = reply.pointer("/cursor/firstBatch").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut id = reply.pointer("/cursor/id").cloned();
        // A getMore names the cursor's namespace: its collection, and its database in `$db`.
        let ns = reply.pointer("/cursor/ns").and_then(Value::as_str).and_then(|ns| ns.split_once('.')).map(|(d, c)| (d.to_string(), c.to_string()));
        while let (Some(cursor), Some((db, coll))) = (id.take(), &ns) {
            if super::ejson::as_f64(&cursor).unwrap_or(0.0) == 0.0 {
                break;
            }
            let more = self.command(&serde_json::json!({ "getMore": cursor, "collection": coll, "$db": db })).await?;
            if let Some(e) = audits::reply_error(&more) {
                return Err(e);
            }
            docs.extend(more.pointer("/cursor/nextBatch").and_then(Value::as_array).cloned().unwrap_or_default());
            id = more.pointer("/cursor/id").cloned();
        }
        Ok(docs)
    }

    /// Runs a write command made by the UI, logs it (with upserted ids pinned) and refreshes
    /// every view. Returns the reply, or the server's error.
    pub async fn write(&self, action: &str, cmd: Value) -> Result<Value, String> {
        let reply = self.command(&cmd).await?;
        let err = audits::reply_error(&reply);
        let wrote = reply.get("n").and_then(super::ejson::as_f64).unwrap_or(0.0) > 0.0 || session::writes_uncounted(&cmd);
        if wrote || err.is_none() {
            let collection = cmd.as_object().and_then(|o| o.values().next()).and_then(Value::as_str).unwrap_or_default().to_string();
            let pinned = session::pin_upserted_ids(&cmd, &reply);
            if wrote {
                self.session.update(|s| {
                    s.record(Origin::Ui { action: action.to_string() }, vec![WriteRecord::text(collection, pinned.to_string())])
                });
            }
            self.data_version.update(|v| *v += 1);
        }
        match err {
            Some(e) => Err(e),
            None => Ok(reply),
        }
    }

    /// Runs a script with the time limit. A runaway script (or one stopped with Stop, or one that
    /// crashed the engine's sandbox) is stopped by replacing the worker; the database is then
    /// restored from the snapshot taken just before the run. An answer that cannot be read also
    /// puts the database back, so that it always matches the session's log.
    pub async fn run_script(&self, title: String, code: String) {
        if self.busy.get_untracked() {
            return;
        }
        if code.len() > state::MAX_SCRIPT {
            self.error(format!(
                "This script is {}; the playground runs scripts of at most {}.",
                super::human_bytes(code.len() as f64),
                super::human_bytes(state::MAX_SCRIPT as f64)
            ));
            return;
        }
        self.busy.set(true);
        self.pane.clear();
        let engine = self.engine();
        let snapshot = engine.snapshot().await.ok();
        engine.set_checkpoint(snapshot.clone());
        let limit = self.time_limit_ms.get_untracked();
        // The lesson's own script of a step, as the lesson has it: a share link runs it again
        // instead of carrying its writes.
        let lesson_step = self.lesson.with_untracked(|l| l.as_ref().and_then(|l| l.steps.iter().position(|s| s.script == code && s.title == title)));
        let script_digest = session::digest(&[code.as_bytes()]);
        let filename = format!("{}.js", title.to_lowercase().replace(|c: char| !c.is_ascii_alphanumeric(), "-"));
        let started = now_ms();
        self.run_started.set(Some(started));
        let r = engine.run(code, filename, limit).await;
        self.run_started.set(None);
        engine.set_checkpoint(None);
        match r {
            Ok(report) => {
                self.pane.finished(report.output, report.error, report.writes.len(), started);
                self.queries.update(|q| {
                    q.extend(report.queries);
                    let over = q.len().saturating_sub(MAX_QUERIES);
                    q.drain(..over);
                });
                if let Some(c) = report.cost {
                    self.cost.set(Some((title.clone(), c)));
                }
                let lesson_run = lesson_step.zip(report.ids).map(|(step, ids)| session::LessonRun { step, script: script_digest, ids, left_out: None });
                self.session.update(|s| s.record_run(Origin::Script { title }, report.writes, lesson_run));
                self.data_version.update(|v| *v += 1);
            }
            Err(e @ EngineError::Stopped { .. }) => {
                let text = e.to_string();
                self.pane.failed(text.clone());
                self.error(text);
                self.data_version.update(|v| *v += 1);
            }
            Err(e) => {
                let restored = match snapshot {
                    Some(bytes) => engine.restore(bytes).await.is_ok(),
                    None => false,
                };
                if !restored {
                    self.replay().await;
                }
                let text = format!("{e}. The script's writes were undone, so the data matches the session.");
                self.error(text.clone());
                self.pane.failed(text);
                self.data_version.update(|v| *v += 1);
            }
        }
        self.busy.set(false);
    }

    /// Imports one file into `db.collection` (an empty collection: named after the file) with
    /// the engine's importer, in slices ([`IMPORT_SLICE`]): [`Pg::import_progress`] follows it,
    /// and [`Pg::cancel_import`] ends it between two slices. A file that stops on an error, or a
    /// cancelled import, leaves the database as it was before it (the engine undoes what it
    /// added; Stop replaces the worker and replays the session's log, which it is not in); an
    /// import that stays is logged with the file's bytes, so a reload imports it again. Returns
    /// the importer's report and whether the import stayed, or why there is none.
    pub async fn import_file(&self, job: super::data_view::ImportJob, stop_on_error: bool) -> Result<(ImportReport, bool), String> {
        let super::data_view::ImportJob { file, bytes, db, collection, metadata } = job;
        if self.busy.get_untracked() {
            return Err("the engine is busy".into());
        }
        if bytes.len() > MAX_IMPORT {
            return Err(format!(
                "{file} is {}; the playground imports files of at most {}.",
                super::human_bytes(bytes.len() as f64),
                super::human_bytes(MAX_IMPORT as f64)
            ));
        }
        self.busy.set(true);
        self.import_cancel.set(false);
        let engine = self.engine();
        engine.set_checkpoint(None);
        let db = db.unwrap_or_else(|| self.database.get_untracked());
        // The ObjectIds of documents without `_id` are made from these, logged with the file:
        // a replay gives the same ones.
        let seed = (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64;
        let time = (js_sys::Date::now() / 1000.0) as u32;
        let mut options = serde_json::json!({ "stopOnError": stop_on_error, "ids": { "time": time, "seed": seed } });
        // A dump collection's metadata goes with its documents (and is logged with them); without
        // a `.bson`, the metadata's file name must not make the (empty) documents JSON.
        if let (Some((meta_file, text)), Some(o)) = (metadata, options.as_object_mut()) {
            o.insert("format".into(), "bson".into());
            o.insert("metadataFile".into(), meta_file.into());
            o.insert("metadata".into(), text.into());
        }
        self.run_started.set(Some(now_ms()));
        let this = *self;
        let (r, bytes) = engine
            .import_sliced(
                file.clone(),
                bytes,
                db,
                collection,
                options.to_string(),
                IMPORT_LIMIT_MS,
                IMPORT_SLICE,
                move |p| this.import_progress.set(Some(p.clone())),
                move || this.import_cancel.get_untracked(),
            )
            .await;
        self.run_started.set(None);
        self.import_progress.set(None);
        let result = match r {
            Ok((report, true)) => {
                let record = WriteRecord::import(&report.db, &report.collection, &file, &options, bytes);
                self.session.update(|s| s.record(Origin::Ui { action: format!("Import {file}") }, vec![record]));
                Ok((report, true))
            }
            Ok((report, false)) => Ok((report, false)),
            Err(e) => Err(e.to_string()),
        };
        self.data_version.update(|v| *v += 1);
        self.busy.set(false);
        result
    }

    /// Cancels the running import (the Data tab's Cancel): it is undone after its current slice.
    pub fn cancel_import(&self) {
        if self.import_progress.get_untracked().is_some() {
            self.import_cancel.set(true);
        }
    }

    /// One collection as a file for mongoimport/mongorestore (`format`: `json`, `canonical`,
    /// `bson`, `metadata`).
    pub async fn export_collection(&self, db: String, collection: String, format: &str) -> Result<Vec<u8>, String> {
        self.engine().export(db, collection, format.to_string()).await.map_err(|e| e.to_string())
    }

    /// Stops the running script (the Stop button); `run_script` then reports it.
    pub fn stop(&self) {
        if self.busy.get_untracked() {
            self.engine().stop();
        }
    }

    /// Empties the database and replays the session's writes.
    pub async fn replay(&self) -> bool {
        let engine = self.engine();
        if let Err(e) = engine.reset().await {
            self.engine_state.set(EngineState::Broken(e.to_string()));
            return false;
        }
        // A short link's runs of the lesson's scripts are run again (super::share).
        let session = self.session.get_untracked();
        let scripts: Vec<String> = self.lesson.with_untracked(|l| l.as_ref().map(|l| l.steps.iter().map(|s| s.script.clone()).collect()).unwrap_or_default());
        let r = super::share::replay(&engine, &session, &scripts, self.time_limit_ms.get_untracked()).await;
        if r.session != session {
            self.session.set(r.session);
        }
        let failed = r.failed;
        let mut problems = Vec::new();
        if !r.notes.is_empty() {
            problems.push(format!("The shared playground could not be rebuilt exactly: {}.", r.notes.join("; ")));
        }
        if !failed.is_empty() {
            problems.push(format!(
                "{} recorded write(s) failed on replay; the data may differ from the session (the export marks them).",
                failed.len()
            ));
        }
        if !problems.is_empty() {
            self.error(problems.join(" "));
        }
        self.replay_failed.set(failed);
        self.data_version.update(|v| *v += 1);
        true
    }

    /// Switches to another lesson (the lesson menu): the open lesson's work is saved in its own
    /// slot first, and the other lesson comes back as it was left (or fresh).
    pub fn switch_lesson(&self, id: &str) {
        if self.lesson.with_untracked(|l| l.as_ref().is_some_and(|l| l.id == id)) {
            return;
        }
        if !self.save_now() {
            return;
        }
        let saved = match store().map(|st| st.load_lesson(id)) {
            Some(Slot::Saved(s)) => s,
            Some(Slot::Unreadable { error, aside }) => {
                self.error(format!("{error}. It was kept aside in this browser's storage ({aside}); the lesson starts fresh."));
                Saved::new(id)
            }
            _ => Saved::new(id),
        };
        let pg = *self;
        self.pane.clear();
        self.cost.set(None);
        self.collection.set(None);
        self.database.set(session::DEFAULT_DB.to_string());
        self.queries.set(Vec::new());
        spawn_local(async move { pg.load(saved).await });
    }

    /// Saves the open lesson's work in its slot now (not waiting for the persistence effect's
    /// quiet time). False (and a message) if it could not be saved.
    pub fn save_now(&self) -> bool {
        if !self.loaded.get_untracked() || self.lesson.with_untracked(Option::is_none) {
            return true;
        }
        let saved = self.saved_untracked();
        match store().map(|st| st.save(&saved)) {
            Some(Err(e)) => {
                self.error(format!("Your work could not be saved ({e}): this browser's storage is full. Export it before you switch."));
                false
            }
            _ => true,
        }
    }

    /// Keeps the open lesson's work as a backup (when it holds any). False (and a message) if it
    /// could not be stored.
    pub fn backup_current(&self, reason: &str) -> Result<Option<String>, ()> {
        let saved = self.saved_untracked();
        let r = match store() {
            Some(st) => st.backup(&saved, reason, js_sys::Date::now()),
            None => Ok(None),
        };
        self.refresh_backups();
        r.map_err(|e| self.error(format!("Your work could not be kept as a backup ({e}); nothing was replaced.")))
    }

    /// Reads the backups again.
    pub fn refresh_backups(&self) {
        self.backups.set(store().map(|st| st.backups()).unwrap_or_default());
    }

    /// Brings a backup back. Work it replaces on the same lesson becomes a backup in turn; work on
    /// another lesson stays in that lesson's slot.
    pub fn restore_backup(&self, key: &str) {
        let Some(b) = store().and_then(|st| st.get_backup(key)) else {
            self.error("That backup is no longer in this browser's storage.");
            return;
        };
        let saved = match b.saved() {
            Ok(s) if self.lessons.with_value(|ls| ls.iter().any(|l| l.id == s.lesson)) => s,
            Ok(s) => {
                self.error(format!("That backup is of the lesson “{}”, which this playground does not have.", s.lesson));
                return;
            }
            Err(e) => {
                self.error(format!("That backup cannot be restored: {e}."));
                return;
            }
        };
        if !self.save_now() {
            return;
        }
        let current = self.saved_untracked();
        if current.lesson == saved.lesson && !state::same_work(&current, &saved) && self.backup_current("replaced by restoring a backup").is_err() {
            return;
        }
        let pg = *self;
        self.pane.clear();
        self.cost.set(None);
        self.collection.set(None);
        self.database.set(session::DEFAULT_DB.to_string());
        self.queries.set(Vec::new());
        spawn_local(async move {
            pg.load(saved).await;
            pg.save_now();
            pg.refresh_backups();
            pg.info("Your earlier work is back.");
        });
    }

    /// Opens a lesson with a fresh database.
    fn open_lesson(&self, lesson: Lesson) {
        self.audits.set(AuditSet::from_lesson(&lesson.audits));
        self.lesson.set(Some(lesson));
        self.step.set(0);
        self.scripts.set(BTreeMap::new());
        self.session.set(Session::default());
        self.pane.clear();
        self.cost.set(None);
        self.collection.set(None);
        self.database.set(session::DEFAULT_DB.to_string());
        self.queries.set(Vec::new());
        let pg = *self;
        spawn_local(async move {
            pg.replay().await;
        });
    }

    /// "Reset lesson": the lesson's scripts, an empty database, no session.
    pub fn reset_lesson(&self) {
        if let Some(lesson) = self.lesson.get_untracked() {
            let Ok(backup) = self.backup_current("Reset lesson") else { return };
            let user = self.audits.with_untracked(|a| a.user_audits());
            self.open_lesson(lesson);
            self.audits.update(|a| a.audits.extend(user));
            self.notice.set(Some(Notice {
                error: false,
                text: "The lesson was reset: its scripts are back and the database is empty.".into(),
                restore: backup,
            }));
        }
    }

    /// The state to save or share.
    pub fn saved(&self) -> Saved {
        let mut s = Saved::new(&self.lesson.with(|l| l.as_ref().map(|l| l.id.clone()).unwrap_or_default()));
        s.step = self.step.get();
        s.scripts = self.scripts.get();
        s.session = self.session.get();
        s.audits = self.audits.with(|a| a.user_audits());
        s.time_limit_ms = self.time_limit_ms.get();
        s
    }

    /// [`Pg::saved`], outside any reactive tracking.
    pub fn saved_untracked(&self) -> Saved {
        let mut s = Saved::new(&self.lesson.with_untracked(|l| l.as_ref().map(|l| l.id.clone()).unwrap_or_default()));
        s.step = self.step.get_untracked();
        s.scripts = self.scripts.get_untracked();
        s.session = self.session.get_untracked();
        s.audits = self.audits.with_untracked(|a| a.user_audits());
        s.time_limit_ms = self.time_limit_ms.get_untracked();
        s
    }

    /// Loads saved state (from storage, a share link or a backup) and replays it.
    async fn load(&self, saved: Saved) {
        if self.show(saved).await {
            self.replay().await;
        }
    }

    /// Puts saved state on screen (the lesson, its step, scripts and audits) without touching the
    /// engine: at start-up the lesson shows while the engine is still loading, and
    /// [`Pg::replay`] rebuilds the data once it is ready. False (and a message) when the lesson
    /// could not be fetched.
    async fn show(&self, saved: Saved) -> bool {
        let exists = self.lessons.with_value(|ls| ls.iter().any(|l| l.id == saved.lesson));
        let id = if exists { saved.lesson.clone() } else { self.first_lesson_id() };
        let lesson = match self.fetch_lesson(&id).await {
            Ok(l) => l,
            Err(e) => {
                self.error(format!("The lesson “{id}” could not be loaded: {e}."));
                return false;
            }
        };
        let mut audits = AuditSet::from_lesson(&lesson.audits);
        audits.audits.extend(saved.audits.into_iter().map(|mut a| {
            a.user = true;
            a
        }));
        let steps = lesson.steps.len();
        self.lesson.set(Some(lesson));
        self.audits.set(audits);
        self.step.set(saved.step.min(steps.saturating_sub(1)));
        self.scripts.set(saved.scripts);
        self.session.set(saved.session);
        self.time_limit_ms.set(saved.time_limit_ms.clamp(MIN_LIMIT_MS, MAX_LIMIT_MS));
        true
    }

    /// A lesson by id: from the ones already here (the page's own, or fetched before), else
    /// fetched (`catalog::fetch`).
    async fn fetch_lesson(&self, id: &str) -> Result<Lesson, String> {
        if let Some(l) = self.fetched.with_value(|m| m.get(id).cloned()) {
            return Ok(l);
        }
        let l = catalog::fetch(id).await?;
        self.fetched.update_value(|m| {
            m.insert(id.to_string(), l.clone());
        });
        Ok(l)
    }

    fn first_lesson_id(&self) -> String {
        self.lessons.with_value(|ls| ls.first().map(|l| l.id.clone()).unwrap_or_default())
    }

    /// Refreshes every audit's count.
    pub async fn refresh_audits(&self) {
        let list = self.audits.get_untracked().audits;
        let mut counts = HashMap::new();
        for a in list {
            let r = match self.command(&a.count_command()).await {
                Ok(reply) => audits::count_from_reply(&reply),
                Err(e) => Err(e),
            };
            counts.insert(a.name.clone(), r);
        }
        self.audit_counts.set(counts);
    }
}

/// The scripts' time limit: the default (also the most a share link may set), and the range the
/// learner may choose from.
pub const DEFAULT_LIMIT_MS: u32 = 10_000;
/// The reads kept for the advisor (the newest).
pub const MAX_QUERIES: usize = 500;
/// The largest file the playground imports, and how long an import may take.
pub const MAX_IMPORT: usize = 256 << 20;
/// What a WebAssembly engine can address at most (32-bit memory).
pub const ENGINE_MEMORY: f64 = 4.0 * 1024.0 * 1024.0 * 1024.0;

/// The engine's memory an import needs per byte of the file, by its format (extension), rounded
/// up from what `make bench` measures (tools/bench-import.mjs: 1 000 000 documents of 68 BSON
/// bytes as JSON lines grow the wasm memory by 469 bytes each, 3.8 per byte of the file, 6.9 per
/// BSON byte; the same documents as a `.bson` file 5.9 per byte, as CSV without `_id` 9.1): the
/// documents stored as BSON with their `_id` index, and the file itself while it is read. A JSON
/// line is nearly twice its BSON size, a CSV row about half the document the engine keeps.
pub fn held_per_byte(file: &str) -> f64 {
    let lower = file.to_ascii_lowercase();
    match lower.rsplit('.').next() {
        Some("json" | "jsonl" | "ndjson") => 4.0,
        Some("csv" | "tsv") => 10.0,
        _ => 7.0,
    }
}

/// The question to ask before importing `files` (name and size) when the engine would need more
/// than half of what it can address, or `None` when they fit easily.
pub fn import_memory_warning(files: &[(&str, usize)]) -> Option<String> {
    let bytes: usize = files.iter().map(|(_, n)| n).sum();
    let needed: f64 = files.iter().map(|(f, n)| *n as f64 * held_per_byte(f)).sum();
    (needed > ENGINE_MEMORY / 2.0).then(|| {
        format!(
            "These files hold {} of data; the engine keeps about {:.0} bytes in memory per byte of them (documents stored as BSON with their _id index, and the file while it is read), so the import needs about {} of the {} a WebAssembly engine can use, and may run out of memory (the database then comes back as it was). Import anyway?",
            super::human_bytes(bytes as f64),
            needed / bytes.max(1) as f64,
            super::human_bytes(needed),
            super::human_bytes(ENGINE_MEMORY)
        )
    })
}
/// The deadline of each request of an import (its begin, every slice, its end).
const IMPORT_LIMIT_MS: u32 = 300_000;
/// An import's slice: at most this many documents, or about this many bytes of the file (the
/// worker answers between slices, so a Cancel waits for one slice at most).
pub const IMPORT_SLICE: (u32, u32) = (5_000, 1 << 20);
pub const MIN_LIMIT_MS: u32 = 500;
pub const MAX_LIMIT_MS: u32 = 600_000;

/// The `lesson` and `step` (1-based in the URL) query parameters; without `lesson`, the lesson of
/// a lesson's own page.
fn query_lesson() -> (Option<String>, Option<usize>) {
    let search = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
    let get = |key: &str| {
        search.trim_start_matches('?').split('&').find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k == key).then(|| v.to_string())
        })
    };
    let step = get("step").and_then(|s| s.parse::<usize>().ok()).map(|n| n.saturating_sub(1));
    (get("lesson").or_else(page_lesson), step)
}

/// The lesson a lesson's own page (`lesson-<id>.html`, tools/site.mjs) is about: its
/// `<main id="app" data-lesson>`.
fn page_lesson() -> Option<String> {
    web_sys::window()?.document()?.get_element_by_id("app")?.get_attribute("data-lesson").filter(|id| !id.is_empty())
}

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// localStorage as a [`Kv`].
pub struct WebKv(web_sys::Storage);

impl Kv for WebKv {
    fn get(&self, key: &str) -> Option<String> {
        self.0.get_item(key).ok().flatten()
    }
    fn set(&self, key: &str, value: &str) -> Result<(), String> {
        self.0.set_item(key, value).map_err(|e| {
            e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).or_else(|| e.as_string()).unwrap_or_else(|| "storage refused".into())
        })
    }
    fn remove(&self, key: &str) {
        let _ = self.0.remove_item(key);
    }
    fn keys(&self) -> Vec<String> {
        (0..self.0.length().unwrap_or(0)).filter_map(|i| self.0.key(i).ok().flatten()).collect()
    }
}

/// The saved work of this deployment (keys under its own path).
pub fn store() -> Option<Store<WebKv>> {
    let path = web_sys::window()?.location().pathname().ok()?;
    Some(Store::new(WebKv(local_storage()?), state::namespace(&path)))
}

/// What to open at start-up: a share link (asking first if it would replace work), else the
/// lesson of `?lesson=`, else the lesson open last, else the first; each lesson from its slot.
fn initial_state(pg: Pg) -> Saved {
    let known = |id: &str| pg.lessons.with_value(|ls| ls.iter().any(|l| l.id == id));
    let st = store();
    let now = js_sys::Date::now();
    if let Some(Some(Err(e))) = st.as_ref().map(|st| st.migrate_legacy(now)) {
        pg.error(format!("{e}. It was kept aside in this browser's storage; the playground starts fresh."));
    }
    let slot = |id: &str| -> Slot {
        let slot = st.as_ref().map(|st| st.load_lesson(id)).unwrap_or(Slot::Empty);
        if let Slot::Unreadable { error, aside } = &slot {
            pg.error(format!("{error}. It was kept aside in this browser's storage ({aside}); the lesson starts fresh."));
        }
        slot
    };
    let (want, want_step) = query_lesson();
    let want = want.filter(|id| known(id));
    let window = web_sys::window();
    let hash = window.as_ref().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    if let (Some(r), Some(window)) = (state::from_fragment(&hash), window.as_ref()) {
        // The link has done its job: later reloads use the saved state.
        let _ = window.history().and_then(|h| {
            let path = window.location().pathname().unwrap_or_default() + &window.location().search().unwrap_or_default();
            h.replace_state_with_url(&JsValue::NULL, "", Some(&path))
        });
        match r {
            Ok(link) if !known(&link.lesson) => {
                pg.error(format!("This share link is of the lesson “{}”, which this playground does not have.", link.lesson));
            }
            Ok(mut link) => {
                // A link cannot give its scripts more time than the default.
                link.time_limit_ms = link.time_limit_ms.min(DEFAULT_LIMIT_MS);
                let mine = slot(&link.lesson);
                match state::link_choice(&link, &mine) {
                    LinkChoice::Open => {
                        pg.info("Opened a shared playground.");
                        return link;
                    }
                    LinkChoice::Ask => {
                        let Slot::Saved(mine) = mine else { return link };
                        let title = pg.lessons.with_value(|ls| ls.iter().find(|l| l.id == mine.lesson).map(|l| l.title.clone())).unwrap_or_default();
                        let question = format!(
                            "This link opens a shared playground of the lesson “{title}”. It would replace your work on that lesson ({} edited script(s), {} write(s)).\n\nOpen the link? Your work is kept as a backup that you can restore (Export & share → Backups).",
                            mine.scripts.len(),
                            mine.session.write_count()
                        );
                        let yes = window.confirm_with_message(&question).unwrap_or(false);
                        let Some(st) = st.as_ref() else { return mine };
                        if yes {
                            match st.backup(&mine, "replaced by a share link", now) {
                                Ok(key) => {
                                    pg.notice.set(Some(Notice {
                                        error: false,
                                        text: "Opened a shared playground. Your previous work on this lesson is kept as a backup.".into(),
                                        restore: key,
                                    }));
                                    return link;
                                }
                                Err(e) => {
                                    pg.error(format!("Your work could not be kept as a backup ({e}), so the share link was not opened."));
                                    return mine;
                                }
                            }
                        }
                        let kept = st.backup(&link, "a share link you did not open", now).is_ok();
                        pg.info(if kept {
                            "The share link was not opened: your work is as you left it. The link's playground is kept in Export & share → Backups."
                        } else {
                            "The share link was not opened: your work is as you left it."
                        });
                        return mine;
                    }
                }
            }
            Err(e) => pg.error(format!("This share link could not be opened: {e}.")),
        }
    }
    let id = want
        .or_else(|| st.as_ref().and_then(|st| st.current()).filter(|id| known(id)))
        .unwrap_or_else(|| pg.first_lesson_id());
    let mut saved = match slot(&id) {
        Slot::Saved(s) => s,
        _ => Saved::new(&id),
    };
    if let Some(n) = want_step {
        saved.step = n;
    }
    saved
}

/// `window.ppCommand(text)`: runs one read command (canonical Extended JSON text) and resolves to
/// the reply's text. For the browser tests, which compare databases; it records nothing.
fn install_test_hook(pg: Pg) {
    let f = Closure::<dyn FnMut(String) -> js_sys::Promise>::new(move |text: String| {
        wasm_bindgen_futures::future_to_promise(async move {
            let cmd: Value = serde_json::from_str(&text).map_err(|e| JsValue::from_str(&e.to_string()))?;
            let reply = pg.command(&cmd).await.map_err(|e| JsValue::from_str(&e))?;
            Ok(JsValue::from_str(&reply.to_string()))
        })
    });
    // `window.ppTestPanic()`: a deliberate panic, to check that the page reports it.
    let p = Closure::<dyn FnMut()>::new(move || panic!("a deliberate panic (ppTestPanic) to check the error banner"));
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &JsValue::from_str("ppCommand"), &f.into_js_value());
        let _ = js_sys::Reflect::set(&w, &JsValue::from_str("ppTestPanic"), &p.into_js_value());
    }
}

impl Pg {
    /// Start-up (the shell calls it once, with the controller in context): the saved state (or
    /// the first lesson) on screen, the engine, the replay, and the effects that save the work
    /// and recount the audits.
    pub fn start_up(self) {
        let pg = self;
        // Start-up: the saved state (or the first lesson) shows at once (the page carries the first
        // lesson; another is fetched); its data is rebuilt when the engine is ready.
        let initial = initial_state(pg);
        // After a restart (a request past its deadline, a crash) the engine rebuilds the database
        // from the session's log.
        pg.engine().set_replay(move || pg.session.with_untracked(|s| s.writes().cloned().collect()));
        spawn_local(async move {
            // Start-up in short tasks (boot.rs): the shell was built in this task, the lesson
            // renders in the next, and the app replaces the static page in the one after.
            super::boot::next_task().await;
            let shown = pg.show(initial).await;
            super::boot::next_task().await;
            super::boot::reveal();
            match pg.engine().ready().await {
                Ok(()) => pg.engine_state.set(EngineState::Ready),
                Err(e) => {
                    pg.engine_state.set(EngineState::Broken(e.to_string()));
                    return;
                }
            }
            if !shown {
                // Nothing is loaded, so nothing is saved over the learner's work (the message says why).
                return;
            }
            pg.replay().await;
            pg.loaded.set(true);
            pg.refresh_backups();
            install_test_hook(pg);
            super::editor::page_ready();
        });

        // The one persistence effect: every change of the saved state goes to localStorage, at most
        // once per 300 ms of quiet (typing in the editor changes the state on every key).
        let pending = StoredValue::new_local(None::<gloo::timers::callback::Timeout>);
        let save = move || {
            if let Some(Err(e)) = store().map(|st| st.save(&pg.saved_untracked())) {
                pg.error(format!("This browser's storage is full ({e}): the playground is not saved."));
            }
        };
        Effect::new(move |_| {
            if !pg.loaded.get() {
                return;
            }
            pg.lesson.track();
            pg.step.track();
            pg.scripts.track();
            pg.session.track();
            pg.audits.track();
            pg.time_limit_ms.track();
            // Replacing the pending timeout cancels it (a gloo Timeout clears itself on drop).
            pending.set_value(Some(gloo::timers::callback::Timeout::new(300, move || {
                pending.set_value(None);
                save();
            })));
        });
        // A page left (reload, closed tab, link followed, app switched on a phone) within those
        // 300 ms saves at once: the last write is never lost to the wait.
        if let Some(window) = web_sys::window() {
            for event in ["pagehide", "visibilitychange"] {
                gloo::events::EventListener::new(&window, event, move |_| {
                    if pending.try_update_value(Option::take).flatten().is_some() {
                        save();
                    }
                })
                .forget();
            }
        }

        // Audits are live: recount after every write and whenever the set changes.
        Effect::new(move |_| {
            let _ = pg.data_version.get();
            let _ = pg.audits.with(|a| a.audits.len());
            if !pg.loaded.get_untracked() && pg.data_version.get_untracked() == 0 {
                return;
            }
            spawn_local(async move { pg.refresh_audits().await });
        });
    }
}
