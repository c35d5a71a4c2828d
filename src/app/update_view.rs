//! The update composer: filter, update (operators or a pipeline) and options; Preview runs the
//! engine's `ppPreviewUpdate` on copies and shows each affected document before and after, with
//! the changed paths and the size change; Apply commits the same update.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::{json, Value};

use super::data_view::{collections, FieldTree};
use super::ejson;
use super::pg::use_pg;
use super::human_bytes;

/// A ready-made update that shows a pattern's typical write.
pub struct Template {
    pub pattern: &'static str,
    pub label: &'static str,
    pub collection: &'static str,
    pub filter: &'static str,
    pub update: &'static str,
    pub upsert: bool,
    pub multi: bool,
    pub array_filters: &'static str,
}

pub const TEMPLATES: [Template; 5] = [
    Template {
        pattern: "Subset",
        label: "Subset: push a comment, keep the newest ten",
        collection: "films",
        filter: r#"{ "_id": "F-1001" }"#,
        update: r#"{
  "$inc": { "commentCount": 1 },
  "$push": { "recentComments": {
    "$each": [ { "author": "you", "stars": 4, "text": "worth a second look", "at": { "$date": "2024-11-01T00:00:00Z" } } ],
    "$sort": { "at": -1 },
    "$slice": 10 } }
}"#,
        upsert: false,
        multi: false,
        array_filters: "",
    },
    Template {
        pattern: "Computed",
        label: "Computed: add a 5-star rating and recompute the average (pipeline)",
        collection: "restaurants",
        filter: r#"{ "_id": 3 }"#,
        update: r#"[
  { "$set": { "ratingCount": { "$add": ["$ratingCount", 1] }, "ratingSum": { "$add": ["$ratingSum", 5] } } },
  { "$set": { "avgRating": { "$round": [{ "$divide": ["$ratingSum", "$ratingCount"] }, 2] } } }
]"#,
        upsert: false,
        multi: false,
        array_filters: "",
    },
    Template {
        pattern: "Bucket",
        label: "Bucket: add a reading to its hour's capped bucket (upsert)",
        collection: "buckets",
        filter: r#"{ "station": "st-north", "hour": { "$date": "2024-03-03T00:00:00Z" }, "count": { "$lt": 60 } }"#,
        update: r#"{
  "$push": { "readings": { "t": { "$date": "2024-03-03T00:05:00Z" }, "temp": 9.5, "humidity": 71 } },
  "$inc": { "count": 1, "sum": 9.5 },
  "$min": { "min": 9.5 },
  "$max": { "max": 9.5 }
}"#,
        upsert: true,
        multi: false,
        array_filters: "",
    },
    Template {
        pattern: "Extended Reference",
        label: "Extended Reference: refresh the copied agent name on tickets",
        collection: "tickets",
        filter: r#"{ "assignee._id": 0, "assignee.name": { "$ne": "Dana Okafor" } }"#,
        update: r#"{ "$set": { "assignee.name": "Dana Okafor" } }"#,
        upsert: false,
        multi: true,
        array_filters: "",
    },
    Template {
        pattern: "Schema Versioning",
        label: "Schema Versioning: migrate every version 1 user (pipeline)",
        collection: "users",
        filter: r#"{ "schemaVersion": { "$ne": 2 } }"#,
        update: r#"[
  { "$set": { "contacts": [ { "kind": "phone", "value": "$phone" }, { "kind": "email", "value": "$email" } ], "schemaVersion": 2 } },
  { "$unset": ["phone", "email"] }
]"#,
        upsert: false,
        multi: true,
        array_filters: "",
    },
];

/// The parsed form: `(q, u, arrayFilters)` in canonical Extended JSON, or the first error.
pub fn parse_form(filter: &str, update: &str, array_filters: &str) -> Result<(Value, Value, Option<Value>), String> {
    let q = ejson::parse_object(filter).map_err(|e| format!("Filter: {e}"))?;
    let u = ejson::parse_value(update).map_err(|e| format!("Update: {e}"))?;
    if !(u.is_object() || u.is_array()) {
        return Err("Update: give update operators { \"$set\": ... }, a replacement document, or a pipeline [ ... ]".into());
    }
    let af = if array_filters.trim().is_empty() {
        None
    } else {
        let v = ejson::parse_value(array_filters).map_err(|e| format!("Array filters: {e}"))?;
        if !v.is_array() {
            return Err("Array filters: an array of filters, e.g. [ { \"e.qty\": { \"$lt\": 5 } } ]".into());
        }
        Some(v)
    };
    Ok((q, u, af))
}

/// One document of a preview.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub before: Option<Value>,
    pub after: Value,
    pub paths: Vec<String>,
    pub size_before: f64,
    pub size_after: f64,
}

