//! The Schema tab: a collection's fields as the engine's schema analysis finds them
//! (`ppAnalyzeSchema`: presence, types, array lengths, distinct values, samples and the BSON bytes
//! each path carries), and the advisor's findings on it (`ppAdvise`: MongoDB's documented schema
//! anti-patterns, each with its evidence and the lesson of the pattern that fixes it).

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::{json, Value};

use super::data_view::{collections, CollectionSelect};
use super::ejson::{self, compact_relaxed};
use super::human_bytes;
use super::pg::{use_pg, PipelineDraft, UpdateDraft};

/// One field path of the analysis, as the view shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldRow {
    pub path: String,
    pub presence: f64,
    /// "string 67% · int 33%".
    pub types: String,
    /// "0 / 1.5 / 3" (min / median / max) for array paths.
    pub arrays: Option<String>,
    /// The array lengths' histogram: each bucket's lengths ("0", "10–19") and how many arrays.
    pub histogram: Vec<(String, f64)>,
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
                        histogram: f
                            .pointer("/arrayLengths/histogram")
                            .and_then(Value::as_array)
                            .map(|buckets| {
                                buckets
                                    .iter()
                                    .map(|b| {
                                        let (from, to) = (num(b, "from"), num(b, "to"));
                                        let label = if from == to { trim(from) } else { format!("{}–{}", trim(from), trim(to)) };
                                        (label, num(b, "count"))
                                    })
                                    .collect()
                            })
                            .unwrap_or_default(),
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

/// What the histogram of array lengths says, for assistive technology and as a tooltip.
pub fn histogram_text(buckets: &[(String, f64)]) -> String {
    let parts: Vec<String> = buckets.iter().map(|(l, n)| format!("{l}: {}", trim(*n))).collect();
    format!("Arrays by length: {}", parts.join(", "))
}

