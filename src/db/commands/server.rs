//! Server-level commands: `ping`, `buildInfo`, `hello`/`isMaster`, `getMore`, `killCursors`,
//! `connectionStatus`.

use bson::{doc, Bson, Document};

use crate::error::{Error, ErrorKind, Result};

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

pub(super) fn hello(_db: &mut Database, ctx: &mut Ctx, _cmd: &Document) -> Result<Document> {
    Ok(hello_fields(ctx, "isWritablePrimary"))
}

pub(super) fn is_master(_db: &mut Database, ctx: &mut Ctx, _cmd: &Document) -> Result<Document> {
    Ok(hello_fields(ctx, "ismaster"))
}

/// Every result goes in the first batch, so no cursor ever stays open.
pub(super) fn get_more(_db: &mut Database, _ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let id = match cmd.get("getMore") {
        Some(Bson::Int64(i)) => *i,
        Some(other) => return Err(args::wrong_type("getMore", other, "long")),
        None => return Err(args::missing("getMore")),
    };
    let f = Fields::new(cmd, "getMore");
    if f.string("collection")?.is_none() {
        return Err(args::missing("getMore.collection"));
    }
    Err(Error::new(ErrorKind::CursorNotFound, format!("cursor id {id} not found")))
}

pub(super) fn kill_cursors(_db: &mut Database, _ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let f = Fields::new(cmd, "killCursors");
    let ids = f.required_array("cursors")?.clone();
    Ok(doc! {
        "cursorsKilled": Vec::<Bson>::new(),
        "cursorsNotFound": ids,
        "cursorsAlive": Vec::<Bson>::new(),
        "cursorsUnknown": Vec::<Bson>::new(),
    })
}

pub(super) fn connection_status(_db: &mut Database, _ctx: &mut Ctx, _cmd: &Document) -> Result<Document> {
    Ok(doc! {"authInfo": {"authenticatedUsers": [], "authenticatedUserRoles": []}})
}
