//! The lesson format: Markdown that course authors write without Rust (see `lessons/README.md`).
//!
//! ````text
//! ---
//! id: subset
//! title: The Subset pattern
//! pattern: Subset
//! order: 1
//! summary: Keep the few elements a page shows; move the rest out.
//! ---
//! Introduction in Markdown.
//!
//! ## Seed a product with 10 000 reviews
//! Prose of the step.
//! ```js
//! db.products.insertOne({ _id: 1 })
//! ```
//!
//! ```audit
//! { "name": "Stale totals", "collection": "orders", "filter": { "$expr": { ... } }, "repair": [ ... ], "expect": 0 }
//! ```
//!
//! ```quiz
//! Q: Why cap the inline array?
//! A: So that the document cannot grow without bound.
//! ```
//! ````
//!
//! Every `## ` heading starts a step; a step holds exactly one ```` ```js ```` (or ```` ```mongosh ````)
//! block, its script. ```` ```audit ```` blocks (JSON) and ```` ```quiz ```` blocks (`Q:`/`A:` lines) may
//! stand anywhere. Errors name the file, the line and what is wrong.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A parsed lesson.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lesson {
    pub id: String,
    pub title: String,
    pub pattern: String,
    pub order: i64,
    pub summary: String,
    /// Markdown before the first step.
    pub intro: String,
    pub steps: Vec<Step>,
    pub audits: Vec<Audit>,
    pub quiz: Vec<Question>,
}

/// One step: a heading, its prose, and the script a learner runs and edits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub title: String,
    /// Markdown prose of the step (the script block removed).
    pub prose: String,
    pub script: String,
    /// 1-based line of the script's first line in the lesson file (for error messages).
    pub script_line: usize,
}

/// A drift audit: the documents of `collection` matching `filter` have drifted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Audit {
    pub name: String,
    pub collection: String,
    /// The filter as relaxed Extended JSON text (usually an `$expr` query).
    pub filter: serde_json::Value,
    /// An optional pipeline update that repairs drifted documents (applied to them with updateMany).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair: Option<serde_json::Value>,
    /// How many documents the audit must find once every step has run (checked headlessly).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<i64>,
}

/// A check-your-understanding question with its answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub question: String,
    pub answer: String,
}

/// A lesson file that does not follow the format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LessonError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for LessonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for LessonError {}

const FRONT_MATTER_KEYS: [&str; 5] = ["id", "title", "pattern", "order", "summary"];