/// A small bar chart of the array lengths (one bar per bucket, tallest = most arrays).
#[component]
fn LengthHistogram(buckets: Vec<(String, f64)>) -> impl IntoView {
    if buckets.len() < 2 {
        return ().into_any();
    }
    let most = buckets.iter().map(|(_, n)| *n).fold(0.0, f64::max).max(1.0);
    let text = histogram_text(&buckets);
    view! {
        <span class="length-histogram" role="img" aria-label=text.clone() title=text>
            {buckets.into_iter().map(|(label, n)| view! {
                <span class="bar" data-lengths=label style=format!("height:{:.0}%", (n / most * 100.0).max(if n > 0.0 { 8.0 } else { 0.0 }))></span>
            }).collect_view()}
        </span>
    }
    .into_any()
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
                        <Findings advice=advice index_sizes=names().into_iter().find(|c| c.name == chosen.get_untracked()).map(|c| c.index_sizes).unwrap_or_default()/>
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
                                <td class="num">{r.arrays.clone().unwrap_or_default()}<LengthHistogram buckets=r.histogram.clone()/></td>
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

/// Elements a drafted Subset or Outlier migration keeps in a large array.
pub const KEEP: usize = 100;

/// What a finding's fix starts with, ready to preview before anything is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Draft {
    /// An update for the Update tab (its preview shows the documents and the bytes saved).
    Update(UpdateDraft),
    /// An aggregation for the Aggregate tab (stepped through, then run with its `$merge`).
    Pipeline(PipelineDraft),
    /// Dropping an index (the button says what it frees, and asks once more).
    DropIndex { collection: String, index: String },
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// A top-level field name a draft may write into an update or a pipeline as it is.
fn plain_field(path: &str) -> Option<&str> {
    (!path.is_empty() && !path.contains('.') && !path.starts_with('$')).then_some(path)
}

/// The name of the one collection many same-shaped ones merge into: their common prefix without
/// trailing digits and separators (`temps_2024_01`, `temps_2024_02` → `temps`), else `merged`; a
/// name already taken by one of them gets `_all`.
pub fn merged_name(names: &[String]) -> String {
    let first = names.first().map(String::as_str).unwrap_or_default();
    let mut len = names.iter().fold(first.len(), |len, n| first.bytes().zip(n.bytes()).take(len).take_while(|(a, b)| a == b).count());
    while !first.is_char_boundary(len) {
        len -= 1;
    }
    let base = first[..len].trim_end_matches(|c: char| c.is_ascii_digit() || matches!(c, '_' | '-' | '.'));
    let base = if base.is_empty() { "merged" } else { base };
    if names.iter().any(|n| n == base) {
        format!("{base}_all")
    } else {
        base.to_string()
    }
}

/// The migration a finding's fix starts with:
/// - a large top-level array: the Subset pattern's trim to its newest [`KEEP`] elements (the rest
///   moved to their own collection first, as the lesson does), on the documents holding more;
/// - documents far above the median whose heaviest field is an array: the Outlier pattern's cap
///   of that array to [`KEEP`] elements and a `hasOverflow` flag, on those documents only (by
///   `$bsonSize`); near the 16 MiB limit, the Subset trim of that array;
/// - a case-insensitive regex: the Computed pattern's lower-cased copy of the field, to index and
///   query with a lower-cased, anchored regex;
/// - a redundant or unused index: dropping it;
/// - reads that always `$lookup` another collection: that join written into the documents with
///   `$merge` (then trimmed to the fields the reads use: the Extended Reference pattern);
/// - many collections of one shape: one collection holding them all, each document keeping its
///   `_id` and its old collection's name in `source` (`whenMatched: "fail"`: two collections
///   sharing an `_id` stop the merge, to be resolved by hand).
pub fn migration_draft(collection: &str, finding: &Value) -> Option<Draft> {
    let ev = |p: &str| finding.pointer(&format!("/evidence/{p}"));
    let str_at = |p: &str| ev(p).and_then(Value::as_str);
    let update = |filter: Value, update: Value| {
        Some(Draft::Update(UpdateDraft { collection: collection.to_string(), filter: pretty(&filter), update: pretty(&update), multi: true }))
    };
    let pipeline = |on: &str, stages: Value| Some(Draft::Pipeline(PipelineDraft { collection: on.to_string(), pipeline: pretty(&stages) }));
    match finding.get("kind").and_then(Value::as_str)? {
        "largeArray" => {
            let path = plain_field(str_at("path")?)?;
            update(json!({ format!("{path}.{KEEP}"): { "$exists": true } }), json!([{ "$set": { path: { "$slice": [format!("${path}"), -(KEEP as i64)] } } }]))
        }
        "bloatedDocument" => {
            if ev("heaviestField/array").and_then(Value::as_bool) != Some(true) {
                return None;
            }
            let path = plain_field(str_at("heaviestField/path")?)?;
            let keep = KEEP as i64;
            let (min, set) = if finding.get("lesson").and_then(Value::as_str) == Some("outlier") {
                (ev("minBytes")?.clone(), json!({ path: { "$slice": [format!("${path}"), keep] }, "hasOverflow": true }))
            } else {
                (ev("threshold")?.clone(), json!({ path: { "$slice": [format!("${path}"), -keep] } }))
            };
            let min = ejson::as_f64(&min)?;
            update(json!({ "$expr": { "$gte": [{ "$bsonSize": "$$ROOT" }, ejson::int(min as i64)] } }), json!([{ "$set": set }]))
        }
        "caseInsensitiveRegex" => {
            let field = plain_field(str_at("field")?)?;
            update(json!({ field: { "$type": "string" } }), json!([{ "$set": { format!("{field}Lower"): { "$toLower": format!("${field}") } } }]))
        }
        "redundantIndex" | "unusedIndex" => Some(Draft::DropIndex { collection: collection.to_string(), index: str_at("index")?.to_string() }),
        "lookupOnRead" => {
            let lookup = ev("lookup")?.clone();
            pipeline(collection, json!([{ "$lookup": lookup }, { "$merge": { "into": collection, "on": "_id", "whenMatched": "merge", "whenNotMatched": "discard" } }]))
        }
        "sameShapeCollections" => {
            let names: Vec<String> = ev("collections")?.as_array()?.iter().filter_map(Value::as_str).map(str::to_string).collect();
            let (first, rest) = names.split_first()?;
            let tag = |name: &str| json!([{ "$set": { "source": name } }]);
            let mut stages: Vec<Value> = tag(first).as_array().cloned().unwrap_or_default();
            stages.extend(rest.iter().map(|n| json!({ "$unionWith": { "coll": n, "pipeline": tag(n) } })));
            stages.push(json!({ "$merge": { "into": merged_name(&names), "whenMatched": "fail" } }));
            pipeline(first, Value::Array(stages))
        }
        _ => None,
    }
}

#[component]
fn Findings(advice: Value, index_sizes: Vec<(String, f64)>) -> impl IntoView {
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
                        {draft.map(|d| view! { " " <DraftButton draft=d index_sizes=index_sizes.clone()/> })}
                        <details><summary>"Evidence"</summary><code>{evidence}</code></details>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
    .into_any()
}

/// The button that opens a finding's draft where it can be previewed (or, for an index, asks once
/// more, saying what dropping it frees).
#[component]
fn DraftButton(draft: Draft, index_sizes: Vec<(String, f64)>) -> impl IntoView {
    let pg = use_pg();
    // The draft is handed to its tab, which takes it when it opens.
    let open_in = move |tab: super::pg::Tab, hand_over: Box<dyn Fn()>| {
        view! {
            <button type="button" class="link draft" on:click=move |_| {
                hand_over();
                pg.tab.set(tab);
            }>{format!("Draft the migration in the {} tab →", tab.label())}</button>
        }
        .into_any()
    };
    match draft {
        Draft::Update(d) => open_in(super::pg::Tab::Update, Box::new(move || pg.draft.set(Some(d.clone())))),
        Draft::Pipeline(d) => open_in(super::pg::Tab::Aggregate, Box::new(move || pg.pipeline_draft.set(Some(d.clone())))),
        Draft::DropIndex { collection, index } => {
            let frees = index_sizes.iter().find(|(n, _)| n == &index).map(|(_, b)| format!(" (frees {})", human_bytes(*b))).unwrap_or_default();
            let asking = RwSignal::new(false);
            let drop = move || {
                let (c, i) = (collection.clone(), index.clone());
                spawn_local(async move {
                    match pg.write(&format!("Drop index {i} of {c}"), json!({ "dropIndexes": c, "index": i })).await {
                        Ok(_) => pg.info(format!("Dropped index {i} of {c}.")),
                        Err(e) => pg.error(format!("Not dropped: {e}")),
                    }
                });
            };
            let label = format!("Drop this index{frees}…");
            view! {
                <Show when=move || asking.get() fallback=move || view! {
                    <button type="button" class="link draft" on:click=move |_| asking.set(true)>{label.clone()}</button>
                }>
                    <span class="confirm" role="group" aria-label="Drop the index?">
                        "Drop it? "
                        <button type="button" class="danger drop-index" disabled=move || pg.busy.get() on:click={
                            let drop = drop.clone();
                            move |_| drop()
                        }>"Drop"</button>
                        " "
                        <button type="button" class="secondary" on:click=move |_| asking.set(false)>"Keep it"</button>
                    </span>
                </Show>
            }
            .into_any()
        }
    }
}

/// The advisor's finding kinds, in words.
fn kind_label(kind: &str) -> &'static str {
    match kind {
        "largeArray" => "Large array",
        "bloatedDocument" => "Bloated document",
        "redundantIndex" => "Redundant index",
        "unusedIndex" => "Unused index",
        "caseInsensitiveRegex" => "Case-insensitive regex",
        "lookupOnRead" => "Read together, stored apart",
        "sameShapeCollections" => "Many collections of one shape",
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

    fn update_of(d: Option<Draft>) -> (Value, Value) {
        match d {
            Some(Draft::Update(u)) => {
                assert!(u.multi);
                (serde_json::from_str(&u.filter).unwrap(), serde_json::from_str(&u.update).unwrap())
            }
            other => panic!("not an update draft: {other:?}"),
        }
    }

    fn pipeline_of(d: Option<Draft>) -> (String, Value) {
        match d {
            Some(Draft::Pipeline(p)) => (p.collection, serde_json::from_str(&p.pipeline).unwrap()),
            other => panic!("not a pipeline draft: {other:?}"),
        }
    }

    #[test]
    fn a_large_array_drafts_the_subset_trim() {
        let finding = json!({ "kind": "largeArray", "evidence": { "path": "likes", "maxLength": 1200 } });
        let (filter, update) = update_of(migration_draft("posts", &finding));
        assert_eq!(filter, json!({ "likes.100": { "$exists": true } }));
        assert_eq!(update, json!([{ "$set": { "likes": { "$slice": ["$likes", -100] } } }]));
        assert_eq!(migration_draft("posts", &json!({ "kind": "largeArray", "evidence": { "path": "a.b" } })), None);
        assert_eq!(migration_draft("posts", &json!({ "kind": "other", "evidence": {} })), None);
    }

    #[test]
    fn a_bloated_document_drafts_the_outlier_cap_of_its_heaviest_array() {
        let finding = json!({ "kind": "bloatedDocument", "lesson": "outlier", "evidence": {
            "minBytes": { "$numberDouble": "16384.0" }, "heaviestField": { "path": "likedBy", "bytes": { "$numberInt": "90000" }, "array": true } } });
        let (filter, update) = update_of(migration_draft("posts", &finding));
        assert_eq!(filter, json!({ "$expr": { "$gte": [{ "$bsonSize": "$$ROOT" }, { "$numberInt": "16384" }] } }));
        assert_eq!(update, json!([{ "$set": { "likedBy": { "$slice": ["$likedBy", 100] }, "hasOverflow": true } }]));
        // Near the 16 MiB limit: the Subset trim, newest kept.
        let near = json!({ "kind": "bloatedDocument", "lesson": "subset", "evidence": {
            "threshold": { "$numberInt": "8388608" }, "heaviestField": { "path": "log", "array": true } } });
        let (filter, update) = update_of(migration_draft("files", &near));
        assert_eq!(filter, json!({ "$expr": { "$gte": [{ "$bsonSize": "$$ROOT" }, { "$numberInt": "8388608" }] } }));
        assert_eq!(update, json!([{ "$set": { "log": { "$slice": ["$log", -100] } } }]));
        // A heavy field that is not an array has no mechanical fix.
        let blob = json!({ "kind": "bloatedDocument", "lesson": "outlier", "evidence": { "minBytes": 1, "heaviestField": { "path": "blob", "array": false } } });
        assert_eq!(migration_draft("files", &blob), None);
    }

    #[test]
    fn index_regex_lookup_and_shape_findings_draft_their_fixes() {
        let regex = json!({ "kind": "caseInsensitiveRegex", "evidence": { "field": "email" } });
        let (filter, update) = update_of(migration_draft("users", &regex));
        assert_eq!(filter, json!({ "email": { "$type": "string" } }));
        assert_eq!(update, json!([{ "$set": { "emailLower": { "$toLower": "$email" } } }]));
        for kind in ["redundantIndex", "unusedIndex"] {
            let f = json!({ "kind": kind, "evidence": { "index": "name_1" } });
            assert_eq!(migration_draft("users", &f), Some(Draft::DropIndex { collection: "users".into(), index: "name_1".into() }));
        }
        let join = json!({ "from": "customers", "localField": "customerId", "foreignField": "_id", "as": "customer" });
        let (on, stages) = pipeline_of(migration_draft("orders", &json!({ "kind": "lookupOnRead", "evidence": { "from": "customers", "lookup": join } })));
        assert_eq!(on, "orders");
        assert_eq!(stages, json!([{ "$lookup": join }, { "$merge": { "into": "orders", "on": "_id", "whenMatched": "merge", "whenNotMatched": "discard" } }]));
        let shape = json!({ "kind": "sameShapeCollections", "evidence": { "collections": ["temps_2024_01", "temps_2024_02"] } });
        let (on, stages) = pipeline_of(migration_draft("temps_2024_02", &shape));
        assert_eq!(on, "temps_2024_01");
        let tag = |n: &str| json!([{ "$set": { "source": n } }]);
        assert_eq!(
            stages,
            json!([
                { "$set": { "source": "temps_2024_01" } },
                { "$unionWith": { "coll": "temps_2024_02", "pipeline": tag("temps_2024_02") } },
                { "$merge": { "into": "temps", "whenMatched": "fail" } }
            ])
        );
    }

    #[test]
    fn merged_collections_are_named_after_what_they_share() {
        let names = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(merged_name(&names(&["temps_2024_01", "temps_2024_02", "temps_2024_11"])), "temps");
        assert_eq!(merged_name(&names(&["logs", "logs2"])), "logs_all");
        assert_eq!(merged_name(&names(&["a", "b"])), "merged");
        assert_eq!(merged_name(&names(&["été1", "étè2"])), "ét");
    }

    #[test]
    fn rows_and_summary_read_the_analysis() {
        let reply = json!({
            "collection": "p", "count": 3, "sampled": 3, "isSample": false, "sampleBytes": 1129, "dataSize": 1129,
            "fields": [
                { "path": "a", "presence": 66.67, "types": [ { "type": "array", "percent": 100 } ],
                  "arrayLengths": { "min": 0, "median": 1.5, "max": 3, "histogram": [
                      { "from": 0, "to": 0, "count": 1 }, { "from": 1, "to": 2, "count": 0 }, { "from": 3, "to": { "$numberInt": "3" }, "count": 1 } ] }, "elementTypes": [ { "type": "int", "percent": 100 } ],
                  "samples": [], "distinct": 0, "distinctEstimated": false, "bytes": 37, "bytesPercent": 3.28 },
                { "path": "s", "presence": 100, "types": [ { "type": "int", "percent": 33.33 }, { "type": "string", "percent": 66.67 } ],
                  "samples": [ "x", { "$numberInt": "5" } ], "distinct": 41200, "distinctEstimated": true, "bytes": 25, "bytesPercent": 2.21 }
            ]
        });
        let rows = field_rows(&reply);
        assert_eq!(rows[0].types, "array 100% (elements: int 100%)");
        assert_eq!(rows[0].arrays.as_deref(), Some("0 / 1.5 / 3"));
        assert_eq!(rows[0].histogram, vec![("0".to_string(), 1.0), ("1–2".to_string(), 0.0), ("3".to_string(), 1.0)]);
        assert_eq!(histogram_text(&rows[0].histogram), "Arrays by length: 0: 1, 1–2: 0, 3: 1");
        assert!(rows[1].histogram.is_empty());
        assert_eq!(rows[1].types, "int 33.33% · string 66.67%");
        assert_eq!(rows[1].distinct, "≈ 41200");
        assert_eq!(rows[1].samples, "\"x\", 5");
        assert_eq!(summary(&reply), "3 documents, 1.1 KiB of data; every document analysed");
        let sampled = json!({ "count": 50000, "sampled": 1000, "isSample": true, "sampleBytes": 64000, "dataSize": 3200000 });
        assert_eq!(summary(&sampled), "50000 documents, 3.1 MiB of data; analysed on a random sample of 1000 documents (62.5 KiB), as Compass does");
    }
}
