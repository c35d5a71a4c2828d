//! Importing a user's data: `mongoexport` JSON (lines or `--jsonArray`, Extended JSON v2 and v1),
//! `mongodump` `.bson` files with their `.metadata.json`, and CSV/TSV typed as `mongoimport`
//! types them. Bytes in, documents and errors out: no IO, so the site's worker (through
//! `bindings.rs`) and the Node runner (`make script DATA=...`) share this one importer.
//!
//! - [`Reader`] reads a file in batches of documents (linear in the input; nothing is kept
//!   between batches but the position). An error names the file, the line (JSON, CSV) or the
//!   byte offset (`.bson`) and what is wrong. `stop_on_error` (mongoimport's `--stopOnError`)
//!   is the default: the first error ends the read; otherwise bad documents are reported and
//!   skipped (a `.bson` length or a JSON array's syntax that cannot be read past still ends it).
//! - [`import_file`] and [`import_dump`] insert what a reader reads into a [`Database`] through
//!   the `insert` command (so every document gets the server's checks and an `_id`), recreate
//!   a dump's collection options and indexes, and return a [`Report`] per collection.

pub mod csv;
pub mod dump;
pub mod json;
pub mod plan;

use std::fmt;

use bson::{doc, Bson, Document};
use serde::Serialize;

use crate::db::Database;

pub use self::csv::{CsvOptions, ParseGrace};
pub use dump::{parse_metadata, Metadata};
pub use plan::{plan_dump, DumpEntry, DumpPlan, COMPRESSED};

/// The documents one insert command carries by default.
pub const DEFAULT_BATCH: usize = 1000;

/// At most this many errors are kept in a report (the rest are counted in `failed`).
pub const MAX_REPORTED_ERRORS: usize = 1000;

/// Where in a file something is: a line (text formats) and a byte offset.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Loc {
    pub line: Option<u64>,
    pub offset: Option<u64>,
}

/// One import error: the file, where in it, what is wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportError {
    pub file: String,
    pub line: Option<u64>,
    pub offset: Option<u64>,
    pub message: String,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.offset) {
            (Some(line), _) => write!(f, "{}:{line}: {}", self.file, self.message),
            (None, Some(off)) => write!(f, "{}: at byte {off}: {}", self.file, self.message),
            (None, None) => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// The formats [`Reader`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON documents one after another, or a JSON array of them (by the first character).
    Json,
    /// JSON documents one after another (`mongoexport`'s default).
    JsonLines,
    /// One JSON array of documents (`--jsonArray`).
    JsonArray,
    /// A `mongodump` `.bson` file.
    Bson,
    Csv,
    Tsv,
}

impl Format {
    /// The format a file name implies: `.json`/`.jsonl`/`.ndjson`, `.bson`, `.csv`, `.tsv`.
    pub fn from_file_name(name: &str) -> Option<Format> {
        let lower = name.to_ascii_lowercase();
        let ext = lower.rsplit('.').next()?;
        Some(match ext {
            "json" => Format::Json,
            "jsonl" | "ndjson" => Format::JsonLines,
            "bson" => Format::Bson,
            "csv" => Format::Csv,
            "tsv" => Format::Tsv,
            _ => return None,
        })
    }

    /// A format by name: `json`, `jsonl`, `jsonArray`, `bson`, `csv`, `tsv`.
    pub fn parse(name: &str) -> Option<Format> {
        Some(match name {
            "json" => Format::Json,
            "jsonl" | "jsonLines" | "ndjson" => Format::JsonLines,
            "jsonArray" | "jsonarray" => Format::JsonArray,
            "bson" => Format::Bson,
            "csv" => Format::Csv,
            "tsv" => Format::Tsv,
            _ => return None,
        })
    }
}

/// The collection a file goes to by default: its name without directories and extension
/// (`exports/orders.json` -> `orders`, `shop/orders.bson` -> `orders`).
pub fn collection_name_for(file: &str) -> String {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let base = base.strip_suffix(".metadata.json").unwrap_or(base);
    match base.rfind('.') {
        Some(i) if i > 0 => base[..i].to_string(),
        _ => base.to_string(),
    }
}

/// How to read and insert.
#[derive(Debug, Clone)]
pub struct Options {
    pub format: Format,
    /// ObjectIds for documents without `_id`, made here (else by the insert).
    pub ids: Option<IdSpec>,
    /// Stop at the first error (the default, as `--stopOnError`); otherwise skip bad documents.
    pub stop_on_error: bool,
    /// Documents per insert command.
    pub batch_size: usize,
    pub csv: CsvOptions,
}

