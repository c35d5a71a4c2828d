//! The playground's shell: it mounts the app (or embed mode) and lays out the header, the notice
//! bar, the tabs and the open tab's view. Views depend on the controller ([`Pg`], `pg.rs`), never
//! the reverse: the controller holds the state and the start-up, and knows no view.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;

use super::boot::mark;
use super::run_pane::now_ms;
use super::pg::{use_pg, EngineState, Pg, Tab, MAX_LIMIT_MS, MIN_LIMIT_MS};

/// Installs the panic reporter, then mounts the app into `<main id="app">` in the next task (the
/// UI's instantiation and its first render are two tasks, not one long one: `boot.rs`).
pub fn start() {
    mark("pp-ui-start");
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        report_fatal(&format!("Internal error: {info}"));
    }));
    gloo::timers::callback::Timeout::new(0, mount).forget();
}

fn mount() {
    let Some(el) = element("app") else {
        report_fatal("the page has no #app element");
        return;
    };
    let Ok(el) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el) else { return };
    let clear = || {
        el.set_inner_html("");
        let _ = el.remove_attribute("aria-busy");
    };
    if super::embed::wanted() {
        clear();
        if super::embed::mount(&el) {
            return;
        }
    }
    // The playground is built hidden beside the static page, which stays on screen until the
    // first lesson has rendered (`boot::reveal`, called by the start-up).
    match super::boot::live_container(&el) {
        Some(live) => leptos::mount::mount_to(live, App).forget(),
        None => {
            clear();
            leptos::mount::mount_to(el, App).forget();
        }
    }
    mark("pp-ui-mounted");
}

/// Shows the page's fatal-error banner (plain DOM: works even when the WebAssembly died).
pub fn report_fatal(message: &str) {
    let f = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("ppFatal")).ok();
    if let Some(f) = f.and_then(|f| wasm_bindgen::JsCast::dyn_into::<js_sys::Function>(f).ok()) {
        let _ = f.call1(&JsValue::NULL, &JsValue::from_str(message));
    }
}

/// The page's element with this id.
fn element(id: &str) -> Option<web_sys::Element> {
    web_sys::window()?.document()?.get_element_by_id(id)
}

#[component]
fn App() -> impl IntoView {
    let pg = Pg::new();
    provide_context(pg);
    pg.start_up();

    view! {
        <Header/>
        <NoticeBar/>
        <nav class="tabs" role="tablist" aria-label="Playground tools">
            {Tab::ALL.into_iter().map(|t| view! {
                <button role="tab" id=format!("tab-{}", t.id()) aria-controls=format!("panel-{}", t.id())
                    aria-selected=move || (pg.tab.get() == t).to_string()
                    tabindex=move || if pg.tab.get() == t { "0" } else { "-1" }
                    class:active=move || pg.tab.get() == t
                    on:click=move |_| pg.tab.set(t)
                    on:keydown=move |ev: web_sys::KeyboardEvent| {
                        let i = Tab::ALL.iter().position(|x| *x == t).unwrap_or(0);
                        let next = match ev.key().as_str() {
                            "ArrowRight" => Some((i + 1) % Tab::ALL.len()),
                            "ArrowLeft" => Some((i + Tab::ALL.len() - 1) % Tab::ALL.len()),
                            "Home" => Some(0),
                            "End" => Some(Tab::ALL.len() - 1),
                            _ => None,
                        };
                        if let Some(n) = next {
                            pg.tab.set(Tab::ALL[n]);
                            if let Some(el) = element(&format!("tab-{}", Tab::ALL[n].id())) {
                                let _ = wasm_bindgen::JsCast::dyn_ref::<web_sys::HtmlElement>(&el).map(|e| e.focus());
                            }
                        }
                    }
                >{t.label()}{move || (t == Tab::Audits).then(|| {
                    let drifted: i64 = pg.audit_counts.with(|c| c.values().filter_map(|r| r.as_ref().ok()).sum());
                    (drifted > 0).then(|| view! { <span class="badge" aria-label=format!("{drifted} drifted")>{drifted}</span> })
                })}</button>
            }).collect_view()}
        </nav>
        {move || match pg.engine_state.get() {
            EngineState::Broken(m) => view! {
                <div class="notice error" role="alert">"The database engine did not start: " {m}
                    <button type="button" on:click=move |_| { let _ = web_sys::window().map(|w| w.location().reload()); }>"Reload"</button>
                </div>
            }.into_any(),
            _ => ().into_any(),
        }}
        <section class="panel" role="tabpanel" id=move || format!("panel-{}", pg.tab.get().id())
            aria-labelledby=move || format!("tab-{}", pg.tab.get().id())>
            {move || match pg.tab.get() {
                Tab::Lesson => view! { <super::lesson_view::LessonView/> }.into_any(),
                Tab::Data => view! { <super::data_view::DataView/> }.into_any(),
                Tab::Update => view! { <super::update_view::UpdateView/> }.into_any(),
                Tab::Aggregate => view! { <super::aggregate_view::AggregateView/> }.into_any(),
                Tab::Audits => view! { <super::audits_view::AuditsView/> }.into_any(),
                Tab::Sizes => view! { <super::sizes_view::SizesView/> }.into_any(),
                Tab::Schema => view! { <super::schema_view::SchemaView/> }.into_any(),
                Tab::Export => view! { <super::export_view::ExportView/> }.into_any(),
            }}
        </section>
    }
}

