//! The data: collections with counts and sizes; a collection's documents, paged, each with its
//! BSON size as a bar (on the 16 MiB scale and relative to the largest); a document's field tree
//! and Extended JSON; editing, inserting and deleting documents.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::{json, Value};

use super::ejson::{self, describe, is_document};
use super::pg::{use_pg, Pg};
use super::session::DEFAULT_DB;
use super::{human_bytes, MAX_BSON};

pub const PAGE: i64 = 50;

/// A collection's statistics, from `collStats`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CollInfo {
    pub name: String,
    pub count: f64,
    pub size: f64,
    pub avg: f64,
    pub nindexes: f64,
    pub index_size: f64,
    pub index_sizes: Vec<(String, f64)>,
}

/// `cmd` sent to database `db` (commands without `$db` go to the default one).
fn in_db(mut cmd: Value, db: &str) -> Value {
    if db != DEFAULT_DB {
        if let Some(o) = cmd.as_object_mut() {
            o.insert("$db".into(), Value::String(db.to_string()));
        }
    }
    cmd
}

/// Every database's name (`listDatabases`).
async fn databases(pg: Pg) -> Result<Vec<String>, String> {
    let reply = pg.command(&json!({ "listDatabases": 1, "nameOnly": true, "$db": "admin" })).await?;
    Ok(reply
        .get("databases")
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(|d| d.get("name").and_then(Value::as_str).map(str::to_string)).collect())
        .unwrap_or_default())
}

