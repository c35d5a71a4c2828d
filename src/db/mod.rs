//! Databases and collections in memory, CRUD and the server's command protocol.
//!
//! [`Database`] is the whole in-memory server: named databases (`test` unless a command carries
//! `$db`) holding [`Collection`]s. [`Database::run_command`] takes a command document and returns
//! the server's reply document; the commands live in `commands/`, one file per command family,
//! with one registry that also produces `no such command`.
//!
//! Every write records a [`WriteReport`] per document (paths changed, BSON sizes before and after),
//! the first [`MAX_WRITE_REPORTS`] of a command kept: see [`Database::last_write_report`].

mod args;
mod collection;
mod commands;
mod cursors;
pub mod index;
pub mod keystring;
pub mod keytree;
mod exec;
mod planner;
mod records;
mod report;
mod snapshot;
pub mod storage;
pub(crate) mod txn;
pub mod timeseries;
mod validate;
mod wire;
mod view;
mod wildcard;

use std::collections::BTreeMap;

use bson::{oid::ObjectId, Document};

use crate::aggregate::Catalog;
use crate::env::{Cost, Env};
use crate::error::{Error, ErrorKind, Result};

pub use collection::{Collection, Record};
pub use report::{WriteOp, WriteReport};
pub use txn::Topology;
pub use validate::MAX_USER_SIZE;

/// The most write reports a command keeps (see [`Database::last_write_report`]).
pub const MAX_WRITE_REPORTS: usize = 1000;

/// The database a command runs against when it carries no `$db`.
pub const DEFAULT_DB: &str = "test";

/// One in-memory server: databases by name, each a set of collections.
#[derive(Debug, Clone)]
pub struct Database {
    dbs: BTreeMap<String, Db>,
    clock: Clock,
    ids: IdGen,
    last_cost: Cost,
    reports: Vec<WriteReport>,
    /// The number of documents the last command wrote (`reports` keeps the first
    /// [`MAX_WRITE_REPORTS`]).
    reports_total: usize,
    cursors: cursors::Cursors,
    topology: Topology,
    txns: txn::Transactions,
    /// Set while a command outside the open transaction runs on the collections as they were
    /// before it (`txn.rs`); the caller swaps them back once the reply is written.
    txn_swapped: bool,
    /// Set while a command of the open transaction runs.
    txn_inside: bool,
}

/// The collections of one database, by name.
#[derive(Debug, Clone, Default)]
pub(crate) struct Db {
    pub collections: BTreeMap<String, Collection>,
}

/// See [`Database::import_mark`].
#[derive(Debug, Clone)]
pub(crate) struct ImportMark {
    db: String,
    name: String,
    ids: IdGen,
    kind: MarkKind,
}

#[derive(Debug, Clone)]
enum MarkKind {
    New { db_existed: bool },
    Appended(collection::AppendMark),
    Copy(Box<Collection>),
}

/// Where `$$NOW`, ObjectId timestamps and `Timestamp(0, 0)` replacements get the time from.
#[derive(Debug, Clone, Copy)]
enum Clock {
    /// The system clock (native targets).
    System,
    /// A fixed instant (tests, lessons, and wasm until the bindings set a clock).
    Fixed(i64),
    /// A function returning milliseconds since the epoch (the bindings pass `Date.now`).
    Func(fn() -> i64),
}

/// The generator of ObjectIds and collection UUIDs: a seeded xorshift for the random parts and
/// the driver's 3-byte counter.
#[derive(Debug, Clone)]
struct IdGen {
    state: u64,
    process: [u8; 5],
    counter: u32,
    ts_increment: u32,
}

impl IdGen {
    fn new(seed: u64) -> IdGen {
        let mut g = IdGen { state: seed.max(1), process: [0; 5], counter: 0, ts_increment: 0 };
        let r = g.next_u64();
        g.process.copy_from_slice(&r.to_le_bytes()[..5]);
        g.counter = (g.next_u64() & 0x00ff_ffff) as u32;
        g
    }

    fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn object_id(&mut self, secs: u32) -> ObjectId {
        let mut b = [0u8; 12];
        b[..4].copy_from_slice(&secs.to_be_bytes());
        b[4..9].copy_from_slice(&self.process);
        self.counter = (self.counter + 1) & 0x00ff_ffff;
        b[9..].copy_from_slice(&self.counter.to_be_bytes()[1..]);
        ObjectId::from_bytes(b)
    }

    fn uuid(&mut self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&self.next_u64().to_le_bytes());
        b[8..].copy_from_slice(&self.next_u64().to_le_bytes());
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        b
    }
}

