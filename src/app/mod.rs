//! The Leptos UI. [`Pg`] (the playground controller, provided as a context) owns the engine
//! worker and the state every view shares; domain structs ([`session::Session`],
//! [`audits::AuditSet`], [`state::Saved`]) own the logic and are tested natively.

pub mod audits;
pub mod catalog;
pub mod ejson;
pub mod session;
pub mod state;

mod aggregate_view;
mod audits_view;
mod boot;
mod data_view;
mod editor;
mod embed;
mod export_view;
mod lesson_view;
mod pg;
mod run_pane;
mod schema_view;
mod share;
mod shell;
mod sizes_view;
mod update_view;
mod worker;

/// The lesson format, shared with the headless lesson checks (`src/lesson.rs`, plain Rust). The
/// UI uses its types (lessons come built: `catalog.rs`); the parser serves the native tests.
#[path = "../lesson.rs"]
#[cfg_attr(not(test), allow(dead_code))]
pub mod lesson;

/// Which files of a mongodump folder go where (`src/import/plan.rs`, plain Rust): the import
/// panel pairs a picked folder's files as the engine's own dump import does.
#[path = "../import/plan.rs"]
pub mod dump_plan;

pub use shell::start;

/// `1.2 KiB`, `3.4 MiB`.
pub fn human_bytes(n: f64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n;
    let mut u = 0;
    while v.abs() >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{} B", n as i64)
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// The BSON document size limit.
pub const MAX_BSON: f64 = 16.0 * 1024.0 * 1024.0;

#[cfg(test)]
mod tests {
    #[test]
    fn human_bytes_picks_a_unit() {
        let cases = [(0.0, "0 B"), (1023.0, "1023 B"), (1536.0, "1.5 KiB"), (16.0 * 1024.0 * 1024.0, "16.0 MiB")];
        for (n, s) in cases {
            assert_eq!(super::human_bytes(n), s);
        }
    }
}
