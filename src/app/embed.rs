//! Embed mode: one step of a lesson, or a script the host page carries, with its editor, Run and
//! output, in a compact page that `www/embed.js` shows in an iframe on a course page.
//!
//! The route is the URL fragment (any static host serves it, the service worker needs no rule):
//!
//! ```text
//! index.html#/embed?lesson=subset&step=2        the lesson's step 2 (steps count from 1)
//! index.html#/embed?script=<text>               a script on an empty database
//! index.html#/embed?lesson=subset&step=3&script=<text>
//!                                               a script on the data steps 1-2 built
//! ```
//!
//! plus `w=<widget id>` and `host=<the host page's origin>`, which embed.js adds.
//!
//! What differs from the playground:
//! - Every widget is its own document with its own engine sandbox (www/sandbox.js, as the
//!   playground's), so its own database. The page fetches the worker's files (from an opaque
//!   origin they are cross-origin requests: see embed.js) and hands them to the sandbox.
//! - Nothing is stored: no localStorage (it throws in an opaque origin), no service worker.
//! - A lesson step first runs the lesson's earlier steps, quietly, to build the data it expects.
//!   Every Run starts from that data again (a snapshot; an empty database for a plain script), so
//!   the output the course page talks about comes back on every run.
//! - It posts its height to the host page whenever it changes:
//!   `{ pp: "pattern-playground:height", w, height }` (see embed.js).
//! - "Open in the playground" opens the full playground at that step in a new tab, with the
//!   edited script and the earlier steps' writes (a share link).

use leptos::html::Div;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::catalog;
use super::editor::CodeEditor;
use super::lesson::Lesson;
use super::lesson_view::{uncaught, ScriptOutput};
use super::run_pane::{now_ms, RunPane};
use super::session::{self, LessonRun, Origin};
use super::state::{self, Saved};
use super::worker::Engine;
use crate::protocol::{IdSpec, WriteRecord};

/// The fragment that selects embed mode.
pub const ROUTE: &str = "#/embed";
/// The type of the height message embed.js listens for.
pub const HEIGHT_MESSAGE: &str = "pattern-playground:height";
/// A run's time limit.
const TIME_LIMIT_MS: u32 = 10_000;
/// A preparing step's time limit (lessons generate their data in the first steps).
const SETUP_LIMIT_MS: u32 = 60_000;

/// What a widget shows, read from its URL fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The lesson and the step (0-based) whose data the widget starts from.
    pub lesson: Option<(String, usize)>,
    /// The host page's script, shown instead of the step's.
    pub script: Option<String>,
}

/// Where a widget sits, read from its URL fragment: height messages carry its id and go to the
/// host page's origin.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Frame {
    pub widget: String,
    pub host: Option<String>,
}

/// Whether this page is an embed (its hash is an embed route).
pub fn wanted() -> bool {
    web_sys::window().and_then(|w| w.location().hash().ok()).is_some_and(|h| parse_route(&h).is_some())
}

/// Reads an embed fragment: `None` when `hash` is not an embed route; else the frame, and the
/// route or what is wrong with its parameters.
pub fn parse_route(hash: &str) -> Option<(Frame, Result<Route, String>)> {
    let rest = hash.strip_prefix(ROUTE)?;
    let query = match rest.strip_prefix('?') {
        Some(q) => q,
        None if rest.is_empty() => "",
        None => return None,
    };
    let (mut lesson, mut step, mut script, mut widget, mut host) = (None, None, None, String::new(), None);
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        match &*k {
            "lesson" => lesson = Some(v.trim().to_string()),
            "step" => step = Some(v.into_owned()),
            "script" => script = Some(v.into_owned()),
            "w" => widget = v.into_owned(),
            "host" => host = Some(v.into_owned()).filter(|h| !h.is_empty()),
            _ => {}
        }
    }
    let route = (|| {
        let step = match &step {
            None => 0,
            Some(s) => match s.trim().parse::<usize>() {
                Ok(n) if n >= 1 => n - 1,
                _ => return Err(format!("step must be a number from 1, not {s:?}")),
            },
        };
        let lesson = match lesson {
            Some(id) if !id.is_empty() => Some((id, step)),
            _ if step > 0 => return Err("a step needs a lesson".into()),
            _ => None,
        };
        if lesson.is_none() && script.is_none() {
            return Err("give a lesson (lesson=\"subset\") or a script (<script type=\"text/mongosh\">)".into());
        }
        Ok(Route { lesson, script })
    })();
    Some((Frame { widget, host }, route))
}

