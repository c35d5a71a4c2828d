//! The typed messages between the UI (main thread) and the engine's Web Worker (`www/worker.js`).
//!
//! Every message is a plain JavaScript object, serialized with `serde-wasm-bindgen`
//! (DuckDB-wasm style). The UI numbers its requests; the worker answers each with the same `id`
//! and `kind`.
//!
//! ```text
//! worker -> UI   { kind: "ready" }                                  once, on start
//!                { kind: "failed", error }                          instead, if it could not start
//! UI -> worker   { id, kind: "run", code, filename }
//! worker -> UI   { id, kind: "run", output: [{ stream: "out"|"err", text }],
//!                  error: null | { name, message, code?, codeName?, line?, column?, stack? },
//!                  cost: { docsExamined, keysExamined, docsReturned, bytesRead, bytesWritten } | null,
//!                  writes: [{ collection, command, bson: Uint8Array, inexact?: true }],
//!                  queries: [{ db, collection, query: "<canonical EJSON of { filter, sort? }>" }] }
//! UI -> worker   { id, kind: "command", command: "<canonical EJSON of a server command>" }
//! worker -> UI   { id, kind: "command", reply: "<canonical EJSON of the server's reply>" }
//! UI -> worker   { id, kind: "commandBson", bson: Uint8Array }   (a logged write, replayed)
//! worker -> UI   { id, kind: "command", reply: "<canonical EJSON of the server's reply>" }
//! UI -> worker   { id, kind: "snapshot" }          -> { id, kind: "snapshot", bytes: Uint8Array }
//! UI -> worker   { id, kind: "restore", bytes }    -> { id, kind: "restore" }
//! UI -> worker   { id, kind: "reset" }             -> { id, kind: "reset" }
//! UI -> worker   { id, kind: "import", file, bytes: Uint8Array, format, db, collection, options }
//! worker -> UI   { id, kind: "import", report: { file, db, collection, read, inserted, failed,
//!                  indexes, errors: [{ file, line?, offset?, message }], stopped } }
//! UI -> worker   { id, kind: "importBegin", file, bytes: Uint8Array (transferred), format, db,
//!                  collection, options }                     an import in slices: begins it
//! UI -> worker   { id, kind: "importStep", maxDocs, maxBytes }   reads and inserts one slice
//! worker -> UI   { id, kind: "importProgress", progress: { file, db, collection, read, inserted,
//!                  failed, bytesDone, bytesTotal, done, stopped } }   (to both)
//! UI -> worker   { id, kind: "importEnd", keep }     keep: the import stays (the rest of the
//!                                                    file read first); else it is undone (Cancel)
//! worker -> UI   { id, kind: "import", report }
//! UI -> worker   { id, kind: "export", db, collection, format } -> { id, kind: "export", bytes }
//! worker -> UI   { id, kind: "error", error }      a request the worker could not serve
//! worker -> UI   { id, kind: "needsTimeZones" }    instead of any answer: the request asked for a
//!                                                  named time zone before the worker had the
//!                                                  time-zone file (see below)
//! ```
//!
//! The time-zone file is not a request of the UI's: www/sandbox.js fetches it (once the page is
//! interactive, or when a request needed it) and posts `{ kind: "timeZones", bytes }` to every
//! engine worker (no id, no answer).
//!
//! Every request has exactly one answer kind ([`Request::answers`]); the client
//! (`src/app/worker.rs`) checks it in one place, so callers get typed results. An error's `code`
//! is a number for server errors and a string for mongosh's own (`"COMMON-10001"`); fields the
//! worker may leave out (`output`, `cost`, `writes`, an error's details) are optional.
//!
//! Server commands are those of the engine (`find`, `insert`, `update`, `delete`, `aggregate`,
//! `listCollections`, `collStats`, `listIndexes`, `createIndexes`, `drop`, ...) plus its extension
//! `{ ppPreviewUpdate: "<coll>", q, u, upsert, multi, arrayFilters }`, which runs an update on
//! copies and answers `{ ok: 1, matchedCount, modifiedCount,
//! docs: [{ before, after, changedPaths, sizeBefore, sizeAfter }] }` without touching the data.

