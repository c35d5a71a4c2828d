//! The client of the engine's worker: numbered requests, typed answers matched by id, and a
//! deadline on every request.
//!
//! The worker runs inside the engine's sandbox (`www/sandbox.js`: an iframe with an opaque origin
//! whose worker cannot reach the site's storage, caches or network); `ppSandbox.start()` gives a
//! Worker-like object, which this client drives. All database work goes through [`Engine`];
//! nothing in the UI touches the engine itself.
//!
//! Every request has a deadline. Past it, or when the user stops a run ([`Engine::stop`]), or when
//! the sandbox dies (a crash, say out of memory), the sandbox is replaced by a fresh one and the
//! database is restored before any other request is served: from the checkpoint its owner set
//! ([`Engine::set_checkpoint`], e.g. the snapshot taken before a run), else by replaying the
//! writes the owner's [`Engine::set_replay`] gives (the session's write log; a script's writes as
//! their BSON bytes), else empty. The request that was stopped gets [`EngineError::Stopped`],
//! which says why and how the data came back.
//!
//! Time zones: the engine's wasm carries no time-zone database; the page fetches the time-zone
//! file in the background (www/sandbox.js) and hands it to the sandboxes. A request that asks for
//! a named zone before it came is answered `needsTimeZones` (its own answer would not be the
//! server's): [`Engine::call`] then waits for the file and does what a Stop does, with the file
//! there (a fresh sandbox, which gets it at once; the database restored from the checkpoint, else
//! rebuilt from the log), and sends the request again. So the request's answer is the one it
//! would have had with the file loaded from the start; nothing of the first attempt remains.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::MessageEvent;

use crate::protocol::{Answer, Envelope, IdSpec, ImportProgress, ImportReport, Request, Response, RunReport, WriteRecord};

/// Deadline of the requests that only move the database around (snapshot, restore, reset).
pub const HOUSEKEEPING_LIMIT_MS: u32 = 60_000;

#[wasm_bindgen]
extern "C" {
    /// The sandboxed worker of `www/sandbox.js` (postMessage, onmessage, onerror, terminate).
    pub type SandboxWorker;
    #[wasm_bindgen(method, catch, js_name = postMessage)]
    fn post(this: &SandboxWorker, message: &JsValue, transfer: &js_sys::Array) -> Result<(), JsValue>;
    #[wasm_bindgen(method)]
    fn terminate(this: &SandboxWorker);
    #[wasm_bindgen(method, setter = onmessage)]
    fn set_onmessage(this: &SandboxWorker, f: Option<&Function>);
    #[wasm_bindgen(method, setter = onerror)]
    fn set_onerror(this: &SandboxWorker, f: Option<&Function>);
    #[wasm_bindgen(catch, js_namespace = ppSandbox, js_name = start)]
    fn start_sandbox() -> Result<SandboxWorker, JsValue>;
    /// The time-zone file fetched (once per page) and handed to every sandbox.
    #[wasm_bindgen(catch, js_namespace = ppSandbox, js_name = timeZones)]
    fn sandbox_time_zones() -> Result<Promise, JsValue>;
}

/// Why a request got no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineError {
    /// The request was stopped (its deadline passed, the user pressed Stop, or the sandbox died);
    /// the sandbox was replaced and the database restored as `restored` says.
    Stopped { why: Stop, what: &'static str, restored: String },
    /// The worker could not start, or could not serve the request.
    Broken(String),
    /// The request asked for a named time zone before the sandbox had the time-zone file
    /// ([`Engine::call`] deals with it: callers see it only from the requests sent outside it).
    NeedsTimeZones,
}

/// What stopped a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    TimedOut { limit_ms: u32 },
    ByUser,
    Crashed(String),
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::Stopped { why, what, restored } => {
                let what = capitalized(what);
                match why {
                    Stop::TimedOut { limit_ms } => write!(f, "{what} ran longer than {} s and was stopped", secs(*limit_ms))?,
                    Stop::ByUser => write!(f, "{what} was stopped")?,
                    Stop::Crashed(m) => write!(f, "{what} was stopped: {m}")?,
                }
                write!(f, "; {restored}.")
            }
            EngineError::Broken(m) => write!(f, "the engine worker failed: {m}"),
            EngineError::NeedsTimeZones => write!(f, "the time-zone data was not loaded yet"),
        }
    }
}