/// The scripts a widget runs: the steps that build its data, then its own.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// "The Subset pattern · Step 2: Split it" (empty for a plain script).
    pub title: String,
    /// The lesson's id and the step (0-based), for the playground link.
    pub lesson: Option<(String, usize)>,
    /// The earlier steps (title, script), run once, in order, before the widget is ready.
    pub setup: Vec<(String, String)>,
    /// The script in the editor at first.
    pub script: String,
    /// The lesson's own script of this step (to tell an edit from it).
    pub original: Option<String>,
}

/// Resolves a route: `known` is the site's lesson ids, `lesson` the route's lesson (fetched).
pub fn plan(route: &Route, known: &[&str], lesson: Option<&Lesson>) -> Result<Plan, String> {
    let Some((id, step)) = &route.lesson else {
        return Ok(Plan { title: String::new(), lesson: None, setup: Vec::new(), script: route.script.clone().unwrap_or_default(), original: None });
    };
    let Some(lesson) = lesson.filter(|l| &l.id == id && known.contains(&id.as_str())) else {
        return Err(format!("there is no lesson {id:?}; the lessons are {}", known.join(", ")));
    };
    let Some(this) = lesson.steps.get(*step) else {
        return Err(format!("{} has {} steps, not {}", lesson.title, lesson.steps.len(), step + 1));
    };
    Ok(Plan {
        title: format!("{} · Step {}: {}", lesson.title, step + 1, this.title),
        lesson: Some((id.clone(), *step)),
        setup: lesson.steps[..*step].iter().map(|s| (s.title.clone(), s.script.clone())).collect(),
        script: route.script.clone().unwrap_or_else(|| this.script.clone()),
        original: Some(this.script.clone()),
    })
}

/// One earlier step's run while the widget prepared its data: its writes, and how it made its
/// ObjectIds (so that a link can carry the run instead of the writes).
#[derive(Debug, Clone, PartialEq)]
pub struct SetupRun {
    pub title: String,
    pub writes: Vec<WriteRecord>,
    pub ids: Option<IdSpec>,
}

/// The full playground at the plan's step: the script (if it differs from the lesson's) and the
/// data of the earlier steps, as a share link relative to the site. The earlier steps ran the
/// lesson's own scripts, so the link carries what makes their writes again (the step, the
/// script's digest and its ObjectIds), not the writes, as the playground's own short links do. A
/// plain script has no lesson to open, so it links to the playground itself.
pub fn playground_link(plan: &Plan, script: &str, setup: &[SetupRun]) -> String {
    let Some((id, step)) = &plan.lesson else { return "index.html".into() };
    let mut saved = Saved::new(id);
    saved.step = *step;
    if plan.original.as_deref() != Some(script) {
        saved.scripts.insert(*step, script.to_string());
    }
    for (i, run) in setup.iter().enumerate() {
        let lesson_run = plan.setup.get(i).zip(run.ids.clone()).map(|((_, code), ids)| LessonRun { step: i, script: session::digest(&[code.as_bytes()]), ids, left_out: None });
        saved.session.record_run(Origin::Script { title: run.title.clone() }, run.writes.clone(), lesson_run);
    }
    let scripts: Vec<&str> = plan.setup.iter().map(|(_, code)| code.as_str()).collect();
    let text = state::share_text(&saved, &scripts).unwrap_or_else(|| state::encode(&saved));
    format!("{}#{}{}", catalog::page(id), state::SHARE_PREFIX, text)
}