use serde::{Deserialize, Deserializer, Serialize};

/// A message from the UI to the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Request {
    /// Run a mongosh script; `filename` names it in error stacks.
    /// `ids`: an earlier run's [`IdSpec`], so that the run makes the same ObjectIds again.
    Run {
        id: u32,
        code: String,
        filename: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ids: Option<IdSpec>,
    },
    /// Run one server command given as canonical Extended JSON.
    Command { id: u32, command: String },
    /// Run one server command given as BSON bytes (a logged write: replayed exactly); answered
    /// with [`Response::Command`].
    #[serde(rename = "commandBson")]
    CommandBson {
        id: u32,
        #[serde(with = "serde_bytes")]
        bson: Vec<u8>,
    },
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
    /// Import one file with the engine's importer (`mongoexport` JSON, `.bson`, CSV/TSV):
    /// `format`, `db` and `collection` may be empty (from the file name; `test`); `options` is
    /// JSON text (`{ stopOnError, columnsHaveTypes, ... }`, see `Engine::import_data`).
    Import {
        id: u32,
        file: String,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
        format: String,
        db: String,
        collection: String,
        options: String,
    },
    /// Begin importing one file in slices (as [`Request::Import`]); answered with
    /// [`Response::ImportProgress`]. The worker keeps the file until [`Request::ImportEnd`].
    #[serde(rename = "importBegin")]
    ImportBegin {
        id: u32,
        file: String,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
        format: String,
        db: String,
        collection: String,
        options: String,
    },
    /// Read and insert the next slice of the open import: at most `max_docs` documents or about
    /// `max_bytes` bytes of the file.
    #[serde(rename = "importStep", rename_all = "camelCase")]
    ImportStep { id: u32, max_docs: u32, max_bytes: u32 },
    /// End the open import: `keep` it (answered with its report), or undo it (Cancel: the
    /// database as it was before [`Request::ImportBegin`]).
    #[serde(rename = "importEnd")]
    ImportEnd { id: u32, keep: bool },
    /// One collection as `mongoexport`/`mongodump` write it (`format`: `json`, `canonical`,
    /// `bson`, `metadata`).
    Export { id: u32, db: String, collection: String, format: String },
}

impl Request {
    #[allow(dead_code)] // used by tests; the client numbers requests itself
    pub fn id(&self) -> u32 {
        match self {
            Request::Run { id, .. }
            | Request::Command { id, .. }
            | Request::CommandBson { id, .. }
            | Request::Snapshot { id }
            | Request::Restore { id, .. }
            | Request::Import { id, .. }
            | Request::ImportBegin { id, .. }
            | Request::ImportStep { id, .. }
            | Request::ImportEnd { id, .. }
            | Request::Export { id, .. }
            | Request::Reset { id } => *id,
        }
    }

    /// Numbers the request (the client numbers each one as it sends it).
    pub fn set_id(&mut self, to: u32) {
        match self {
            Request::Run { id, .. }
            | Request::Command { id, .. }
            | Request::CommandBson { id, .. }
            | Request::Snapshot { id }
            | Request::Restore { id, .. }
            | Request::Import { id, .. }
            | Request::ImportBegin { id, .. }
            | Request::ImportStep { id, .. }
            | Request::ImportEnd { id, .. }
            | Request::Export { id, .. }
            | Request::Reset { id } => *id = to,
        }
    }

    /// What the request asks for, in words ("a run", for messages).
    pub fn what(&self) -> &'static str {
        match self {
            Request::Run { .. } => "the script",
            Request::Command { .. } | Request::CommandBson { .. } => "a database command",
            Request::Snapshot { .. } => "a snapshot of the database",
            Request::Restore { .. } => "restoring the database",
            Request::Reset { .. } => "emptying the database",
            Request::Import { .. } | Request::ImportBegin { .. } | Request::ImportStep { .. } | Request::ImportEnd { .. } => "the import",
            Request::Export { .. } => "the export",
        }
    }
}