/// Every collection of database `db` with its statistics.
pub async fn collections(pg: Pg, db: String) -> Result<Vec<CollInfo>, String> {
    let names: Vec<String> = pg
        .batch(&in_db(json!({ "listCollections": 1, "nameOnly": true }), &db))
        .await?
        .iter()
        .filter_map(|c| c.get("name").and_then(Value::as_str).map(str::to_string))
        .collect();
    let mut out = Vec::new();
    for name in names {
        let s = pg.command(&in_db(json!({ "collStats": name }), &db)).await?;
        let num = |k: &str| s.get(k).and_then(ejson::as_f64).unwrap_or(0.0);
        let index_sizes = s
            .get("indexSizes")
            .and_then(Value::as_object)
            .map(|o| o.iter().map(|(k, v)| (k.clone(), ejson::as_f64(v).unwrap_or(0.0))).collect())
            .unwrap_or_default();
        out.push(CollInfo {
            count: num("count"),
            size: num("size"),
            avg: num("avgObjSize"),
            nindexes: num("nindexes"),
            index_size: num("totalIndexSize"),
            index_sizes,
            name,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// A choice among a database's collections (the tools that look at one collection), with a
/// "Choose…" first; `label` names it for assistive technology.
#[component]
pub fn CollectionSelect(#[prop(into)] label: String, chosen: RwSignal<String>, #[prop(into)] names: Signal<Vec<CollInfo>>) -> impl IntoView {
    view! {
        <label class="field"><span>"Collection"</span>
            <select aria-label=label prop:value=move || chosen.get() on:change=move |ev| chosen.set(event_target_value(&ev))>
                <option value="">"Choose…"</option>
                {move || names.get().into_iter().map(|c| view! { <option value=c.name.clone() selected=chosen.get_untracked() == c.name>{c.name.clone()}</option> }).collect_view()}
            </select>
        </label>
    }
}

/// One page of documents with their BSON sizes (computed by the engine: `$bsonSize`).
async fn page(pg: Pg, db: &str, coll: &str, skip: i64) -> Result<Vec<(Value, f64)>, String> {
    let rows = pg
        .batch(&in_db(json!({
            "aggregate": coll,
            "pipeline": [
                { "$skip": ejson::int(skip) },
                { "$limit": ejson::int(PAGE) },
                { "$project": { "_id": 0, "size": { "$bsonSize": "$$ROOT" }, "doc": "$$ROOT" } },
            ],
            "cursor": {},
        }), db))
        .await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let size = r.get("size").and_then(ejson::as_f64).unwrap_or(0.0);
            (r.get("doc").cloned().unwrap_or(Value::Null), size)
        })
        .collect())
}

/// The largest document's size in a collection.
pub async fn largest(pg: Pg, db: &str, coll: &str) -> Result<f64, String> {
    let rows = pg
        .batch(&in_db(json!({
            "aggregate": coll,
            "pipeline": [ { "$group": { "_id": null, "max": { "$max": { "$bsonSize": "$$ROOT" } } } } ],
            "cursor": {},
        }), db))
        .await?;
    Ok(rows.first().and_then(|r| r.get("max")).and_then(ejson::as_f64).unwrap_or(0.0))
}

/// A new ObjectId, made like the drivers make them (seconds, random, counter).
pub fn new_object_id() -> Value {
    thread_local! {
        static PROCESS: [u8; 5] = std::array::from_fn(|_| (js_sys::Math::random() * 256.0) as u8);
        static COUNTER: std::cell::Cell<u32> = std::cell::Cell::new((js_sys::Math::random() * 16_777_216.0) as u32);
    }
    let secs = (js_sys::Date::now() / 1000.0) as u32;
    let mut bytes = Vec::with_capacity(12);
    bytes.extend_from_slice(&secs.to_be_bytes());
    PROCESS.with(|p| bytes.extend_from_slice(p));
    let c = COUNTER.with(|c| {
        let v = c.get().wrapping_add(1) & 0x00ff_ffff;
        c.set(v);
        v
    });
    bytes.extend_from_slice(&c.to_be_bytes()[1..]);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    json!({ "$oid": hex })
}

#[component]
pub fn DataView() -> impl IntoView {
    let pg = use_pg();
    let colls = LocalResource::new(move || {
        let _ = pg.data_version.get();
        collections(pg, pg.database.get())
    });
    let dbs = LocalResource::new(move || {
        let _ = pg.data_version.get();
        databases(pg)
    });
    // The database picker, once there is more than the one scripts start on.
    let picker = move || {
        let mut names = dbs.get().and_then(|r| r.ok()).unwrap_or_default();
        let current = pg.database.get();
        if !names.contains(&current) {
            names.push(current.clone());
        }
        if !names.iter().any(|n| n == DEFAULT_DB) {
            names.insert(0, DEFAULT_DB.to_string());
        }
        (names.len() > 1).then(|| view! {
            <label class="db-pick">"Database "
                <select aria-label="Database" on:change=move |ev| {
                    pg.collection.set(None);
                    pg.database.set(event_target_value(&ev));
                }>
                    {names.into_iter().map(|n| {
                        let selected = n == current;
                        view! { <option value=n.clone() selected=selected>{n.clone()}</option> }
                    }).collect_view()}
                </select>
            </label>
        })
    };
    view! {
        <div class="data">
            <section class="collections" aria-label="Collections">
                <h2>"Collections"</h2>
                {picker}
                {move || match colls.get() {
                    None => view! { <p class="muted">"Loading…"</p> }.into_any(),
                    Some(Err(e)) => view! { <p class="error">{e}</p> }.into_any(),
                    Some(Ok(list)) if list.is_empty() => view! {
                        <p class="muted">"The database is empty. Run the lesson's first step, or insert a document."</p>
                        <NewDocument coll=String::new()/>
                    }.into_any(),
                    Some(Ok(list)) => {
                        if pg.collection.get_untracked().is_none_or(|c| !list.iter().any(|x| x.name == c)) {
                            pg.collection.set(list.first().map(|c| c.name.clone()));
                        }
                        view! {
                            <table class="colls">
                                <thead><tr><th scope="col">"Collection"</th><th scope="col">"Documents"</th><th scope="col">"Data size"</th>
                                    <th scope="col">"Average"</th><th scope="col">"Indexes"</th></tr></thead>
                                <tbody>
                                {list.into_iter().map(|c| {
                                    let name = c.name.clone();
                                    let name2 = c.name.clone();
                                    let idx = c.index_sizes.iter().map(|(k, v)| format!("{k}: {}", human_bytes(*v))).collect::<Vec<_>>().join(", ");
                                    view! {
                                        <tr class:selected=move || pg.collection.get().as_deref() == Some(name.as_str())>
                                            <th scope="row"><button type="button" class="link coll-name"
                                                aria-pressed=move || (pg.collection.get().as_deref() == Some(name2.as_str())).to_string()
                                                on:click={let n = c.name.clone(); move |_| pg.collection.set(Some(n.clone()))}>{c.name.clone()}</button></th>
                                            <td class="num">{c.count}</td>
                                            <td class="num">{human_bytes(c.size)}</td>
                                            <td class="num">{human_bytes(c.avg)}</td>
                                            <td title=idx.clone()>{format!("{} · {}", c.nindexes, human_bytes(c.index_size))}<span class="idx-detail">{idx.clone()}</span></td>
                                        </tr>
                                    }
                                }).collect_view()}
                                </tbody>
                            </table>
                        }.into_any()
                    }
                }}
                <ImportPanel/>
            </section>
            {move || pg.collection.get().map(|c| view! { <Documents db=pg.database.get() coll=c/> })}
        </div>
    }
}

#[component]
fn Documents(db: String, coll: String) -> impl IntoView {
    let pg = use_pg();
    let skip = RwSignal::new(0i64);
    let selected = RwSignal::new(None::<Value>);
    let (c1, d1) = (coll.clone(), db.clone());
    let rows = LocalResource::new(move || {
        let _ = pg.data_version.get();
        let (c, d) = (c1.clone(), d1.clone());
        let s = skip.get();
        async move { page(pg, &d, &c, s).await }
    });
    let (c2, d2) = (coll.clone(), db.clone());
    let stats = LocalResource::new(move || {
        let _ = pg.data_version.get();
        let (c, d) = (c2.clone(), d2.clone());
        async move {
            let max = largest(pg, &d, &c).await?;
            let count = pg.command(&in_db(json!({ "collStats": c }), &d)).await?.get("count").and_then(ejson::as_f64).unwrap_or(0.0);
            Ok::<_, String>((max, count))
        }
    });
    let total = move || stats.get().and_then(|r| r.ok()).map(|(_, n)| n as i64).unwrap_or(0);
    let max = move || stats.get().and_then(|r| r.ok()).map(|(m, _)| m).unwrap_or(0.0);
    let pages = move || ((total() + PAGE - 1) / PAGE).max(1);
    let coll_for_detail = coll.clone();
    view! {
        <section class="documents" aria-label=format!("Documents of {coll}")>
            <div class="doc-list">
                <h2>{format!("{coll}")}</h2>
                <p class="muted">{move || format!("{} documents · largest {} · bars: size relative to the largest, and on the 16 MiB limit", total(), human_bytes(max()))}</p>
                <div class="pager" role="group" aria-label="Pages">
                    <button type="button" class="secondary" disabled=move || skip.get() == 0 on:click=move |_| skip.update(|s| *s = (*s - PAGE).max(0))>"← Previous"</button>
                    <span>{move || format!("Page {} of {}", skip.get() / PAGE + 1, pages())}</span>
                    <button type="button" class="secondary" disabled={move || skip.get() + PAGE >= total()} on:click=move |_| skip.update(|s| *s += PAGE)>"Next →"</button>
                    <label class="field small"><span>"Go to page"</span>
                        <input type="number" min="1" aria-label="Go to page" prop:value=move || (skip.get() / PAGE + 1).to_string()
                            on:change=move |ev| {
                                if let Ok(p) = event_target_value(&ev).parse::<i64>() { skip.set((p.clamp(1, pages()) - 1) * PAGE) }
                            }/>
                    </label>
                </div>
                <ul class="docs">
                    {move || match rows.get() {
                        None => view! { <li class="muted">"Loading…"</li> }.into_any(),
                        Some(Err(e)) => view! { <li class="error">{e}</li> }.into_any(),
                        Some(Ok(list)) => {
                            let m = max().max(1.0);
                            list.into_iter().map(|(doc, size)| {
                                let id = doc.get("_id").cloned().unwrap_or(Value::Null);
                                let id_text = describe(&id).1;
                                let doc2 = doc.clone();
                                let id2 = id.clone();
                                let rel = (size / m * 100.0).clamp(0.5, 100.0);
                                let abs = (size / MAX_BSON * 100.0).clamp(0.0, 100.0);
                                view! {
                                    <li class="doc-row" class:selected=move || selected.with(|s| s.as_ref().and_then(|d| d.get("_id")) == Some(&id2))>
                                        <button type="button" class="doc-button" on:click=move |_| selected.set(Some(doc2.clone()))
                                            aria-label=format!("Document {id_text}, {}", human_bytes(size))>
                                            <span class="doc-id">{id_text.clone()}</span>
                                            <span class="size-label">{human_bytes(size)}</span>
                                            <span class="bars" aria-hidden="true">
                                                <span class="bar rel" style=format!("width:{rel:.2}%")></span>
                                                <span class="bar abs" style=format!("width:{abs:.4}%")></span>
                                            </span>
                                        </button>
                                    </li>
                                }
                            }).collect_view().into_any()
                        }
                    }}
                </ul>
                <NewDocument coll=coll.clone()/>
                <ExportData db=db.clone() coll=coll.clone()/>
            </div>
            <div class="doc-detail">
                {move || match selected.get() {
                    None => view! { <p class="muted">"Choose a document to see its fields, its Extended JSON, and to edit it."</p> }.into_any(),
                    Some(doc) => view! { <DocumentDetail coll=coll_for_detail.clone() doc=doc selected=selected/> }.into_any(),
                }}
            </div>
        </section>
    }
}

#[component]
fn DocumentDetail(coll: String, doc: Value, selected: RwSignal<Option<Value>>) -> impl IntoView {
    let pg = use_pg();
    let db = pg.database.get_untracked();
    let id = doc.get("_id").cloned().unwrap_or(Value::Null);
    let text = RwSignal::new(ejson::pretty_relaxed(&doc));
    let editing = RwSignal::new(false);
    let check = move || ejson::parse_object(&text.get());
    // The size of the document as stored (refetched after every write).
    let (c1, id1, d1) = (coll.clone(), id.clone(), db.clone());
    let size = LocalResource::new(move || {
        let _ = pg.data_version.get();
        let (c, id, d) = (c1.clone(), id1.clone(), d1.clone());
        async move {
            let rows = pg
                .batch(&in_db(json!({ "aggregate": c, "pipeline": [ { "$match": { "_id": id } }, { "$project": { "_id": 0, "size": { "$bsonSize": "$$ROOT" }, "doc": "$$ROOT" } } ], "cursor": {} }), &d))
                .await?;
            Ok::<_, String>(rows.first().map(|r| (r.get("size").and_then(ejson::as_f64).unwrap_or(0.0), r.get("doc").cloned().unwrap_or(Value::Null))))
        }
    });
    let current = move || size.get().and_then(|r| r.ok()).flatten();
    let (c2, id2, d2) = (coll.clone(), id.clone(), db.clone());
    let save = move || {
        let Ok(new_doc) = ejson::parse_object(&text.get_untracked()) else { return };
        let (c, id, d) = (c2.clone(), id2.clone(), d2.clone());
        spawn_local(async move {
            let cmd = in_db(json!({ "update": c, "updates": [ { "q": { "_id": id }, "u": new_doc, "multi": false, "upsert": false } ] }), &d);
            match pg.write(&format!("Edit a document of {c}"), cmd).await {
                Ok(_) => {
                    editing.set(false);
                    pg.info("Document saved.");
                }
                Err(e) => pg.error(format!("Not saved: {e}")),
            }
        });
    };
    let (c3, id3, d3) = (coll.clone(), id.clone(), db.clone());
    let delete = move || {
        let (c, id, d) = (c3.clone(), id3.clone(), d3.clone());
        spawn_local(async move {
            let cmd = in_db(json!({ "delete": c, "deletes": [ { "q": { "_id": id }, "limit": 1 } ] }), &d);
            match pg.write(&format!("Delete a document of {c}"), cmd).await {
                Ok(_) => {
                    selected.set(None);
                    pg.info("Document deleted.");
                }
                Err(e) => pg.error(format!("Not deleted: {e}")),
            }
        });
    };
    view! {
        <h3>"Document " <code>{describe(&id).1}</code></h3>
        <p class="doc-size" aria-live="polite">{move || match current() {
            Some((s, _)) => format!("BSON size: {} ({} bytes), {:.4}% of the 16 MiB limit", human_bytes(s), s as i64, s / MAX_BSON * 100.0),
            None => "This document is no longer in the collection.".to_string(),
        }}</p>
        <div class="toolbar">
            <button type="button" class="secondary" on:click=move |_| {
                if let Some((_, d)) = current() { text.set(ejson::pretty_relaxed(&d)); }
                editing.update(|e| *e = !*e);
            }>{move || if editing.get() { "Cancel editing" } else { "Edit" }}</button>
            <button type="button" class="danger" on:click=move |_| delete()>"Delete"</button>
        </div>
        {move || if editing.get() {
            view! {
                <label class="block" for="doc-edit">"Extended JSON (relaxed: Int32 as 5, Double as 5.0, Int64 as {\"$numberLong\": \"5\"})"</label>
                <textarea id="doc-edit" class="json-edit" spellcheck="false" rows="16" maxlength=(ejson::MAX_TEXT + 1).to_string()
                    aria-invalid=move || check().is_err().to_string() aria-describedby="doc-edit-status"
                    prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))></textarea>
                <p id="doc-edit-status" class=move || if check().is_ok() { "valid" } else { "invalid" } aria-live="polite">
                    {move || match check() { Ok(_) => "Valid Extended JSON.".to_string(), Err(e) => e.to_string() }}
                </p>
                <button type="button" class="primary" disabled=move || check().is_err() on:click={let save = save.clone(); move |_| save()}>"Save document"</button>
            }.into_any()
        } else {
            view! {
                <div class="doc-views">
                    <div>
                        <h4>"Fields"</h4>
                        {move || current().map(|(_, d)| view! { <FieldTree value=d/> })}
                    </div>
                    <div>
                        <h4>"Extended JSON"</h4>
                        <pre class="ejson" tabindex="0" aria-label="Extended JSON of the document">{move || current().map(|(_, d)| ejson::pretty_relaxed(&d))}</pre>
                    </div>
                </div>
            }.into_any()
        }}
    }
}

