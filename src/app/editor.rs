//! The code editor: CodeMirror 6 from `www/editor/editor.js` (bundled by esbuild into
//! `editor.js`, which sets `globalThis.ppEditor`). This is the one file that declares its
//! JavaScript functions. The bundle loads once the page is interactive and an editor is on screen
//! or the learner interacts ([`page_ready`]); until then, or when it is missing, a plain textarea
//! stands in.

use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = ppEditor, js_name = create)]
    fn editor_create(parent: &web_sys::HtmlElement, text: &str, label: &str, on_change: &JsValue, on_run: &JsValue) -> u32;
    #[wasm_bindgen(js_namespace = ppEditor, js_name = get)]
    fn editor_get(handle: u32) -> String;
    #[wasm_bindgen(js_namespace = ppEditor, js_name = set)]
    fn editor_set(handle: u32, text: &str);
    #[wasm_bindgen(js_namespace = ppEditor, js_name = markError)]
    fn editor_mark_error(handle: u32, line: u32);
    #[wasm_bindgen(js_namespace = ppEditor, js_name = destroy)]
    fn editor_destroy(handle: u32);
}

fn codemirror_loaded() -> bool {
    js_sys::Reflect::has(&js_sys::global(), &JsValue::from_str("ppEditor")).unwrap_or(false)
}

/// The event on `window` once `editor.js` (CodeMirror) has loaded.
const CODEMIRROR_LOADED: &str = "pp-editor-loaded";

/// Marks the page interactive (`window.ppReady = true`, the `pp-ready` event: www/register-sw.js
/// registers the service worker then; the `pp-ready` performance mark), then loads CodeMirror when it is needed: at once when an
/// editor is on screen (the playground on a wide screen, a widget), else on the learner's first
/// scroll, touch, key or pointer movement. It is not on the first load's critical path, and a
/// phone reading the lesson's text (the editor below it) does not pay for it before that. Until
/// it arrives, editors are plain textareas.
pub fn page_ready() {
    let Some(window) = web_sys::window() else { return };
    let _ = js_sys::Reflect::set(&window, &JsValue::from_str("ppReady"), &JsValue::TRUE);
    // The moment, for `make bench` (tools/tti.mjs reads it in each browser engine).
    if let Some(p) = window.performance() {
        let _ = p.mark("pp-ready");
    }
    if let Ok(ev) = web_sys::Event::new("pp-ready") {
        let _ = window.dispatch_event(&ev);
    }
    if codemirror_loaded() {
        return;
    }
    if editor_on_screen(&window) {
        load_codemirror();
        return;
    }
    for event in ["scroll", "wheel", "touchstart", "pointerdown", "pointermove", "keydown", "focusin"] {
        let options = gloo::events::EventListenerOptions { phase: gloo::events::EventListenerPhase::Capture, passive: true };
        gloo::events::EventListener::once_with_options(&window, event, options, |_| load_codemirror()).forget();
    }
}

/// True when the script's editor (`#script-editor`, the textarea standing in for CodeMirror) is
/// in the viewport.
fn editor_on_screen(window: &web_sys::Window) -> bool {
    let height = window.inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
    let Some(el) = window.document().and_then(|d| d.get_element_by_id("script-editor")) else { return false };
    let r = el.get_bounding_client_rect();
    r.height() > 0.0 && r.top() < height && r.bottom() > 0.0
}

/// Adds `editor.js` to the page, once; the `pp-editor-loaded` event follows its load.
fn load_codemirror() {
    thread_local! { static STARTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) }; }
    if STARTED.with(|s| s.replace(true)) || codemirror_loaded() {
        return;
    }
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Ok(script) = doc.create_element("script") else { return };
    let _ = script.set_attribute("src", "editor.js");
    let onload = Closure::<dyn FnMut()>::new(move || {
        if let (Some(w), Ok(ev)) = (web_sys::window(), web_sys::Event::new(CODEMIRROR_LOADED)) {
            let _ = w.dispatch_event(&ev);
        }
    });
    let _ = js_sys::Reflect::set(&script, &JsValue::from_str("onload"), &onload.into_js_value());
    if let Some(head) = doc.head() {
        let _ = head.append_child(&script);
    }
}

