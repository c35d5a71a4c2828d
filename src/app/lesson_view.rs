//! The lesson: its text beside the step's editable script, Run, and the output in mongosh's format.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::editor::CodeEditor;
use super::pg::{use_pg, RunSummary, Tab};
use crate::protocol::{OutputLine, RunError, Stream};

/// Lesson Markdown as HTML, sanitized: a lesson may come from anywhere (a fork, a course page), so
/// raw HTML is shown as text, and links and images keep only http(s), mailto (links) and relative
/// URLs; any other scheme (`javascript:`, `data:`, `vbscript:` ...) becomes `#`.
pub fn markdown(md: &str) -> String {
    use pulldown_cmark::{CowStr, Event, Tag};
    let parser = pulldown_cmark::Parser::new_ext(md, pulldown_cmark::Options::ENABLE_TABLES | pulldown_cmark::Options::ENABLE_STRIKETHROUGH);
    fn safe(url: CowStr<'_>, mailto: bool) -> CowStr<'_> {
        if url_allowed(&url, mailto) { url } else { CowStr::Borrowed("#") }
    }
    let events = parser.map(|ev| match ev {
        Event::Html(h) | Event::InlineHtml(h) => Event::Text(h),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Link { link_type, dest_url: safe(dest_url, true), title, id })
        }
        Event::Start(Tag::Image { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Image { link_type, dest_url: safe(dest_url, false), title, id })
        }
        other => other,
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

/// True for a relative URL or one whose scheme is http, https (or mailto when `mailto`). The
/// scheme is read as a browser reads it: ASCII tabs, newlines and controls removed, any case.
fn url_allowed(url: &str, mailto: bool) -> bool {
    let cleaned: String = url.chars().filter(|c| !c.is_ascii_control() && *c != ' ').collect();
    let scheme_end = cleaned.find(|c: char| matches!(c, ':' | '/' | '?' | '#'));
    match scheme_end {
        Some(i) if cleaned[i..].starts_with(':') => {
            let scheme = cleaned[..i].to_ascii_lowercase();
            scheme == "http" || scheme == "https" || (mailto && scheme == "mailto")
        }
        _ => true,
    }
}

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
                    <div class="prose" inner_html=markdown(&l.intro)></div>
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
                            <div class="prose" inner_html=markdown(&s.prose)></div>
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
                            error_line=Signal::derive(move || pg.run_error.get().and_then(|e| e.line))/>
                    }
                }}
                <h3 class="sr-only" id="output-heading">"Output"</h3>
                <pre class="output" role="log" aria-live="polite" aria-labelledby="output-heading" tabindex="0">
                    <ScriptOutput output=pg.output error=pg.run_error summary=pg.last_run/>
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
/// output pane; embed mode shows the same). A run that printed nothing says so, with its time and
/// writes (`summary`), rather than looking as if it never ran.
#[component]
pub fn ScriptOutput(
    #[prop(into)] output: Signal<Vec<OutputLine>>,
    #[prop(into)] error: Signal<Option<RunError>>,
    #[prop(optional, into)] summary: Option<Signal<Option<RunSummary>>>,
) -> impl IntoView {
    move || {
        let lines = output.get();
        let err = error.get();
        if lines.is_empty() && err.is_none() {
            if let Some(s) = summary.and_then(|s| s.get()) {
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
    use super::markdown;

    #[test]
    fn a_silent_run_says_what_it_did() {
        use super::{silent_run, RunSummary};
        assert_eq!(silent_run(&RunSummary { elapsed_ms: 12.4, writes: 0 }), "The script ran in 12 ms, printed nothing and made no writes.");
        assert_eq!(silent_run(&RunSummary { elapsed_ms: 3.0, writes: 1 }), "The script ran in 3 ms, printed nothing and made 1 write.");
        assert_eq!(silent_run(&RunSummary { elapsed_ms: 0.6, writes: 4 }), "The script ran in 1 ms, printed nothing and made 4 writes.");
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        let html = markdown("Hi <img src=x onerror=alert(1)> there\n\n<script>alert(2)</script>\n\n<div onclick=\"x()\">d</div>");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<div"), "{html}");
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(2)&lt;/script&gt;"), "{html}");
    }

    #[test]
    fn only_safe_link_schemes_survive() {
        let cases = [
            ("[a](javascript:alert(1))", "href=\"#\""),
            ("[a](JaVaScRiPt:alert(1))", "href=\"#\""),
            ("[a](java&#9;script:alert(1))", "href=\"#\""),
            ("<javascript:alert(1)>", "href=\"#\""),
            ("[a](data:text/html;base64,PHNjcmlwdD4=)", "href=\"#\""),
            ("[a](vbscript:x)", "href=\"#\""),
            ("![i](javascript:alert(1))", "src=\"#\""),
            ("![i](mailto:x@y.z)", "src=\"#\""),
            ("[a](https://www.mongodb.com/docs/)", "href=\"https://www.mongodb.com/docs/\""),
            ("[a](http://x.org/a:b)", "href=\"http://x.org/a:b\""),
            ("[a](mailto:me@example.com)", "href=\"mailto:me@example.com\""),
            ("[a](lessons.html#tree)", "href=\"lessons.html#tree\""),
            ("[a](../x/y?q=a:b)", "href=\"../x/y?q=a:b\""),
        ];
        for (md, needle) in cases {
            let html = markdown(md);
            assert!(html.contains(needle), "{md}: {html}");
            let lower = html.to_ascii_lowercase();
            assert!(!lower.contains("=\"java") && !lower.contains("=\"data") && !lower.contains("=\"vbs"), "{md}: {html}");
        }
    }

    #[test]
    fn lesson_markdown_still_renders() {
        let html = markdown("**bold** `code` and a [link](https://x.org)\n\n| a | b |\n|---|---|\n| 1 | 2 |");
        assert!(html.contains("<strong>bold</strong>"), "{html}");
        assert!(html.contains("<code>code</code>"), "{html}");
        assert!(html.contains("<table>"), "{html}");
    }
}
