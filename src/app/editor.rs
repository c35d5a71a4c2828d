//! The code editor: CodeMirror 6 from `www/editor/editor.js` (bundled by esbuild into
//! `editor.js`, which sets `globalThis.ppEditor`). This is the one file that declares its
//! JavaScript functions; when the bundle is missing, a plain textarea stands in.

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
    #[wasm_bindgen(js_namespace = ppEditor, js_name = destroy)]
    fn editor_destroy(handle: u32);
}

fn codemirror_loaded() -> bool {
    js_sys::Reflect::has(&js_sys::global(), &JsValue::from_str("ppEditor")).unwrap_or(false)
}

/// A code editor (JavaScript highlighting, line numbers, bracket matching). `text` is read when it
/// changes from outside (e.g. "Reset script"); edits go to `on_change`; Ctrl/Cmd+Enter calls `on_run`.
#[component]
pub fn CodeEditor(
    #[prop(into)] text: Signal<String>,
    #[prop(into)] label: String,
    on_change: Callback<String>,
    on_run: Callback<()>,
    #[prop(optional, into)] id: Option<String>,
) -> impl IntoView {
    if !codemirror_loaded() {
        let label2 = label.clone();
        return view! {
            <textarea class="editor-fallback" id=id aria-label=label2 spellcheck="false"
                prop:value=move || text.get()
                on:input=move |ev| on_change.run(event_target_value(&ev))
                on:keydown=move |ev: web_sys::KeyboardEvent| {
                    if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                        ev.prevent_default();
                        on_run.run(());
                    }
                }
            ></textarea>
        }
        .into_any();
    }
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
    on_cleanup(move || {
        if let Some(h) = handle.get_value() {
            editor_destroy(h);
        }
        closures.set_value(Vec::new());
    });
    view! { <div class="editor" id=id node_ref=node></div> }.into_any()
}
