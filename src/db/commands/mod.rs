//! The command registry: one entry per command name (with the server's aliases), which also
//! decides `no such command`. Each handler returns the reply without `ok`; the dispatcher adds
//! `ok: 1` or turns the error into `{ ok: 0, errmsg, code, codeName }`.

mod advise;
mod aggregate;
mod collections;
mod count;
mod delete;
mod distinct;
mod explain;
mod find;
mod find_and_modify;
mod indexes;
pub(crate) mod insert;
mod merge;
mod preview;
mod schema;
mod server;
pub(crate) mod stats;
pub(crate) mod update;
mod validate;
pub(crate) mod write;

use bson::{Bson, Document};

use crate::env::{Cost, Env};
use crate::error::{Error, ErrorKind, Result};

use super::{Database, DEFAULT_DB};

/// What a command runs with.
pub(crate) struct Ctx {
    /// The database (`$db`, else `test`).
    pub db: String,
    pub env: Env,
    /// Set by a find whose results are stored documents returned as they are.
    pub batch: Option<Batch>,
    /// A write command's long array when the command came as bytes (see [`RawPart`]).
    pub raw: Option<RawPart>,
}

impl Ctx {
    /// The command's long array given as bytes, when `pick` takes its kind (else it stays).
    pub fn take_raw<T>(&mut self, pick: impl FnOnce(RawPart) -> std::result::Result<T, RawPart>) -> Option<T> {
        match pick(self.raw.take()?) {
            Ok(taken) => Some(taken),
            Err(other) => {
                self.raw = Some(other);
                None
            }
        }
    }
}

/// The one long array of a write command given as bytes, left out of the decoded command (which
/// holds an empty array in its place) so that a batch of 100 000 is not decoded at once: an
/// insert's documents, each as bytes ([`insert::split_raw`]), or an update's statements, as the
/// array's bytes ([`update::split_raw`]), each decoded when its turn comes.
pub(crate) enum RawPart {
    Documents(Vec<Option<insert::RawDoc>>),
    Statements(Vec<u8>),
}

