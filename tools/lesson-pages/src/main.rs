//! `lesson-pages <lessons dir> <out dir>`: the site's lessons as `make dist` ships them.
//!
//! Every `<lessons dir>/<id>/lesson.md` is parsed by the site's one parser (`src/lesson.rs`) and
//! its Markdown (the introduction, each step's prose) rendered to sanitized HTML (`markdown.rs`),
//! so the UI's WebAssembly carries neither the lessons nor a Markdown parser. It writes:
//!
//! - `<out dir>/<id>.json`: one lesson (`Lesson`, with `intro` and each step's `prose` as HTML),
//!   which the UI fetches when the lesson is opened;
//! - `<out dir>/index.json`: every lesson's id, title, pattern, order, summary and step count, in
//!   the index's order (`order`, then id): the lesson menu, which `tools/site.mjs` writes into the
//!   playground's page together with the first lesson and its static HTML.
//!
//! A lesson that does not parse stops the build with the file, the line and what is wrong.

#[path = "../../../src/lesson.rs"]
mod lesson;
mod markdown;

use std::{env, fs, path::Path, process::ExitCode};

use serde::Serialize;

/// One line of the lesson menu (`index.json`).
#[derive(Serialize)]
struct Entry<'a> {
    id: &'a str,
    title: &'a str,
    pattern: &'a str,
    order: i64,
    summary: &'a str,
    steps: usize,
}

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let [src, out] = args.as_slice() else {
        eprintln!("usage: lesson-pages <lessons dir> <out dir>");
        return ExitCode::from(2);
    };
    match build(Path::new(src), Path::new(out)) {
        Ok(n) => {
            println!("[lessons] {n} lessons rendered into {out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Parses and renders every lesson of `src` into `out`; the number of lessons, or every error.
fn build(src: &Path, out: &Path) -> Result<usize, String> {
    let mut dirs: Vec<_> = fs::read_dir(src)
        .map_err(|e| format!("{}: {e}", src.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join("lesson.md").is_file())
        .collect();
    dirs.sort();
    let mut lessons = Vec::new();
    let mut errors = Vec::new();
    for dir in dirs {
        let file = dir.join("lesson.md");
        let name = format!("lessons/{}/lesson.md", dir.file_name().map(|n| n.to_string_lossy()).unwrap_or_default());
        match fs::read_to_string(&file) {
            Ok(text) => match lesson::parse(&name, &text) {
                Ok(l) => lessons.push(rendered(l)),
                Err(e) => errors.push(e.to_string()),
            },
            Err(e) => errors.push(format!("{name}: {e}")),
        }
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    lessons.sort_by(|a, b| (a.order, &a.id).cmp(&(b.order, &b.id)));
    fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let write = |name: &str, json: Result<String, serde_json::Error>| -> Result<(), String> {
        let path = out.join(name);
        fs::write(&path, json.map_err(|e| e.to_string())?).map_err(|e| format!("{}: {e}", path.display()))
    };
    for l in &lessons {
        write(&format!("{}.json", l.id), serde_json::to_string(l))?;
    }
    let index: Vec<Entry> = lessons
        .iter()
        .map(|l| Entry { id: &l.id, title: &l.title, pattern: &l.pattern, order: l.order, summary: &l.summary, steps: l.steps.len() })
        .collect();
    write("index.json", serde_json::to_string(&index))?;
    Ok(lessons.len())
}

/// The lesson with its Markdown rendered.
fn rendered(mut l: lesson::Lesson) -> lesson::Lesson {
    l.intro = markdown::to_html(&l.intro);
    for s in &mut l.steps {
        s.prose = markdown::to_html(&s.prose);
    }
    l
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_lesson_builds_with_html_prose() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let out = std::env::temp_dir().join(format!("lesson-pages-test-{}", std::process::id()));
        let n = super::build(&root.join("lessons"), &out).unwrap();
        assert!(n >= 14, "{n} lessons");
        let index: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("index.json")).unwrap()).unwrap();
        let ids: Vec<&str> = index.as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
        assert_eq!(ids.len(), n);
        assert_eq!(ids[0], "subset", "the index is in the lessons' order");
        let subset: super::lesson::Lesson = serde_json::from_str(&std::fs::read_to_string(out.join("subset.json")).unwrap()).unwrap();
        assert!(subset.intro.starts_with("<p>"), "{}", subset.intro);
        assert!(subset.steps.iter().all(|s| s.prose.is_empty() || s.prose.starts_with('<')));
        assert!(subset.steps[0].script.contains("insert"), "scripts stay as written");
        let _ = std::fs::remove_dir_all(&out);
    }

    #[test]
    fn a_lesson_that_does_not_parse_stops_the_build() {
        let src = std::env::temp_dir().join(format!("lesson-pages-bad-{}", std::process::id()));
        std::fs::create_dir_all(src.join("bad")).unwrap();
        std::fs::write(src.join("bad/lesson.md"), "no front matter\n").unwrap();
        let e = super::build(&src, &src.join("out")).unwrap_err();
        assert!(e.starts_with("lessons/bad/lesson.md:1: a lesson starts with front matter"), "{e}");
        let _ = std::fs::remove_dir_all(&src);
    }
}