/// A message from the worker to the UI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Response {
    /// The worker has loaded the engine and takes requests.
    Ready,
    /// The worker could not load the engine.
    Failed { error: String },
    /// The request `id` could not be served.
    Error { id: u32, error: String },
    Run {
        id: u32,
        #[serde(flatten)]
        report: RunReport,
    },
    Command { id: u32, reply: String },
    Snapshot {
        id: u32,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
    },
    Restore { id: u32 },
    Reset { id: u32 },
    Import { id: u32, report: ImportReport },
    #[serde(rename = "importProgress")]
    ImportProgress { id: u32, progress: ImportProgress },
    Export {
        id: u32,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
    },
    /// The request `id` asked for a named time zone before the worker had the time-zone file:
    /// its answer was not the server's and is not given (the client gets the file, restores the
    /// database and sends the request again: `src/app/worker.rs`).
    #[serde(rename = "needsTimeZones")]
    NeedsTimeZones { id: u32 },
}

/// What an import did (the engine's `import::Report`, as mongoimport sums it up).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ImportReport {
    pub file: String,
    pub db: String,
    pub collection: String,
    pub read: u64,
    pub inserted: u64,
    pub failed: u64,
    pub indexes: u64,
    pub errors: Vec<ImportError>,
    pub stopped: bool,
}

/// How far an import in slices is (the engine's `import::Progress`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ImportProgress {
    pub file: String,
    pub db: String,
    pub collection: String,
    pub read: u64,
    pub inserted: u64,
    pub failed: u64,
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub done: bool,
    /// True when an error ended the import before the end of the file.
    pub stopped: bool,
}

/// One refused document or unreadable part of an imported file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ImportError {
    pub file: String,
    pub line: Option<u64>,
    pub offset: Option<u64>,
    pub message: String,
}

impl Response {
    /// The id of the request this answers (`None` for `ready` and `failed`).
    pub fn id(&self) -> Option<u32> {
        match self {
            Response::Ready | Response::Failed { .. } => None,
            Response::Error { id, .. }
            | Response::Run { id, .. }
            | Response::Command { id, .. }
            | Response::Snapshot { id, .. }
            | Response::Restore { id }
            | Response::Import { id, .. }
            | Response::ImportProgress { id, .. }
            | Response::Export { id, .. }
            | Response::NeedsTimeZones { id }
            | Response::Reset { id } => Some(*id),
        }
    }
}

/// Only the id of a message, for an answer that does not parse as a [`Response`]: its request
/// gets the parse error instead of no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct Envelope {
    #[serde(default)]
    pub id: Option<u32>,
}

/// The typed answer to each kind of request.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Run(RunReport),
    Command(String),
    /// A snapshot's or an export's bytes.
    Bytes(Vec<u8>),
    Import(ImportReport),
    ImportProgress(ImportProgress),
    Done,
}

impl Request {
    /// The answer `response` gives to this request, or why it is not one.
    pub fn answers(&self, response: Response) -> Result<Answer, String> {
        match (self, response) {
            (_, Response::Error { error, .. }) => Err(error),
            (_, Response::NeedsTimeZones { .. }) => Err(format!("{} asked for a time zone before the time-zone data was loaded", self.what())),
            (Request::Run { .. }, Response::Run { report, .. }) => Ok(Answer::Run(report)),
            (Request::Command { .. } | Request::CommandBson { .. }, Response::Command { reply, .. }) => Ok(Answer::Command(reply)),
            (Request::Snapshot { .. }, Response::Snapshot { bytes, .. }) | (Request::Export { .. }, Response::Export { bytes, .. }) => {
                Ok(Answer::Bytes(bytes))
            }
            (Request::Restore { .. }, Response::Restore { .. }) | (Request::Reset { .. }, Response::Reset { .. }) => Ok(Answer::Done),
            (Request::Import { .. } | Request::ImportEnd { .. }, Response::Import { report, .. }) => Ok(Answer::Import(report)),
            (Request::ImportBegin { .. } | Request::ImportStep { .. }, Response::ImportProgress { progress, .. }) => Ok(Answer::ImportProgress(progress)),
            (_, other) => Err(format!("the worker answered {} with {other:?}", self.what())),
        }
    }
}

