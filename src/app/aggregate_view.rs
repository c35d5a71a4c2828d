//! Aggregation: a pipeline editor whose output is shown after each stage (the pipeline is run
//! prefix by prefix, so one can step through it).

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::{json, Value};

use super::data_view::collections;
use super::ejson;
use super::pg::use_pg;

/// How many documents each stage shows.
const SHOW: i64 = 20;

/// The output of one prefix of the pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct StageOutput {
    pub stage: String,
    pub count: Result<i64, String>,
    pub docs: Vec<Value>,
}

/// Splits the pipeline text into stages; a stage that writes ($out, $merge) may only stand last
/// and is not run by the step-through.
pub fn parse_pipeline(text: &str) -> Result<Vec<Value>, String> {
    let v = ejson::parse_value(text).map_err(|e| e.to_string())?;
    let Value::Array(stages) = v else { return Err("a pipeline is an array of stages: [ { \"$match\": … }, … ]".into()) };
    for (i, s) in stages.iter().enumerate() {
        if !s.as_object().is_some_and(|o| o.len() == 1) {
            return Err(format!("stage {} must be an object with exactly one field, like {{ \"$match\": {{ }} }}", i + 1));
        }
    }
    Ok(stages)
}

fn stage_name(s: &Value) -> String {
    s.as_object().and_then(|o| o.keys().next().cloned()).unwrap_or_default()
}

