//! The code editor: CodeMirror 6 from `www/editor/editor.js` (bundled by esbuild into
//! `editor.js`, which sets `globalThis.ppEditor`). This is the one file that declares its
//! JavaScript functions. The bundle loads once the page is interactive ([`page_ready`]); until
//! then, or when it is missing, a plain textarea stands in.

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
/// registers the service worker then), then loads CodeMirror: it is not on the first load's
/// critical path. Until it arrives, editors are plain textareas.
pub fn page_ready() {
    let Some(window) = web_sys::window() else { return };
    let _ = js_sys::Reflect::set(&window, &JsValue::from_str("ppReady"), &JsValue::TRUE);
    if let Ok(ev) = web_sys::Event::new("pp-ready") {
        let _ = window.dispatch_event(&ev);
    }
    if codemirror_loaded() {
        return;
    }
    let Some(doc) = window.document() else { return };
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
