//! Server-level commands: `ping`, `buildInfo`, `hello`/`isMaster`, `serverStatus`, `getMore`,
//! `killCursors`, `connectionStatus`.

use bson::{doc, Bson, Document};

use crate::error::Result;

use super::super::args::{self, Fields};
use super::super::validate::MAX_USER_SIZE;
use super::super::Database;
use super::insert::MAX_BATCH;
use super::Ctx;

/// The server version the engine answers as.
pub const VERSION: &str = "8.0.0";
/// The wire version of MongoDB 8.0.
const MAX_WIRE_VERSION: i32 = 25;

pub(super) fn ping(_db: &mut Database, _ctx: &mut Ctx, _cmd: &Document) -> Result<Document> {
    Ok(Document::new())
}

pub(super) fn build_info(_db: &mut Database, _ctx: &mut Ctx, _cmd: &Document) -> Result<Document> {
    Ok(doc! {
        "version": VERSION,
        "gitVersion": "pattern-playground",
        "modules": Vec::<Bson>::new(),
        "allocator": "system",
        "javascriptEngine": "none",
        "sysInfo": "deprecated",
        "versionArray": [8, 0, 0, 0],
        "bits": 64,
        "debug": false,
        "maxBsonObjectSize": MAX_USER_SIZE as i32,
        "storageEngines": ["inMemory"],
    })
}

fn hello_fields(ctx: &Ctx, primary_field: &str) -> Document {
    doc! {
        primary_field: true,
        "topologyVersion": {"processId": bson::oid::ObjectId::from_bytes([0; 12]), "counter": 0i64},
        "maxBsonObjectSize": MAX_USER_SIZE as i32,
        "maxMessageSizeBytes": 48_000_000,
        "maxWriteBatchSize": MAX_BATCH as i32,
        "localTime": Bson::DateTime(ctx.env.now),
        "logicalSessionTimeoutMinutes": 30,
        "connectionId": 1,
        "minWireVersion": 0,
        "maxWireVersion": MAX_WIRE_VERSION,
        "readOnly": false,
    }
}

pub(super) fn hello(db: &mut Database, ctx: &mut Ctx, _cmd: &Document) -> Result<Document> {
    Ok(with_topology(db, hello_fields(ctx, "isWritablePrimary")))
}

pub(super) fn is_master(db: &mut Database, ctx: &mut Ctx, _cmd: &Document) -> Result<Document> {
    Ok(with_topology(db, hello_fields(ctx, "ismaster")))
}

/// A one-member replica set's `hello` also names the set and its member.
fn with_topology(db: &Database, mut reply: Document) -> Document {
    if db.topology() == crate::db::Topology::ReplicaSet {
        reply.extend(crate::db::txn::replica_set_fields());
    }
    reply
}

/// `commitTransaction`/`abortTransaction` that reached the command table: not in a transaction.
pub(super) fn outside_transaction(_db: &mut Database, _ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let name = cmd.keys().next().map(String::as_str).unwrap_or_default();
    Err(crate::error::Error::new(crate::error::ErrorKind::InvalidOptions, format!("{name} must be run within a transaction")))
}

/// `getMore`: the next batch of an open cursor (`db::cursors`).
pub(super) fn get_more(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let id = match cmd.get("getMore") {
        Some(Bson::Int64(i)) => *i,
        Some(other) => return Err(args::wrong_type("getMore", other, "long")),
        None => return Err(args::missing("getMore")),
    };
    let f = Fields::new(cmd, "getMore");
    let Some(collection) = f.string("collection")? else {
        return Err(args::missing("getMore.collection"));
    };
    let batch_size = f.non_negative("batchSize")?;
    let dbname = ctx.db.clone();
    db.get_more(&dbname, id, collection, batch_size, &mut ctx.batch)
}

/// `killCursors`: closes open cursors of the named collection.
pub(super) fn kill_cursors(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let f = Fields::new(cmd, "killCursors");
    let coll = match cmd.get("killCursors") {
        Some(Bson::String(s)) => s.clone(),
        Some(other) => return Err(args::wrong_type("killCursors", other, "string")),
        None => return Err(args::missing("killCursors")),
    };
    let mut ids = Vec::new();
    for (i, v) in f.required_array("cursors")?.iter().enumerate() {
        match v {
            Bson::Int64(n) => ids.push(*n),
            other => return Err(args::wrong_type(&format!("killCursors.cursors.{i}"), other, "long")),
        }
    }
    let (killed, not_found) = db.kill_cursors(&format!("{}.{coll}", ctx.db), &ids);
    let longs = |v: Vec<i64>| v.into_iter().map(Bson::Int64).collect::<Vec<_>>();
    Ok(doc! {
        "cursorsKilled": longs(killed),
        "cursorsNotFound": longs(not_found),
        "cursorsAlive": Vec::<Bson>::new(),
        "cursorsUnknown": Vec::<Bson>::new(),
    })
}

/// `serverStatus`: what a standalone 8.0 reports of itself, for the sections that mean
/// something here (host, version, uptime, connections, storage engine).
pub(super) fn server_status(_db: &mut Database, ctx: &mut Ctx, _cmd: &Document) -> Result<Document> {
    Ok(doc! {
        "host": "playground",
        "version": VERSION,
        "process": "mongod",
        "pid": 1i64,
        "uptime": 0.0,
        "uptimeMillis": 0i64,
        "uptimeEstimate": 0i64,
        "localTime": Bson::DateTime(ctx.env.now),
        "connections": {"current": 1, "available": 0, "totalCreated": 1, "active": 1},
        "storageEngine": {"name": "inMemory", "supportsCommittedReads": true, "persistent": false, "backupCursorOpen": false},
    })
}

pub(super) fn connection_status(_db: &mut Database, _ctx: &mut Ctx, _cmd: &Document) -> Result<Document> {
    Ok(doc! {"authInfo": {"authenticatedUsers": [], "authenticatedUserRoles": []}})
}