impl Default for Database {
    fn default() -> Database {
        Database::new()
    }
}

/// The reply to a command nested deeper than the server accepts.
fn nesting_error() -> Error {
    Error::new(ErrorKind::Overflow, format!("BSONObj exceeded maximum nested object depth: {}", crate::value::MAX_NESTING))
}

impl Database {
    pub fn new() -> Database {
        let clock = if cfg!(target_arch = "wasm32") { Clock::Fixed(1_704_067_200_000) } else { Clock::System };
        let mut d = Database {
            dbs: BTreeMap::new(),
            clock,
            ids: IdGen::new(1),
            last_cost: Cost::default(),
            reports: Vec::new(),
            reports_total: 0,
            cursors: cursors::Cursors::default(),
            topology: Topology::default(),
            txns: txn::Transactions::default(),
            txn_swapped: false,
            txn_inside: false,
        };
        d.ids = IdGen::new(0x5EED ^ d.now_millis() as u64);
        d
    }

    /// What the server is: a standalone (the default) or the one member of a replica set, which
    /// runs multi-document transactions (the playground and `make script` are one).
    pub fn set_topology(&mut self, topology: Topology) {
        self.topology = topology;
    }

    pub fn topology(&self) -> Topology {
        self.topology
    }

    /// Fixes the clock at `millis` since the epoch (tests and reproducible lessons).
    pub fn set_fixed_time(&mut self, millis: i64) {
        self.clock = Clock::Fixed(millis);
    }

    /// Reads the time from `now` (milliseconds since the epoch), e.g. `Date.now` in the browser.
    pub fn set_clock(&mut self, now: fn() -> i64) {
        self.clock = Clock::Func(now);
    }

    /// Seeds the random parts of generated ObjectIds and UUIDs (reproducible lessons and tests).
    pub fn set_seed(&mut self, seed: u64) {
        self.ids = IdGen::new(seed);
    }

    fn now_millis(&self) -> i64 {
        match self.clock {
            Clock::Fixed(m) => m,
            Clock::Func(f) => f(),
            Clock::System => system_millis(),
        }
    }

    /// A new ObjectId (time from the database clock).
    pub fn new_object_id(&mut self) -> ObjectId {
        let secs = (self.now_millis().div_euclid(1000)).clamp(0, u32::MAX as i64) as u32;
        self.ids.object_id(secs)
    }

    fn new_uuid(&mut self) -> [u8; 16] {
        self.ids.uuid()
    }

    /// The next cluster-time-like timestamp (top-level `Timestamp(0, 0)` in inserts).
    fn next_timestamp(&mut self) -> bson::Timestamp {
        let secs = (self.now_millis().div_euclid(1000)).clamp(0, u32::MAX as i64) as u32;
        self.ids.ts_increment += 1;
        bson::Timestamp { time: secs, increment: self.ids.ts_increment }
    }

    /// Runs one server command (`{ insert: "c", documents: [..] }`, `{ find: "c", filter: {..} }`, ...)
    /// and returns the server's reply document: `{ ..., ok: 1 }` or
    /// `{ ok: 0, errmsg, code, codeName }`. Never panics on user input.
    pub fn run_command(&mut self, cmd: &Document) -> Document {
        let reply = match self.dispatch(cmd) {
            Ok(mut d) => match d.batch.as_ref().map(|batch| wire::batch_docs(self, &d.db, batch)) {
                Some(Err(e)) => e.to_reply(),
                Some(Ok(docs)) => {
                    if let (Ok(cursor), Some(batch)) = (d.reply.get_document_mut("cursor"), &d.batch) {
                        cursor.insert(batch.field, docs);
                    }
                    d.reply
                }
                None => d.reply,
            },
            Err(reply) => reply,
        };
        self.swap_back();
        reply
    }

    /// After a command outside the open transaction, once its reply is written: the
    /// transaction's collections go back in place.
    fn swap_back(&mut self) {
        if std::mem::take(&mut self.txn_swapped) {
            self.swap_before();
        }
    }

    /// [`Database::run_command`] with the reply as BSON bytes, written without copying the
    /// stored documents a find returns (what the WebAssembly bindings use).
    pub fn run_command_bytes(&mut self, cmd: &Document) -> Vec<u8> {
        let result = self.dispatch(cmd);
        let bytes = self.reply_bytes(result);
        self.swap_back();
        bytes
    }

