//! The client of the engine's Web Worker: numbered requests, answers matched by id, a time limit
//! that terminates a runaway worker and starts a fresh one.
//!
//! All database work goes through [`Engine`]; nothing in the UI touches the engine itself.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{MessageEvent, Worker, WorkerOptions};

use crate::protocol::{Request, Response};

/// Why a request got no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineError {
    /// The request ran past its time limit; the worker was replaced by a fresh, empty one.
    TimedOut { limit_ms: u32 },
    /// The worker could not start, crashed, or sent something that is not a protocol message.
    Broken(String),
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::TimedOut { limit_ms } => write!(f, "stopped after {:.1} s", *limit_ms as f64 / 1000.0),
            EngineError::Broken(m) => write!(f, "the engine worker failed: {m}"),
        }
    }
}

type Pending = HashMap<u32, (Function, Function)>;

struct Inner {
    url: String,
    worker: Option<Worker>,
    next_id: u32,
    pending: Rc<RefCell<Pending>>,
    /// Resolves when the current worker posted `ready`.
    ready: Option<Promise>,
    /// Keeps the current worker's handlers alive.
    _handlers: Option<(Closure<dyn FnMut(MessageEvent)>, Closure<dyn FnMut(web_sys::Event)>)>,
}

/// A handle on the engine worker; cheap to clone.
#[derive(Clone)]
pub struct Engine {
    inner: Rc<RefCell<Inner>>,
}

impl Engine {
    pub fn new(url: &str) -> Engine {
        let engine = Engine {
            inner: Rc::new(RefCell::new(Inner {
                url: url.to_string(),
                worker: None,
                next_id: 1,
                pending: Rc::new(RefCell::new(HashMap::new())),
                ready: None,
                _handlers: None,
            })),
        };
        engine.start();
        engine
    }