/// A write command given as bytes whose first field is `name`, split at its one field `long`:
/// `take` reads that field's value (its checks are the caller's), every other field is decoded,
/// and the decoded command holds an empty array in the long field's place. `None` (the caller
/// decodes the whole command, as for any other) when the command is another, a field does not
/// read, a field other than the long one nests past the command's limit, the long field is
/// missing or repeated, or `take` refuses it.
pub(crate) fn split_raw_command<T>(
    raw: &bson::RawDocument,
    name: &str,
    long: &str,
    take: impl FnOnce(bson::RawBsonRef<'_>) -> Option<T>,
) -> Option<(Document, T)> {
    let (first, _) = raw.iter().next()?.ok()?;
    if first.as_str() != name {
        return None;
    }
    let mut take = Some(take);
    let mut cmd = Document::new();
    let mut taken = None;
    for item in raw {
        let (k, v) = item.ok()?;
        if k.as_str() == long {
            // (a second long field: `take` is gone)
            taken = Some(take.take()?(v)?);
            cmd.insert(long, Bson::Array(Vec::new()));
        } else {
            if crate::value::raw_value_nests_deeper_than(v, crate::value::MAX_NESTING) {
                return None;
            }
            cmd.insert(k.as_str(), crate::value::raw::decode_value(v).ok()?);
        }
    }
    Some((cmd, taken?))
}

/// The `cursor.firstBatch` of a reply as records of a collection of the command's database: the
/// reply carries an empty `firstBatch` and the documents are written straight from the
/// collection into the reply bytes (`Database::run_command_bytes`), or copied in for
/// `Database::run_command`. A find of a large document thus never copies it as a `Document`.
#[derive(Debug, Clone)]
pub(crate) struct Batch {
    pub collection: String,
    pub rids: Vec<u64>,
    /// The reply's field under `cursor`: `firstBatch`, or `nextBatch` for `getMore`.
    pub field: &'static str,
}

/// What a command returned: the reply (without `ok`) and, for finds, its first batch by record.
pub(super) struct Dispatched {
    pub reply: Document,
    pub db: String,
    pub batch: Option<Batch>,
}

type Handler = fn(&mut Database, &mut Ctx, &Document) -> Result<Document>;

/// Every command, by the names the server accepts.
const COMMANDS: &[(&str, Handler)] = &[
    ("insert", insert::run),
    ("find", find::run),
    ("update", update::run),
    ("delete", delete::run),
    ("findAndModify", find_and_modify::run),
    ("findandmodify", find_and_modify::run),
    ("count", count::run),
    ("distinct", distinct::run),
    ("aggregate", aggregate::run),
    ("create", collections::create),
    ("drop", collections::drop),
    ("dropDatabase", collections::drop_database),
    ("listCollections", collections::list_collections),
    ("renameCollection", collections::rename_collection),
    ("collMod", collections::coll_mod),
    ("listDatabases", collections::list_databases),
    ("createIndexes", indexes::create_indexes),
    ("listIndexes", indexes::list_indexes),
    ("dropIndexes", indexes::drop_indexes),
    ("deleteIndexes", indexes::drop_indexes),
    ("collStats", stats::coll_stats),
    ("dbStats", stats::db_stats),
    ("validate", validate::run),
    ("dbstats", stats::db_stats),
    ("explain", explain::run),
    ("ping", server::ping),
    ("buildInfo", server::build_info),
    ("buildinfo", server::build_info),
    ("hello", server::hello),
    ("isMaster", server::is_master),
    ("ismaster", server::is_master),
    ("getMore", server::get_more),
    ("killCursors", server::kill_cursors),
    ("endSessions", server::ping),
    // Answered by the transaction layer (db/txn.rs) when they belong to a transaction.
    ("commitTransaction", server::outside_transaction),
    ("abortTransaction", server::outside_transaction),
    ("connectionStatus", server::connection_status),
    ("serverStatus", server::server_status),
    ("ppPreviewUpdate", preview::run),
    ("ppAnalyzeSchema", schema::run),
    ("ppAdvise", advise::run),
];

/// The database a command runs in: its `$db`, else [`DEFAULT_DB`].
pub(super) fn command_db(cmd: &Document) -> Result<String> {
    match cmd.get("$db") {
        None => Ok(DEFAULT_DB.to_string()),
        Some(Bson::String(s)) if !s.is_empty() => Ok(s.clone()),
        Some(Bson::String(_)) => Err(Error::new(ErrorKind::InvalidNamespace, "Invalid database name: ''")),
        Some(other) => Err(super::args::wrong_type("$db", other, "string")),
    }
}

/// Runs one command in database `db_name` ([`command_db`]); returns the reply (or error) with
/// the operation's cost.
pub(super) fn dispatch(
    db: &mut Database,
    cmd: &Document,
    db_name: String,
    env: Env,
    raw: Option<RawPart>,
) -> std::result::Result<(Dispatched, Cost), (Error, Cost)> {
    let Some(name) = cmd.keys().next().cloned() else {
        return Err((Error::new(ErrorKind::FailedToParse, "no command specified"), Cost::default()));
    };
    let Some((_, handler)) = COMMANDS.iter().find(|(n, _)| *n == name) else {
        return Err((Error::new(ErrorKind::CommandNotFound, format!("no such command: '{name}'")), Cost::default()));
    };
    let concern_error = match check_write_concern(name.as_str(), cmd, db.topology()) {
        Ok(e) => e,
        Err(e) => return Err((e, Cost::default())),
    };
    let mut ctx = Ctx { db: db_name, env, batch: None, raw };
    let result = handler(db, &mut ctx, cmd);
    let cost = ctx.env.cost();
    match result {
        Ok(mut reply) => {
            if let Some(e) = concern_error {
                reply.insert("writeConcernError", e);
            }
            Ok((Dispatched { reply, db: ctx.db, batch: ctx.batch }, cost))
        }
        Err(e) => Err((e, cost)),
    }
}

/// True for the commands that change data (not `aggregate`, whose `$out`/`$merge` the caller
/// looks for).
pub(crate) fn is_write_command(name: &str) -> bool {
    matches!(
        name,
        "insert" | "update" | "delete" | "findAndModify" | "findandmodify" | "create" | "drop" | "dropDatabase"
            | "renameCollection" | "collMod" | "createIndexes" | "dropIndexes" | "deleteIndexes" | "bulkWrite"
    )
}

/// The commands that take a `writeConcern`.
const WRITE_CONCERN_COMMANDS: &[&str] = &[
    "insert", "update", "delete", "findAndModify", "findandmodify", "create", "drop", "dropDatabase",
    "renameCollection", "collMod", "createIndexes", "dropIndexes", "deleteIndexes", "aggregate",
];

/// A write concern's `w` as the server checks it (write_concern.cpp, `validateWriteConcern`). A
/// standalone refuses a count above one node and a tag set name outright. A one-member replica
/// set does the write, then reports that the concern could not be met (`writeConcernError`:
/// too few members for a count above one, no such mode for a tag set name).
fn check_write_concern(command: &str, cmd: &Document, topology: crate::db::Topology) -> Result<Option<Document>> {
    if !WRITE_CONCERN_COMMANDS.contains(&command) {
        return Ok(None);
    }
    let Some(Bson::Document(wc)) = cmd.get("writeConcern") else { return Ok(None) };
    let Some(w) = wc.get("w") else { return Ok(None) };
    let replica_set = topology == crate::db::Topology::ReplicaSet;
    if let Some(n) = crate::value::number::Number::from_bson(w).map(|n| n.to_f64()) {
        if !(0.0..=50.0).contains(&n) {
            return Err(Error::failed_to_parse(format!("w has to be a non-negative number and not greater than 50; found: {}", n as i64)));
        }
        if n >= 2.0 {
            if replica_set {
                return Ok(Some(bson::doc! {"code": 100, "codeName": "UnsatisfiableWriteConcern", "errmsg": "Not enough data-bearing nodes"}));
            }
            return Err(Error::bad_value("cannot use 'w' > 1 when a host is not replicated"));
        }
    } else if let Bson::String(mode) = w {
        if mode != "majority" {
            if replica_set {
                return Ok(Some(bson::doc! {
                    "code": 79,
                    "codeName": "UnknownReplWriteConcern",
                    "errmsg": format!("No write concern mode named '{mode}' found in replica set configuration"),
                }));
            }
            return Err(Error::bad_value(format!(
                "cannot use non-majority 'w' mode \"{mode}\" when a host is not a member of a replica set"
            )));
        }
    }
    Ok(None)
}

/// Evaluates a command's `let` option into variables for the environment.
pub(crate) fn let_vars(ctx: &mut Ctx, spec: Option<&Document>) -> Result<()> {
    let Some(spec) = spec else { return Ok(()) };
    let mut scope = crate::expr::VarScope::default();
    scope.names.extend(ctx.env.vars.keys().cloned());
    let empty = Document::new();
    for (name, v) in spec {
        validate_var_name(name)?;
        let e = crate::expr::Expr::parse(v, &scope)?;
        let val = e.evaluate(&empty, &ctx.env)?.unwrap_or(Bson::Undefined);
        ctx.env.vars.insert(name.clone(), val);
        scope.names.push(name.clone());
    }
    Ok(())
}

/// The user variables in scope: the command's `let`.
pub(crate) fn let_scope(ctx: &Ctx) -> crate::expr::VarScope {
    crate::expr::VarScope::with_names(ctx.env.vars.keys().cloned())
}

/// A command's `let` name (the server's `validateVariable` in variables.cpp): a user variable
/// name, else one of the system variables, which only internal clients may set.
fn validate_var_name(name: &str) -> Result<()> {
    const SYSTEM: [&str; 5] = ["NOW", "CLUSTER_TIME", "JS_SCOPE", "IS_MR", "USER_ROLES"];
    crate::expr::validate_name_for_write(name).map_err(|e| {
        if SYSTEM.contains(&name) {
            Error::code(4738901, format!("Attempt to set internal constant: {name}"))
        } else {
            e.add_context("Invalid 'let' parameter")
        }
    })
}

/// A count as the server's `appendNumber` writes it: int32 when it fits, else int64.
pub(crate) fn number(n: i64) -> Bson {
    match i32::try_from(n) {
        Ok(i) => Bson::Int32(i),
        Err(_) => Bson::Int64(n),
    }
}

/// A cursor reply with everything in the first batch.
pub(crate) fn cursor_reply(ns: &str, docs: Vec<Document>) -> Document {
    let batch: Vec<Bson> = docs.into_iter().map(Bson::Document).collect();
    let mut cursor = Document::new();
    cursor.insert("firstBatch", batch);
    cursor.insert("id", Bson::Int64(0));
    cursor.insert("ns", ns.to_string());
    let mut reply = Document::new();
    reply.insert("cursor", cursor);
    reply
}
