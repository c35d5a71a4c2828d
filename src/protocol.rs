//! The typed messages between the UI (main thread) and the engine's Web Worker (`www/worker.js`).
//!
//! Every message is a plain JavaScript object, serialized with `serde-wasm-bindgen`
//! (DuckDB-wasm style). The UI numbers its requests; the worker answers each with the same `id`
//! and `kind`.
//!
//! ```text
//! worker -> UI   { kind: "ready" }                                  once, on start
//! UI -> worker   { id, kind: "run", code, filename }
//! worker -> UI   { id, kind: "run", output: [{ stream: "out"|"err", text }],
//!                  error: null | { name, message, code?, codeName?, line?, column?, stack? },
//!                  cost: { docsExamined, keysExamined, docsReturned, bytesRead, bytesWritten } | null,
//!                  writes: [{ collection, command }] }
//! UI -> worker   { id, kind: "command", command: "<canonical EJSON of a server command>" }
//! worker -> UI   { id, kind: "command", reply: "<canonical EJSON of the server's reply>" }
//! UI -> worker   { id, kind: "snapshot" }          -> { id, kind: "snapshot", bytes: Uint8Array }
//! UI -> worker   { id, kind: "restore", bytes }    -> { id, kind: "restore" }
//! UI -> worker   { id, kind: "reset" }             -> { id, kind: "reset" }
//! ```
//!
//! Server commands are those of the engine (`find`, `insert`, `update`, `delete`, `aggregate`,
//! `listCollections`, `collStats`, `listIndexes`, `createIndexes`, `drop`, ...) plus its extension
//! `{ ppPreviewUpdate: "<coll>", q, u, upsert, multi, arrayFilters }`, which runs an update on
//! copies and answers `{ ok: 1, matchedCount, modifiedCount,
//! docs: [{ before, after, changedPaths, sizeBefore, sizeAfter }] }` without touching the data.

use serde::{Deserialize, Serialize};

/// A message from the UI to the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Request {
    /// Run a mongosh script; `filename` names it in error stacks.
    Run { id: u32, code: String, filename: String },
    /// Run one server command given as canonical Extended JSON.
    Command { id: u32, command: String },
    /// Ask for the whole database as bytes.
    Snapshot { id: u32 },
    /// Replace the database with one from [`Request::Snapshot`] bytes.
    Restore {
        id: u32,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
    },
    /// Empty the database.
    Reset { id: u32 },
}

impl Request {
    #[allow(dead_code)] // used by tests and tools; the UI numbers requests itself
    pub fn id(&self) -> u32 {
        match self {
            Request::Run { id, .. }
            | Request::Command { id, .. }
            | Request::Snapshot { id }
            | Request::Restore { id, .. }
            | Request::Reset { id } => *id,
        }
    }
}

/// A message from the worker to the UI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Response {
    /// The worker has loaded the engine and takes requests.
    Ready,
    Run {
        id: u32,
        output: Vec<OutputLine>,
        error: Option<RunError>,
        cost: Option<Cost>,
        #[serde(default)]
        writes: Vec<WriteRecord>,
    },
    Command { id: u32, reply: String },
    Snapshot {
        id: u32,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
    },
    Restore { id: u32 },
    Reset { id: u32 },
}

impl Response {
    /// The id of the request this answers (`None` for `ready`).
    #[allow(dead_code)] // the client reads ids from the raw message before deserializing
    pub fn id(&self) -> Option<u32> {
        match self {
            Response::Ready => None,
            Response::Run { id, .. }
            | Response::Command { id, .. }
            | Response::Snapshot { id, .. }
            | Response::Restore { id }
            | Response::Reset { id } => Some(*id),
        }
    }
}

/// Which stream a line of script output went to (`print` -> out, `console.error` -> err).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    Out,
    Err,
}

/// One line (or block) of a script's output, already in mongosh's format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputLine {
    pub stream: Stream,
    pub text: String,
}

/// The error that stopped a script: a JavaScript error or a server error (`code`, `codeName`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunError {
    pub name: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
}

/// The engine's cost counters for the last operation (or a whole script).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    pub docs_examined: f64,
    pub keys_examined: f64,
    pub docs_returned: f64,
    pub bytes_read: f64,
    pub bytes_written: f64,
}

/// One write a script made: the server command (canonical Extended JSON) as the engine ran it,
/// with generated `_id`s filled in, so replaying it rebuilds the same documents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteRecord {
    pub collection: String,
    pub command: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_tagged_by_kind() {
        let run = Request::Run { id: 3, code: "print(1)".into(), filename: "step-1.js".into() };
        assert_eq!(
            serde_json::to_value(&run).unwrap(),
            serde_json::json!({"kind": "run", "id": 3, "code": "print(1)", "filename": "step-1.js"})
        );
        let snap = Request::Snapshot { id: 4 };
        assert_eq!(serde_json::to_value(&snap).unwrap(), serde_json::json!({"kind": "snapshot", "id": 4}));
    }

    #[test]
    fn run_response_reads_optional_error_fields() {
        let v = serde_json::json!({
            "id": 1, "kind": "run",
            "output": [{"stream": "out", "text": "{ ok: 1 }"}],
            "error": {"name": "MongoServerError", "message": "bad", "code": 2, "codeName": "BadValue"},
            "cost": {"docsExamined": 3, "keysExamined": 0, "docsReturned": 1, "bytesRead": 90, "bytesWritten": 0},
            "writes": [{"collection": "c", "command": "{\"insert\":\"c\"}"}]
        });
        let r: Response = serde_json::from_value(v).unwrap();
        let Response::Run { error: Some(e), cost: Some(c), writes, .. } = r else { panic!("{r:?}") };
        assert_eq!(e.code, Some(2));
        assert_eq!(e.code_name.as_deref(), Some("BadValue"));
        assert_eq!(e.line, None);
        assert_eq!(c.docs_examined, 3.0);
        assert_eq!(writes[0].collection, "c");
        let ready: Response = serde_json::from_value(serde_json::json!({"kind": "ready"})).unwrap();
        assert_eq!(ready, Response::Ready);
    }
}