/// Parses a lesson file. `file` is only used in error messages.
pub fn parse(file: &str, text: &str) -> Result<Lesson, LessonError> {
    let err = |line: usize, message: String| LessonError { file: file.to_string(), line, message };
    let lines: Vec<&str> = text.lines().collect();
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return Err(err(1, "a lesson starts with front matter: a line `---`, `key: value` lines, and `---`".into()));
    }
    let mut meta: Vec<(String, String, usize)> = Vec::new();
    let mut i = 1;
    loop {
        let Some(line) = lines.get(i) else {
            return Err(err(i, "front matter is not closed by a line `---`".into()));
        };
        i += 1;
        if line.trim_end() == "---" {
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        let Some((k, v)) = line.split_once(':') else {
            return Err(err(i, format!("front matter line is not `key: value`: {line:?}")));
        };
        let k = k.trim();
        if !FRONT_MATTER_KEYS.contains(&k) {
            return Err(err(i, format!("unknown front matter key `{k}` (known: {})", FRONT_MATTER_KEYS.join(", "))));
        }
        if meta.iter().any(|(mk, _, _)| mk == k) {
            return Err(err(i, format!("front matter key `{k}` given twice")));
        }
        meta.push((k.to_string(), v.trim().to_string(), i));
    }
    let get = |k: &str| meta.iter().find(|(mk, _, _)| mk == k).map(|(_, v, l)| (v.clone(), *l));
    for k in ["id", "title", "pattern"] {
        match get(k) {
            Some((v, _)) if !v.is_empty() => {}
            _ => return Err(err(1, format!("front matter needs `{k}`"))),
        }
    }
    let id = get("id").map(|(v, _)| v).unwrap_or_default();
    if !id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
        return Err(err(get("id").map(|(_, l)| l).unwrap_or(1), format!("id `{id}` may hold only a-z, 0-9 and -")));
    }
    let order = match get("order") {
        None => 0,
        Some((v, l)) => v.parse::<i64>().map_err(|_| err(l, format!("order must be a whole number, not `{v}`")))?,
    };

    let mut lesson = Lesson {
        id,
        title: get("title").map(|(v, _)| v).unwrap_or_default(),
        pattern: get("pattern").map(|(v, _)| v).unwrap_or_default(),
        order,
        summary: get("summary").map(|(v, _)| v).unwrap_or_default(),
        intro: String::new(),
        steps: Vec::new(),
        audits: Vec::new(),
        quiz: Vec::new(),
    };

    // Body: headings start steps; fenced blocks are scripts, audits or quizzes.
    let mut prose = String::new();
    let mut current: Option<(Step, usize)> = None; // step and its heading line
    while i < lines.len() {
        let line = lines[i];
        let lineno = i + 1;
        i += 1;
        if let Some(title) = line.strip_prefix("## ") {
            finish_step(&mut lesson, &mut current, &mut prose, file)?;
            current = Some((Step { title: title.trim().to_string(), prose: String::new(), script: String::new(), script_line: 0 }, lineno));
            continue;
        }
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            let fence_line = lineno;
            let kind = info.trim().to_string();
            let mut body = Vec::new();
            let mut closed = false;
            while i < lines.len() {
                let l = lines[i];
                i += 1;
                if l.trim() == "```" {
                    closed = true;
                    break;
                }
                body.push(l);
            }
            if !closed {
                return Err(err(fence_line, format!("the ```{kind} block is not closed")));
            }
            let body_text = body.join("\n");
            match kind.as_str() {
                "js" | "javascript" | "mongosh" => {
                    let Some((step, _)) = current.as_mut() else {
                        return Err(err(fence_line, "a script block must stand under a `## ` step heading".into()));
                    };
                    if !step.script.is_empty() {
                        return Err(err(fence_line, format!("step \"{}\" has a second script block; a step holds one", step.title)));
                    }
                    if body_text.trim().is_empty() {
                        return Err(err(fence_line, "the script block is empty".into()));
                    }
                    step.script = body_text;
                    step.script_line = fence_line + 1;
                }
                "audit" => {
                    let audit: Audit = serde_json::from_str(&body_text)
                        .map_err(|e| err(fence_line + e.line(), format!("audit block: {e}")))?;
                    if audit.name.trim().is_empty() || audit.collection.trim().is_empty() {
                        return Err(err(fence_line, "an audit needs a non-empty `name` and `collection`".into()));
                    }
                    if !audit.filter.is_object() {
                        return Err(err(fence_line, "an audit's `filter` must be an object".into()));
                    }
                    if let Some(r) = &audit.repair {
                        if !r.is_array() {
                            return Err(err(fence_line, "an audit's `repair` must be a pipeline (an array of stages)".into()));
                        }
                    }
                    lesson.audits.push(audit);
                }
                "quiz" => parse_quiz(&body, fence_line, file, &mut lesson.quiz)?,
                _ => {
                    // Any other fenced block is prose (an example, a diagram).
                    let target = match current.as_mut() {
                        Some((s, _)) => &mut s.prose,
                        None => &mut prose,
                    };
                    target.push_str(line);
                    target.push('\n');
                    target.push_str(&body_text);
                    target.push_str("\n```\n");
                }
            }
            continue;
        }
        match current.as_mut() {
            Some((s, _)) => {
                s.prose.push_str(line);
                s.prose.push('\n');
            }
            None => {
                prose.push_str(line);
                prose.push('\n');
            }
        }
    }
    finish_step(&mut lesson, &mut current, &mut prose, file)?;
    if lesson.steps.is_empty() {
        return Err(err(lines.len().max(1), "a lesson needs at least one `## ` step with a script".into()));
    }
    Ok(lesson)
}

fn finish_step(lesson: &mut Lesson, current: &mut Option<(Step, usize)>, intro: &mut String, file: &str) -> Result<(), LessonError> {
    if lesson.steps.is_empty() && lesson.intro.is_empty() {
        lesson.intro = intro.trim().to_string();
    }
    if let Some((mut step, line)) = current.take() {
        if step.script.is_empty() {
            return Err(LessonError { file: file.into(), line, message: format!("step \"{}\" has no ```js script block", step.title) });
        }
        step.prose = step.prose.trim().to_string();
        lesson.steps.push(step);
    }
    Ok(())
}