/// What a run reports: its output, the error that stopped it, its cost and its writes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunReport {
    #[serde(default)]
    pub output: Vec<OutputLine>,
    #[serde(default)]
    pub error: Option<RunError>,
    #[serde(default)]
    pub cost: Option<Cost>,
    #[serde(default)]
    pub writes: Vec<WriteRecord>,
    /// The run's reads, for the advisor (`{ filter, sort? }` as canonical Extended JSON text).
    #[serde(default)]
    pub queries: Vec<QueryRecord>,
    /// How the run made its ObjectIds: given back to a later run, it makes the same ones.
    #[serde(default)]
    pub ids: Option<IdSpec>,
}

/// How a run made the ObjectIds it generated (www/runtime/bson.js `recordIds`): a seed for their
/// random bytes and counter, and their seconds as runs of `[seconds, count]`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct IdSpec {
    pub seed: u64,
    #[serde(default)]
    pub times: Vec<(u32, u32)>,
}

/// One read a script made: its database, collection and `{ filter, sort? }`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct QueryRecord {
    pub db: String,
    pub collection: String,
    pub query: String,
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

/// An error's code: a number for the server's errors (`2`), a string for mongosh's own
/// (`"COMMON-10001"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ErrorCode {
    Number(i64),
    Text(String),
}

/// The error that stopped a script: a JavaScript error or a server error (`code`, `codeName`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunError {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "lenient_code")]
    pub code: Option<ErrorCode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
}

/// A code that is a whole number (JavaScript numbers arrive as floats) or a string; anything else
/// is dropped rather than failing the whole answer.
fn lenient_code<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ErrorCode>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Int(i64),
        Float(f64),
        Text(String),
        Other(serde::de::IgnoredAny),
    }
    Ok(match Option::<Raw>::deserialize(d)? {
        Some(Raw::Int(n)) => Some(ErrorCode::Number(n)),
        Some(Raw::Float(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(ErrorCode::Number(f as i64)),
        Some(Raw::Float(f)) => Some(ErrorCode::Text(f.to_string())),
        Some(Raw::Text(s)) => Some(ErrorCode::Text(s)),
        Some(Raw::Other(_)) | None => None,
    })
}

/// The engine's cost counters for the last operation (or a whole script).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Cost {
    pub docs_examined: f64,
    pub keys_examined: f64,
    pub docs_returned: f64,
    pub bytes_read: f64,
    pub bytes_written: f64,
}

/// One write: the server command as the engine ran it, with generated `_id`s filled in, so
/// replaying it rebuilds the same documents. `collection` is empty for a database-wide command
/// (`dropDatabase`).
///
/// A script's writes carry the command's BSON bytes (`bson`): the exact record, which a replay
/// sends as it is. `command` is canonical Extended JSON text of the same command (the export,
/// reading); `inexact` says that text reads back as another command (a document has a field
/// named like a type, `{ $date: "2020-01-01" }`). The UI's own writes are Extended JSON by
/// nature (people type it) and have no bytes. In saved state the bytes are base64.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct WriteRecord {
    #[serde(default, deserialize_with = "null_as_empty")]
    pub collection: String,
    pub command: String,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "bytes_or_base64")]
    pub bson: Option<Vec<u8>>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inexact: bool,
}

/// The database a command without `$db` runs in (mongosh's default, and the engine's).
pub const DEFAULT_DB: &str = "test";

impl WriteRecord {
    /// A write known by its Extended JSON text only (the UI's own writes).
    pub fn text(collection: impl Into<String>, command: impl Into<String>) -> WriteRecord {
        WriteRecord { collection: collection.into(), command: command.into(), ..Default::default() }
    }

