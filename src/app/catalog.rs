//! The lessons embedded in the build (`build.rs` writes the table from `lessons/*/lesson.md`).

use super::lesson::{self, Lesson, LessonError};

include!(concat!(env!("OUT_DIR"), "/lessons.rs"));

/// Every embedded lesson, parsed, in the index's order (`order`, then id). A lesson that does not
/// parse is reported, not dropped silently.
pub fn all() -> Vec<Result<Lesson, LessonError>> {
    let mut v: Vec<Result<Lesson, LessonError>> =
        LESSONS.iter().map(|(id, text)| lesson::parse(&format!("lessons/{id}/lesson.md"), text)).collect();
    v.sort_by_key(|r| match r {
        Ok(l) => (l.order, l.id.clone()),
        Err(e) => (i64::MAX, e.file.clone()),
    });
    v
}

/// The lessons that parse.
pub fn lessons() -> Vec<Lesson> {
    all().into_iter().filter_map(Result::ok).collect()
}

/// One lesson by id.
#[cfg_attr(not(test), allow(dead_code))]
pub fn find(id: &str) -> Option<Lesson> {
    lessons().into_iter().find(|l| l.id == id)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_embedded_lesson_parses() {
        let all = super::all();
        assert!(!all.is_empty(), "no lesson embedded");
        for r in &all {
            if let Err(e) = r {
                panic!("{e}");
            }
        }
        let subset = super::find("subset").expect("the subset lesson");
        assert!(subset.steps.len() >= 3);
        assert!(!subset.audits.is_empty());
    }
}
