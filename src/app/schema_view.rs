//! The Schema tab: a collection's fields as the engine's schema analysis finds them
//! (`ppAnalyzeSchema`: presence, types, array lengths, distinct values, samples and the BSON bytes
//! each path carries), and the advisor's findings on it (`ppAdvise`: MongoDB's documented schema
//! anti-patterns, each with its evidence and the lesson of the pattern that fixes it).

use leptos::prelude::*;
use serde_json::{json, Value};

use super::data_view::{collections, CollectionSelect};
use super::ejson::{self, compact_relaxed};
use super::human_bytes;
use super::pg::{use_pg, UpdateDraft};

/// One field path of the analysis, as the view shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldRow {
    pub path: String,
    pub presence: f64,
    /// "string 67% · int 33%".
    pub types: String,
    /// "0 / 1.5 / 3" (min / median / max) for array paths.
    pub arrays: Option<String>,
    /// "3" or "≈ 41 200" when estimated.
    pub distinct: String,
    pub bytes: f64,
    pub bytes_percent: f64,
    pub samples: String,
}

/// The rows of a `ppAnalyzeSchema` reply, in its order (paths as the analysis lists them).
pub fn field_rows(reply: &Value) -> Vec<FieldRow> {
    let num = |v: &Value, k: &str| v.get(k).and_then(ejson::as_f64).unwrap_or(0.0);
    let types = |v: Option<&Value>| {
        v.and_then(Value::as_array)
            .map(|ts| {
                ts.iter()
                    .map(|t| format!("{} {}%", t.get("type").and_then(Value::as_str).unwrap_or("?"), trim(num(t, "percent"))))
                    .collect::<Vec<_>>()
                    .join(" · ")
            })
            .unwrap_or_default()
    };
    reply
        .get("fields")
        .and_then(Value::as_array)
        .map(|fields| {
            fields
                .iter()
                .map(|f| {
                    let mut t = types(f.get("types"));
                    let elements = types(f.get("elementTypes"));
                    if !elements.is_empty() {
                        t = format!("{t} (elements: {elements})");
                    }
                    let estimated = f.get("distinctEstimated").and_then(Value::as_bool).unwrap_or(false);
                    FieldRow {
                        path: f.get("path").and_then(Value::as_str).unwrap_or_default().to_string(),
                        presence: num(f, "presence"),
                        types: t,
                        arrays: f.get("arrayLengths").map(|a| format!("{} / {} / {}", trim(num(a, "min")), trim(num(a, "median")), trim(num(a, "max")))),
                        distinct: if estimated { format!("≈ {}", trim(num(f, "distinct"))) } else { trim(num(f, "distinct")) },
                        bytes: num(f, "bytes"),
                        bytes_percent: num(f, "bytesPercent"),
                        samples: f
                            .get("samples")
                            .and_then(Value::as_array)
                            .map(|s| s.iter().map(compact_relaxed).collect::<Vec<_>>().join(", "))
                            .unwrap_or_default(),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A number as the view prints it: no ".0" on whole numbers.
fn trim(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// What the header says about the analysis: the documents and whether it read a sample.
pub fn summary(reply: &Value) -> String {
    let num = |k: &str| reply.get(k).and_then(ejson::as_f64).unwrap_or(0.0);
    let count = num("count");
    let sampled = num("sampled");
    let whole = format!("{} documents, {} of data", trim(count), human_bytes(num("dataSize")));
    if reply.get("isSample").and_then(Value::as_bool).unwrap_or(false) {
        format!("{whole}; analysed on a random sample of {} documents ({}), as Compass does", trim(sampled), human_bytes(num("sampleBytes")))
    } else {
        format!("{whole}; every document analysed")
    }
}

#[component]
pub fn SchemaView() -> impl IntoView {
    let pg = use_pg();
    let colls = LocalResource::new(move || {
        let _ = pg.data_version.get();
        collections(pg, super::session::DEFAULT_DB.into())
    });
    let chosen = RwSignal::new(pg.test_collection());
    let names = move || colls.get().and_then(|r| r.ok()).unwrap_or_default();
    // The first collection when none is chosen yet.
    Effect::new(move |_| {
        if chosen.get().is_empty() {
            if let Some(first) = names().first() {
                chosen.set(first.name.clone());
            }
        }
    });
    let analysis = LocalResource::new(move || {
        let _ = pg.data_version.get();
        let c = chosen.get();
        async move {
            if c.is_empty() {
                return Ok(None);
            }
            let schema = pg.command(&json!({ "ppAnalyzeSchema": c })).await?;
            if let Some(e) = super::audits::reply_error(&schema) {
                return Err(e);
            }
            let advice = pg.command(&advise_command(&c, &pg.queries.get_untracked())).await?;
            if let Some(e) = super::audits::reply_error(&advice) {
                return Err(e);
            }
            Ok::<_, String>(Some((schema, advice)))
        }
    });
    view! {
        <div class="schema">
            <CollectionSelect label="Collection to analyse" chosen=chosen names=Signal::derive(names)/>
            {move || match analysis.get() {
                None => view! { <p class="muted">"Analysing…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error">{e}</p> }.into_any(),
                Some(Ok(None)) => view! { <p class="muted">"The database is empty. Run a lesson step first."</p> }.into_any(),
                Some(Ok(Some((schema, advice)))) => view! {
                    <section aria-label="Schema">
                        <h2>"Schema"</h2>
                        <p class="muted schema-summary">{summary(&schema)}</p>
                        <SchemaTable rows=field_rows(&schema)/>
                    </section>
                    <section aria-label="Advisor">
                        <h2>"Advisor"</h2>
                        <Findings advice=advice/>
                    </section>
                }.into_any(),
            }}
        </div>
    }
}

#[component]
fn SchemaTable(rows: Vec<FieldRow>) -> impl IntoView {
    let heaviest = rows.iter().filter(|r| !r.path.contains('.')).map(|r| r.bytes_percent).fold(0.0, f64::max).max(1.0);
    view! {
        <div class="table-scroll">
            <table class="schema-fields">
                <thead><tr>
                    <th scope="col">"Field"</th><th scope="col">"Present"</th><th scope="col">"Types"</th>
                    <th scope="col">"Array length (min / median / max)"</th><th scope="col">"Distinct"</th>
                    <th scope="col">"Bytes (share of the data)"</th><th scope="col">"Samples"</th>
                </tr></thead>
                <tbody>
                    {rows.into_iter().map(|r| {
                        let depth = r.path.matches('.').count();
                        view! {
                            <tr>
                                <th scope="row" class="path" style=format!("padding-left:{}em", 0.4 + depth as f64)>{r.path.clone()}</th>
                                <td class="num">{format!("{}%", trim(r.presence))}</td>
                                <td>{r.types.clone()}</td>
                                <td class="num">{r.arrays.clone().unwrap_or_default()}</td>
                                <td class="num">{r.distinct.clone()}</td>
                                <td class="num bytes-cell">
                                    <span class="cmp-bar" style=format!("width:{:.1}%", (r.bytes_percent / heaviest * 100.0).min(100.0))></span>
                                    {format!("{} · {}%", human_bytes(r.bytes), trim(r.bytes_percent))}
                                </td>
                                <td class="samples">{r.samples.clone()}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// The advisor's command for collection `coll` of "test", with the scripts' reads of it (when
/// there are any: without them it does not judge which indexes go unused).
pub fn advise_command(coll: &str, queries: &[crate::protocol::QueryRecord]) -> Value {
    let mine: Vec<Value> = queries
        .iter()
        .filter(|q| q.db == super::session::DEFAULT_DB && q.collection == coll)
        .filter_map(|q| serde_json::from_str(&q.query).ok())
        .collect();
    if mine.is_empty() {
        json!({ "ppAdvise": coll })
    } else {
        json!({ "ppAdvise": coll, "queries": mine })
    }
}

/// Elements a drafted Subset migration keeps in a large array: the newest.
pub const KEEP: usize = 100;

/// The migration a finding's fix starts with, as an update to preview: for a large top-level
/// array, the Subset pattern's trim to its newest [`KEEP`] elements (the rest to be moved to their
/// own collection first, as the lesson does), on the documents holding more.
pub fn migration_draft(collection: &str, finding: &Value) -> Option<UpdateDraft> {
    if finding.get("kind").and_then(Value::as_str) != Some("largeArray") {
        return None;
    }
    let path = finding.pointer("/evidence/path").and_then(Value::as_str)?;
    if path.contains('.') || path.starts_with('$') || path.is_empty() {
        return None;
    }
    let filter = json!({ format!("{path}.{KEEP}"): { "$exists": true } });
    let update = json!([{ "$set": { path: { "$slice": [format!("${path}"), -(KEEP as i64)] } } }]);
    Some(UpdateDraft {
        collection: collection.to_string(),
        filter: serde_json::to_string_pretty(&filter).unwrap_or_default(),
        update: serde_json::to_string_pretty(&update).unwrap_or_default(),
        multi: true,
    })
}

#[component]
fn Findings(advice: Value) -> impl IntoView {
    let pg = use_pg();
    let collection = advice.get("collection").and_then(Value::as_str).unwrap_or_default().to_string();
    let findings = advice.get("findings").and_then(Value::as_array).cloned().unwrap_or_default();
    if findings.is_empty() {
        return view! { <p class="muted findings-none">"No anti-pattern found in this collection's data and indexes."</p> }.into_any();
    }
    view! {
        <ul class="findings">
            {findings.into_iter().map(|f| {
                let kind = f.get("kind").and_then(Value::as_str).unwrap_or_default().to_string();
                let message = f.get("message").and_then(Value::as_str).unwrap_or_default().to_string();
                let lesson = f.get("lesson").and_then(Value::as_str).map(str::to_string);
                let evidence = f.get("evidence").map(compact_relaxed).unwrap_or_default();
                let draft = migration_draft(&collection, &f);
                view! {
                    <li class="finding" data-kind=kind.clone()>
                        <strong>{kind_label(&kind)}</strong>": "{message}
                        {lesson.map(|l| view! { " " <a href=format!("?lesson={l}") target="_blank" rel="noopener">{format!("The {l} lesson shows the fix →")}</a> })}
                        {draft.map(|d| view! {
                            " "
                            <button type="button" class="link draft" on:click=move |_| {
                                pg.draft.set(Some(d.clone()));
                                pg.tab.set(super::pg::Tab::Update);
                            }>"Draft the migration in the Update tab →"</button>
                        })}
                        <details><summary>"Evidence"</summary><code>{evidence}</code></details>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
    .into_any()
}

/// The advisor's finding kinds, in words.
fn kind_label(kind: &str) -> &'static str {
    match kind {
        "largeArray" => "Large array",
        "bloatedDocument" => "Bloated document",
        "redundantIndex" => "Redundant index",
        "unusedIndex" => "Unused index",
        "caseInsensitiveRegex" => "Case-insensitive regex",
        _ => "Finding",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_advisor_gets_the_scripts_reads_of_its_collection() {
        let q = |db: &str, c: &str, query: &str| crate::protocol::QueryRecord { db: db.into(), collection: c.into(), query: query.into() };
        let reads = [q("test", "posts", r#"{"filter":{"t":{"$regularExpression":{"pattern":"x","options":"i"}}}}"#), q("test", "other", r#"{"filter":{}}"#), q("archive", "posts", r#"{"filter":{}}"#)];
        assert_eq!(
            advise_command("posts", &reads),
            json!({ "ppAdvise": "posts", "queries": [ { "filter": { "t": { "$regularExpression": { "pattern": "x", "options": "i" } } } } ] })
        );
        assert_eq!(advise_command("none", &reads), json!({ "ppAdvise": "none" }));
    }

    #[test]
    fn a_large_array_drafts_the_subset_trim() {
        let finding = json!({ "kind": "largeArray", "evidence": { "path": "likes", "maxLength": 1200 } });
        let d = migration_draft("posts", &finding).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&d.filter).unwrap(), json!({ "likes.100": { "$exists": true } }));
        assert_eq!(serde_json::from_str::<Value>(&d.update).unwrap(), json!([{ "$set": { "likes": { "$slice": ["$likes", -100] } } }]));
        assert!(d.multi);
        assert_eq!(migration_draft("posts", &json!({ "kind": "largeArray", "evidence": { "path": "a.b" } })), None);
        assert_eq!(migration_draft("posts", &json!({ "kind": "redundantIndex", "evidence": {} })), None);
    }

    #[test]
    fn rows_and_summary_read_the_analysis() {
        let reply = json!({
            "collection": "p", "count": 3, "sampled": 3, "isSample": false, "sampleBytes": 1129, "dataSize": 1129,
            "fields": [
                { "path": "a", "presence": 66.67, "types": [ { "type": "array", "percent": 100 } ],
                  "arrayLengths": { "min": 0, "median": 1.5, "max": 3 }, "elementTypes": [ { "type": "int", "percent": 100 } ],
                  "samples": [], "distinct": 0, "distinctEstimated": false, "bytes": 37, "bytesPercent": 3.28 },
                { "path": "s", "presence": 100, "types": [ { "type": "int", "percent": 33.33 }, { "type": "string", "percent": 66.67 } ],
                  "samples": [ "x", { "$numberInt": "5" } ], "distinct": 41200, "distinctEstimated": true, "bytes": 25, "bytesPercent": 2.21 }
            ]
        });
        let rows = field_rows(&reply);
        assert_eq!(rows[0].types, "array 100% (elements: int 100%)");
        assert_eq!(rows[0].arrays.as_deref(), Some("0 / 1.5 / 3"));
        assert_eq!(rows[1].types, "int 33.33% · string 66.67%");
        assert_eq!(rows[1].distinct, "≈ 41200");
        assert_eq!(rows[1].samples, "\"x\", 5");
        assert_eq!(summary(&reply), "3 documents, 1.1 KiB of data; every document analysed");
        let sampled = json!({ "count": 50000, "sampled": 1000, "isSample": true, "sampleBytes": 64000, "dataSize": 3200000 });
        assert_eq!(summary(&sampled), "50000 documents, 3.1 MiB of data; analysed on a random sample of 1000 documents (62.5 KiB), as Compass does");
    }
}