/// Mounts embed mode into `el` when the page's fragment is an embed route; false otherwise (the
/// caller mounts the playground). The one hook in `shell::start`.
pub fn mount(el: &web_sys::HtmlElement) -> bool {
    let Some(window) = web_sys::window() else { return false };
    let Some((frame, route)) = parse_route(&window.location().hash().unwrap_or_default()) else { return false };
    if let Some(body) = window.document().and_then(|d| d.body()) {
        body.set_class_name("embed");
    }
    let el = el.clone();
    // Not leptos's spawn_local: its executor starts with the first mount, which comes after this.
    wasm_bindgen_futures::spawn_local(async move {
        let index = catalog::index();
        let known: Vec<&str> = index.iter().map(|e| e.id.as_str()).collect();
        // The route's lesson: the page's own, or fetched (only a lesson the site has).
        let lesson = match route.as_ref().ok().and_then(|r| r.lesson.as_ref()).filter(|(id, _)| known.contains(&id.as_str())) {
            Some((id, _)) => match catalog::page_lesson().filter(|l| &l.id == id) {
                Some(l) => Ok(Some(l)),
                None => catalog::fetch(id).await.map(Some).map_err(|e| format!("the lesson {id:?} could not be loaded: {e}")),
            },
            None => Ok(None),
        };
        match route.and_then(|r| lesson.and_then(|l| plan(&r, &known, l.as_ref()))) {
            Ok(plan) => leptos::mount::mount_to(el, move || view! { <Embed frame=frame plan=plan/> }).forget(),
            Err(message) => leptos::mount::mount_to(el, move || view! { <Failed frame=frame message=message/> }).forget(),
        }
    });
    true
}

/// Where the widget is in its life.
#[derive(Debug, Clone, PartialEq)]
enum Status {
    Starting,
    Preparing { done: usize, of: usize },
    Ready,
    Running,
    Broken(String),
}

#[component]
fn Embed(frame: Frame, plan: Plan) -> impl IntoView {
    let engine = StoredValue::new_local(Some(Engine::new()));
    let status = RwSignal::new(if engine.with_value(Option::is_some) { Status::Starting } else { Status::Broken("the engine worker could not be created".into()) });
    let script = RwSignal::new(plan.script.clone());
    let first_script = plan.script.clone();
    let pane = RunPane::new();
    let notes = RwSignal::new(Vec::<String>::new());
    let base = StoredValue::new(None::<Vec<u8>>);
    let setup_writes = RwSignal::new(Vec::<SetupRun>::new());
    let plan = StoredValue::new(plan);

    // Start-up: the engine, then the earlier steps, then a snapshot every run starts from.
    spawn_local(async move {
        let Some(engine) = engine.get_value() else { return };
        if let Err(e) = engine.ready().await {
            status.set(Status::Broken(e.to_string()));
            return;
        }
        let setup = plan.with_value(|p| p.setup.clone());
        let of = setup.len();
        for (i, (title, code)) in setup.into_iter().enumerate() {
            status.set(Status::Preparing { done: i, of });
            // A step stopped (or sent again for the time-zone file, src/app/worker.rs) starts
            // again from the data the steps before it made.
            if i > 0 {
                engine.set_checkpoint(engine.snapshot().await.ok());
            }
            let filename = format!("step-{}.js", i + 1);
            match engine.run(code, filename, SETUP_LIMIT_MS).await {
                Ok(report) => {
                    if let Some(e) = report.error {
                        notes.update(|n| n.push(format!("Step {} ({title}) stopped while preparing the data: {}", i + 1, uncaught(&e))));
                    }
                    setup_writes.update(|w| w.push(SetupRun { title, writes: report.writes, ids: report.ids }));
                }
                Err(e) => notes.update(|n| n.push(format!("Step {} ({title}) failed while preparing the data: {e}", i + 1))),
            }
        }
        match engine.snapshot().await {
            Ok(bytes) => {
                // A stopped run (or a crash) brings the prepared data back.
                engine.set_checkpoint(Some(bytes.clone()));
                base.set_value(Some(bytes));
            }
            Err(e) => {
                engine.set_checkpoint(None);
                notes.update(|n| n.push(format!("The prepared data could not be kept: {e}")));
            }
        }
        status.set(Status::Ready);
        install_hooks(engine);
    });

    let run = move || {
        if status.get_untracked() != Status::Ready {
            return;
        }
        let Some(engine) = engine.get_value() else { return };
        status.set(Status::Running);
        pane.clear();
        let code = script.get_untracked();
        spawn_local(async move {
            // Every run starts from the prepared data.
            let restored = match base.get_value() {
                Some(bytes) => engine.restore(bytes).await,
                None => engine.reset().await,
            };
            if let Err(e) = restored {
                pane.failed(format!("The data could not be reset: {e}"));
                status.set(Status::Ready);
                return;
            }
            let filename = "script.js".to_string();
            let started = now_ms();
            match engine.run(code, filename, TIME_LIMIT_MS).await {
                Ok(report) => {
                    pane.finished(report.output, report.error, report.writes.len(), started);
                }
                Err(e) => pane.failed(e.to_string()),
            }
            status.set(Status::Ready);
        });
    };

    let link = move || playground_link(&plan.get_value(), &script.get(), &setup_writes.get());
    let root = NodeRef::<Div>::new();
    report_height(root, frame);

    view! {
        <div class="pp-embed" node_ref=root>
            <div class="pp-embed-head">
                <span class="pp-embed-title">
                    <span class="leaf" aria-hidden="true">"◆ "</span>
                    {move || { let t = plan.with_value(|p| p.title.clone()); if t.is_empty() { "Pattern Playground".to_string() } else { t } }}
                </span>
                <a class="pp-embed-open" href=link target="_blank" rel="noopener">
                    {move || if plan.with_value(|p| p.lesson.is_some()) { "Open in the playground ↗" } else { "Open Pattern Playground ↗" }}
                </a>
            </div>
            <CodeEditor text=Signal::derive(move || script.get()) label="Script" id="script-editor"
                on_change=Callback::new(move |s: String| script.set(s))
                on_run=Callback::new(move |_| run())
                error_line=Signal::derive(move || pane.error.get().and_then(|e| e.line))/>
            <div class="toolbar">
                <button type="button" class="primary" id="run" on:click=move |_| run()
                    disabled=move || status.get() != Status::Ready title="Run the script (Ctrl+Enter or Cmd+Enter)">
                    {move || if status.get() == Status::Running { "Running…" } else { "▶ Run" }}
                </button>
                <span class="hint">"Ctrl/Cmd + Enter · every run starts from the same data"</span>
                <span class="pp-embed-status" role="status">{move || match status.get() {
                    Status::Starting => "Starting the engine…".to_string(),
                    Status::Preparing { done, of } => format!("Preparing the data: step {} of {of}…", done + 1),
                    Status::Ready | Status::Running => String::new(),
                    Status::Broken(m) => format!("The engine did not start: {m}"),
                }}</span>
                <button type="button" class="link" disabled=move || script.with(|s| *s == first_script)
                    on:click={let first = plan.with_value(|p| p.script.clone()); move |_| script.set(first.clone())}>
                    "Restore the script"
                </button>
            </div>
            {move || notes.with(|n| (!n.is_empty()).then(|| view! {
                <ul class="pp-embed-notes">{n.iter().map(|t| view! { <li>{t.clone()}</li> }).collect_view()}</ul>
            }))}
            <pre class="output" role="log" aria-live="polite" aria-label="Output" tabindex="0">
                <ScriptOutput pane=pane/>
            </pre>
        </div>
    }
}

