//! The lesson: its text beside the step's editable script, Run, and the output in mongosh's format.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::editor::CodeEditor;
use super::pg::{use_pg, Tab};
use super::run_pane::{RunPane, RunSummary};
use crate::protocol::{RunError, Stream};

#[component]
pub fn LessonView() -> impl IntoView {
    let pg = use_pg();
    let run = move || {
        let step = pg.step.get_untracked();
        let title = pg.lesson.with_untracked(|l| l.as_ref().and_then(|l| l.steps.get(step)).map(|s| s.title.clone())).unwrap_or_default();
        let code = pg.script(step);
        spawn_local(async move { pg.run_script(title, code).await });
    };
    let steps = move || pg.lesson.with(|l| l.as_ref().map(|l| l.steps.clone()).unwrap_or_default());
    let step_count = move || pg.lesson.with(|l| l.as_ref().map(|l| l.steps.len()).unwrap_or(0));
    let script = Signal::derive(move || pg.script(pg.step.get()));
    view! {
        <div class="lesson">
            <article class="lesson-text" aria-label="Lesson">
                {move || pg.lesson.get().map(|l| view! {
                    <h2>{l.title.clone()}</h2>
                    <p class="pattern">"Pattern: " <strong>{l.pattern.clone()}</strong></p>
                    <div class="prose" inner_html=l.intro.clone()></div>
                })}
                <ol class="steps" aria-label="Steps">
                    {move || steps().into_iter().enumerate().map(|(i, s)| view! {
                        <li>
                            <button type="button" class="step-link" class:current=move || pg.step.get() == i
                                aria-current=move || (pg.step.get() == i).then_some("step")
                                on:click=move |_| pg.step.set(i)>
                                {s.title.clone()}
                            </button>
                        </li>
                    }).collect_view()}
                </ol>
                {move || {
                    let i = pg.step.get();
                    pg.lesson.with(|l| l.as_ref().and_then(|l| l.steps.get(i).cloned())).map(|s| view! {
                        <section class="step" aria-label="Current step">
                            <h3>{format!("Step {}: {}", i + 1, s.title)}</h3>
                            <div class="prose" inner_html=s.prose.clone()></div>
                        </section>
                    })
                }}
                {move || {
                    let quiz = pg.lesson.with(|l| l.as_ref().map(|l| l.quiz.clone()).unwrap_or_default());
                    (!quiz.is_empty() && pg.step.get() + 1 == step_count()).then(|| view! {
                        <section class="quiz" aria-label="Check your understanding">
                            <h3>"Check your understanding"</h3>
                            {quiz.into_iter().map(|q| view! {
                                <details><summary>{q.question}</summary><p>{q.answer}</p></details>
                            }).collect_view()}
                        </section>
                    })
                }}
            </article>
            <div class="workbench">
                <div class="toolbar">
                    <button type="button" class="primary" id="run" on:click=move |_| run()
                        disabled=move || pg.busy.get() || !pg.loaded.get()
                        title="Run the script (Ctrl+Enter or Cmd+Enter)">
                        {move || if pg.busy.get() { "Running…" } else { "▶ Run" }}
                    </button>
                    <span class="hint">"Ctrl/Cmd + Enter"</span>
                    <button type="button" class="secondary" disabled=move || pg.step.get() == 0
                        on:click=move |_| pg.step.update(|s| *s = s.saturating_sub(1))>"← Previous"</button>
                    <button type="button" class="secondary" disabled={move || pg.step.get() + 1 >= step_count()}
                        on:click=move |_| pg.step.update(|s| *s += 1)>"Next →"</button>
                    <button type="button" class="link" disabled=move || !pg.scripts.with(|m| m.contains_key(&pg.step.get()))
                        on:click=move |_| { let s = pg.step.get_untracked(); pg.scripts.update(|m| { m.remove(&s); }); }>
                        "Restore the lesson's script"
                    </button>
                </div>
                {move || {
                    // A fresh editor per step (keyed by the step index).
                    let i = pg.step.get();
                    view! {
                        <CodeEditor text=script label=format!("Script of step {}", i + 1) id="script-editor"
                            on_change=Callback::new(move |s: String| pg.set_script(i, s))
                            on_run=Callback::new(move |_| run())
                            error_line=Signal::derive(move || pg.pane.error.get().and_then(|e| e.line))/>
                    }
                }}
                <h3 class="sr-only" id="output-heading">"Output"</h3>
                <pre class="output" role="log" aria-live="polite" aria-labelledby="output-heading" tabindex="0">
                    <ScriptOutput pane=pg.pane/>
                </pre>
                <p class="after-run">
                    {move || pg.session.with(|s| format!("{} write(s) recorded in this session.", s.write_count()))}
                    " "
                    <button type="button" class="link" on:click=move |_| pg.tab.set(Tab::Data)>"See the data →"</button>
                </p>
            </div>
        </div>
    }
}

/// A script's output in mongosh's format, then the error that stopped it (the contents of the
/// output pane, [`RunPane`]; embed mode shows the same). A run that printed nothing says so, with
/// its time and writes, rather than looking as if it never ran.
#[component]
pub fn ScriptOutput(pane: RunPane) -> impl IntoView {
    move || {
        let lines = pane.output.get();
        let err = pane.error.get();
        if lines.is_empty() && err.is_none() {
            if let Some(s) = pane.summary.get() {
                return view! { <span class="muted run-summary">{silent_run(&s)}</span> }.into_any();
            }
            return view! { <span class="muted">"Run the script to see its output here."</span> }.into_any();
        }
        view! {
            {lines.into_iter().map(|l| view! {
                <span class=if l.stream == Stream::Err { "line err" } else { "line" }>{l.text}"\n"</span>
            }).collect_view()}
            {err.map(|e| view! { <span class="line err error-line">{uncaught(&e)}"\n"</span> })}
        }
        .into_any()
    }
}

/// What the output pane says after a run that printed nothing.
pub fn silent_run(s: &RunSummary) -> String {
    let writes = match s.writes {
        0 => "made no writes".to_string(),
        1 => "made 1 write".to_string(),
        n => format!("made {n} writes"),
    };
    format!("The script ran in {} ms, printed nothing and {writes}.", s.elapsed_ms.max(0.0).round())
}

/// The line that reports the error that stopped a script: `Uncaught MongoServerError: [BadValue]
/// message (line 2, column 5)`.
pub fn uncaught(e: &RunError) -> String {
    let pos = match (e.line, e.column) {
        (Some(l), Some(c)) => format!(" (line {l}, column {c})"),
        (Some(l), None) => format!(" (line {l})"),
        _ => String::new(),
    };
    let code = e.code_name.as_ref().map(|n| format!("[{n}] ")).unwrap_or_default();
    format!("Uncaught {}: {}{}{}", e.name, code, e.message, pos)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_silent_run_says_what_it_did() {
        use super::{silent_run, RunSummary};
        assert_eq!(silent_run(&RunSummary { elapsed_ms: 12.4, writes: 0 }), "The script ran in 12 ms, printed nothing and made no writes.");
        assert_eq!(silent_run(&RunSummary { elapsed_ms: 3.0, writes: 1 }), "The script ran in 3 ms, printed nothing and made 1 write.");
        assert_eq!(silent_run(&RunSummary { elapsed_ms: 0.6, writes: 4 }), "The script ran in 1 ms, printed nothing and made 4 writes.");
    }
}