    /// [`Database::run_command_bytes`] for a command given as BSON bytes (what the WebAssembly
    /// bindings receive). A command nested deeper than the server accepts is refused before it
    /// is decoded (decoding recurses), so the decoded command is not walked a second time.
    pub fn run_command_raw(&mut self, bytes: &[u8]) -> Vec<u8> {
        let raw = bson::RawDocument::from_bytes(bytes).ok();
        // An insert's documents are not decoded, nor an update's statements all at once (see
        // `insert::split_raw` and `update::split_raw`, which leave a command past the nesting
        // limit to the path below).
        let split = raw.and_then(|raw| {
            let insert = commands::insert::split_raw(raw).map(|(cmd, docs)| (cmd, commands::RawPart::Documents(docs)));
            insert.or_else(|| commands::update::split_raw(raw).map(|(cmd, statements)| (cmd, commands::RawPart::Statements(statements))))
        });
        if let Some((cmd, part)) = split {
            let result = self.execute(&cmd, Some(part));
            let bytes = self.reply_bytes(result);
            self.swap_back();
            return bytes;
        }
        let too_deep = raw.is_some_and(|raw| crate::value::raw_nests_deeper_than(raw, crate::value::MAX_NESTING));
        let result = if too_deep {
            self.refuse(nesting_error())
        } else {
            // The fast decoder; on bytes it refuses, the bson crate's reader, whose error the
            // reply names.
            match raw.and_then(|raw| crate::value::raw::decode(raw).ok()).map_or_else(|| Document::from_reader(bytes), Ok) {
                Ok(cmd) => self.execute(&cmd, None),
                Err(e) => self.refuse(Error::new(ErrorKind::InvalidBSON, format!("invalid BSON command: {e}"))),
            }
        };
        let bytes = self.reply_bytes(result);
        self.swap_back();
        bytes
    }

    /// A dispatch result as reply bytes: a find's stored documents are written straight from
    /// the collection.
    fn reply_bytes(&self, result: std::result::Result<commands::Dispatched, Document>) -> Vec<u8> {
        let encoded = match result {
            Ok(d) => wire::reply_bytes(self, &d.db, &d.reply, d.batch.as_ref()),
            Err(reply) => reply.to_vec().map_err(|e| Error::new(ErrorKind::InternalError, e.to_string())),
        };
        encoded.unwrap_or_else(|e| {
            let fallback = Error::new(ErrorKind::InternalError, format!("reply is not serializable: {}", e.message)).to_reply();
            fallback.to_vec().unwrap_or_default()
        })
    }

    /// Runs a command: the reply with `ok: 1` (and its first batch by record), or the error reply.
    fn dispatch(&mut self, cmd: &Document) -> std::result::Result<commands::Dispatched, Document> {
        if crate::value::nests_deeper_than(cmd, crate::value::MAX_NESTING) {
            // The server refuses such a message before running anything (`validateBSON`).
            return self.refuse(nesting_error());
        }
        self.execute(cmd, None)
    }

    /// A command refused before it runs: no cost, no writes.
    fn refuse(&mut self, e: Error) -> std::result::Result<commands::Dispatched, Document> {
        self.clear_reports();
        self.last_cost = Cost::default();
        Err(e.to_reply())
    }

    /// Runs a command already checked for nesting.
    fn execute(&mut self, cmd: &Document, raw: Option<commands::RawPart>) -> std::result::Result<commands::Dispatched, Document> {
        self.clear_reports();
        let db = match commands::command_db(cmd) {
            Ok(db) => db,
            Err(e) => return self.refuse(e),
        };
        let route = match self.before_command(cmd, &db) {
            Ok(route) => route,
            Err(e) => return self.refuse(e),
        };
        let inside = match route {
            txn::Route::Done(mut reply) => {
                self.last_cost = Cost::default();
                reply.insert("ok", 1.0);
                return Ok(commands::Dispatched { reply, db, batch: None });
            }
            txn::Route::Outside => {
                self.txn_swapped = true;
                false
            }
            txn::Route::Inside => true,
            txn::Route::Plain => false,
        };
        let env = Env::new(bson::DateTime::from_millis(self.now_millis()));
        self.txn_inside = inside;
        let result = commands::dispatch(self, cmd, db, env, raw);
        self.txn_inside = false;
        if inside {
            // In a transaction a write error fails the whole command (write_ops_exec.cpp,
            // `handleError`), and any failure aborts the transaction.
            if let Ok((d, cost)) = &result {
                if let Some(first) = d.reply.get_array("writeErrors").ok().and_then(|e| e.first()).and_then(bson::Bson::as_document) {
                    let mut reply = first.clone();
                    reply.remove("index");
                    let cost = cost.clone();
                    self.after_inside(true);
                    self.last_cost = cost;
                    let mut out = Document::new();
                    out.insert("ok", 0.0);
                    if let Ok(code) = reply.get_i32("code") {
                        out.insert("codeName", ErrorKind::from_code(code).code_name());
                    }
                    out.extend(reply);
                    return Err(out);
                }
            }
            self.after_inside(result.is_err());
        }
        match result {
            Ok((mut d, cost)) => {
                self.last_cost = cost;
                d.reply.insert("ok", 1.0);
                Ok(d)
            }
            Err((e, cost)) => {
                self.last_cost = cost;
                Err(e.to_reply())
            }
        }
    }