#[component]
fn Header() -> impl IntoView {
    let pg = use_pg();
    let lessons = pg.lessons.get_value();
    // The clock of the running script's elapsed time (ticks only while a script runs).
    let tick = RwSignal::new(0.0);
    let clock = StoredValue::new_local(None::<gloo::timers::callback::Interval>);
    Effect::new(move |_| {
        if pg.run_started.get().is_some() {
            tick.set(now_ms());
            clock.set_value(Some(gloo::timers::callback::Interval::new(100, move || tick.set(now_ms()))));
        } else {
            clock.set_value(None);
        }
    });
    view! {
        <header class="top">
            <h1><span class="leaf" aria-hidden="true">"◆"</span>" Pattern Playground"</h1>
            <label class="field">
                <span>"Lesson"</span>
                <select aria-label="Lesson" prop:value=move || pg.lesson.with(|l| l.as_ref().map(|l| l.id.clone()).unwrap_or_default())
                    on:change=move |ev| pg.switch_lesson(&event_target_value(&ev))>
                    {lessons.into_iter().map(|l| {
                        let id = l.id.clone();
                        view! { <option value=l.id.clone() selected=move || pg.lesson.with(|x| x.as_ref().is_some_and(|x| x.id == id))>{l.title.clone()}</option> }
                    }).collect_view()}
                </select>
            </label>
            <a href="lessons.html" class="all-lessons">"All lessons"</a>
            <label class="field small">
                <span>"Time limit (s)"</span>
                <input type="number" min="0.5" max="600" step="0.5" aria-label="Script time limit in seconds"
                    prop:value=move || (pg.time_limit_ms.get() as f64 / 1000.0).to_string()
                    on:change=move |ev| {
                        if let Ok(s) = event_target_value(&ev).parse::<f64>() {
                            pg.time_limit_ms.set(((s * 1000.0) as u32).clamp(MIN_LIMIT_MS, MAX_LIMIT_MS));
                        }
                    }/>
            </label>
            <button type="button" class="secondary" on:click=move |_| pg.reset_lesson()>"Reset lesson"</button>
            <span class="engine-status" role="status">{move || match pg.engine_state.get() {
                EngineState::Starting => "Starting the engine…".to_string(),
                EngineState::Ready => match (pg.busy.get(), pg.run_started.get()) {
                    (true, Some(t0)) if pg.import_progress.with(Option::is_some) => format!("Importing… {:.1} s", (tick.get() - t0).max(0.0) / 1000.0),
                    (true, Some(t0)) => format!("Running… {:.1} s", (tick.get() - t0).max(0.0) / 1000.0),
                    (true, None) => "Running…".into(),
                    _ => "Engine ready".into(),
                },
                EngineState::Broken(_) => "Engine failed".into(),
            }}</span>
            {move || pg.run_started.get().is_some().then(|| view! {
                <button type="button" class="secondary" id="stop" title="Stop the running script"
                    on:click=move |_| pg.stop()>"■ Stop"</button>
            })}
        </header>
    }
}

#[component]
fn NoticeBar() -> impl IntoView {
    let pg = use_pg();
    move || {
        pg.notice.get().map(|n| {
            view! {
                <div class=if n.error { "notice error" } else { "notice" } role=if n.error { "alert" } else { "status" }>
                    <span>{n.text}</span>
                    {n.restore.map(|key| view! {
                        <button type="button" class="secondary" id="restore-previous" on:click=move |_| pg.restore_backup(&key)>"Restore previous work"</button>
                    })}
                    <button type="button" class="link" aria-label="Dismiss the message" on:click=move |_| pg.notice.set(None)>"✕"</button>
                </div>
            }
        })
    }
}