impl Options {
    pub fn new(format: Format) -> Options {
        Options { format, ids: None, stop_on_error: true, batch_size: DEFAULT_BATCH, csv: CsvOptions::default() }
    }
}

enum Inner<'a> {
    Json(json::JsonReader<'a>),
    Bson(dump::BsonReader<'a>),
    Csv(Box<csv::CsvReader<'a>>),
}

/// Reads one file's documents in batches.
pub struct Reader<'a> {
    file: String,
    inner: Inner<'a>,
    total: usize,
    stop_on_error: bool,
    finished: bool,
}

/// One batch read: the documents with where each started, and the errors met on the way.
#[derive(Debug, Default)]
pub struct Batch {
    pub docs: Vec<Document>,
    pub locs: Vec<Loc>,
    pub errors: Vec<ImportError>,
}

impl<'a> Reader<'a> {
    /// A reader of `bytes` (named `file` in errors). Fails at once for a CSV header that cannot
    /// be used.
    pub fn new(file: &str, bytes: &'a [u8], options: &Options) -> Result<Reader<'a>, ImportError> {
        let inner = match options.format {
            Format::Json => Inner::Json(json::JsonReader::new(bytes, None)),
            Format::JsonLines => Inner::Json(json::JsonReader::new(bytes, Some(false))),
            Format::JsonArray => Inner::Json(json::JsonReader::new(bytes, Some(true))),
            Format::Bson => Inner::Bson(dump::BsonReader::new(bytes)),
            Format::Csv | Format::Tsv => match csv::CsvReader::new(bytes, options.format == Format::Tsv, options.csv) {
                Ok(r) => Inner::Csv(Box::new(r)),
                Err(e) => return Err(error(file, e)),
            },
        };
        Ok(Reader { file: file.to_string(), inner, total: bytes.len(), stop_on_error: options.stop_on_error, finished: false })
    }

    /// Bytes read so far and in all (for a progress bar).
    pub fn progress(&self) -> (usize, usize) {
        let done = match &self.inner {
            Inner::Json(r) => r.position(),
            Inner::Bson(r) => r.position(),
            Inner::Csv(r) => r.position(),
        };
        (done, self.total)
    }

    /// True once the input is read or an error stopped the read.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Where the reader is, without its input: [`Reader::resume`] goes on from there. What is
    /// kept is the position and the header's columns, never documents.
    fn suspend(self) -> Cursor {
        let state = match self.inner {
            Inner::Json(r) => State::Json(r.suspend()),
            Inner::Bson(r) => State::Bson(r.suspend()),
            Inner::Csv(r) => State::Csv(Box::new(r.suspend())),
        };
        Cursor { file: self.file, state, total: self.total, stop_on_error: self.stop_on_error, finished: self.finished }
    }

    /// The reader of `source` (the input it was made on) where [`Reader::suspend`] left it.
    fn resume(source: &'a Source, cursor: Cursor) -> Reader<'a> {
        let Cursor { file, state, total, stop_on_error, mut finished } = cursor;
        let inner = match (state, source) {
            (State::Json(s), Source::Bytes(b)) => Inner::Json(json::JsonReader::resume(b, s)),
            (State::Bson(s), Source::Bytes(b)) => Inner::Bson(dump::BsonReader::resume(b, s)),
            (State::Csv(s), Source::Text(t)) => Inner::Csv(Box::new(csv::CsvReader::resume(t, *s))),
            // Not made on this source: nothing to read.
            _ => {
                finished = true;
                Inner::Bson(dump::BsonReader::resume(&[], (0, true)))
            }
        };
        Reader { file, inner, total, stop_on_error, finished }
    }

    fn next_doc(&mut self) -> Option<Result<(Document, Loc), json::ParseError>> {
        match &mut self.inner {
            Inner::Json(r) => r.next_doc(),
            Inner::Bson(r) => r.next_doc(),
            Inner::Csv(r) => r.next_doc(),
        }
    }

    /// Up to `max` documents (fewer at the end, or when an error stops the read; then the
    /// batch carries the error). `None` once everything was read.
    pub fn next_batch(&mut self, max: usize) -> Option<Batch> {
        if self.finished {
            return None;
        }
        let mut batch = Batch::default();
        while batch.docs.len() < max.max(1) {
            match self.next_doc() {
                None => {
                    self.finished = true;
                    break;
                }
                Some(Ok((d, loc))) => {
                    batch.docs.push(d);
                    batch.locs.push(loc);
                }
                Some(Err(e)) => {
                    let fatal = e.fatal;
                    batch.errors.push(error(&self.file, e));
                    if fatal || self.stop_on_error {
                        self.finished = true;
                        break;
                    }
                }
            }
        }
        if batch.docs.is_empty() && batch.errors.is_empty() {
            return None;
        }
        Some(batch)
    }

    /// Every document at once (tests, small files): the documents, or the first error.
    pub fn read_all(mut self) -> Result<Vec<Document>, ImportError> {
        let mut out = Vec::new();
        while let Some(b) = self.next_batch(DEFAULT_BATCH) {
            if let Some(e) = b.errors.into_iter().next() {
                return Err(e);
            }
            out.extend(b.docs);
        }
        Ok(out)
    }
}

/// A suspended [`Reader`].
struct Cursor {
    file: String,
    state: State,
    total: usize,
    stop_on_error: bool,
    finished: bool,
}

enum State {
    Json(json::JsonState),
    Bson((usize, bool)),
    Csv(Box<csv::CsvState>),
}

/// The input an [`Import`] owns: bytes, or text checked as UTF-8 once (CSV and TSV).
enum Source {
    Bytes(Vec<u8>),
    Text(String),
}

fn error(file: &str, e: json::ParseError) -> ImportError {
    ImportError { file: file.to_string(), line: e.loc.line, offset: e.loc.offset, message: e.message }
}

/// Parses a whole input at once (tests and small inputs).
pub fn read_documents(file: &str, bytes: &[u8], options: &Options) -> Result<Vec<Document>, ImportError> {
    Reader::new(file, bytes, options)?.read_all()
}

/// What one import did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub file: String,
    pub db: String,
    pub collection: String,
    /// Documents read from the file.
    pub read: u64,
    /// Documents inserted.
    pub inserted: u64,
    /// Documents that could not be read or inserted.
    pub failed: u64,
    /// Indexes created from a dump's metadata.
    pub indexes: u64,
    /// The errors (at most [`MAX_REPORTED_ERRORS`]).
    pub errors: Vec<ImportError>,
    /// True when an error ended the import before the end of the file.
    pub stopped: bool,
}

impl Report {
    fn push_error(&mut self, e: ImportError) {
        self.failed += 1;
        if self.errors.len() < MAX_REPORTED_ERRORS {
            self.errors.push(e);
        }
    }
}

/// Inserts a file's documents into `db_name.collection` in batches (see [`Reader`]).
pub fn import_file(db: &mut Database, db_name: &str, collection: &str, file: &str, bytes: &[u8], options: &Options) -> Report {
    import_with_metadata(db, db_name, collection, file, bytes, None, options)
}

/// [`import_file`] with a dump's `.metadata.json`: the collection is created with its options
/// first (a view: created, no documents), its indexes built after the documents, as
/// mongorestore does. An import that an error stops under `stop_on_error` leaves the database
/// as it was (see [`Import`]).
pub fn import_with_metadata(
    db: &mut Database,
    db_name: &str,
    collection: &str,
    file: &str,
    bytes: &[u8],
    metadata: Option<(&str, &[u8])>,
    options: &Options,
) -> Report {
    let mut job = Import::begin(db, db_name, collection, file, bytes.to_vec(), metadata, options);
    while !job.step(db, usize::MAX, usize::MAX).done {}
    job.finish(db, true)
}

/// How far an [`Import`] is: documents read, inserted and failed, and bytes of the file read.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    pub file: String,
    pub db: String,
    pub collection: String,
    pub read: u64,
    pub inserted: u64,
    pub failed: u64,
    pub bytes_done: u64,
    pub bytes_total: u64,
    /// True once the file is read (or an error ended the read): [`Import::finish`] is next.
    pub done: bool,
    /// True when an error ended the import before the end of the file.
    pub stopped: bool,
}

/// One file's import, in slices: [`Import::begin`] takes the file, each [`Import::step`] reads
/// and inserts a bounded part of it, [`Import::finish`] builds a dump's indexes and returns the
/// report, or undoes it all. Between steps the import holds its input, the reader's position and
/// what undoing it needs (`Database::import_mark`: nothing but a few numbers for a collection it
/// creates or appends to): undoing costs what the import added, not the collection. The database
/// should see no other write between `begin` and `finish` (undoing removes what was appended).
pub struct Import {
    source: Source,
    cursor: Option<Cursor>,
    report: Report,
    options: Options,
    meta: Option<(String, Metadata)>,
    ids: Option<ObjectIds>,
    mark: Option<crate::db::ImportMark>,
    /// The file's size, and the bytes read so far (counting a byte order mark the reader skips).
    total: usize,
    done: usize,
    bom: usize,
}

impl Import {
    /// Starts importing `bytes` (named `file` in errors) into `db_name.collection`: parses the
    /// metadata and creates the collection with its options when it is given, and reads the
    /// CSV header. Errors here end the import at once (`step` then reports it done).
    pub fn begin(
        db: &mut Database,
        db_name: &str,
        collection: &str,
        file: &str,
        bytes: Vec<u8>,
        metadata: Option<(&str, &[u8])>,
        options: &Options,
    ) -> Import {
        let report = Report { file: file.to_string(), db: db_name.to_string(), collection: collection.to_string(), ..Report::default() };
        let mut job = Import {
            source: Source::Bytes(Vec::new()),
            cursor: None,
            report,
            options: options.clone(),
            meta: None,
            ids: options.ids.map(ObjectIds::new),
            mark: Some(db.import_mark(db_name, collection)),
            total: bytes.len(),
            done: 0,
            bom: 0,
        };
        let total = bytes.len();
        if let Some((meta_file, meta_bytes)) = metadata {
            let m = match parse_metadata(meta_bytes) {
                Ok(m) => m,
                Err(message) => return job.stop(ImportError { file: meta_file.to_string(), line: None, offset: None, message }, total),
            };
            if db.collection(db_name, collection).is_none() {
                let mut cmd = doc! {"create": collection};
                for (k, v) in &m.options {
                    cmd.insert(k.clone(), v.clone());
                }
                cmd.insert("$db", db_name);
                if let Some(e) = command_error(&db.run_command(&cmd)) {
                    let e = ImportError { file: meta_file.to_string(), line: None, offset: None, message: format!("creating the collection: {e}") };
                    return job.stop(e, total);
                }
            }
            let view = m.options.contains_key("viewOn");
            job.meta = Some((meta_file.to_string(), m));
            if view {
                return job;
            }
        }
        let cursor = match Reader::new(file, &bytes, options) {
            Ok(r) => r.suspend(),
            Err(e) => return job.stop(e, total),
        };
        if !matches!(cursor.state, State::Bson(_)) && bytes.starts_with(b"\xEF\xBB\xBF") {
            job.bom = 3;
        }
        job.source = match cursor.state {
            // CSV is read as text: checked as UTF-8 here, once (the reader just did; it cannot fail).
            State::Csv(_) => match String::from_utf8(bytes) {
                Ok(t) => Source::Text(t),
                Err(e) => Source::Bytes(e.into_bytes()),
            },
            _ => Source::Bytes(bytes),
        };
        job.cursor = Some(cursor);
        job
    }

    /// An import that ended before it began (its report says why); it changes nothing.
    fn failed(report: Report) -> Import {
        Import {
            source: Source::Bytes(Vec::new()),
            cursor: None,
            report,
            options: Options::new(Format::Json),
            meta: None,
            ids: None,
            mark: None,
            total: 0,
            done: 0,
            bom: 0,
        }
    }

    /// Ends the import at an error met before any document was read.
    fn stop(mut self, e: ImportError, total: usize) -> Import {
        self.report.push_error(e);
        self.report.stopped = true;
        self.total = total;
        self
    }

    /// How far the import is.
    pub fn progress(&self) -> Progress {
        let r = &self.report;
        let done = self.cursor.as_ref().is_none_or(|c| c.finished) || r.stopped;
        Progress {
            file: r.file.clone(),
            db: r.db.clone(),
            collection: r.collection.clone(),
            read: r.read,
            inserted: r.inserted,
            failed: r.failed,
            bytes_done: if done { self.total } else { self.done.min(self.total) } as u64,
            bytes_total: self.total as u64,
            done,
            stopped: r.stopped,
        }
    }

    /// Reads and inserts the next part of the file: batches of at most the options' batch size,
    /// until `max_docs` documents or `max_bytes` bytes of the file were read (at least one
    /// batch), the file ends or an error stops the import. Returns the progress.
    pub fn step(&mut self, db: &mut Database, max_docs: usize, max_bytes: usize) -> Progress {
        let Some(cursor) = self.cursor.take() else { return self.progress() };
        let mut reader = Reader::resume(&self.source, cursor);
        let (start, _) = reader.progress();
        let mut read = 0usize;
        while !self.report.stopped && read < max_docs.max(1) {
            let Some(batch) = reader.next_batch(self.options.batch_size.min(max_docs.max(1) - read)) else { break };
            read += batch.docs.len() + batch.errors.len();
            insert_batch(db, &mut self.report, &mut self.ids, &self.options, batch);
            let (at, _) = reader.progress();
            if at.saturating_sub(start) >= max_bytes {
                break;
            }
        }
        let (at, _) = reader.progress();
        self.done = at + self.bom;
        self.cursor = Some(reader.suspend());
        self.progress()
    }

}

/// Inserts one batch through the `insert` command, noting what happened in `report`.
fn insert_batch(db: &mut Database, report: &mut Report, ids: &mut Option<ObjectIds>, options: &Options, batch: Batch) {
    let (file, stop_on_error) = (report.file.clone(), options.stop_on_error);
    report.read += batch.docs.len() as u64;
    if !batch.docs.is_empty() {
        let locs = batch.locs;
        let count = batch.docs.len();
        let docs: Vec<Bson> = batch
            .docs
            .into_iter()
            .map(|mut d| {
                if let Some(gen) = ids.as_mut() {
                    if !d.contains_key("_id") {
                        let mut with_id = Document::new();
                        with_id.insert("_id", gen.next());
                        with_id.extend(d);
                        d = with_id;
                    }
                }
                Bson::Document(d)
            })
            .collect();
        let cmd = doc! {"insert": report.collection.as_str(), "documents": docs, "ordered": stop_on_error, "$db": report.db.as_str()};
        let reply = db.run_command(&cmd);
        if let Some(e) = command_error(&reply) {
            report.failed += count as u64 - 1;
            report.push_error(ImportError { file, line: locs[0].line, offset: locs[0].offset, message: e });
            report.stopped = true;
            return;
        }
        report.inserted += reply_n(&reply);
        if let Ok(errors) = reply.get_array("writeErrors") {
            for we in errors {
                let Bson::Document(we) = we else { continue };
                let index = we.get_i32("index").unwrap_or(0).max(0) as usize;
                let loc = locs.get(index).cloned().unwrap_or_default();
                let msg = we.get_str("errmsg").unwrap_or("write error").to_string();
                report.push_error(ImportError { file: file.clone(), line: loc.line, offset: loc.offset, message: msg });
            }
            if stop_on_error && !errors.is_empty() {
                report.stopped = true;
                return;
            }
        }
    }
    for e in batch.errors {
        report.push_error(e);
        if stop_on_error {
            report.stopped = true;
        }
    }
}

impl Import {
    /// Ends the import. With `keep`, what is left of the file is read and inserted, a dump's
    /// indexes are built, and the import stays, unless an error stopped it under
    /// `stop_on_error`: then, and without `keep` (a cancel), the database is put back as it was
    /// before [`Import::begin`] (the collection it created dropped, the documents and indexes it
    /// added to one removed). Returns the report (for a cancel: what was done before it).
    pub fn finish(mut self, db: &mut Database, keep: bool) -> Report {
        if keep {
            while !self.step(db, usize::MAX, usize::MAX).done {}
            if self.cursor.as_ref().is_some_and(|c| !c.finished) {
                self.report.stopped = true;
            }
        }
        let meta_file = self.meta.as_ref().map(|(f, _)| f.clone()).unwrap_or_else(|| self.report.file.clone());
        if let (true, Some((_, m))) = (keep && !self.report.stopped, &self.meta) {
            if !m.indexes.is_empty() && !m.options.contains_key("viewOn") {
                let specs: Vec<Bson> = m.indexes.iter().cloned().map(Bson::Document).collect();
                let cmd = doc! {"createIndexes": self.report.collection.as_str(), "indexes": specs, "$db": self.report.db.as_str()};
                let reply = db.run_command(&cmd);
                match command_error(&reply) {
                    Some(e) => self.report.push_error(ImportError { file: meta_file, line: None, offset: None, message: format!("creating the indexes: {e}") }),
                    None => {
                        let before = reply.get_i32("numIndexesBefore").unwrap_or(0);
                        let after = reply.get_i32("numIndexesAfter").unwrap_or(before);
                        self.report.indexes = (after - before).max(0) as u64;
                    }
                }
            }
        }
        if !keep || (self.report.stopped && self.options.stop_on_error) {
            if let Some(mark) = self.mark.take() {
                db.roll_back_import(mark);
            }
        }
        self.report
    }
}

/// The ObjectIds an [`IdSpec`] makes, in order: the driver's layout (time, 5 random bytes,
/// counter).
struct ObjectIds {
    time: u32,
    random: [u8; 5],
    counter: u32,
}

impl ObjectIds {
    fn new(spec: IdSpec) -> ObjectIds {
        // splitmix64 of the seed: the random bytes and the counter's start.
        let mut z = spec.seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let mut random = [0u8; 5];
        random.copy_from_slice(&z.to_le_bytes()[..5]);
        ObjectIds { time: spec.time, random, counter: (z >> 40) as u32 & 0x00ff_ffff }
    }

    fn next(&mut self) -> bson::oid::ObjectId {
        let mut b = [0u8; 12];
        b[..4].copy_from_slice(&self.time.to_be_bytes());
        b[4..9].copy_from_slice(&self.random);
        self.counter = (self.counter + 1) & 0x00ff_ffff;
        b[9..].copy_from_slice(&self.counter.to_be_bytes()[1..]);
        bson::oid::ObjectId::from_bytes(b)
    }
}

/// `Some(message)` for a command's error reply.
fn command_error(reply: &Document) -> Option<String> {
    let ok = match reply.get("ok") {
        Some(Bson::Double(f)) => *f != 0.0,
        Some(Bson::Int32(i)) => *i != 0,
        _ => false,
    };
    if ok {
        return None;
    }
    let msg = reply.get_str("errmsg").unwrap_or("command failed");
    let name = reply.get_str("codeName").unwrap_or("");
    Some(if name.is_empty() { msg.to_string() } else { format!("{name}: {msg}") })
}

fn reply_n(reply: &Document) -> u64 {
    match reply.get("n") {
        Some(Bson::Int32(n)) => *n as u64,
        Some(Bson::Int64(n)) => *n as u64,
        _ => 0,
    }
}

/// A file of a dump folder: its path inside the folder (`shop/orders.bson`) and its bytes.
pub struct DumpFile<'a> {
    pub path: &'a str,
    pub bytes: &'a [u8],
}