/// A widget whose parameters are wrong: says why (the course author reads it).
#[component]
fn Failed(frame: Frame, message: String) -> impl IntoView {
    let root = NodeRef::<Div>::new();
    report_height(root, frame);
    view! {
        <div class="pp-embed" node_ref=root>
            <p class="notice error" role="alert">"This Pattern Playground widget cannot start: " {message}</p>
        </div>
    }
}

/// Posts the widget's height to the host page whenever it changes (a ResizeObserver on the
/// widget's root). Messages go to the host's origin when embed.js named it.
fn report_height(root: NodeRef<Div>, frame: Frame) {
    Effect::new(move |done: Option<bool>| {
        if done == Some(true) {
            return true;
        }
        let Some(el) = root.get() else { return false };
        let Some(window) = web_sys::window() else { return true };
        let parent = match window.parent() {
            Ok(Some(p)) if !js_sys::Object::is(&p, &window) => p,
            _ => return true,
        };
        let target = frame.host.clone().filter(|h| h != "null").unwrap_or_else(|| "*".into());
        let widget = frame.widget.clone();
        let measured: web_sys::Element = el.clone().into();
        let post = Closure::<dyn FnMut(JsValue)>::new(move |_entries: JsValue| {
            let msg = js_sys::Object::new();
            let height = measured.get_bounding_client_rect().height().ceil();
            let _ = js_sys::Reflect::set(&msg, &"pp".into(), &HEIGHT_MESSAGE.into());
            let _ = js_sys::Reflect::set(&msg, &"w".into(), &JsValue::from_str(&widget));
            let _ = js_sys::Reflect::set(&msg, &"height".into(), &JsValue::from_f64(height));
            let _ = parent.post_message(&msg, &target);
        });
        let observer = js_sys::Reflect::get(&js_sys::global(), &"ResizeObserver".into())
            .ok()
            .and_then(|c| c.dyn_into::<js_sys::Function>().ok())
            .and_then(|c| js_sys::Reflect::construct(&c, &js_sys::Array::of1(post.as_ref())).ok());
        if let Some(observer) = observer {
            let observe = js_sys::Reflect::get(&observer, &"observe".into()).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok());
            if let Some(observe) = observe {
                let _ = observe.call1(&observer, &el);
            }
        }
        post.forget();
        true
    });
}