fn parse_quiz(body: &[&str], fence_line: usize, file: &str, out: &mut Vec<Question>) -> Result<(), LessonError> {
    let err = |line: usize, message: &str| LessonError { file: file.into(), line, message: message.into() };
    let mut q: Option<String> = None;
    let mut last_q_line = fence_line;
    for (n, l) in body.iter().enumerate() {
        let lineno = fence_line + 1 + n;
        let t = l.trim();
        if let Some(text) = t.strip_prefix("Q:") {
            if q.is_some() {
                return Err(err(last_q_line, "a question needs an `A:` line before the next `Q:`"));
            }
            q = Some(text.trim().to_string());
            last_q_line = lineno;
        } else if let Some(text) = t.strip_prefix("A:") {
            let Some(question) = q.take() else {
                return Err(err(lineno, "an `A:` line needs a `Q:` line before it"));
            };
            out.push(Question { question, answer: text.trim().to_string() });
        } else if !t.is_empty() {
            // Continuation of the last question or answer.
            if let Some(question) = q.as_mut() {
                question.push(' ');
                question.push_str(t);
            } else if let Some(last) = out.last_mut() {
                last.answer.push(' ');
                last.answer.push_str(t);
            } else {
                return Err(err(lineno, "quiz lines start with `Q:` or `A:`"));
            }
        }
    }
    if q.is_some() {
        return Err(err(last_q_line, "the last question has no `A:` line"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "---\nid: demo\ntitle: Demo\npattern: Computed\norder: 2\n---\nIntro.\n\n## First\nSome prose.\n```js\ndb.c.insertOne({ a: 1 })\n```\n```audit\n{ \"name\": \"n\", \"collection\": \"c\", \"filter\": { \"a\": 2 }, \"expect\": 0 }\n```\n## Second\n```mongosh\nprint(1)\n```\n```quiz\nQ: Why?\nA: Because.\n```\n";

    #[test]
    fn parses_steps_audits_and_quiz() {
        let l = parse("demo.md", GOOD).unwrap();
        assert_eq!(l.id, "demo");
        assert_eq!(l.order, 2);
        assert_eq!(l.intro, "Intro.");
        assert_eq!(l.steps.len(), 2);
        assert_eq!(l.steps[0].script, "db.c.insertOne({ a: 1 })");
        assert_eq!(l.steps[0].script_line, 12);
        assert_eq!(l.steps[0].prose, "Some prose.");
        assert_eq!(l.audits[0].expect, Some(0));
        assert_eq!(l.quiz, vec![Question { question: "Why?".into(), answer: "Because.".into() }]);
    }

    /// Every lesson of the course parses, and the index holds: folder name = id, ids and orders unique.
    #[test]
    fn every_lesson_in_lessons_parses() {
        // The repository's lessons/ (this file is also built by tools/lesson-pages).
        let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = here.ancestors().map(|a| a.join("lessons")).find(|d| d.join("README.md").is_file()).expect("lessons/ exists");
        let mut entries: Vec<_> = std::fs::read_dir(&dir).expect("lessons/ exists").filter_map(|e| e.ok()).collect();
        entries.sort_by_key(|e| e.file_name());
        let mut orders = std::collections::BTreeMap::new();
        let mut problems = Vec::new();
        for e in entries {
            let file = e.path().join("lesson.md");
            if !file.is_file() {
                continue;
            }
            let name = format!("lessons/{}/lesson.md", e.file_name().to_string_lossy());
            let text = std::fs::read_to_string(&file).expect("lesson.md is UTF-8");
            match parse(&name, &text) {
                Err(err) => problems.push(err.to_string()),
                Ok(l) => {
                    if l.id != e.file_name().to_string_lossy() {
                        problems.push(format!("{name}: id `{}` differs from its folder name", l.id));
                    }
                    if let Some(other) = orders.insert(l.order, l.id.clone()) {
                        problems.push(format!("{name}: order {} is also {other}'s", l.order));
                    }
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn errors_name_file_and_line() {
        let cases: &[(&str, usize, &str)] = &[
            ("no front matter", 1, "front matter"),
            ("---\nid: x\ntitle: t\npattern: p\nfoo: 1\n---\n", 5, "unknown front matter key `foo`"),
            ("---\nid: X\ntitle: t\npattern: p\n---\n", 2, "may hold only"),
            ("---\nid: x\ntitle: t\npattern: p\n---\n## S\ntext\n", 6, "has no ```js script block"),
            ("---\nid: x\ntitle: t\npattern: p\n---\n## S\n```js\nx\n", 7, "not closed"),
            ("---\nid: x\ntitle: t\npattern: p\n---\n## S\n```js\nx\n```\n```audit\n{ \"name\": 1 }\n```\n", 11, "audit block"),
            ("---\nid: x\ntitle: t\npattern: p\n---\n```js\nx\n```\n", 6, "must stand under"),
        ];
        for (text, line, needle) in cases {
            let e = parse("l.md", text).unwrap_err();
            assert_eq!(e.line, *line, "{e}");
            assert!(e.message.contains(needle), "{e}");
            assert!(e.to_string().starts_with(&format!("l.md:{line}:")));
        }
    }
}