/// Imports a `mongodump` folder (or one database's folder): each `<db>/<coll>.bson` with its
/// `<coll>.metadata.json` goes to `<db>.<coll>` (`default_db` for files with no folder);
/// metadata without a `.bson` creates the collection or view alone; what is left out is
/// [`plan_dump`]'s; compressed (`.gz`) files are reported, not read.
pub fn import_dump(db: &mut Database, default_db: &str, files: &[DumpFile<'_>], options: &Options) -> Vec<Report> {
    let paths: Vec<&str> = files.iter().map(|f| f.path).collect();
    let DumpPlan { entries, compressed } = plan_dump(default_db, &paths);
    let mut reports: Vec<Report> = compressed
        .into_iter()
        .map(|(i, db_name)| {
            let path = paths.get(i).copied().unwrap_or_default();
            let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
            Report {
                file: path.to_string(),
                db: db_name,
                collection: collection_name_for(base.trim_end_matches(".gz")),
                errors: vec![ImportError { file: path.to_string(), line: None, offset: None, message: COMPRESSED.into() }],
                failed: 0,
                stopped: true,
                ..Report::default()
            }
        })
        .collect();
    let mut opts = options.clone();
    opts.format = Format::Bson;
    for DumpEntry { db: db_name, collection: coll, data, metadata } in entries {
        let (data, meta) = (data.and_then(|i| files.get(i)), metadata.and_then(|i| files.get(i)));
        let (file, bytes) = match data {
            Some(d) => (d.path, d.bytes),
            None => (meta.map(|m| m.path).unwrap_or(""), &[][..]),
        };
        let report = import_with_metadata(db, &db_name, &coll, file, bytes, meta.map(|m| (m.path, m.bytes)), &opts);
        let stop = report.stopped && options.stop_on_error;
        reports.push(report);
        if stop {
            break;
        }
    }
    reports
}

/// The options of [`import_request`] (JSON, camelCase), as the bindings and the Node runner give
/// them.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RequestOptions {
    /// Default true.
    pub stop_on_error: Option<bool>,
    pub batch_size: Option<usize>,
    pub columns_have_types: Option<bool>,
    /// `autoCast`, `skipField`, `skipRow`, `stop` (the default).
    pub parse_grace: Option<String>,
    pub ignore_blanks: bool,
    /// The `.metadata.json` text of a `.bson` file, and its file name.
    pub metadata: Option<String>,
    pub metadata_file: Option<String>,
    /// The format by name, when the request's is empty and the file's name should not decide it
    /// (a dump collection with metadata but no `.bson`, named after its `.metadata.json`).
    pub format: Option<String>,
    /// The ObjectIds given to documents without an `_id`, as a client gives them (mongoimport's
    /// driver does): `{ time: <seconds>, seed: <number> }` makes them the same at every import of
    /// the file (the playground's log replays imports). Without it the server generates them.
    pub ids: Option<IdSpec>,
}