    /// The cost counters of the last command.
    pub fn last_cost(&self) -> Cost {
        self.last_cost.clone()
    }

    /// What the last command wrote: one entry per document inserted, updated, replaced or
    /// deleted, in the order the writes happened, for the first [`MAX_WRITE_REPORTS`] documents
    /// ([`Database::last_write_count`] counts them all).
    pub fn last_write_report(&self) -> &[WriteReport] {
        &self.reports
    }

    /// The number of documents the last command inserted, updated, replaced or deleted.
    pub fn last_write_count(&self) -> usize {
        self.reports_total
    }

    fn clear_reports(&mut self) {
        self.reports = Vec::new();
        self.reports_total = 0;
    }

    /// The whole database as bytes (collections, options, indexes, documents in natural order).
    pub fn snapshot(&self) -> Vec<u8> {
        snapshot::write(self)
    }

    /// Rebuilds a database from [`Database::snapshot`] bytes.
    pub fn restore(bytes: &[u8]) -> Result<Database> {
        snapshot::read(bytes)
    }

    /// The names of the databases that hold at least one collection.
    pub fn database_names(&self) -> Vec<String> {
        self.dbs.iter().filter(|(_, d)| !d.collections.is_empty()).map(|(n, _)| n.clone()).collect()
    }

    /// A collection, if it exists.
    pub fn collection(&self, db: &str, name: &str) -> Option<&Collection> {
        self.dbs.get(db)?.collections.get(name)
    }

    /// The collection names of a database, sorted.
    pub fn collection_names(&self, db: &str) -> Vec<String> {
        self.dbs.get(db).map(|d| d.collections.keys().cloned().collect()).unwrap_or_default()
    }

    pub(crate) fn collection_mut(&mut self, db: &str, name: &str) -> Option<&mut Collection> {
        self.dbs.get_mut(db)?.collections.get_mut(name)
    }

    /// The collection, created (implicitly, as a write does) when missing.
    pub(crate) fn collection_or_create(&mut self, db: &str, name: &str) -> Result<&mut Collection> {
        if self.collection(db, name).is_none() {
            self.create_collection(db, name, Document::new())?;
        }
        self.collection_mut(db, name).ok_or_else(|| Error::new(ErrorKind::InternalError, "collection vanished"))
    }

    /// Creates a collection (the caller checked that it does not exist).
    pub(crate) fn create_collection(&mut self, db: &str, name: &str, options: Document) -> Result<()> {
        let c = self.make_collection(db, name, options)?;
        self.insert_collection(db, c);
        Ok(())
    }

    /// A new empty collection, not yet in the catalog (validates the name).
    pub(crate) fn make_collection(&mut self, db: &str, name: &str, options: Document) -> Result<Collection> {
        validate_collection_name(db, name)?;
        let uuid = self.new_uuid();
        Ok(Collection::new(db, name, options, uuid))
    }

    /// Puts a collection into the catalog (replacing one of the same name).
    pub(crate) fn insert_collection(&mut self, db: &str, c: Collection) {
        self.dbs.entry(db.to_string()).or_default().collections.insert(c.name.clone(), c);
    }

    pub(crate) fn drop_collection(&mut self, db: &str, name: &str) -> Option<Collection> {
        self.dbs.get_mut(db)?.collections.remove(name)
    }