/// A document's fields as a tree (objects and arrays fold).
#[component]
pub fn FieldTree(value: Value, #[prop(optional)] changed: Vec<String>) -> impl IntoView {
    view! { <ul class="tree" role="tree">{tree_children(&value, "", &changed)}</ul> }
}

fn tree_children(v: &Value, prefix: &str, changed: &[String]) -> AnyView {
    let entries: Vec<(String, Value)> = match v {
        Value::Object(o) => o.iter().map(|(k, x)| (k.clone(), x.clone())).collect(),
        Value::Array(a) => a.iter().enumerate().map(|(i, x)| (i.to_string(), x.clone())).collect(),
        _ => Vec::new(),
    };
    const SHOW: usize = 200;
    let more = entries.len().saturating_sub(SHOW);
    let items = entries
        .into_iter()
        .take(SHOW)
        .map(|(k, x)| {
            let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            let hit = changed.iter().any(|c| c == &path || c.starts_with(&format!("{path}.")) || path.starts_with(&format!("{c}.")));
            let (ty, text) = describe(&x);
            if is_document(&x) || x.is_array() {
                let children = tree_children(&x, &path, changed);
                let open = hit || (prefix.is_empty() && text.len() < 20);
                view! {
                    <li role="treeitem" class:changed=hit>
                        <details open=open>
                            <summary><span class="key">{k}</span>" "<span class="type">{ty}</span>" "<span class="muted">{text}</span></summary>
                            <ul role="group">{children}</ul>
                        </details>
                    </li>
                }
                .into_any()
            } else {
                view! {
                    <li role="treeitem" class:changed=hit><span class="key">{k}</span>": "<span class=format!("val t-{ty}")>{text}</span>" "<span class="type">{ty}</span></li>
                }
                .into_any()
            }
        })
        .collect_view();
    view! {
        {items}
        {(more > 0).then(|| view! { <li class="muted">{format!("… {more} more")}</li> })}
    }
    .into_any()
}