fn secs(ms: u32) -> String {
    let s = ms as f64 / 1000.0;
    if s.fract() == 0.0 { format!("{s:.0}") } else { format!("{s:.1}") }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// A request waiting for its answer: the promise's resolve, and the answer once it came.
struct Waiting {
    wake: Function,
    answer: Option<Result<Response, String>>,
}

type Pending = Rc<RefCell<HashMap<u32, Waiting>>>;

struct Inner {
    worker: Option<SandboxWorker>,
    next_id: u32,
    pending: Pending,
    /// Resolves when the worker is ready and the database restored; every request awaits it.
    ready: Option<Promise>,
    /// Bumped on every start: a deadline of an older worker does not stop the new one.
    generation: u32,
    checkpoint: Option<Vec<u8>>,
    replay: Option<Rc<dyn Fn() -> Vec<WriteRecord>>>,
    /// The request running now and how to stop it (for [`Engine::stop`]).
    running: Option<(u32, Function)>,
    /// The last request's turn: requests go one at a time, so a deadline counts only the
    /// request's own time (not the time it waited behind another).
    tail: Promise,
    /// Keeps the current worker's handlers alive.
    _handlers: Option<(Closure<dyn FnMut(MessageEvent)>, Closure<dyn FnMut(web_sys::Event)>)>,
}

/// A handle on the engine worker; cheap to clone.
#[derive(Clone)]
pub struct Engine {
    inner: Rc<RefCell<Inner>>,
}

impl Engine {
    /// The sandboxed engine; adopts the one www/index.html started at once, if there is one.
    pub fn new() -> Engine {
        let engine = Engine {
            inner: Rc::new(RefCell::new(Inner {
                worker: None,
                next_id: 1,
                pending: Rc::new(RefCell::new(HashMap::new())),
                ready: None,
                generation: 0,
                checkpoint: None,
                replay: None,
                running: None,
                tail: Promise::resolve(&JsValue::UNDEFINED),
                _handlers: None,
            })),
        };
        let early = take_early_worker();
        let ready = engine.start(early);
        engine.inner.borrow_mut().ready = Some(ready);
        engine
    }

    /// The database to restore after a restart: these snapshot bytes (`None`: replay, or empty).
    pub fn set_checkpoint(&self, bytes: Option<Vec<u8>>) {
        self.inner.borrow_mut().checkpoint = bytes;
    }

    /// The commands that rebuild the database after a restart when there is no checkpoint.
    pub fn set_replay(&self, replay: impl Fn() -> Vec<WriteRecord> + 'static) {
        self.inner.borrow_mut().replay = Some(Rc::new(replay));
    }

    /// Starts a worker (or adopts `early`); the promise resolves once it posted `ready`.
    fn start(&self, early: Option<(SandboxWorker, js_sys::Array)>) -> Promise {
        let mut inner = self.inner.borrow_mut();
        inner.generation = inner.generation.wrapping_add(1);
        let slot: Rc<RefCell<Option<(Function, Function)>>> = Rc::new(RefCell::new(None));
        let s = slot.clone();
        let ready = Promise::new(&mut |resolve, reject| {
            *s.borrow_mut() = Some((resolve, reject));
        });
        let (worker, early_events) = match early {
            Some(early) => early,
            None => match start_sandbox() {
                Ok(w) => (w, js_sys::Array::new()),
                Err(e) => return Promise::reject(&JsValue::from_str(&format!("the engine's sandbox could not start: {}", js_text(&e)))),
            },
        };
        let pending = inner.pending.clone();
        let s = slot.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
            let data = ev.data();
            let (id, answer) = match serde_wasm_bindgen::from_value::<Response>(data.clone()) {
                Ok(Response::Ready) => {
                    if let Some((resolve, _)) = s.borrow_mut().take() {
                        let _ = resolve.call0(&JsValue::NULL);
                    }
                    return;
                }
                Ok(Response::Failed { error }) => {
                    if let Some((_, reject)) = s.borrow_mut().take() {
                        let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(&error));
                    }
                    return;
                }
                Ok(r) => (r.id(), Ok(r)),
                // An answer that does not read as one still goes to its request, with why.
                Err(e) => {
                    let id = serde_wasm_bindgen::from_value::<Envelope>(data).ok().and_then(|e| e.id);
                    (id, Err(format!("an unreadable answer from the worker: {e}")))
                }
            };
            let Some(id) = id else { return };
            if let Some(w) = pending.borrow_mut().get_mut(&id) {
                w.answer = Some(answer);
                let _ = w.wake.call1(&JsValue::NULL, &JsValue::TRUE);
            }
        });
        let s = slot;
        let this = self.clone();
        let generation = inner.generation;
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            let msg = ev.dyn_ref::<web_sys::ErrorEvent>().map(|e| e.message()).unwrap_or_else(|| "the worker script failed to load".to_string());
            if let Some((_, reject)) = s.borrow_mut().take() {
                // It never started: whoever waits for it hears why.
                let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(&msg));
                return;
            }
            // It died while serving: the running request is stopped (the others wait for the
            // restart and the restored database).
            this.interrupt(generation, Stop::Crashed(msg));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        inner.worker = Some(worker);
        drop(inner);
        // What an early worker said before the UI was there (its `ready` above all).
        for ev in early_events.iter() {
            let handler: &Function = if ev.is_instance_of::<MessageEvent>() { on_message.as_ref().unchecked_ref() } else { on_error.as_ref().unchecked_ref() };
            let _ = handler.call1(&JsValue::NULL, &ev);
        }
        self.inner.borrow_mut()._handlers = Some((on_message, on_error));
        ready
    }

    /// Waits until the worker is ready (and, after a restart, the database restored).
    pub async fn ready(&self) -> Result<(), EngineError> {
        let p = self.inner.borrow().ready.clone();
        match p {
            Some(p) => JsFuture::from(p).await.map(|_| ()).map_err(|e| EngineError::Broken(js_text(&e))),
            None => Err(EngineError::Broken("no worker".into())),
        }
    }

    /// Stops the request running now (the Stop button): it ends with [`Stop::ByUser`].
    pub fn stop(&self) {
        let generation = self.inner.borrow().generation;
        self.interrupt(generation, Stop::ByUser);
    }

    /// Stops the running request of worker `generation` with `why` (its `call` then restarts the
    /// worker and restores the database).
    fn interrupt(&self, generation: u32, why: Stop) {
        let stop = {
            let inner = self.inner.borrow();
            if inner.generation != generation {
                return;
            }
            inner.running.clone()
        };
        match stop {
            Some((_, f)) => {
                let _ = f.call1(&JsValue::NULL, &JsValue::from_str(&why_code(&why)));
            }
            // Nothing running: restart at once, so the next request finds a live worker.
            None => {
                let this = self.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let _turn = this.turn().await;
                    if this.inner.borrow().generation == generation {
                        let _ = this.restart().await;
                    }
                });
            }
        }
    }

    /// Replaces the worker by a fresh one and restores the database; every request waits for it.
    /// Returns how the database came back.
    async fn restart(&self) -> String {
        {
            let mut inner = self.inner.borrow_mut();
            if let Some(w) = inner.worker.take() {
                w.set_onmessage(None);
                w.set_onerror(None);
                w.terminate();
            }
            inner.running = None;
            // Requests sent to the old worker get no answer from it: they are sent again below,
            // after the restore, by their callers' retry (see `call`).
            for (_, w) in inner.pending.borrow_mut().iter_mut() {
                w.answer = Some(Err(RESTARTED.into()));
                let _ = w.wake.call1(&JsValue::NULL, &JsValue::TRUE);
            }
        }
        let started = self.start(None);
        let (restore, replay) = {
            let inner = self.inner.borrow();
            (inner.checkpoint.clone(), if inner.checkpoint.is_none() { inner.replay.clone().map(|f| f()) } else { None })
        };
        let this = self.clone();
        let outcome: Rc<RefCell<String>> = Rc::new(RefCell::new(String::new()));
        let out = outcome.clone();
        let gate = wasm_bindgen_futures::future_to_promise(async move {
            JsFuture::from(started).await?;
            let text = match (restore, replay) {
                (Some(bytes), _) => match this.send(&mut Request::Restore { id: 0, bytes }, HOUSEKEEPING_LIMIT_MS).await {
                    Ok(_) => "the database is back as it was before".to_string(),
                    Err(e) => format!("the database could not be restored ({e}) and is empty"),
                },
                (None, Some(writes)) if !writes.is_empty() => {
                    // A write may name a time zone: it replays with the file there (a failed fetch
                    // leaves such writes failing, reported below).
                    let _ = this.time_zones().await;
                    let n = writes.len();
                    let mut failed = 0;
                    for w in writes {
                        // As `Pg::replay` does (`WriteRecord::replay_request`).
                        match this.send(&mut w.replay_request(), HOUSEKEEPING_LIMIT_MS).await {
                            Ok(Answer::Command(reply)) if reply_ok(&reply) => {}
                            Ok(Answer::Import(r)) if !r.stopped => {}
                            _ => failed += 1,
                        }
                    }
                    if failed == 0 {
                        format!("the database was rebuilt from the session's {n} write(s)")
                    } else {
                        format!("the database was rebuilt from the session's {n} write(s), {failed} of which failed")
                    }
                }
                _ => "the database is empty again".to_string(),
            };
            *out.borrow_mut() = text;
            Ok(JsValue::UNDEFINED)
        });
        self.inner.borrow_mut().ready = Some(gate.clone());
        match JsFuture::from(gate).await {
            Ok(_) => outcome.borrow().clone(),
            Err(e) => format!("the engine did not start again ({})", js_text(&e)),
        }
    }

    /// Sends one request to the current worker and waits for its answer, at most `limit_ms`; does
    /// not wait for `ready` (the restart's own restore uses it).
    /// The request is numbered in place and lent, not copied (an import or a restore carries
    /// megabytes).
    async fn send(&self, req: &mut Request, limit_ms: u32) -> Result<Answer, EngineError> {
        let (id, worker, pending, generation) = {
            let mut inner = self.inner.borrow_mut();
            let id = inner.next_id;
            inner.next_id = inner.next_id.wrapping_add(1).max(1);
            let Some(w) = inner.worker.as_ref().map(|w| AsRef::<JsValue>::as_ref(w).clone().unchecked_into::<SandboxWorker>()) else {
                return Err(EngineError::Broken("no worker".into()));
            };
            (id, w, inner.pending.clone(), inner.generation)
        };
        req.set_id(id);
        let what = req.what();
        let msg = serde_wasm_bindgen::to_value(&*req).map_err(|e| EngineError::Broken(e.to_string()))?;
        let answer = Promise::new(&mut |wake, _| {
            pending.borrow_mut().insert(id, Waiting { wake, answer: None });
        });
        // Stop: resolves the race with the reason (a string); the deadline with `undefined`.
        let stopped = Promise::new(&mut |resolve, _| {
            self.inner.borrow_mut().running = Some((id, resolve));
        });
        let timer = Promise::new(&mut |resolve, _| {
            if let Some(w) = web_sys::window() {
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, limit_ms.min(i32::MAX as u32) as i32);
            }
        });
        if let Err(e) = worker.post(&msg, &transferables(&msg)) {
            pending.borrow_mut().remove(&id);
            return Err(EngineError::Broken(js_text(&e)));
        }
        let raced = JsFuture::from(Promise::race(&js_sys::Array::of3(&answer, &timer, &stopped))).await;
        {
            let mut inner = self.inner.borrow_mut();
            if inner.running.as_ref().is_some_and(|(r, _)| *r == id) {
                inner.running = None;
            }
        }
        let answered = pending.borrow_mut().remove(&id).and_then(|w| w.answer);
        let why = match (answered, raced) {
            (Some(Ok(Response::NeedsTimeZones { .. })), _) => return Err(EngineError::NeedsTimeZones),
            (Some(Ok(response)), _) => return req.answers(response).map_err(EngineError::Broken),
            (Some(Err(e)), _) if e == RESTARTED => return Err(EngineError::Broken(RESTARTED.into())),
            (Some(Err(e)), _) => return Err(EngineError::Broken(e)),
            (None, Ok(v)) if v.is_undefined() => Stop::TimedOut { limit_ms },
            (None, Ok(v)) => stop_from_code(&v.as_string().unwrap_or_default()),
            (None, Err(e)) => return Err(EngineError::Broken(js_text(&e))),
        };
        // Only the worker this request went to is replaced (a restart may have happened already).
        if self.inner.borrow().generation != generation {
            return Err(EngineError::Broken(RESTARTED.into()));
        }
        let restored = Box::pin(self.restart()).await;
        Err(EngineError::Stopped { why, what, restored })
    }

    /// Sends one request once the worker is ready and returns its typed answer. Requests that were
    /// waiting behind one that got stopped are sent again to the fresh worker. A request that
    /// needed the time-zone file before it came is sent again once it is here, from the state
    /// before it (see the module's notes).
    async fn call(&self, req: &mut Request, limit_ms: u32) -> Result<Answer, EngineError> {
        let _turn = self.turn().await;
        for _ in 0..3 {
            self.ready().await?;
            match self.send(req, limit_ms).await {
                Err(EngineError::Broken(m)) if m == RESTARTED => continue,
                Err(EngineError::NeedsTimeZones) => {
                    self.time_zones().await?;
                    let _ = Box::pin(self.restart()).await;
                }
                other => return other,
            }
        }
        Err(EngineError::Broken(RESTARTED.into()))
    }

    /// Waits until the page has the time-zone file and has handed it to the sandboxes (a fresh
    /// one gets it at its start); the first call fetches it. The page also fetches it by itself
    /// once it is interactive (www/sandbox.js).
    /// At most [`HOUSEKEEPING_LIMIT_MS`].
    pub async fn time_zones(&self) -> Result<(), EngineError> {
        let fetched = sandbox_time_zones().map_err(|e| EngineError::Broken(js_text(&e)))?;
        let timer = Promise::new(&mut |_, reject| {
            if let Some(w) = web_sys::window() {
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_1(
                    &reject,
                    HOUSEKEEPING_LIMIT_MS as i32,
                    &JsValue::from_str(&format!("it did not come within {} s", secs(HOUSEKEEPING_LIMIT_MS))),
                );
            }
        });
        JsFuture::from(Promise::race(&js_sys::Array::of2(&fetched, &timer)))
            .await
            .map(|_| ())
            .map_err(|e| EngineError::Broken(format!("the time-zone data could not be loaded: {}", js_text(&e))))
    }

    /// Waits for this request's turn; the turn passes on when the guard drops.
    async fn turn(&self) -> Turn {
        let mut release = None;
        let mine = Promise::new(&mut |resolve, _| release = Some(resolve));
        let before = std::mem::replace(&mut self.inner.borrow_mut().tail, mine);
        let _ = JsFuture::from(before).await;
        Turn(release)
    }

    /// Runs a mongosh script, at most `limit_ms`.
    pub async fn run(&self, code: String, filename: String, limit_ms: u32) -> Result<RunReport, EngineError> {
        self.run_with_ids(code, filename, limit_ms, None).await
    }

    /// [`Engine::run`], making the ObjectIds of an earlier run (its report's `ids`) again.
    pub async fn run_with_ids(&self, code: String, filename: String, limit_ms: u32, ids: Option<IdSpec>) -> Result<RunReport, EngineError> {
        match self.call(&mut Request::Run { id: 0, code, filename, ids }, limit_ms).await? {
            Answer::Run(r) => Ok(r),
            other => Err(EngineError::Broken(format!("not a run's answer: {other:?}"))),
        }
    }

    /// Runs one server command (canonical Extended JSON); the reply's text.
    pub async fn command(&self, command: String, limit_ms: u32) -> Result<String, EngineError> {
        match self.call(&mut Request::Command { id: 0, command }, limit_ms).await? {
            Answer::Command(r) => Ok(r),
            other => Err(EngineError::Broken(format!("not a command's answer: {other:?}"))),
        }
    }

    /// The whole database as bytes.
    pub async fn snapshot(&self) -> Result<Vec<u8>, EngineError> {
        match self.call(&mut Request::Snapshot { id: 0 }, HOUSEKEEPING_LIMIT_MS).await? {
            Answer::Bytes(b) => Ok(b),
            other => Err(EngineError::Broken(format!("not a snapshot: {other:?}"))),
        }
    }

    /// Replaces the database with snapshot bytes.
    pub async fn restore(&self, bytes: Vec<u8>) -> Result<(), EngineError> {
        self.call(&mut Request::Restore { id: 0, bytes }, HOUSEKEEPING_LIMIT_MS).await.map(|_| ())
    }

    /// Replays one logged write (`WriteRecord::replay_request`): why it failed, if it did.
    pub async fn replay_write(&self, w: WriteRecord, limit_ms: u32) -> Option<String> {
        match self.call(&mut w.replay_request(), limit_ms).await {
            Ok(Answer::Command(reply)) => match serde_json::from_str::<serde_json::Value>(&reply) {
                Ok(r) => super::audits::reply_error(&r),
                Err(e) => Some(format!("unreadable reply: {e}")),
            },
            Ok(Answer::Import(r)) if r.stopped => Some(r.errors.first().map(|e| e.message.clone()).unwrap_or_else(|| "the import stopped".into())),
            Ok(Answer::Import(_)) => None,
            Ok(other) => Some(format!("not a write's answer: {other:?}")),
            Err(e) => Some(e.to_string()),
        }
    }

    /// Imports one file in slices ([`Request::ImportBegin`], then [`Request::ImportStep`]s of at
    /// most `max_docs` documents or about `max_bytes` bytes, then [`Request::ImportEnd`]), each
    /// request with the deadline `limit_ms`: the worker answers between slices, so the page stays
    /// responsive and `cancelled` (asked before each slice) can end it, undone. `progress` hears
    /// each slice's progress. The import holds the engine's turn throughout: no other request sees
    /// half an import (they wait for it). The import stays when it read the whole file, inserted
    /// something and no error stopped it; otherwise the worker undoes it. Returns the report and
    /// whether the import stayed, and the file's bytes (lent to the worker: sent, not kept).
    #[allow(clippy::too_many_arguments)]
    pub async fn import_sliced(
        &self,
        file: String,
        bytes: Vec<u8>,
        db: String,
        collection: String,
        options: String,
        limit_ms: u32,
        (max_docs, max_bytes): (u32, u32),
        progress: impl Fn(&ImportProgress),
        cancelled: impl Fn() -> bool,
    ) -> (Result<(ImportReport, bool), EngineError>, Vec<u8>) {
        let _turn = self.turn().await;
        // A collection's validator may name a time zone: imports are sent past `call`.
        let _ = self.time_zones().await;
        let mut begin = Request::ImportBegin { id: 0, file, bytes, format: String::new(), db, collection, options };
        let answer = match self.ready().await {
            Ok(()) => self.send(&mut begin, limit_ms).await,
            Err(e) => Err(e),
        };
        let bytes = match begin {
            Request::ImportBegin { bytes, .. } => bytes,
            _ => Vec::new(),
        };
        let not_progress = |other: Answer| EngineError::Broken(format!("not an import's progress: {other:?}"));
        let mut now = match answer {
            Ok(Answer::ImportProgress(p)) => p,
            Ok(other) => return (Err(not_progress(other)), bytes),
            Err(e) => return (Err(e), bytes),
        };
        let keep = loop {
            progress(&now);
            if now.done {
                break !now.stopped && now.inserted > 0;
            }
            if cancelled() {
                break false;
            }
            now = match self.send(&mut Request::ImportStep { id: 0, max_docs, max_bytes }, limit_ms).await {
                Ok(Answer::ImportProgress(p)) => p,
                Ok(other) => return (Err(not_progress(other)), bytes),
                Err(e) => return (Err(e), bytes),
            };
        };
        let report = match self.send(&mut Request::ImportEnd { id: 0, keep }, limit_ms).await {
            Ok(Answer::Import(r)) => Ok((r, keep)),
            Ok(other) => Err(EngineError::Broken(format!("not an import's answer: {other:?}"))),
            Err(e) => Err(e),
        };
        (report, bytes)
    }

    /// One collection's documents as a file (`format`: see [`Request::Export`]).
    pub async fn export(&self, db: String, collection: String, format: String) -> Result<Vec<u8>, EngineError> {
        match self.call(&mut Request::Export { id: 0, db, collection, format }, HOUSEKEEPING_LIMIT_MS).await? {
            Answer::Bytes(b) => Ok(b),
            other => Err(EngineError::Broken(format!("not an export's answer: {other:?}"))),
        }
    }

    /// Empties the database.
    pub async fn reset(&self) -> Result<(), EngineError> {
        self.call(&mut Request::Reset { id: 0 }, HOUSEKEEPING_LIMIT_MS).await.map(|_| ())
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

/// A request's turn (see [`Engine::turn`]); dropping it lets the next request go.
struct Turn(Option<Function>);

impl Drop for Turn {
    fn drop(&mut self) {
        if let Some(f) = self.0.take() {
            let _ = f.call0(&JsValue::NULL);
        }
    }
}

const RESTARTED: &str = "the worker was restarted";

fn why_code(why: &Stop) -> String {
    match why {
        Stop::ByUser => "user".into(),
        Stop::TimedOut { limit_ms } => format!("time:{limit_ms}"),
        Stop::Crashed(m) => format!("crash:{m}"),
    }
}

fn stop_from_code(code: &str) -> Stop {
    if let Some(m) = code.strip_prefix("crash:") {
        Stop::Crashed(m.to_string())
    } else if let Some(ms) = code.strip_prefix("time:").and_then(|n| n.parse().ok()) {
        Stop::TimedOut { limit_ms: ms }
    } else {
        Stop::ByUser
    }
}

/// Whether a command's reply (canonical Extended JSON) says `ok: 1`.
fn reply_ok(reply: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(reply).ok().and_then(|r| r.get("ok").and_then(super::ejson::as_f64)).is_some_and(|ok| ok == 1.0)
}

/// Takes (once) the sandbox that www/index.html started at once, in parallel with the UI's
/// WebAssembly, and the events it received before the UI set its handlers.
fn take_early_worker() -> Option<(SandboxWorker, js_sys::Array)> {
    let window = web_sys::window()?;
    let key = JsValue::from_str("ppEarlyWorker");
    let early = js_sys::Reflect::get(&window, &key).ok().filter(JsValue::is_object)?;
    let _ = js_sys::Reflect::delete_property(window.unchecked_ref::<js_sys::Object>(), &key);
    let worker = js_sys::Reflect::get(&early, &JsValue::from_str("worker")).ok().filter(JsValue::is_object)?.unchecked_into::<SandboxWorker>();
    let events = js_sys::Reflect::get(&early, &JsValue::from_str("events")).ok()?.dyn_into::<js_sys::Array>().ok()?;
    Some((worker, events))
}

/// The buffers a request hands over rather than copies: its `bytes` or `bson` (a file to import,
/// a snapshot to restore), which serde-wasm-bindgen made as a fresh `Uint8Array` of its own.
fn transferables(msg: &JsValue) -> js_sys::Array {
    let list = js_sys::Array::new();
    for key in ["bytes", "bson"] {
        if let Ok(v) = js_sys::Reflect::get(msg, &JsValue::from_str(key)) {
            if let Some(a) = v.dyn_ref::<js_sys::Uint8Array>() {
                let buffer = a.buffer();
                // Only a whole buffer of its own (never a view into the wasm memory).
                if a.byte_offset() == 0 && a.byte_length() == buffer.byte_length() {
                    list.push(&buffer);
                }
            }
        }
    }
    list
}

fn js_text(v: &JsValue) -> String {
    v.as_string()
        .or_else(|| v.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
        .unwrap_or_else(|| format!("{v:?}"))
}
