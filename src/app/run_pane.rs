//! The output pane's state, shared by the playground's controller ([`super::pg::Pg`]) and embed
//! mode: a run's lines in mongosh's format, the error that stopped it, and what it did. The view
//! that shows it is `lesson_view::ScriptOutput`.

use leptos::prelude::*;

use crate::protocol::{OutputLine, RunError, Stream};

/// What a finished run did, besides its output.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSummary {
    pub elapsed_ms: f64,
    pub writes: usize,
}

/// The output pane: its three signals, set together.
#[derive(Debug, Clone, Copy)]
pub struct RunPane {
    pub output: RwSignal<Vec<OutputLine>>,
    pub error: RwSignal<Option<RunError>>,
    pub summary: RwSignal<Option<RunSummary>>,
}

impl RunPane {
    pub fn new() -> RunPane {
        RunPane { output: RwSignal::new(Vec::new()), error: RwSignal::new(None), summary: RwSignal::new(None) }
    }

    /// Empty, as before any run.
    pub fn clear(&self) {
        self.output.set(Vec::new());
        self.error.set(None);
        self.summary.set(None);
    }

    /// A run that finished (or stopped at an uncaught error): its output, its error, and how long
    /// it took since `started_ms` with how many writes it made.
    pub fn finished(&self, output: Vec<OutputLine>, error: Option<RunError>, writes: usize, started_ms: f64) {
        self.output.set(output);
        self.error.set(error);
        self.summary.set(Some(RunSummary { elapsed_ms: now_ms() - started_ms, writes }));
    }

    /// A run that did not finish (stopped, or the engine failed): the reason, as the output.
    pub fn failed(&self, text: String) {
        self.output.set(vec![OutputLine { stream: Stream::Err, text }]);
        self.error.set(None);
        self.summary.set(None);
    }
}

/// Milliseconds since the page started (a run's clock).
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or(0.0)
}