#[component]
fn NewDocument(coll: String) -> impl IntoView {
    let pg = use_pg();
    let open = RwSignal::new(false);
    let name = RwSignal::new(coll.clone());
    let text = RwSignal::new("{\n  \n}".to_string());
    // Parsed once per change (the view reads it three times).
    let checked = Memo::new(move |_| ejson::parse_object(&text.get()));
    let check = move || checked.get();
    let insert = move || {
        let Ok(mut doc) = ejson::parse_object(&text.get_untracked()) else { return };
        let c = name.get_untracked().trim().to_string();
        if c.is_empty() {
            pg.error("Name the collection to insert into.");
            return;
        }
        // Like the drivers, give the document its _id here, so a replay inserts the same one.
        if let Some(o) = doc.as_object_mut() {
            if !o.contains_key("_id") {
                let mut with_id = serde_json::Map::new();
                with_id.insert("_id".into(), new_object_id());
                with_id.extend(std::mem::take(o));
                *o = with_id;
            }
        }
        spawn_local(async move {
            let cmd = in_db(json!({ "insert": c, "documents": [doc] }), &pg.database.get_untracked());
            match pg.write(&format!("Insert a document into {c}"), cmd).await {
                Ok(_) => {
                    open.set(false);
                    pg.collection.set(Some(c));
                    pg.info("Document inserted.");
                }
                Err(e) => pg.error(format!("Not inserted: {e}")),
            }
        });
    };
    view! {
        <div class="new-doc">
            <button type="button" class="secondary" aria-expanded=move || open.get().to_string() on:click=move |_| open.update(|o| *o = !*o)>"+ Insert a document"</button>
            <Show when=move || open.get()>
                <label class="field"><span>"Collection"</span><input type="text" prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev))/></label>
                <label class="block" for="new-doc-text">"New document (Extended JSON; an _id is added if missing)"</label>
                <textarea id="new-doc-text" class="json-edit" rows="8" spellcheck="false" aria-describedby="new-doc-status"
                    maxlength=(ejson::MAX_TEXT + 1).to_string()
                    aria-invalid=move || check().is_err().to_string()
                    prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))></textarea>
                <p id="new-doc-status" class=move || if check().is_ok() { "valid" } else { "invalid" } aria-live="polite">
                    {move || match check() { Ok(_) => "Valid Extended JSON.".to_string(), Err(e) => e.to_string() }}
                </p>
                <button type="button" class="primary" disabled=move || check().is_err() on:click=move |_| insert()>"Insert"</button>
            </Show>
        </div>
    }
}