/// `window.ppReady` (true once the widget is ready) and `window.ppCommand(text)` (one read
/// command in canonical Extended JSON, the reply's text), as the playground has them: the browser
/// tests read each widget's database through them.
fn install_hooks(engine: Engine) {
    let f = Closure::<dyn FnMut(String) -> js_sys::Promise>::new(move |text: String| {
        let engine = engine.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let cmd: Value = serde_json::from_str(&text).map_err(|e| JsValue::from_str(&e.to_string()))?;
            match engine.command(cmd.to_string(), TIME_LIMIT_MS).await {
                Ok(reply) => Ok(JsValue::from_str(&reply)),
                Err(e) => Err(JsValue::from_str(&e.to_string())),
            }
        })
    });
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &"ppCommand".into(), &f.into_js_value());
    }
    super::editor::page_ready();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::RunError;

    fn route(lesson: Option<(&str, usize)>, script: Option<&str>) -> Route {
        Route { lesson: lesson.map(|(l, s)| (l.to_string(), s)), script: script.map(str::to_string) }
    }

    fn frame(widget: &str, host: Option<&str>) -> Frame {
        Frame { widget: widget.into(), host: host.map(str::to_string) }
    }

    #[test]
    fn embed_routes_are_read_from_the_fragment() {
        let ok = [
            ("#/embed?lesson=subset&step=2&w=pp1&host=https%3A%2F%2Fcourse.example", route(Some(("subset", 1)), None), frame("pp1", Some("https://course.example"))),
            ("#/embed?lesson=tree", route(Some(("tree", 0)), None), frame("", None)),
            ("#/embed?step=1&lesson=tree", route(Some(("tree", 0)), None), frame("", None)),
            ("#/embed?script=db.c.insertOne(%7Ba%3A%201%7D)%3B%0Adb.c.find()&w=3", route(None, Some("db.c.insertOne({a: 1});\ndb.c.find()")), frame("3", None)),
            // `+` is a space in a query; embed.js encodes with encodeURIComponent (%2B for +).
            ("#/embed?script=print(1+%2B+2)", route(None, Some("print(1 + 2)")), frame("", None)),
            ("#/embed?script=%E2%80%A8%F0%9F%8D%83&host=", route(None, Some("\u{2028}🍃")), frame("", None)),
            ("#/embed?lesson=subset&step=3&script=x", route(Some(("subset", 2)), Some("x")), frame("", None)),
        ];
        for (hash, want, at) in ok {
            assert_eq!(parse_route(hash), Some((at, Ok(want))), "{hash}");
        }
        let not_embed = ["", "#", "#s=abc", "#/embedded?lesson=x", "#/other"];
        for hash in not_embed {
            assert_eq!(parse_route(hash), None, "{hash}");
        }
        // A widget with bad parameters still knows where it sits, to size itself.
        let bad = [
            ("#/embed", "give a lesson"),
            ("#/embed?w=1", "give a lesson"),
            ("#/embed?lesson=subset&step=0", "step must be a number from 1, not \"0\""),
            ("#/embed?lesson=subset&step=two&w=pp2&host=null", "step must be a number from 1, not \"two\""),
            ("#/embed?lesson=subset&step=-1", "step must be a number from 1"),
            ("#/embed?step=2&script=x", "a step needs a lesson"),
        ];
        for (hash, want) in bad {
            match parse_route(hash) {
                Some((_, Err(e))) => assert!(e.contains(want), "{hash}: {e}"),
                other => panic!("{hash}: {other:?}"),
            }
        }
        assert_eq!(parse_route("#/embed?lesson=subset&step=two&w=pp2&host=null").map(|(f, _)| f), Some(frame("pp2", Some("null"))));
    }

    #[test]
    fn a_step_is_prepared_by_the_steps_before_it() {
        let lessons = catalog::for_tests();
        let known: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
        let subset = lessons.iter().find(|l| l.id == "subset").expect("the subset lesson");
        let p = plan(&route(Some(("subset", 2)), None), &known, Some(subset)).unwrap();
        assert_eq!(p.title, format!("The Subset pattern · Step 3: {}", subset.steps[2].title));
        assert_eq!(p.setup, subset.steps[..2].iter().map(|s| (s.title.clone(), s.script.clone())).collect::<Vec<_>>());
        assert_eq!(p.script, subset.steps[2].script);
        assert_eq!(p.original.as_deref(), Some(subset.steps[2].script.as_str()));

        let first = plan(&route(Some(("subset", 0)), Some("db.c.find()")), &known, Some(subset)).unwrap();
        assert!(first.setup.is_empty());
        assert_eq!(first.script, "db.c.find()");

        let inline = plan(&route(None, Some("print(1)")), &known, None).unwrap();
        assert_eq!((inline.title.as_str(), inline.setup.len(), inline.script.as_str(), inline.lesson), ("", 0, "print(1)", None));

        let e = plan(&route(Some(("nope", 0)), None), &known, Some(subset)).unwrap_err();
        assert!(e.starts_with("there is no lesson \"nope\"; the lessons are ") && e.contains("subset"), "{e}");
        let e = plan(&route(Some(("subset", 99)), None), &known, Some(subset)).unwrap_err();
        assert_eq!(e, format!("The Subset pattern has {} steps, not 100", subset.steps.len()));
    }

    #[test]
    fn the_playground_link_carries_the_edit_and_the_data() {
        let lessons = catalog::for_tests();
        let known: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
        let p = plan(&route(Some(("subset", 1)), None), &known, lessons.iter().find(|l| l.id == "subset")).unwrap();
        let writes = vec![WriteRecord::text("posts", r#"{"insert":"posts"}"#)];
        let ids = IdSpec { seed: 42, times: vec![(1_700_000_000, 3)] };
        let run = |ids: Option<IdSpec>| vec![SetupRun { title: "Embed every comment".into(), writes: writes.clone(), ids }];
        let open = |script: &str, setup: &[SetupRun]| {
            let link = playground_link(&p, script, setup);
            let text = link.strip_prefix("lesson-subset.html#s=").unwrap_or_else(|| panic!("{link}")).to_string();
            (state::decode(&text).unwrap(), text.len())
        };
        // The earlier step ran the lesson's own script: the link carries the run, not its writes.
        let (unchanged, short) = open(&p.script, &run(Some(ids.clone())));
        assert_eq!((unchanged.lesson.as_str(), unchanged.step), ("subset", 1));
        assert!(unchanged.scripts.is_empty());
        assert_eq!(unchanged.session.writes().count(), 0);
        let carried = unchanged.session.entries[0].lesson_run.clone().unwrap();
        assert_eq!((carried.step, &carried.ids), (0, &ids));
        assert_eq!(carried.left_out.map(|l| l.count), Some(1));
        // Without the run's ObjectIds (an older worker), the writes themselves.
        let (whole, long) = open(&p.script, &run(None));
        assert_eq!(whole.session.writes().cloned().collect::<Vec<_>>(), writes);
        assert!(short <= long + 64, "{short} vs {long}");
        let (edited, _) = open("db.posts.find()", &run(Some(ids.clone())));
        assert_eq!(edited.scripts.get(&1).map(String::as_str), Some("db.posts.find()"));

        let inline = plan(&route(None, Some("print(1)")), &known, None).unwrap();
        assert_eq!(playground_link(&inline, "print(2)", &[]), "index.html");
    }

    #[test]
    fn uncaught_errors_read_as_in_the_playground() {
        let e = RunError { name: "MongoServerError".into(), message: "bad".into(), code_name: Some("BadValue".into()), line: Some(2), column: Some(5), ..Default::default() };
        assert_eq!(uncaught(&e), "Uncaught MongoServerError: [BadValue] bad (line 2, column 5)");
        let e = RunError { name: "ReferenceError".into(), message: "x is not defined".into(), line: Some(1), ..Default::default() };
        assert_eq!(uncaught(&e), "Uncaught ReferenceError: x is not defined (line 1)");
    }
}