/// A code editor (JavaScript highlighting, line numbers, bracket matching). `text` is read when it
/// changes from outside (e.g. "Reset script"); edits go to `on_change`; Ctrl/Cmd+Enter calls `on_run`.
/// `error_line` (1-based) marks the line where the last run stopped, until the next edit.
/// A plain textarea until CodeMirror has loaded ([`page_ready`]); it gives way to CodeMirror
/// then, or when it loses the focus if the learner is typing in it.
#[component]
pub fn CodeEditor(
    #[prop(into)] text: Signal<String>,
    #[prop(into)] label: String,
    on_change: Callback<String>,
    on_run: Callback<()>,
    #[prop(optional, into)] id: Option<String>,
    #[prop(optional, into)] error_line: Option<Signal<Option<u32>>>,
) -> impl IntoView {
    let loaded = RwSignal::new(codemirror_loaded());
    let focused = RwSignal::new(false);
    if !loaded.get_untracked() {
        if let Some(w) = web_sys::window() {
            let listener = gloo::events::EventListener::once(&w, CODEMIRROR_LOADED, move |_| loaded.set(true));
            StoredValue::new_local(listener);
        }
    }
    let codemirror = Memo::new(move |shown: Option<&bool>| shown == Some(&true) || (loaded.get() && !focused.get()));
    move || {
        let id = id.clone();
        let label = label.clone();
        if codemirror.get() {
            return codemirror_view(text, label, on_change, on_run, id, error_line);
        }
        view! {
            <textarea class="editor-fallback" id=id aria-label=label spellcheck="false"
                prop:value=move || text.get()
                on:input=move |ev| on_change.run(event_target_value(&ev))
                on:focus=move |_| focused.set(true)
                on:blur=move |_| focused.set(false)
                on:keydown=move |ev: web_sys::KeyboardEvent| {
                    if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                        ev.prevent_default();
                        on_run.run(());
                    }
                }
            ></textarea>
        }
        .into_any()
    }
}

fn codemirror_view(
    text: Signal<String>,
    label: String,
    on_change: Callback<String>,
    on_run: Callback<()>,
    id: Option<String>,
    error_line: Option<Signal<Option<u32>>>,
) -> AnyView {
    let node = NodeRef::<Div>::new();
    let handle = StoredValue::new(None::<u32>);
    let closures = StoredValue::new_local(Vec::<JsValue>::new());
    Effect::new(move |_| {
        let Some(el) = node.get() else { return };
        if handle.get_value().is_some() {
            return;
        }
        let change = Closure::<dyn FnMut(String)>::new(move |s: String| on_change.run(s)).into_js_value();
        let run = Closure::<dyn FnMut()>::new(move || on_run.run(())).into_js_value();
        let h = editor_create(&el, &text.get_untracked(), &label, &change, &run);
        closures.set_value(vec![change, run]);
        handle.set_value(Some(h));
    });
    // Outside changes of `text` (a reset, another step) reach the editor.
    Effect::new(move |_| {
        let t = text.get();
        if let Some(h) = handle.get_value() {
            if editor_get(h) != t {
                editor_set(h, &t);
            }
        }
    });
    if let Some(line) = error_line {
        Effect::new(move |_| {
            let l = line.get().unwrap_or(0);
            if let Some(h) = handle.get_value() {
                editor_mark_error(h, l);
            }
        });
    }
    on_cleanup(move || {
        if let Some(h) = handle.get_value() {
            editor_destroy(h);
        }
        closures.set_value(Vec::new());
    });
    view! { <div class="editor" id=id node_ref=node></div> }.into_any()
}