/// The collection as a file for `mongoimport` (Extended JSON lines, relaxed or canonical) or
/// `mongorestore` (`.bson`, and its `.metadata.json`), downloaded.
#[component]
fn ExportData(db: String, coll: String) -> impl IntoView {
    let pg = use_pg();
    let formats: [(&str, &str, &str, &str); 4] = [
        ("json", "json", "application/x-ndjson", "JSON lines (relaxed)"),
        ("canonical", "json", "application/x-ndjson", "JSON lines (canonical)"),
        ("bson", "bson", "application/octet-stream", ".bson dump"),
        ("metadata", "metadata.json", "application/json", ".metadata.json"),
    ];
    view! {
        <div class="toolbar export-data" role="group" aria-label=format!("Export {coll}")>
            <span class="muted">"Download: "</span>
            {formats.into_iter().map(|(format, ext, mime, label)| {
                let (db, coll) = (db.clone(), coll.clone());
                view! {
                    <button type="button" class="link" data-format=format on:click=move |_| {
                        let (db, coll) = (db.clone(), coll.clone());
                        spawn_local(async move {
                            match pg.export_collection(db, coll.clone(), format).await {
                                Ok(bytes) => super::export_view::download_bytes(&format!("{coll}.{ext}"), mime, bytes.as_slice()),
                                Err(e) => pg.error(format!("{coll} could not be exported: {e}")),
                            }
                        });
                    }>{label}</button>
                }
            }).collect_view()}
        </div>
    }
}

/// A file to import and the collection it goes to.
#[derive(Debug, Clone, PartialEq)]
struct Pending {
    /// The file's name, or its path inside a picked folder (`dump/shop/orders.bson`).
    file: String,
    bytes: Vec<u8>,
    collection: RwSignal<String>,
}

/// One import the panel runs: a file, or one collection of a dump (its `.bson` and its
/// `.metadata.json`, either of them alone too).
#[derive(Debug, Clone, PartialEq)]
pub struct ImportJob {
    pub file: String,
    pub bytes: Vec<u8>,
    /// The database a dump folder names (`dump/<db>/<coll>.bson`); `None`: the Data tab's.
    pub db: Option<String>,
    pub collection: String,
    /// The `.metadata.json`'s path and text.
    pub metadata: Option<(String, String)>,
}

fn is_dump_file(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".bson", ".metadata.json", ".gz"].iter().any(|e| lower.ends_with(e))
}