/// Reads a `ppPreviewUpdate` reply.
pub fn read_preview(reply: &Value) -> (f64, f64, Vec<Change>) {
    let num = |v: Option<&Value>| v.and_then(ejson::as_f64).unwrap_or(0.0);
    let docs = reply
        .get("docs")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|d| Change {
                    before: d.get("before").filter(|b| !b.is_null()).cloned(),
                    after: d.get("after").cloned().unwrap_or(Value::Null),
                    paths: d
                        .get("changedPaths")
                        .and_then(Value::as_array)
                        .map(|p| p.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
                        .unwrap_or_default(),
                    size_before: num(d.get("sizeBefore")),
                    size_after: num(d.get("sizeAfter")),
                })
                .collect()
        })
        .unwrap_or_default();
    (num(reply.get("matchedCount")), num(reply.get("modifiedCount")), docs)
}

/// The value at a dotted path of a canonical document.
fn at_path<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    let mut v = doc;
    for part in path.split('.') {
        v = match v {
            Value::Object(o) => o.get(part)?,
            Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(v)
}

fn short(v: Option<&Value>) -> String {
    match v {
        None => "(missing)".into(),
        Some(v) => {
            let s = ejson::compact_relaxed(v);
            if s.chars().count() > 120 {
                format!("{}…", s.chars().take(120).collect::<String>())
            } else {
                s
            }
        }
    }
}

#[component]
pub fn UpdateView() -> impl IntoView {
    let pg = use_pg();
    // An update the advisor drafted opens here, ready to preview.
    let draft = pg.draft.try_update(Option::take).flatten();
    let coll = RwSignal::new(draft.as_ref().map(|d| d.collection.clone()).unwrap_or_else(|| pg.test_collection()));
    let filter = RwSignal::new(draft.as_ref().map(|d| d.filter.clone()).unwrap_or_else(|| "{}".to_string()));
    let update = RwSignal::new(draft.as_ref().map(|d| d.update.clone()).unwrap_or_else(|| "{ \"$set\": { } }".to_string()));
    let array_filters = RwSignal::new(String::new());
    let upsert = RwSignal::new(false);
    let multi = RwSignal::new(draft.as_ref().is_some_and(|d| d.multi));
    let preview = RwSignal::new(None::<Result<(f64, f64, Vec<Change>), String>>);
    let names = LocalResource::new(move || {
        let _ = pg.data_version.get();
        async move { collections(pg, super::session::DEFAULT_DB.into()).await.map(|v| v.into_iter().map(|c| c.name).collect::<Vec<_>>()).unwrap_or_default() }
    });
    let form = move || parse_form(&filter.get(), &update.get(), &array_filters.get());
    let spec = move || -> Result<Value, String> {
        let (q, u, af) = form()?;
        let mut s = json!({ "q": q, "u": u, "upsert": upsert.get(), "multi": multi.get() });
        if let Some(af) = af {
            s["arrayFilters"] = af;
        }
        Ok(s)
    };
    let do_preview = move || {
        let c = coll.get_untracked();
        let Ok(s) = spec() else { return };
        spawn_local(async move {
            let mut cmd = json!({ "ppPreviewUpdate": c });
            if let (Some(o), Some(so)) = (cmd.as_object_mut(), s.as_object()) {
                o.extend(so.clone());
            }
            let r = match pg.command(&cmd).await {
                Ok(reply) => match super::audits::reply_error(&reply) {
                    Some(e) => Err(e),
                    None => Ok(read_preview(&reply)),
                },
                Err(e) => Err(e),
            };
            preview.set(Some(r));
        });
    };
    let apply = move || {
        let c = coll.get_untracked();
        let Ok(s) = spec() else { return };
        spawn_local(async move {
            let cmd = json!({ "update": c, "updates": [s] });
            match pg.write(&format!("Apply an update to {c}"), cmd).await {
                Ok(reply) => {
                    let n = reply.get("n").and_then(ejson::as_f64).unwrap_or(0.0);
                    let m = reply.get("nModified").and_then(ejson::as_f64).unwrap_or(0.0);
                    let up = reply.get("upserted").and_then(Value::as_array).map(|a| a.len()).unwrap_or(0);
                    pg.info(format!("Applied: {n} matched, {m} modified{}.", if up > 0 { format!(", {up} upserted") } else { String::new() }));
                    preview.set(None);
                }
                Err(e) => pg.error(format!("Not applied: {e}")),
            }
        });
    };
    view! {
        <div class="composer">
            <section class="compose-form" aria-label="Update">
                <h2>"Update composer"</h2>
                <label class="field"><span>"Ready-made update"</span>
                    <select aria-label="Ready-made update" on:change=move |ev| {
                        if let Some(t) = event_target_value(&ev).parse::<usize>().ok().and_then(|i| TEMPLATES.get(i)) {
                            coll.set(t.collection.into());
                            filter.set(t.filter.into());
                            update.set(t.update.into());
                            upsert.set(t.upsert);
                            multi.set(t.multi);
                            array_filters.set(t.array_filters.into());
                            preview.set(None);
                        }
                    }>
                        <option value="">"Choose a pattern's update…"</option>
                        {TEMPLATES.iter().enumerate().map(|(i, t)| view! { <option value=i.to_string() title=t.pattern>{t.label}</option> }).collect_view()}
                    </select>
                </label>
                <label class="field"><span>"Collection"</span>
                    <input type="text" list="coll-names" prop:value=move || coll.get() on:input=move |ev| coll.set(event_target_value(&ev))/>
                    <datalist id="coll-names">{move || names.get().unwrap_or_default().into_iter().map(|n| view! { <option value=n/> }).collect_view()}</datalist>
                </label>
                <label class="block" for="upd-filter">"Filter"</label>
                <textarea id="upd-filter" class="json-edit" rows="3" spellcheck="false" prop:value=move || filter.get() on:input=move |ev| filter.set(event_target_value(&ev))></textarea>
                <label class="block" for="upd-update">"Update: operators, a replacement document, or a pipeline [ … ]"</label>
                <textarea id="upd-update" class="json-edit" rows="6" spellcheck="false" prop:value=move || update.get() on:input=move |ev| update.set(event_target_value(&ev))></textarea>
                <label class="block" for="upd-af">"Array filters (optional)"</label>
                <textarea id="upd-af" class="json-edit" rows="2" spellcheck="false" placeholder="[ { \"e.qty\": { \"$lt\": 5 } } ]" prop:value=move || array_filters.get() on:input=move |ev| array_filters.set(event_target_value(&ev))></textarea>
                <fieldset class="options">
                    <legend>"Options"</legend>
                    <label><input type="radio" name="upd-multi" prop:checked=move || !multi.get() on:change=move |_| multi.set(false)/>" One document"</label>
                    <label><input type="radio" name="upd-multi" prop:checked=move || multi.get() on:change=move |_| multi.set(true)/>" Many documents"</label>
                    <label><input type="checkbox" prop:checked=move || upsert.get() on:change=move |ev| upsert.set(event_target_checked(&ev))/>" Upsert"</label>
                </fieldset>
                <p class=move || if form().is_ok() { "valid" } else { "invalid" } aria-live="polite">
                    {move || match form() { Ok(_) => "Ready.".to_string(), Err(e) => e }}
                </p>
                <div class="toolbar">
                    <button type="button" class="secondary" id="preview-update" disabled=move || form().is_err() || coll.get().trim().is_empty() on:click=move |_| do_preview()>"Preview"</button>
                    <button type="button" class="primary" id="apply-update" disabled=move || form().is_err() || coll.get().trim().is_empty() on:click=move |_| apply()>"Apply"</button>
                </div>
            </section>
            <section class="preview" aria-label="Preview" aria-live="polite">
                {move || match preview.get() {
                    None => view! { <p class="muted">"Preview shows what the update would do, without changing the data."</p> }.into_any(),
                    Some(Err(e)) => view! { <p class="error">{e}</p> }.into_any(),
                    Some(Ok((matched, modified, docs))) => view! {
                        <h3 class="preview-counts">{format!("{matched} matched · {modified} modified{}", if docs.iter().any(|d| d.before.is_none()) { " · 1 upserted" } else { "" })}</h3>
                        {docs.into_iter().map(|d| view! { <ChangeView change=d/> }).collect_view()}
                    }.into_any(),
                }}
            </section>
        </div>
    }
}

#[component]
fn ChangeView(change: Change) -> impl IntoView {
    let delta = change.size_after - change.size_before;
    let id = ejson::describe(change.after.get("_id").unwrap_or(&Value::Null)).1;
    let rows = change
        .paths
        .iter()
        .map(|p| {
            let before = change.before.as_ref().and_then(|b| at_path(b, p));
            let after = at_path(&change.after, p);
            view! {
                <tr><th scope="row"><code>{p.clone()}</code></th><td class="before">{short(before)}</td><td class="after">{short(after)}</td></tr>
            }
        })
        .collect_view();
    view! {
        <article class="change">
            <h4>{if change.before.is_none() { format!("New document {id}") } else { format!("Document {id}") }}</h4>
            <p class="size-change">{format!("{} → {} ({}{})", human_bytes(change.size_before), human_bytes(change.size_after), if delta >= 0.0 { "+" } else { "−" }, human_bytes(delta.abs()))}</p>
            <table class="diff">
                <thead><tr><th scope="col">"Changed path"</th><th scope="col">"Before"</th><th scope="col">"After"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            <details>
                <summary>"The whole document after the update (changed fields highlighted)"</summary>
                <FieldTree value=change.after.clone() changed=change.paths.clone()/>
            </details>
        </article>
    }
}
