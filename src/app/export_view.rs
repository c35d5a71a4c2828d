//! Export and share: the session as one mongosh script (copy, download), and a share link that
//! carries the playground in its URL fragment (the runs of the lesson's own scripts as what makes
//! them again, not their writes: `state::share_text`).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::pg::use_pg;
use super::state;

fn copy(text: &str) -> bool {
    web_sys::window().map(|w| w.navigator().clipboard()).map(|c| {
        let _ = c.write_text(text);
    });
    true
}

fn download(name: &str, text: &str) {
    download_parts(name, "text/javascript", &js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text)));
}

/// Downloads `bytes` as the file `name` (a blob URL clicked, then revoked).
pub fn download_bytes(name: &str, mime: &str, bytes: &[u8]) {
    download_parts(name, mime, &js_sys::Array::of1(&js_sys::Uint8Array::from(bytes)));
}

fn download_parts(name: &str, mime: &str, parts: &js_sys::Array) {
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_u8_array_sequence_and_options(parts, &opts) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
        if let Ok(a) = doc.create_element("a") {
            if let Ok(a) = a.dyn_into::<web_sys::HtmlAnchorElement>() {
                a.set_href(&url);
                a.set_download(name);
                a.click();
            }
        }
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

#[component]
pub fn ExportView() -> impl IntoView {
    let pg = use_pg();
    pg.refresh_backups();
    let script = Memo::new(move |_| {
        let title = pg.lesson.with(|l| l.as_ref().map(|l| l.title.clone()).unwrap_or_default());
        pg.session.with(|s| pg.audits.with(|a| pg.replay_failed.with(|f| s.to_mongosh(&title, a, f))))
    });
    let link = Memo::new(move |_| {
        // The lesson's own page, in this page's folder (the deployment's: saved work is kept per folder).
        let page = pg.lesson.with(|l| l.as_ref().map(|l| super::catalog::page(&l.id))).unwrap_or_else(|| "index.html".into());
        let base = web_sys::window()
            .and_then(|w| {
                let l = w.location();
                let path = l.pathname().ok()?;
                let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
                Some(format!("{}{dir}{page}", l.origin().ok()?))
            })
            .unwrap_or_default();
        let scripts: Vec<String> = pg.lesson.with(|l| l.as_ref().map(|l| l.steps.iter().map(|s| s.script.clone()).collect()).unwrap_or_default());
        let scripts: Vec<&str> = scripts.iter().map(String::as_str).collect();
        state::share_text(&pg.saved(), &scripts).map(|text| format!("{base}#{}{text}", state::SHARE_PREFIX))
    });
    let file = move || {
        let id = pg.lesson.with(|l| l.as_ref().map(|l| l.id.clone()).unwrap_or_else(|| "session".into()));
        format!("{id}-session.js")
    };
    view! {
        <div class="export">
            <section aria-label="Export the session">
                <h2>"Export the session"</h2>
                <p class="muted">{move || pg.session.with(|s| format!(
                    "{} action(s), {} write(s). Run it with mongosh on an empty database (or `make script`) to rebuild the same data; it ends with the audits as a health check.",
                    s.entries.len(), s.write_count()))}</p>
                <div class="toolbar">
                    <button type="button" class="secondary" on:click=move |_| { copy(&script.get_untracked()); pg.info("The script is on the clipboard."); }>"Copy script"</button>
                    <button type="button" class="primary" id="download-script" on:click=move |_| download(&file(), &script.get_untracked())>"Download script"</button>
                </div>
                <pre class="script-export" id="export-script" tabindex="0" aria-label="The session as a mongosh script">{move || script.get()}</pre>
            </section>
            <section aria-label="Share">
                <h2>"Share"</h2>
                <p class="muted">"The link carries the lesson, your edited scripts and audits, and the writes made outside the lesson's own scripts, compressed in its fragment (never sent to a server). Opening it runs the lesson's scripts again and rebuilds this playground."</p>
                {move || match link.get() {
                    None => view! {
                        <p class="notice-inline imported-data">"This session holds imported data, which a link cannot carry. Export the collections from the Data tab (Extended JSON or a .bson dump) and send them with the link of a session without them, or share the exported script."</p>
                        <button type="button" class="secondary" id="export-data" on:click=move |_| pg.tab.set(super::pg::Tab::Data)>"Export the data"</button>
                    }.into_any(),
                    Some(url) => {
                        let shown = url.clone();
                        view! {
                            <label class="block" for="share-link">{format!("Share link ({} characters)", url.len())}</label>
                            <input id="share-link" type="text" readonly prop:value=shown on:focus=move |ev| {
                                if let Some(i) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) { i.select(); }
                            }/>
                            <button type="button" class="secondary" on:click=move |_| { copy(&url); pg.info("The share link is on the clipboard."); }>"Copy link"</button>
                        }.into_any()
                    }
                }}
            </section>
            <section aria-label="Backups" id="backups">
                <h2>"Backups"</h2>
                <p class="muted">"Work that a share link, Reset lesson or a restore replaced is kept here, in this browser (the newest 20)."</p>
                {move || {
                    let list = pg.backups.get();
                    if list.is_empty() {
                        return view! { <p class="muted">"No backups yet."</p> }.into_any();
                    }
                    let titles = pg.lessons.get_value();
                    view! {
                        <ul class="backups">
                            {list.into_iter().map(|b| {
                                let title = titles.iter().find(|l| l.id == b.lesson).map(|l| l.title.clone()).unwrap_or_else(|| b.lesson.clone());
                                let what = match b.saved() {
                                    Ok(s) => format!("{} edited script(s), {} write(s)", s.scripts.len(), s.session.write_count()),
                                    Err(e) => e.to_string(),
                                };
                                let when = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(b.at)).to_locale_string("default", &wasm_bindgen::JsValue::UNDEFINED);
                                let key = b.key.clone();
                                view! {
                                    <li>
                                        <span>{format!("{} · {title} · {what} · {}", String::from(when), b.reason)}</span>
                                        " "
                                        <button type="button" class="secondary" on:click=move |_| pg.restore_backup(&key)>"Restore"</button>
                                    </li>
                                }
                            }).collect_view()}
                        </ul>
                    }.into_any()
                }}
            </section>
        </div>
    }
}