/// The imports for the chosen files (path, bytes, collection as the learner left it): mongodump
/// files paired as mongorestore pairs them (`import/plan.rs`'s `plan_dump`, the one the Node runner
/// uses; a folder's database from its path, loose files into `default_db`), every other file on
/// its own. Also the lines to report for files that cannot be imported.
pub fn import_jobs(files: Vec<(String, Vec<u8>, String)>, default_db: &str) -> (Vec<ImportJob>, Vec<String>) {
    let (dump, others): (Vec<_>, Vec<_>) = files.into_iter().partition(|(path, _, _)| is_dump_file(path));
    let mut jobs: Vec<ImportJob> =
        others.into_iter().map(|(file, bytes, collection)| ImportJob { file, bytes, db: None, collection, metadata: None }).collect();
    let paths: Vec<&str> = dump.iter().map(|(p, _, _)| p.as_str()).collect();
    let plan = super::dump_plan::plan_dump(default_db, &paths);
    let mut problems: Vec<String> = plan.compressed.iter().filter_map(|(i, _)| paths.get(*i)).map(|p| format!("{p}: {}", super::dump_plan::COMPRESSED)).collect();
    for e in plan.entries {
        let data = e.data.and_then(|i| dump.get(i));
        let meta = e.metadata.and_then(|i| dump.get(i));
        let metadata = match meta.map(|(p, b, _)| (p, std::str::from_utf8(b))) {
            Some((p, Ok(text))) => Some((p.clone(), text.to_string())),
            Some((p, Err(_))) => {
                problems.push(format!("{p}: not UTF-8 text, so not a .metadata.json"));
                continue;
            }
            None => None,
        };
        // A collection name the learner edited wins over the dump's.
        let collection = match data {
            Some((path, _, c)) if *c != collection_of(path) && !c.trim().is_empty() => c.clone(),
            _ => e.collection.clone(),
        };
        let (file, bytes) = match (data, &metadata) {
            (Some((p, b, _)), _) => (p.clone(), b.clone()),
            (None, Some((p, _))) => (p.clone(), Vec::new()),
            (None, None) => continue,
        };
        let db = Some(e.db.clone()).filter(|d| d != default_db);
        jobs.push(ImportJob { file, bytes, db, collection, metadata });
    }
    (jobs, problems)
}

/// The collection a file goes to by default: its name without the extension (mongoimport's).
pub fn collection_of(file: &str) -> String {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let lower = base.to_ascii_lowercase();
    for ext in [".metadata.json", ".ndjson", ".jsonl", ".json", ".bson", ".csv", ".tsv"] {
        if lower.ends_with(ext) {
            return base[..base.len() - ext.len()].to_string();
        }
    }
    base.to_string()
}