    fn start(&self) {
        let mut inner = self.inner.borrow_mut();
        // A classic worker: www/worker.js loads the engine's glue and the runtime with importScripts.
        let opts = WorkerOptions::new();
        opts.set_name("engine");
        let pending = inner.pending.clone();
        let ready_resolve: Rc<RefCell<Option<(Function, Function)>>> = Rc::new(RefCell::new(None));
        let rr = ready_resolve.clone();
        let ready = Promise::new(&mut |resolve, reject| {
            *rr.borrow_mut() = Some((resolve, reject));
        });
        let early = if inner.url == EARLY_WORKER_URL { take_early_worker() } else { None };
        let (worker, early_events) = match early {
            Some(early) => early,
            None => match Worker::new_with_options(&inner.url, &opts) {
                Ok(w) => (w, js_sys::Array::new()),
                Err(e) => {
                    let msg = format!("{e:?}");
                    inner.ready = Some(Promise::reject(&JsValue::from_str(&msg)));
                    return;
                }
            },
        };
        let rr = ready_resolve.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
            let data = ev.data();
            let kind = js_sys::Reflect::get(&data, &JsValue::from_str("kind")).ok().and_then(|k| k.as_string());
            if kind.as_deref() == Some("ready") {
                if let Some((resolve, _)) = rr.borrow_mut().take() {
                    let _ = resolve.call0(&JsValue::NULL);
                }
                return;
            }
            if kind.as_deref() == Some("failed") {
                let why = js_sys::Reflect::get(&data, &JsValue::from_str("error")).ok().and_then(|e| e.as_string());
                if let Some((_, reject)) = rr.borrow_mut().take() {
                    let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(&why.unwrap_or_else(|| "the engine did not load".into())));
                }
                return;
            }
            let id = js_sys::Reflect::get(&data, &JsValue::from_str("id")).ok().and_then(|v| v.as_f64());
            let Some(id) = id else {
                web_sys::console::warn_2(&"engine worker: message without id".into(), &data);
                return;
            };
            let entry = pending.borrow_mut().remove(&(id as u32));
            if let Some((resolve, _)) = entry {
                let _ = resolve.call1(&JsValue::NULL, &data);
            }
        });
        let pending = inner.pending.clone();
        let rr = ready_resolve;
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            let msg = ev
                .dyn_ref::<web_sys::ErrorEvent>()
                .map(|e| format!("{} ({}:{})", e.message(), e.filename(), e.lineno()))
                .unwrap_or_else(|| "the worker script failed to load".to_string());
            if let Some((_, reject)) = rr.borrow_mut().take() {
                let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(&msg));
            }
            for (_, (_, reject)) in pending.borrow_mut().drain() {
                let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(&msg));
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        // What an early worker said before the UI was there (its `ready` above all).
        for ev in early_events.iter() {
            let handler: &Function = if ev.is_instance_of::<MessageEvent>() { on_message.as_ref().unchecked_ref() } else { on_error.as_ref().unchecked_ref() };
            let _ = handler.call1(&JsValue::NULL, &ev);
        }
        inner.worker = Some(worker);
        inner.ready = Some(ready);
        inner._handlers = Some((on_message, on_error));
    }

    /// Terminates the worker (dropping every pending request) and starts a fresh one.
    pub fn restart(&self) {
        {
            let mut inner = self.inner.borrow_mut();
            if let Some(w) = inner.worker.take() {
                w.set_onmessage(None);
                w.set_onerror(None);
                w.terminate();
            }
            let msg = JsValue::from_str("the worker was restarted");
            for (_, (_, reject)) in inner.pending.borrow_mut().drain() {
                let _ = reject.call1(&JsValue::NULL, &msg);
            }
            inner._handlers = None;
        }
        self.start();
    }

    /// Waits until the worker posted `ready`.
    pub async fn ready(&self) -> Result<(), EngineError> {
        let p = self.inner.borrow().ready.clone();
        match p {
            Some(p) => JsFuture::from(p).await.map(|_| ()).map_err(|e| EngineError::Broken(js_text(&e))),
            None => Err(EngineError::Broken("no worker".into())),
        }
    }

    /// Sends one request and waits for its answer, at most `limit_ms` if given: past it the worker
    /// is terminated and replaced by a fresh one (empty: the caller restores a snapshot).
    pub async fn call(&self, make: impl FnOnce(u32) -> Request, limit_ms: Option<u32>) -> Result<Response, EngineError> {
        self.ready().await?;
        let (id, worker, pending) = {
            let mut inner = self.inner.borrow_mut();
            let id = inner.next_id;
            inner.next_id = inner.next_id.wrapping_add(1).max(1);
            let Some(w) = inner.worker.clone() else { return Err(EngineError::Broken("no worker".into())) };
            (id, w, inner.pending.clone())
        };
        let req = make(id);
        let msg = serde_wasm_bindgen::to_value(&req).map_err(|e| EngineError::Broken(e.to_string()))?;
        let answer = Promise::new(&mut |resolve, reject| {
            pending.borrow_mut().insert(id, (resolve, reject));
        });
        worker.post_message(&msg).map_err(|e| EngineError::Broken(js_text(&e)))?;
        let waited = match limit_ms {
            None => JsFuture::from(answer).await,
            Some(ms) => {
                let timer = Promise::new(&mut |resolve, _| {
                    if let Some(w) = web_sys::window() {
                        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms as i32);
                    }
                });
                let raced = JsFuture::from(Promise::race(&js_sys::Array::of2(&answer, &timer))).await;
                match raced {
                    Ok(v) if v.is_undefined() => {
                        pending.borrow_mut().remove(&id);
                        self.restart();
                        return Err(EngineError::TimedOut { limit_ms: ms });
                    }
                    other => other,
                }
            }
        };
        let data = waited.map_err(|e| EngineError::Broken(js_text(&e)))?;
        // A request the worker could not serve: { id, kind, error: "<message>" }.
        if let Some(why) = js_sys::Reflect::get(&data, &JsValue::from_str("error")).ok().and_then(|e| e.as_string()) {
            return Err(EngineError::Broken(why));
        }
        serde_wasm_bindgen::from_value::<Response>(data)
            .map_err(|e| EngineError::Broken(format!("unexpected answer from the worker: {e}")))
    }
}

/// The worker URL that www/index.html starts before the UI loads (`window.ppEarlyWorker`).
const EARLY_WORKER_URL: &str = "worker.js";

/// Takes (once) the worker that www/index.html started at once, in parallel with the UI's
/// WebAssembly, and the events it received before the UI set its handlers.
fn take_early_worker() -> Option<(Worker, js_sys::Array)> {
    let window = web_sys::window()?;
    let key = JsValue::from_str("ppEarlyWorker");
    let early = js_sys::Reflect::get(&window, &key).ok().filter(JsValue::is_object)?;
    let _ = js_sys::Reflect::delete_property(window.unchecked_ref::<js_sys::Object>(), &key);
    let worker = js_sys::Reflect::get(&early, &JsValue::from_str("worker")).ok()?.dyn_into::<Worker>().ok()?;
    let events = js_sys::Reflect::get(&early, &JsValue::from_str("events")).ok()?.dyn_into::<js_sys::Array>().ok()?;
    Some((worker, events))
}

fn js_text(v: &JsValue) -> String {
    v.as_string()
        .or_else(|| v.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
        .unwrap_or_else(|| format!("{v:?}"))
}
