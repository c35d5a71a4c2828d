//! Drift audits: each audit's live count, the drifted documents on demand, Repair, and a form to
//! add one's own audit.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use super::audits::Audit;
use super::ejson;
use super::pg::use_pg;

#[component]
pub fn AuditsView() -> impl IntoView {
    let pg = use_pg();
    view! {
        <div class="audits">
            <h2>"Drift audits"</h2>
            <p class="muted">"An audit counts the documents whose copied or computed fields no longer agree with their source. Counts update after every write."</p>
            <ul class="audit-list">
                {move || pg.audits.get().audits.into_iter().map(|a| view! { <AuditRow audit=a/> }).collect_view()}
            </ul>
            <AddAudit/>
        </div>
    }
}

#[component]
fn AuditRow(audit: Audit) -> impl IntoView {
    let pg = use_pg();
    let name = audit.name.clone();
    let listed = RwSignal::new(None::<Result<Vec<Value>, String>>);
    let n1 = name.clone();
    let count = Signal::derive(move || pg.audit_counts.with(|c| c.get(&n1).cloned()));
    let a1 = audit.clone();
    let show = move || {
        let a = a1.clone();
        spawn_local(async move { listed.set(Some(pg.batch(&a.list_command(50)).await)) });
    };
    let a2 = audit.clone();
    let repair = move || {
        let a = a2.clone();
        let Some(cmd) = a.repair_command() else { return };
        spawn_local(async move {
            match pg.write(&format!("Repair: {}", a.name), cmd).await {
                Ok(reply) => {
                    let m = reply.get("nModified").and_then(ejson::as_f64).unwrap_or(0.0);
                    pg.info(format!("Repaired {m} document(s) for \"{}\".", a.name));
                    listed.set(None);
                }
                Err(e) => pg.error(format!("Repair failed: {e}")),
            }
        });
    };
    let has_repair = audit.repair.is_some();
    let user = audit.user;
    let n2 = name.clone();
    let filter_text = ejson::compact_relaxed(&audit.filter);
    view! {
        <li class="audit" data-audit=name.clone()>
            <div class="audit-head">
                <span class=move || match count.get() { Some(Ok(0)) => "count ok", Some(Ok(_)) => "count drifted", _ => "count unknown" }
                    aria-label=move || match count.get() { Some(Ok(n)) => format!("{n} drifted"), Some(Err(_)) => "error".into(), None => "not counted yet".into() }>
                    {move || match count.get() { Some(Ok(n)) => n.to_string(), Some(Err(_)) => "!".into(), None => "…".into() }}
                </span>
                <span class="audit-name">{name.clone()}</span>
                <span class="muted">{format!(" in {}", audit.collection)}</span>
                <span class="spacer"></span>
                <button type="button" class="secondary" on:click=move |_| show()>"Show documents"</button>
                {has_repair.then(|| view! { <button type="button" class="primary" disabled={move || !matches!(count.get(), Some(Ok(n)) if n > 0)} on:click=move |_| repair()>"Repair"</button> })}
                {user.then(|| view! { <button type="button" class="link" on:click=move |_| pg.audits.update(|s| s.remove(&n2))>"Remove"</button> })}
            </div>
            <details><summary>"Filter"</summary><pre class="ejson">{filter_text}</pre>
                {audit.repair.as_ref().map(|r| view! { <p>"Repair (pipeline update):"</p><pre class="ejson">{ejson::pretty_relaxed(r)}</pre> })}
            </details>
            {move || match count.get() { Some(Err(e)) => Some(view! { <p class="error">{e}</p> }), _ => None }}
            {move || listed.get().map(|r| match r {
                Err(e) => view! { <p class="error">{e}</p> }.into_any(),
                Ok(docs) if docs.is_empty() => view! { <p class="muted">"No drifted documents."</p> }.into_any(),
                Ok(docs) => view! {
                    <ul class="drifted">{docs.into_iter().map(|d| view! { <li><pre class="ejson">{ejson::compact_relaxed(&d).chars().take(400).collect::<String>()}</pre></li> }).collect_view()}</ul>
                }.into_any(),
            })}
        </li>
    }
}

#[component]
fn AddAudit() -> impl IntoView {
    let pg = use_pg();
    let name = RwSignal::new(String::new());
    let coll = RwSignal::new(pg.test_collection());
    let filter = RwSignal::new("{ \"$expr\": { } }".to_string());
    let repair = RwSignal::new(String::new());
    let err = RwSignal::new(None::<String>);
    let add = move || {
        let mut set = pg.audits.get_untracked();
        match set.add(&name.get_untracked(), &coll.get_untracked(), &filter.get_untracked(), &repair.get_untracked()) {
            Ok(()) => {
                pg.audits.set(set);
                err.set(None);
                name.set(String::new());
            }
            Err(e) => err.set(Some(e)),
        }
    };
    view! {
        <details class="add-audit">
            <summary>"Add an audit"</summary>
            <label class="field"><span>"Name"</span><input type="text" prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev))/></label>
            <label class="field"><span>"Collection"</span><input type="text" prop:value=move || coll.get() on:input=move |ev| coll.set(event_target_value(&ev))/></label>
            <label class="block" for="audit-filter">"Filter: the drifted documents (usually an $expr)"</label>
            <textarea id="audit-filter" class="json-edit" rows="4" spellcheck="false" prop:value=move || filter.get() on:input=move |ev| filter.set(event_target_value(&ev))></textarea>
            <label class="block" for="audit-repair">"Repair (optional pipeline update)"</label>
            <textarea id="audit-repair" class="json-edit" rows="3" spellcheck="false" placeholder="[ { \"$set\": { … } } ]" prop:value=move || repair.get() on:input=move |ev| repair.set(event_target_value(&ev))></textarea>
            {move || err.get().map(|e| view! { <p class="invalid" role="alert">{e}</p> })}
            <button type="button" class="primary" on:click=move |_| add()>"Add audit"</button>
        </details>
    }
}
