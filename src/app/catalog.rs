//! The lessons as `make dist` ships them (built by `tools/lesson-pages`): the UI's WebAssembly
//! carries no lesson and no Markdown parser.
//!
//! - The page carries the lesson menu (`<script type="application/json" id="pp-lessons">`: every
//!   lesson's id, title, pattern, order, summary and step count) and its own lesson
//!   (`id="pp-lesson"`, the first one, whose text `tools/site.mjs` also renders into the page as
//!   static HTML), so the first lesson shows without a request.
//! - Any other lesson is fetched from `lessons/<id>.json` when it is opened (once: `Pg` keeps it).
//!
//! A built lesson's `intro` and each step's `prose` are HTML, rendered from its Markdown and
//! sanitized at build time (`tools/lesson-pages/src/markdown.rs`); the views insert them as they are.

use serde::Deserialize;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::lesson::Lesson;

/// The id of the page's lesson menu and of its own lesson.
pub const INDEX_ID: &str = "pp-lessons";
pub const LESSON_ID: &str = "pp-lesson";

/// One line of the lesson menu.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Entry {
    pub id: String,
    pub title: String,
    pub pattern: String,
    pub order: i64,
    pub summary: String,
    pub steps: usize,
}

/// The text of the page's `<script type="application/json" id=…>` block.
fn page_json(id: &str) -> Option<String> {
    web_sys::window()?.document()?.get_element_by_id(id)?.text_content()
}

/// The lesson menu the page carries (empty if it carries none: a page not built by `make dist`).
pub fn index() -> Vec<Entry> {
    page_json(INDEX_ID).and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
}

/// The lesson the page carries.
pub fn page_lesson() -> Option<Lesson> {
    page_json(LESSON_ID).and_then(|t| serde_json::from_str(&t).ok())
}

/// An id as it may name a file (lesson ids are `a-z`, `0-9`, `-`; anything else is dropped).
fn file_id(id: &str) -> String {
    id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect()
}

/// The URL of a lesson's file, relative to the page (the site works from any sub-path).
pub fn url(id: &str) -> String {
    format!("lessons/{}.json", file_id(id))
}

/// A lesson's own page (`lesson-<id>.html`, tools/site.mjs), relative to the site: it paints that
/// lesson before the app runs, so links to a lesson (share links, embed's "Open in the
/// playground") point there.
pub fn page(id: &str) -> String {
    format!("lesson-{}.html", file_id(id))
}

/// Fetches one lesson (`lessons/<id>.json`).
pub async fn fetch(id: &str) -> Result<Lesson, String> {
    let window = web_sys::window().ok_or("no window")?;
    let js = |e: wasm_bindgen::JsValue| {
        e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).or_else(|| e.as_string()).unwrap_or_else(|| "the request failed".into())
    };
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(&url(id))).await.map_err(js)?.dyn_into().map_err(js)?;
    if !response.ok() {
        return Err(format!("{} answered {}", url(id), response.status()));
    }
    let text = JsFuture::from(response.text().map_err(js)?).await.map_err(js)?.as_string().unwrap_or_default();
    serde_json::from_str(&text).map_err(|e| format!("{} is not a lesson: {e}", url(id)))
}

/// The repository's lessons, parsed (their Markdown as written): the native tests' catalog.
#[cfg(test)]
pub fn for_tests() -> Vec<Lesson> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons");
    let mut v: Vec<Lesson> = std::fs::read_dir(&dir)
        .expect("lessons/")
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("lesson.md"))
        .filter(|p| p.is_file())
        .map(|p| super::lesson::parse(&p.display().to_string(), &std::fs::read_to_string(&p).expect("UTF-8")).expect("every lesson parses"))
        .collect();
    v.sort_by(|a, b| (a.order, &a.id).cmp(&(b.order, &b.id)));
    v
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_lesson_url_stays_a_file_of_the_site() {
        assert_eq!(super::url("subset"), "lessons/subset.json");
        assert_eq!(super::url("document-versioning"), "lessons/document-versioning.json");
        assert_eq!(super::url("../../x?y#z"), "lessons/xyz.json");
        assert_eq!(super::url("https://evil.example/a"), "lessons/httpsevilexamplea.json");
        assert_eq!(super::page("subset"), "lesson-subset.html");
        assert_eq!(super::page("../x\"><script>"), "lesson-xscript.html");
    }
}