/// Import files (picked, dropped or pasted) with the engine's importer: mongoexport JSON, a
/// mongodump `.bson` (with its `.metadata.json` when both are given), CSV or TSV. Each file goes
/// to the collection named after it (editable), in the database the Data tab shows.
#[component]
fn ImportPanel() -> impl IntoView {
    let pg = use_pg();
    let pending = RwSignal::new(Vec::<Pending>::new());
    let pasted = RwSignal::new(String::new());
    let paste_name = RwSignal::new("pasted.json".to_string());
    let skip_bad = RwSignal::new(false);
    let reports = pg.import_report;
    let add_files = move |list: Option<web_sys::FileList>| {
        let Some(list) = list else { return };
        for i in 0..list.length() {
            let Some(f) = list.get(i) else { continue };
            spawn_local(async move {
                // A picked folder's files carry their path in it (`dump/shop/orders.bson`).
                let relative = js_sys::Reflect::get(&f, &"webkitRelativePath".into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
                let name = if relative.is_empty() { f.name() } else { relative };
                if f.size() > super::pg::MAX_IMPORT as f64 {
                    pg.error(format!("{name} is {}; the playground imports files of at most {}.", super::human_bytes(f.size()), super::human_bytes(super::pg::MAX_IMPORT as f64)));
                    return;
                }
                match wasm_bindgen_futures::JsFuture::from(f.array_buffer()).await {
                    Ok(buf) => {
                        let bytes = js_sys::Uint8Array::new(&buf).to_vec();
                        pending.update(|p| p.push(Pending { collection: RwSignal::new(collection_of(&name)), file: name, bytes }));
                    }
                    Err(_) => pg.error(format!("{name} could not be read.")),
                }
            });
        }
    };
    let run = move || {
        let mut files = pending.get_untracked();
        let text = pasted.get_untracked();
        if !text.trim().is_empty() {
            let name = paste_name.get_untracked();
            files.push(Pending { collection: RwSignal::new(collection_of(&name)), file: name, bytes: text.into_bytes() });
        }
        if files.is_empty() {
            pg.error("Choose, drop or paste a file to import.");
            return;
        }
        let stop = !skip_bad.get_untracked();
        let sizes: Vec<(&str, usize)> = files.iter().map(|p| (p.file.as_str(), p.bytes.len())).collect();
        if let Some(question) = super::pg::import_memory_warning(&sizes) {
            if !web_sys::window().and_then(|w| w.confirm_with_message(&question).ok()).unwrap_or(false) {
                return;
            }
        }
        // Read now: the panel may be gone (another tab) before the imports end.
        let files: Vec<(String, Vec<u8>, String)> = files.into_iter().map(|p| (p.file, p.bytes, p.collection.get_untracked())).collect();
        let (jobs, problems) = import_jobs(files, &pg.database.get_untracked());
        pending.set(Vec::new());
        pasted.set(String::new());
        reports.set(problems.clone());
        spawn_local(async move {
            let mut lines = problems;
            let count = jobs.len();
            for job in jobs {
                let file = job.file.clone();
                match pg.import_file(job, stop).await {
                    Ok((r, kept)) => {
                        let cancelled = !kept && pg.import_cancel.get_untracked();
                        lines.extend(describe_import(&r, cancelled));
                        if cancelled {
                            break;
                        }
                    }
                    Err(e) => lines.push(format!("{file}: {e}")),
                }
            }
            // The panel may be closed by now: say where the report is, wherever the learner is.
            pg.info(format!("Import finished ({count} file(s)): the report is in the Data tab's import panel."));
            reports.set(lines);
        });
    };
    // A folder picker (`webkitdirectory`, which every engine supports, set once mounted: the
    // view macro knows no such attribute).
    let folder_input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(input) = folder_input.get() {
            input.set_webkitdirectory(true);
        }
    });
    view! {
        <details class="import">
            <summary>"Import data"</summary>
            <div class="drop-zone" aria-label="Drop files to import here"
                on:dragover=move |ev: web_sys::DragEvent| ev.prevent_default()
                on:drop=move |ev: web_sys::DragEvent| {
                    ev.prevent_default();
                    add_files(ev.data_transfer().and_then(|d| d.files()));
                }>
                <p class="muted">"Drop mongoexport JSON, mongodump .bson, CSV or TSV files here, or "</p>
                <input type="file" multiple accept=".json,.jsonl,.ndjson,.bson,.csv,.tsv" aria-label="Files to import"
                    on:change=move |ev| {
                        let input: web_sys::HtmlInputElement = event_target(&ev);
                        add_files(input.files());
                        input.set_value("");
                    }/>
                <label class="field small"><span>"or a whole mongodump folder"</span>
                    <input type="file" multiple node_ref=folder_input aria-label="Dump folder to import"
                        on:change=move |ev| {
                            let input: web_sys::HtmlInputElement = event_target(&ev);
                            add_files(input.files());
                            input.set_value("");
                        }/>
                </label>
            </div>
            <ul class="pending">
                {move || pending.get().into_iter().map(|p| view! {
                    <li>
                        <span>{format!("{} ({})", p.file, super::human_bytes(p.bytes.len() as f64))}</span>
                        {if p.file.to_ascii_lowercase().ends_with(".metadata.json") {
                            view! { <span class="muted">" indexes and options of its collection"</span> }.into_any()
                        } else {
                            view! {
                                <label class="field small"><span>"into collection"</span>
                                    <input type="text" aria-label=format!("Collection for {}", p.file) prop:value=move || p.collection.get()
                                        on:input=move |ev| p.collection.set(event_target_value(&ev))/>
                                </label>
                            }.into_any()
                        }}
                    </li>
                }).collect_view()}
            </ul>
            <label class="field"><span>"Or paste Extended JSON (one document per line, or an array), CSV or TSV"</span>
                <textarea class="json-edit" rows="4" aria-label="Data to import" prop:value=move || pasted.get()
                    on:input=move |ev| pasted.set(event_target_value(&ev))></textarea>
            </label>
            <label class="field small"><span>"Pasted data's file name (its extension says the format)"</span>
                <input type="text" aria-label="Pasted data's file name" prop:value=move || paste_name.get() on:input=move |ev| paste_name.set(event_target_value(&ev))/>
            </label>
            <label class="check"><input type="checkbox" prop:checked=move || skip_bad.get() on:change=move |ev| skip_bad.set(event_target_checked(&ev))/>
                " Skip documents that cannot be read or inserted (by default the import stops at the first, as mongoimport does, and nothing of that file is kept)"</label>
            <button type="button" class="primary" disabled=move || pg.busy.get() on:click=move |_| run()>"Import"</button>
            <ul class="import-report" aria-live="polite">
                {move || reports.get().into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
            </ul>
        </details>
        // Outside the folding panel: an import keeps running (and shows) when the panel is
        // closed or the learner went to another tab and back.
        {move || pg.import_progress.get().map(|p| {
            let text = progress_text(&p);
            view! {
                <div class="import-progress" role="group" aria-label="Import in progress">
                    <label for="import-progress">{format!("Importing {} into {}.{}", p.file, p.db, p.collection)}</label>
                    <progress id="import-progress" max=p.bytes_total.max(1).to_string() value=p.bytes_done.to_string() aria-valuetext=text.clone()></progress>
                    <span class="progress-text">{text}</span>
                    <button type="button" class="secondary" disabled=move || pg.import_cancel.get() on:click=move |_| pg.cancel_import()>
                        {move || if pg.import_cancel.get() { "Cancelling…" } else { "Cancel import" }}
                    </button>
                </div>
            }
        })}
    }
}

/// What an import's progress bar says: documents read (and failed), bytes of the file read.
pub fn progress_text(p: &crate::protocol::ImportProgress) -> String {
    let failed = if p.failed > 0 { format!(" ({} failed)", p.failed) } else { String::new() };
    format!("{} documents{failed} · {} of {}", p.read, human_bytes(p.bytes_done as f64), human_bytes(p.bytes_total as f64))
}