    /// What an import into `db.name` must put back to leave the server as it was
    /// ([`Database::roll_back_import`]): nothing but the id generator's state for a collection
    /// it creates (and whether the database existed), where the collection ended for one it
    /// appends to (inserts only append, to a time series collection too: its buckets are worked
    /// out from the measurements), a copy of one an open transaction logs. Cost: constant (the
    /// indexes' multikey paths), or the copied collection in that rare case.
    pub(crate) fn import_mark(&self, db: &str, name: &str) -> ImportMark {
        let kind = match self.collection(db, name) {
            None => MarkKind::New { db_existed: self.dbs.contains_key(db) },
            Some(c) if c.has_journal() => MarkKind::Copy(Box::new(c.clone())),
            Some(c) => MarkKind::Appended(c.append_mark()),
        };
        ImportMark { db: db.to_string(), name: name.to_string(), ids: self.ids.clone(), kind }
    }

    /// Undoes an import since `mark` (see [`Database::import_mark`]): the collection it created
    /// is dropped (and the database, if it made it), the documents and indexes it added to an
    /// existing one are removed. Cost: what the import added.
    pub(crate) fn roll_back_import(&mut self, mark: ImportMark) {
        let ImportMark { db, name, ids, kind } = mark;
        match kind {
            MarkKind::New { db_existed } => {
                self.drop_collection(&db, &name);
                if !db_existed && self.dbs.get(&db).is_some_and(|d| d.collections.is_empty()) {
                    self.dbs.remove(&db);
                }
            }
            MarkKind::Appended(m) => {
                if let Some(c) = self.collection_mut(&db, &name) {
                    c.truncate_to(m);
                }
            }
            MarkKind::Copy(c) => self.insert_collection(&db, *c),
        }
        self.ids = ids;
    }

    pub(crate) fn drop_database(&mut self, db: &str) {
        self.dbs.remove(db);
    }

    pub(crate) fn db(&self, db: &str) -> Option<&Db> {
        self.dbs.get(db)
    }

    /// Whether [`Database::report`] would keep the next report (so that its caller need not
    /// gather what it would hold).
    pub(crate) fn wants_report(&self) -> bool {
        self.reports.len() < MAX_WRITE_REPORTS
    }

    /// How many more write reports the command keeps (see [`Database::report`]).
    pub(crate) fn report_room(&self) -> usize {
        MAX_WRITE_REPORTS.saturating_sub(self.reports.len())
    }

    /// Counts `n` written documents whose reports are not kept (after [`Database::report_room`]
    /// reports).
    pub(crate) fn count_reports(&mut self, n: usize) {
        self.reports_total += n;
    }

    /// Counts one written document, and keeps its report (made by `r`, only then) while fewer
    /// than [`MAX_WRITE_REPORTS`] are kept: the reports of a command writing a million
    /// documents would take more memory than the documents, and nothing reads that many.
    pub(crate) fn report(&mut self, r: impl FnOnce() -> WriteReport) {
        self.reports_total += 1;
        if self.reports.len() < MAX_WRITE_REPORTS {
            self.reports.push(r());
        }
    }

    /// The catalog a pipeline of database `db` reads other collections through (`now` is the
    /// operation's `$$NOW`, for the pipelines of views).
    pub(crate) fn catalog<'a>(&'a self, db: &str, now: bson::DateTime) -> DbCatalog<'a> {
        DbCatalog { server: self, db: db.to_string(), now }
    }
}

/// Collections (and views) of one database, as `$lookup`/`$unionWith`/`$graphLookup` read them.
pub(crate) struct DbCatalog<'a> {
    server: &'a Database,
    db: String,
    now: bson::DateTime,
}

impl Catalog for DbCatalog<'_> {
    fn documents(&self, collection: &str) -> Vec<Document> {
        if let Ok(Some(view)) = self.server.resolve_view(&self.db, collection) {
            let env = Env::new(self.now);
            return self.server.view_documents(&self.db, &view, &[], &env).unwrap_or_default();
        }
        self.server
            .collection(&self.db, collection)
            .and_then(|c| c.documents().ok())
            .unwrap_or_default()
    }
}

/// The server's rules for collection names a user may create.
fn validate_collection_name(db: &str, name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::new(ErrorKind::InvalidNamespace, format!("Invalid namespace specified '{db}.'")));
    }
    if name.contains('$') || name.contains('\0') || name.starts_with('.') {
        return Err(Error::new(ErrorKind::InvalidNamespace, format!("Invalid collection name: {name}")));
    }
    if name.starts_with("system.") {
        return Err(Error::new(ErrorKind::InvalidNamespace, format!("Invalid system namespace: {db}.{name}")));
    }
    Ok(())
}

#[cfg(not(target_arch = "wasm32"))]
fn system_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

#[cfg(target_arch = "wasm32")]
fn system_millis() -> i64 {
    1_704_067_200_000
}