/// How [`RequestOptions::ids`] are made: the seconds of each ObjectId, and a seed for its 5
/// random bytes and the start of its 3-byte counter.
#[derive(Debug, Clone, Copy, Default, serde::Deserialize)]
pub struct IdSpec {
    pub time: u32,
    pub seed: u64,
}

/// One import as the bindings ask for it: `format` by name (empty: from the file name),
/// `options` a JSON object ([`RequestOptions`], empty text for the defaults). Bad options are
/// reported in the report, never a panic.
pub fn import_request(db: &mut Database, file: &str, bytes: Vec<u8>, format: &str, db_name: &str, collection: &str, options: &str) -> Report {
    begin_request(db, file, bytes, format, db_name, collection, options).finish(db, true)
}

/// [`import_request`] in slices: the [`Import`] begun (one that bad options ended already
/// reports them and undoes nothing).
pub fn begin_request(db: &mut Database, file: &str, bytes: Vec<u8>, format: &str, db_name: &str, collection: &str, options: &str) -> Import {
    let fail = |message: String| Import::failed(Report {
        file: file.to_string(),
        db: db_name.to_string(),
        collection: collection.to_string(),
        failed: 0,
        errors: vec![ImportError { file: file.to_string(), line: None, offset: None, message }],
        stopped: true,
        ..Report::default()
    });
    let req: RequestOptions = if options.trim().is_empty() {
        RequestOptions::default()
    } else {
        match serde_json::from_str(options) {
            Ok(o) => o,
            Err(e) => return fail(format!("invalid import options: {e}")),
        }
    };
    let format = match (format, &req.format) {
        ("", Some(by_options)) => Format::parse(by_options),
        ("", None) => Format::from_file_name(file),
        (given, _) => Format::parse(given),
    };
    let Some(format) = format else {
        return fail("unknown format: give one of json, jsonl, jsonArray, bson, csv, tsv (or a file name ending so)".into());
    };
    let collection = if collection.is_empty() { collection_name_for(file) } else { collection.to_string() };
    let db_name = if db_name.is_empty() { crate::db::DEFAULT_DB } else { db_name };
    let mut opts = Options::new(format);
    opts.stop_on_error = req.stop_on_error.unwrap_or(true);
    opts.ids = req.ids;
    opts.batch_size = req.batch_size.unwrap_or(DEFAULT_BATCH).clamp(1, 100_000);
    opts.csv.columns_have_types = req.columns_have_types;
    opts.csv.ignore_blanks = req.ignore_blanks;
    opts.csv.parse_grace = match req.parse_grace.as_deref() {
        None | Some("stop") => ParseGrace::Stop,
        Some("autoCast") => ParseGrace::AutoCast,
        Some("skipField") => ParseGrace::SkipField,
        Some("skipRow") => ParseGrace::SkipRow,
        Some(other) => return fail(format!("invalid parse grace: {other}")),
    };
    let meta_name = req.metadata_file.clone().unwrap_or_else(|| format!("{collection}.metadata.json"));
    let meta = req.metadata.as_deref().map(|m| (meta_name.as_str(), m.as_bytes()));
    Import::begin(db, db_name, &collection, file, bytes, meta, &opts)
}