    /// An imported file, logged as `{ ppImport: <collection>, $db?, file, options }` with the
    /// file's own bytes: a replay imports it again.
    pub fn import(db: &str, collection: &str, file: &str, options: &serde_json::Value, bytes: Vec<u8>) -> WriteRecord {
        let mut cmd = serde_json::json!({ "ppImport": collection, "file": file, "options": options });
        if db != DEFAULT_DB && !db.is_empty() {
            cmd["$db"] = serde_json::Value::String(db.to_string());
        }
        WriteRecord { collection: collection.to_string(), command: cmd.to_string(), bson: Some(bytes), inexact: false }
    }

    /// The request that replays this write: an import imports its file again, a script's write
    /// sends its exact bytes, the UI's own writes their text.
    pub fn replay_request(self) -> Request {
        if let Ok(cmd) = serde_json::from_str::<serde_json::Value>(&self.command) {
            if let Some(coll) = cmd.get("ppImport").and_then(serde_json::Value::as_str) {
                let text = |k: &str| cmd.get(k).and_then(serde_json::Value::as_str).unwrap_or_default().to_string();
                return Request::Import {
                    id: 0,
                    file: text("file"),
                    bytes: self.bson.unwrap_or_default(),
                    format: String::new(),
                    db: text("$db"),
                    collection: coll.to_string(),
                    options: cmd.get("options").map(|o| o.to_string()).unwrap_or_else(|| "{}".into()),
                };
            }
        }
        match self.bson {
            Some(bson) => Request::CommandBson { id: 0, bson },
            None => Request::Command { id: 0, command: self.command },
        }
    }
}

/// Bytes written as base64 text (saved state, share links) and read from base64 text or from
/// bytes (a `Uint8Array` from the worker).
mod bytes_or_base64 {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine as _;
    use serde::{de, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(b) => s.serialize_str(&STANDARD.encode(b)),
            None => s.serialize_none(),
        }
    }

    struct Visitor;

    impl<'de> de::Visitor<'de> for Visitor {
        type Value = Option<Vec<u8>>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("bytes or base64 text")
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(Visitor)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            STANDARD.decode(v).map(Some).map_err(|e| E::custom(format!("bson: not base64 ({e})")))
        }
        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
            Ok(Some(v.to_vec()))
        }
        fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
            while let Some(b) = seq.next_element::<u8>()? {
                out.push(b);
            }
            Ok(Some(out))
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        d.deserialize_option(Visitor)
    }
}