/// The lines a report shows: mongoimport's summary (or that it was cancelled), then each error
/// at its place.
pub fn describe_import(r: &crate::protocol::ImportReport, cancelled: bool) -> Vec<String> {
    let mut out = vec![if cancelled {
        format!("{} -> {}.{}: cancelled after {} document(s); nothing of this file was kept.", r.file, r.db, r.collection, r.read)
    } else if r.stopped {
        format!("{} -> {}.{}: stopped at an error; nothing of this file was kept.", r.file, r.db, r.collection)
    } else {
        let indexes = if r.indexes > 0 { format!(" {} index(es) created.", r.indexes) } else { String::new() };
        format!("{} -> {}.{}: {} document(s) imported, {} failed.{indexes}", r.file, r.db, r.collection, r.inserted, r.failed)
    }];
    for e in &r.errors {
        let at = match (e.line, e.offset) {
            (Some(l), _) => format!(":{l}"),
            (None, Some(o)) => format!(" at byte {o}"),
            _ => String::new(),
        };
        out.push(format!("{}{at}: {}", e.file, e.message));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_goes_to_the_collection_named_after_it() {
        let cases = [("orders.json", "orders"), ("dump/shop/items.bson", "items"), ("People.CSV", "People"), ("log.ndjson", "log"), ("x.metadata.json", "x"), ("noext", "noext")];
        for (file, coll) in cases {
            assert_eq!(collection_of(file), coll, "{file}");
        }
    }

    #[test]
    fn dump_files_pair_up_and_other_files_import_alone() {
        let f = |p: &str, b: &[u8], c: &str| (p.to_string(), b.to_vec(), c.to_string());
        let files = vec![
            f("orders.json", b"{}", "orders"),
            f("dump/shop/items.bson", b"I", "items"),
            f("dump/shop/items.metadata.json", b"{\"indexes\":[]}", "items"),
            f("dump/shop/views.metadata.json", b"{}", "views"),
            f("dump/admin/system.users.bson", b"U", "system.users"),
            f("dump/logs/events.bson.gz", b"Z", "events.bson"),
            f("loose.bson", b"L", "renamed"),
            f("bad.metadata.json", &[0xff], "bad"),
        ];
        let (jobs, problems) = import_jobs(files, "test");
        let job = |file: &str, bytes: &[u8], db: Option<&str>, c: &str, meta: Option<(&str, &str)>| ImportJob {
            file: file.into(),
            bytes: bytes.to_vec(),
            db: db.map(str::to_string),
            collection: c.into(),
            metadata: meta.map(|(p, t)| (p.to_string(), t.to_string())),
        };
        assert_eq!(
            jobs,
            vec![
                job("orders.json", b"{}", None, "orders", None),
                job("dump/shop/items.bson", b"I", Some("shop"), "items", Some(("dump/shop/items.metadata.json", "{\"indexes\":[]}"))),
                job("dump/shop/views.metadata.json", b"", Some("shop"), "views", Some(("dump/shop/views.metadata.json", "{}"))),
                // A loose .bson goes to the Data tab's database, under the name the learner gave it.
                job("loose.bson", b"L", None, "renamed", None),
            ]
        );
        assert_eq!(
            problems,
            vec![
                "dump/logs/events.bson.gz: compressed dumps (--gzip) are not supported: decompress them first".to_string(),
                "bad.metadata.json: not UTF-8 text, so not a .metadata.json".to_string(),
            ]
        );
    }

    #[test]
    fn a_large_import_asks_first() {
        use super::super::pg::import_memory_warning as warning;
        assert_eq!(warning(&[("a.json", 120 << 20)]), None);
        assert_eq!(warning(&[("a.json", 256 << 20), ("b.bson", 100 << 20)]), None);
        let q = warning(&[("a.json", 256 << 20), ("b.bson", 200 << 20)]).unwrap();
        assert!(q.starts_with("These files hold 456.0 MiB of data; the engine keeps about 5 bytes in memory per byte of them (documents stored as BSON with their _id index, and the file while it is read), so the import needs about 2.4 GiB of the 4.0 GiB"), "{q}");
        let q = warning(&[("people.CSV", 250 << 20)]).unwrap();
        assert!(q.contains("about 10 bytes in memory per byte of them") && q.contains("needs about 2.4 GiB"), "{q}");
    }

    #[test]
    fn a_report_reads_as_mongoimport_sums_up() {
        let mut r = crate::protocol::ImportReport { file: "o.json".into(), db: "test".into(), collection: "o".into(), read: 3, inserted: 2, failed: 1, ..Default::default() };
        r.errors.push(crate::protocol::ImportError { file: "o.json".into(), line: Some(3), offset: None, message: "unexpected end".into() });
        assert_eq!(describe_import(&r, false), ["o.json -> test.o: 2 document(s) imported, 1 failed.", "o.json:3: unexpected end"]);
        assert_eq!(describe_import(&r, true)[0], "o.json -> test.o: cancelled after 3 document(s); nothing of this file was kept.");
        r.stopped = true;
        assert_eq!(describe_import(&r, false)[0], "o.json -> test.o: stopped at an error; nothing of this file was kept.");
    }

    #[test]
    fn the_progress_bar_says_documents_and_bytes() {
        let mut p = crate::protocol::ImportProgress { read: 12_000, bytes_done: 3 << 20, bytes_total: 12 << 20, ..Default::default() };
        assert_eq!(progress_text(&p), "12000 documents · 3.0 MiB of 12.0 MiB");
        p.failed = 2;
        assert_eq!(progress_text(&p), "12000 documents (2 failed) · 3.0 MiB of 12.0 MiB");
    }
}