#[component]
pub fn AggregateView() -> impl IntoView {
    let pg = use_pg();
    // A pipeline the advisor drafted opens here, ready to step through.
    let draft = pg.pipeline_draft.try_update(Option::take).flatten();
    let coll = RwSignal::new(draft.as_ref().map(|d| d.collection.clone()).unwrap_or_else(|| pg.test_collection()));
    let text = RwSignal::new(draft.map(|d| d.pipeline).unwrap_or_else(|| {
        "[\n  { \"$match\": {} },\n  { \"$project\": { \"size\": { \"$bsonSize\": \"$$ROOT\" } } },\n  { \"$sort\": { \"size\": -1 } }\n]".to_string()
    }));
    let outputs = RwSignal::new(Vec::<StageOutput>::new());
    let current = RwSignal::new(0usize);
    let running = RwSignal::new(false);
    let names = LocalResource::new(move || {
        let _ = pg.data_version.get();
        async move { collections(pg, super::session::DEFAULT_DB.into()).await.map(|v| v.into_iter().map(|c| c.name).collect::<Vec<_>>()).unwrap_or_default() }
    });
    let parsed = move || parse_pipeline(&text.get());
    let run = move || {
        let Ok(stages) = parsed() else { return };
        let c = coll.get_untracked();
        running.set(true);
        spawn_local(async move {
            let mut outs = Vec::new();
            for k in 1..=stages.len() {
                let prefix: Vec<Value> = stages[..k].to_vec();
                let name = stage_name(&stages[k - 1]);
                if name == "$out" || name == "$merge" {
                    outs.push(StageOutput { stage: name, count: Err("writes to a collection: not run when stepping through".into()), docs: vec![] });
                    break;
                }
                let mut shown = prefix.clone();
                shown.push(json!({ "$limit": ejson::int(SHOW) }));
                let mut counted = prefix.clone();
                counted.push(json!({ "$count": "n" }));
                let docs = pg.batch(&json!({ "aggregate": c, "pipeline": shown, "cursor": {} })).await;
                let count = match &docs {
                    Err(e) => Err(e.clone()),
                    Ok(_) => pg
                        .batch(&json!({ "aggregate": c, "pipeline": counted, "cursor": {} }))
                        .await
                        .map(|b| b.first().and_then(|d| d.get("n")).and_then(ejson::as_f64).unwrap_or(0.0) as i64),
                };
                let failed = docs.is_err();
                outs.push(StageOutput { stage: name, count, docs: docs.unwrap_or_default() });
                if failed {
                    break;
                }
            }
            current.set(outs.len().saturating_sub(1));
            outputs.set(outs);
            running.set(false);
        });
    };
    // A pipeline ending in $out or $merge is stepped through without its write; this runs it whole.
    let ends_in_write = move || parsed().is_ok_and(|s| super::session::writing_stage(&s).is_some());
    let apply = move || {
        let Ok(stages) = parsed() else { return };
        let c = coll.get_untracked();
        running.set(true);
        spawn_local(async move {
            let cmd = json!({ "aggregate": c, "pipeline": stages, "cursor": {} });
            match pg.write(&format!("Run a pipeline on {c} with its write"), cmd).await {
                Ok(_) => pg.info(format!("The pipeline ran on {c}, its last stage written.")),
                Err(e) => pg.error(format!("The pipeline's write failed: {e}")),
            }
            running.set(false);
        });
    };
    view! {
        <div class="aggregate">
            <section aria-label="Pipeline">
                <h2>"Aggregation pipeline"</h2>
                <label class="field"><span>"Collection"</span>
                    <input type="text" list="agg-coll-names" prop:value=move || coll.get() on:input=move |ev| coll.set(event_target_value(&ev))/>
                    <datalist id="agg-coll-names">{move || names.get().unwrap_or_default().into_iter().map(|n| view! { <option value=n/> }).collect_view()}</datalist>
                </label>
                <label class="block" for="pipeline-text">"Pipeline (Extended JSON array of stages)"</label>
                <textarea id="pipeline-text" class="json-edit" rows="12" spellcheck="false" prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))
                    on:keydown=move |ev: web_sys::KeyboardEvent| {
                        if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) { ev.prevent_default(); run(); }
                    }></textarea>
                <p class=move || if parsed().is_ok() { "valid" } else { "invalid" } aria-live="polite">
                    {move || match parsed() { Ok(s) => format!("{} stage(s).", s.len()), Err(e) => e }}
                </p>
                <div class="toolbar">
                    <button type="button" class="primary" disabled=move || parsed().is_err() || running.get() on:click=move |_| run()>"Run stage by stage"</button>
                    <Show when=ends_in_write>
                        <button type="button" class="secondary" id="apply-pipeline" disabled=move || running.get() || pg.busy.get() on:click=move |_| apply()>"Run it with its write"</button>
                    </Show>
                </div>
            </section>
            <section class="stages" aria-label="Output of each stage" aria-live="polite">
                {move || {
                    let outs = outputs.get();
                    if outs.is_empty() {
                        return view! { <p class="muted">"Run the pipeline to see the documents after each stage."</p> }.into_any();
                    }
                    let n = outs.len();
                    view! {
                        <ol class="stage-list" role="tablist" aria-label="Stages">
                            {outs.iter().enumerate().map(|(i, o)| {
                                let label = format!("{}. {} → {}", i + 1, o.stage, match &o.count { Ok(c) => format!("{c} docs"), Err(_) => "error".into() });
                                view! { <li><button type="button" role="tab" aria-selected=move || (current.get() == i).to_string() class:active=move || current.get() == i on:click=move |_| current.set(i)>{label}</button></li> }
                            }).collect_view()}
                        </ol>
                        <div class="toolbar">
                            <button type="button" class="secondary" disabled=move || current.get() == 0 on:click=move |_| current.update(|c| *c = c.saturating_sub(1))>"← Previous stage"</button>
                            <button type="button" class="secondary" disabled={move || current.get() + 1 >= n} on:click=move |_| current.update(|c| *c += 1)>"Next stage →"</button>
                        </div>
                        {move || outputs.with(|o| o.get(current.get()).cloned()).map(|o| view! {
                            <h3>{format!("After stage {}: {}", current.get() + 1, o.stage)}</h3>
                            {match o.count {
                                Err(e) => view! { <p class="error">{e}</p> }.into_any(),
                                Ok(c) => view! {
                                    <p class="muted">{format!("{c} document(s){}", if c > SHOW { format!("; the first {SHOW} shown") } else { String::new() })}</p>
                                    <pre class="ejson" tabindex="0">{o.docs.iter().map(ejson::pretty_relaxed).collect::<Vec<_>>().join("\n")}</pre>
                                }.into_any(),
                            }}
                        })}
                    }.into_any()
                }}
            </section>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn pipelines_are_checked_stage_by_stage() {
        assert_eq!(parse_pipeline("[{\"$match\": {}}, {\"$limit\": 2}]").map(|v| v.len()), Ok(2));
        assert!(parse_pipeline("{}").unwrap_err().contains("array of stages"));
        assert!(parse_pipeline("[{\"$match\": {}, \"$limit\": 1}]").unwrap_err().contains("stage 1"));
        assert!(parse_pipeline("[").unwrap_err().starts_with("line 1"));
    }
}