fn null_as_empty<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_tagged_by_kind() {
        let run = Request::Run { id: 3, code: "print(1)".into(), filename: "step-1.js".into(), ids: None };
        assert_eq!(
            serde_json::to_value(&run).unwrap(),
            serde_json::json!({"kind": "run", "id": 3, "code": "print(1)", "filename": "step-1.js"})
        );
        let snap = Request::Snapshot { id: 4 };
        assert_eq!(serde_json::to_value(&snap).unwrap(), serde_json::json!({"kind": "snapshot", "id": 4}));
    }

    #[test]
    fn write_bytes_are_base64_in_saved_state_and_read_from_bytes_too() {
        let w = WriteRecord { collection: "c".into(), command: "{}".into(), bson: Some(vec![5, 0, 0, 0, 0]), inexact: true };
        let v = serde_json::to_value(&w).unwrap();
        assert_eq!(v, serde_json::json!({"collection": "c", "command": "{}", "bson": "BQAAAAA=", "inexact": true}));
        assert_eq!(serde_json::from_value::<WriteRecord>(v).unwrap(), w);
        let text = WriteRecord::text("c", "{}");
        assert_eq!(serde_json::to_value(&text).unwrap(), serde_json::json!({"collection": "c", "command": "{}"}));
        let from_array: WriteRecord = serde_json::from_value(serde_json::json!({"collection": "c", "command": "{}", "bson": [5, 0, 0, 0, 0]})).unwrap();
        assert_eq!(from_array.bson, Some(vec![5, 0, 0, 0, 0]));
        assert!(serde_json::from_value::<WriteRecord>(serde_json::json!({"collection": "c", "command": "{}", "bson": "!!"})).is_err());
        let req = Request::CommandBson { id: 2, bson: vec![5, 0, 0, 0, 0] };
        assert_eq!(serde_json::to_value(&req).unwrap()["kind"], "commandBson");
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
        let Response::Run { report: RunReport { error: Some(e), cost: Some(c), writes, .. }, .. } = r else { panic!("{r:?}") };
        assert_eq!(e.code, Some(ErrorCode::Number(2)));
        assert_eq!(e.code_name.as_deref(), Some("BadValue"));
        assert_eq!(e.line, None);
        assert_eq!(c.docs_examined, 3.0);
        assert_eq!(writes[0].collection, "c");
        assert_eq!(writes[0].bson, None);
        let ready: Response = serde_json::from_value(serde_json::json!({"kind": "ready"})).unwrap();
        assert_eq!(ready, Response::Ready);
        // The worker adds its start-up times (www/worker.js), which the UI does not read.
        let ready: Response = serde_json::from_value(serde_json::json!({"kind": "ready", "started": {"script": 1.5, "session": 9.0}})).unwrap();
        assert_eq!(ready, Response::Ready);
    }

    /// Issue 12, item 5: `db.keep.insertOne({n:1}); db.keep.find().explain("bogus")` answered with a
    /// string code, which failed the whole answer (and lost the run's writes).
    #[test]
    fn run_response_accepts_string_codes_and_missing_fields() {
        let v = serde_json::json!({
            "id": 7, "kind": "run",
            "output": [],
            "error": {"name": "MongoshInvalidInputError", "message": "[COMMON-10001] verbosity can only be one of ...", "code": "COMMON-10001"},
            "cost": null,
            "writes": [{"collection": "keep", "command": "{\"insert\":\"keep\"}"}]
        });
        let r: Response = serde_json::from_value(v).unwrap();
        let Response::Run { id: 7, report } = r else { panic!("{r:?}") };
        assert_eq!(report.error.as_ref().and_then(|e| e.code.clone()), Some(ErrorCode::Text("COMMON-10001".into())));
        assert_eq!(report.writes.len(), 1);
        // A float code, an object code and no code at all read too; so does a run with nothing but its id.
        for (code, want) in [
            (serde_json::json!(11000.0), Some(ErrorCode::Number(11000))),
            (serde_json::json!({"odd": 1}), None),
            (serde_json::Value::Null, None),
        ] {
            let v = serde_json::json!({"id": 1, "kind": "run", "error": {"name": "E", "message": "m", "code": code}});
            let Response::Run { report, .. } = serde_json::from_value::<Response>(v).unwrap() else { panic!() };
            assert_eq!(report.error.and_then(|e| e.code), want);
        }
        let bare: Response = serde_json::from_value(serde_json::json!({"id": 2, "kind": "run"})).unwrap();
        assert_eq!(bare, Response::Run { id: 2, report: RunReport::default() });
        let partial_cost: Response = serde_json::from_value(serde_json::json!({"id": 2, "kind": "run", "cost": {"docsExamined": 4}})).unwrap();
        let Response::Run { report, .. } = partial_cost else { panic!() };
        assert_eq!(report.cost, Some(Cost { docs_examined: 4.0, ..Cost::default() }));
    }

    /// `db.dropDatabase()` logs a write with no collection (`null`), which failed the answer too.
    #[test]
    fn a_database_wide_write_has_an_empty_collection() {
        let v = serde_json::json!({"id": 3, "kind": "run", "output": [], "error": null, "cost": null,
            "writes": [{"collection": null, "command": "{\"dropDatabase\":{\"$numberInt\":\"1\"}}"}]});
        let Response::Run { report, .. } = serde_json::from_value::<Response>(v).unwrap() else { panic!() };
        assert_eq!(report.writes, vec![WriteRecord::text(String::new(), "{\"dropDatabase\":{\"$numberInt\":\"1\"}}")]);
    }

    #[test]
    fn an_import_in_slices_speaks_camel_case_and_pairs_its_answers() {
        let begin = Request::ImportBegin { id: 1, file: "a.json".into(), bytes: vec![1], format: String::new(), db: "test".into(), collection: "a".into(), options: "{}".into() };
        assert_eq!(serde_json::to_value(&begin).unwrap()["kind"], "importBegin");
        let step = Request::ImportStep { id: 2, max_docs: 1000, max_bytes: 1 << 20 };
        assert_eq!(serde_json::to_value(&step).unwrap(), serde_json::json!({"kind": "importStep", "id": 2, "maxDocs": 1000, "maxBytes": 1048576}));
        let end = Request::ImportEnd { id: 3, keep: false };
        assert_eq!(serde_json::to_value(&end).unwrap(), serde_json::json!({"kind": "importEnd", "id": 3, "keep": false}));
        let v = serde_json::json!({"id": 2, "kind": "importProgress", "progress": {"file": "a.json", "read": 1000, "inserted": 999, "failed": 1, "bytesDone": 64000, "bytesTotal": 128000, "done": false}});
        let r: Response = serde_json::from_value(v).unwrap();
        let want = ImportProgress { file: "a.json".into(), read: 1000, inserted: 999, failed: 1, bytes_done: 64_000, bytes_total: 128_000, ..Default::default() };
        assert_eq!(step.answers(r.clone()), Ok(Answer::ImportProgress(want)));
        assert!(end.answers(r).is_err());
        assert_eq!(end.answers(Response::Import { id: 3, report: ImportReport::default() }), Ok(Answer::Import(ImportReport::default())));
    }

    #[test]
    fn every_request_has_one_answer_kind_and_errors_are_answers() {
        let run = Request::Run { id: 1, code: String::new(), filename: "a.js".into(), ids: None };
        let report = RunReport { output: vec![OutputLine { stream: Stream::Out, text: "1".into() }], ..Default::default() };
        assert_eq!(run.answers(Response::Run { id: 1, report: report.clone() }), Ok(Answer::Run(report)));
        assert_eq!(run.answers(Response::Error { id: 1, error: "boom".into() }), Err("boom".into()));
        let e = run.answers(Response::Reset { id: 1 }).unwrap_err();
        assert!(e.starts_with("the worker answered the script with Reset"), "{e}");
        let cmd = Request::Command { id: 2, command: "{}".into() };
        assert_eq!(cmd.answers(Response::Command { id: 2, reply: "{\"ok\":1}".into() }), Ok(Answer::Command("{\"ok\":1}".into())));
        assert_eq!(Request::Reset { id: 3 }.answers(Response::Reset { id: 3 }), Ok(Answer::Done));
        assert_eq!(Request::Restore { id: 4, bytes: vec![] }.answers(Response::Restore { id: 4 }), Ok(Answer::Done));
        assert_eq!(Request::Snapshot { id: 5 }.answers(Response::Snapshot { id: 5, bytes: vec![1, 2] }), Ok(Answer::Bytes(vec![1, 2])));
        // The worker's own messages parse too, and an answer that does not parse still has its id.
        let failed: Response = serde_json::from_value(serde_json::json!({"kind": "failed", "error": "no wasm"})).unwrap();
        assert_eq!(failed, Response::Failed { error: "no wasm".into() });
        let error: Response = serde_json::from_value(serde_json::json!({"id": 9, "kind": "error", "error": "unknown request kind: x"})).unwrap();
        assert_eq!(error.id(), Some(9));
        let odd = serde_json::json!({"id": 10, "kind": "run", "output": "not a list"});
        assert!(serde_json::from_value::<Response>(odd.clone()).is_err());
        assert_eq!(serde_json::from_value::<Envelope>(odd).unwrap(), Envelope { id: Some(10) });
    }
}
