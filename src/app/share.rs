//! Replaying a session into the engine, the runs a short share link left out included: each such
//! run of a lesson's own script is run again with the ObjectIds it made the first time, in its
//! place among the other writes, and its writes go back into the session.

use std::collections::BTreeMap;

use super::session::{digest, writes_digest, Entry, Session};
use super::worker::Engine;
use crate::protocol::IdSpec;

/// What a replay did.
pub struct Replayed {
    /// The session with every run it could make again filled in (the same session when nothing
    /// was left out).
    pub session: Session,
    /// The writes (index in the new session's writes) that failed, and why.
    pub failed: BTreeMap<usize, String>,
    /// Why runs left out by a link could not be made again, or came out otherwise.
    pub notes: Vec<String>,
}

/// Replays `session` into the engine (which must be empty). `scripts`: the lesson's, by step.
pub async fn replay(engine: &Engine, session: &Session, scripts: &[String], limit_ms: u32) -> Replayed {
    let mut out = Replayed { session: Session::default(), failed: BTreeMap::new(), notes: Vec::new() };
    // Its writes and runs may name time zones: they replay with the time-zone file there. (A
    // request that met a zone before the file came is sent again after a restart, which rebuilds
    // the database from the whole session's log: in the middle of this replay that would be
    // more than the state before it.) A file that cannot be fetched leaves such writes failing.
    if !session.entries.is_empty() {
        let _ = engine.time_zones().await;
    }
    let mut index = 0;
    for entry in &session.entries {
        let mut entry: Entry = entry.clone();
        if let Some(run) = entry.lesson_run.clone() {
            if let Some(left) = &run.left_out {
                let step = run.step + 1;
                match scripts.get(run.step) {
                    Some(code) if digest(&[code.as_bytes()]) == run.script => {
                        // A seed JavaScript cannot hold as a number is not one a run made.
                        let ids = IdSpec { seed: run.ids.seed & ((1 << 53) - 1), times: run.ids.times.clone() };
                        match engine.run_with_ids(code.clone(), format!("step-{step}.js"), limit_ms, Some(ids)).await {
                            Ok(report) => {
                                if report.writes.len() != left.count || writes_digest(&report.writes) != left.writes {
                                    out.notes.push(format!("step {step} made other writes than in the shared playground"));
                                }
                                if let Some(e) = report.error {
                                    out.notes.push(format!("step {step} stopped: {}", e.message));
                                }
                                index += report.writes.len();
                                entry.writes = report.writes;
                                entry.lesson_run = Some(super::session::LessonRun { left_out: None, ..run });
                            }
                            Err(e) => out.notes.push(format!("step {step} could not run again ({e})")),
                        }
                    }
                    // The lesson changed since the link was made: its run stays as the link has it.
                    _ => out.notes.push(format!("the lesson's step {step} is no longer the one that ran")),
                }
                out.session.entries.push(entry);
                continue;
            }
        }
        for w in &entry.writes {
            // A script's write replays as its exact bytes, an import imports its file again; the
            // UI's own writes are their text.
            if let Some(why) = engine.replay_write(w.clone(), limit_ms).await {
                out.failed.insert(index, why);
            }
            index += 1;
        }
        out.session.entries.push(entry);
    }
    out
}
