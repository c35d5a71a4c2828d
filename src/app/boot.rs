//! Start-up in short tasks. The page carries the first lesson as static HTML (tools/site.mjs),
//! painted before any WebAssembly. The UI then takes over in steps of the event loop, each one
//! short, so that no single task blocks the page for long (Lighthouse's total blocking time):
//! the UI's WebAssembly is instantiated (one task); the app is built in a hidden container beside
//! the static page (the next, [`live_container`]); the lesson is put in the state and renders
//! there (the next, [`next_task`] in `Pg::start_up`); then [`reveal`] swaps the static page for the
//! app in one step, so nothing on screen moves or flashes.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The class of the container the app is built in (www/style.css: `display: contents` once shown,
/// so the app lays out as the static page's children did).
const LIVE: &str = "pp-live";

/// Resolves in a later task of the event loop (a `setTimeout` of 0).
pub async fn next_task() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let queued = web_sys::window().map(|w| w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0).is_ok());
        if queued != Some(true) {
            let _ = resolve.call0(&JsValue::NULL);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// A hidden container appended to `app` (which keeps showing the static page) for the app to be
/// built in.
pub fn live_container(app: &web_sys::HtmlElement) -> Option<web_sys::HtmlElement> {
    let doc = web_sys::window()?.document()?;
    let live = doc.create_element("div").ok()?.dyn_into::<web_sys::HtmlElement>().ok()?;
    live.set_class_name(LIVE);
    live.set_hidden(true);
    app.append_child(&live).ok()?;
    Some(live)
}

/// Replaces the static page by the app built in [`live_container`] (once; nothing to do when the
/// app was mounted directly).
pub fn reveal() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Some(app) = doc.get_element_by_id("app") else { return };
    let Ok(Some(live)) = app.query_selector(&format!(":scope > .{LIVE}[hidden]")) else { return };
    let mut child = app.first_child();
    while let Some(c) = child {
        child = c.next_sibling();
        if !c.is_same_node(Some(&live)) {
            let _ = app.remove_child(&c);
        }
    }
    let _ = app.remove_attribute("aria-busy");
    if let Ok(live) = live.dyn_into::<web_sys::HtmlElement>() {
        live.set_hidden(false);
    }
    mark("pp-ui-shown");
}

/// A performance mark of start-up, which tools/tti.mjs reads to break the time to interactive
/// down: `pp-ui-start` (the UI's WebAssembly runs), `pp-ui-mounted` (the shell is built, hidden),
/// `pp-ui-shown` (the app replaced the static page).
pub fn mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}
