//! Sessions and multi-document transactions, as a one-member replica set runs them (what an Atlas
//! cluster gives; a standalone server refuses them, and so does the engine in
//! [`Topology::Standalone`]).
//!
//! A transaction's commands carry `lsid`, `txnNumber` and `autocommit: false`, the first also
//! `startTransaction: true` (the drivers add them; the runtime's `ClientSession` does here). The
//! engine runs them on the live collections, after keeping each collection's state from before
//! the transaction's first write to it (`before`). So:
//! - the transaction reads its own writes;
//! - `abortTransaction`, an error in any of its commands, or `endSessions` put the `before`
//!   collections back: nothing of it remains;
//! - `commitTransaction` forgets `before`: everything stays;
//! - a command outside the transaction reads the `before` collections (swapped in for that
//!   command and out again), as snapshot isolation shows other clients only committed data;
//! - a write outside the transaction to a collection it wrote would wait for the transaction on
//!   a server until the transaction's lifetime (60 s) ended and aborted it; here the transaction
//!   is aborted at once and the write applied, and the transaction's next command gets
//!   `NoSuchTransaction` with the `TransientTransactionError` label, as it would there.
//!
//! Not modelled: several transactions open at once (the engine runs one at a time and says so),
//! prepared transactions, `readConcern: snapshot`'s cluster times, retryable writes.

use std::collections::HashMap;

use bson::{Bson, Document};

use super::{Collection, Database};
use crate::error::{Error, ErrorKind, Result};

/// What the server is: transactions need a replica set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Topology {
    /// `mongod` started alone: no transactions, `w` above 1 refused.
    #[default]
    Standalone,
    /// `mongod` as the only member of a replica set (`rs0`).
    ReplicaSet,
}

/// The commands a transaction may run (the server's list, less sharding's own).
const ALLOWED: &[&str] = &[
    "find", "aggregate", "distinct", "getMore", "killCursors", "insert", "update", "delete", "findAndModify",
    "findandmodify", "create", "createIndexes", "bulkWrite", "commitTransaction", "abortTransaction",
];

/// The open transaction and how earlier ones ended.
#[derive(Debug, Clone, Default)]
pub(crate) struct Transactions {
    active: Option<Active>,
    /// Per session (its `lsid` as bytes): the last transaction number it used and whether that
    /// transaction committed.
    ended: HashMap<Vec<u8>, (i64, bool)>,
}

#[derive(Debug, Clone)]
struct Active {
    lsid: Vec<u8>,
    number: i64,
    /// Set when the transaction was aborted by an error or by an outside write; its commands
    /// then fail with `NoSuchTransaction` until a new one starts.
    aborted: bool,
    /// Each collection the transaction wrote, as it was before (None: it did not exist).
    before: Vec<((String, String), Option<Collection>)>,
}

/// The session fields of a command.
struct SessionInfo {
    lsid: Vec<u8>,
    number: Option<i64>,
    autocommit: Option<bool>,
    start: Option<bool>,
}

fn session_info(cmd: &Document) -> Result<Option<SessionInfo>> {
    let lsid = match cmd.get("lsid") {
        None => return Ok(None),
        Some(Bson::Document(d)) => d.to_vec().map_err(|e| Error::new(ErrorKind::InvalidBSON, e.to_string()))?,
        Some(_) => return Err(Error::type_mismatch("BSON field 'OperationSessionInfo.lsid' is the wrong type, expected type 'object'")),
    };
    let number = match cmd.get("txnNumber") {
        None => None,
        Some(Bson::Int64(n)) => Some(*n),
        Some(Bson::Int32(n)) => Some(*n as i64),
        Some(_) => return Err(Error::type_mismatch("BSON field 'OperationSessionInfo.txnNumber' is the wrong type, expected type 'long'")),
    };
    let flag = |k: &str| match cmd.get(k) {
        None => Ok(None),
        Some(Bson::Boolean(b)) => Ok(Some(*b)),
        Some(_) => Err(Error::type_mismatch(format!("BSON field 'OperationSessionInfo.{k}' is the wrong type, expected type 'bool'"))),
    };
    Ok(Some(SessionInfo { lsid, number, autocommit: flag("autocommit")?, start: flag("startTransaction")? }))
}

fn aborted(number: i64) -> Error {
    transient(Error::new(ErrorKind::NoSuchTransaction, format!("Transaction with {{ txnNumber: {number} }} has been aborted.")))
}

/// NoSuchTransaction and WriteConflict are transient: retrying the whole transaction may succeed
/// (`isTransientTransactionError`).
fn transient(e: Error) -> Error {
    e.with_info(bson::doc! { "errorLabels": ["TransientTransactionError"] })
}

/// The namespace a write command writes, if it is one a transaction may make.
fn written(cmd: &Document, db: &str) -> Option<(String, String)> {
    let (name, target) = cmd.iter().next()?;
    match name.as_str() {
        "insert" | "update" | "delete" | "findAndModify" | "findandmodify" | "create" | "createIndexes" => {
            target.as_str().map(|c| (db.to_string(), c.to_string()))
        }
        _ => None,
    }
}

/// What [`before_command`] decided.
pub(crate) enum Route {
    /// Not part of a transaction, and nothing to hide from it.
    Plain,
    /// Outside the open transaction, reading: the `before` collections are swapped in.
    Outside,
    /// A command of the open transaction.
    Inside,
    /// `commitTransaction` or `abortTransaction`, already done: this reply.
    Done(Document),
}

impl Database {
    /// Decides how `cmd` runs with respect to transactions, starting, checking or ending one.
    pub(crate) fn before_command(&mut self, cmd: &Document, db: &str) -> Result<Route> {
        let name = cmd.keys().next().map(String::as_str).unwrap_or_default();
        let info = session_info(cmd)?;
        if name == "endSessions" {
            if let Some(Bson::Array(ids)) = cmd.get("endSessions") {
                for id in ids.iter().filter_map(Bson::as_document) {
                    let key = id.to_vec().unwrap_or_default();
                    if self.txns.active.as_ref().is_some_and(|a| a.lsid == key) {
                        self.abort_active();
                    }
                }
            }
            return Ok(Route::Plain);
        }
        let Some(info) = info.filter(|i| i.autocommit.is_some() || i.start.is_some()) else {
            if matches!(name, "commitTransaction" | "abortTransaction") {
                return Err(Error::new(ErrorKind::InvalidOptions, format!("{name} must be run within a transaction")));
            }
            return Ok(self.outside(cmd, db));
        };
        if info.autocommit == Some(true) {
            return Err(Error::new(ErrorKind::InvalidOptions, "Specifying autocommit=true is not allowed."));
        }
        let Some(number) = info.number else {
            return Err(Error::new(ErrorKind::InvalidOptions, "'autocommit' field requires a transaction number to also be specified"));
        };
        if self.topology != Topology::ReplicaSet {
            return Err(Error::new(ErrorKind::IllegalOperation, "Transaction numbers are only allowed on a replica set member or mongos"));
        }
        if info.autocommit.is_none() {
            return Err(Error::new(ErrorKind::InvalidOptions, "Must specify autocommit=false on all operations of a multi-statement transaction."));
        }
        if info.start == Some(false) {
            return Err(Error::new(ErrorKind::InvalidOptions, "'startTransaction' can only be set to true"));
        }
        if matches!(name, "commitTransaction" | "abortTransaction") && db != "admin" {
            return Err(Error::new(ErrorKind::Unauthorized, format!("{name} may only be run against the admin database.")));
        }
        if !ALLOWED.contains(&name) {
            return Err(Error::new(ErrorKind::OperationNotSupportedInTransaction, format!("Cannot run '{name}' in a multi-document transaction.")));
        }
        let current = self.txns.active.as_ref().filter(|a| a.lsid == info.lsid).map(|a| a.number);
        if info.start == Some(true) {
            let newest = current.or_else(|| self.txns.ended.get(&info.lsid).map(|(n, _)| *n));
            if let Some(n) = newest.filter(|n| *n >= number) {
                return Err(Error::new(
                    ErrorKind::TransactionTooOld,
                    format!("Cannot start transaction {number} on session because a newer transaction {n} has already started."),
                ));
            }
            if current.is_some() {
                self.abort_active();
            }
            if self.txns.active.is_some() {
                return Err(Error::new(ErrorKind::NotImplemented, "the playground runs one transaction at a time: commit or abort the open one first"));
            }
            self.txns.active = Some(Active { lsid: info.lsid, number, aborted: false, before: Vec::new() });
        } else {
            match (current, self.txns.ended.get(&info.lsid)) {
                (Some(n), _) if n == number => {}
                (None, Some(&(n, true))) if n == number => {
                    // A committed transaction: committing again is a retry; anything else is too late.
                    return match name {
                        "commitTransaction" => Ok(Route::Done(Document::new())),
                        _ => Err(Error::new(ErrorKind::TransactionCommitted, format!("Transaction with {{ txnNumber: {number} }} has been committed."))),
                    };
                }
                (None, Some(&(n, false))) if n == number => return Err(aborted(number)),
                (active, _) => {
                    return Err(transient(Error::new(
                        ErrorKind::NoSuchTransaction,
                        format!(
                            "Given transaction number {number} does not match any in-progress transactions. The active transaction number is {}",
                            active.unwrap_or(-1)
                        ),
                    )))
                }
            }
        }
        if self.txns.active.as_ref().is_some_and(|a| a.aborted) {
            return Err(aborted(number));
        }
        match name {
            "commitTransaction" => {
                if let Some(a) = self.txns.active.take() {
                    self.txns.ended.insert(a.lsid, (a.number, true));
                }
                Ok(Route::Done(Document::new()))
            }
            "abortTransaction" => {
                self.abort_active();
                Ok(Route::Done(Document::new()))
            }
            _ => {
                if name == "aggregate" {
                    if let Some(stage) = out_stage(cmd) {
                        return Err(Error::new(ErrorKind::OperationNotSupportedInTransaction, format!("{stage} cannot be used in a transaction")));
                    }
                }
                if let Some(ns) = written(cmd, db) {
                    self.keep_before(ns);
                }
                Ok(Route::Inside)
            }
        }
    }

    /// After a command of the open transaction: an error aborts the transaction.
    pub(crate) fn after_inside(&mut self, failed: bool) {
        if failed {
            if let Some(a) = &self.txns.active {
                let (lsid, number) = (a.lsid.clone(), a.number);
                self.abort_active();
                // Its later commands are told it was aborted.
                self.txns.active = Some(Active { lsid, number, aborted: true, before: Vec::new() });
            }
        }
    }

    /// A command outside the open transaction: a write to what the transaction wrote aborts it;
    /// anything else runs against the collections as they were before it.
    fn outside(&mut self, cmd: &Document, db: &str) -> Route {
        let Some(active) = &self.txns.active else { return Route::Plain };
        if active.before.is_empty() {
            return Route::Plain;
        }
        let name = cmd.keys().next().map(String::as_str).unwrap_or_default();
        let writes = super::commands::is_write_command(name) || out_stage(cmd).is_some();
        if writes {
            let touched = |ns: &(String, String)| active.before.iter().any(|(k, _)| k == ns);
            let hits = match written(cmd, db) {
                Some(ns) => touched(&ns),
                // Drops, renames, $out and $merge: conservatively, anything in the same database.
                None => active.before.iter().any(|((d, _), _)| d == db),
            };
            if hits {
                let (lsid, number) = (active.lsid.clone(), active.number);
                self.abort_active();
                self.txns.active = Some(Active { lsid, number, aborted: true, before: Vec::new() });
            }
            return Route::Plain;
        }
        self.swap_before();
        Route::Outside
    }

    /// Swaps the open transaction's `before` collections with the live ones (twice: back).
    pub(crate) fn swap_before(&mut self) {
        let Some(mut active) = self.txns.active.take() else { return };
        for ((db, name), before) in active.before.iter_mut() {
            let live = self.drop_collection(db, name);
            if let Some(c) = before.take() {
                self.insert_collection(db, c);
            }
            *before = live;
        }
        self.txns.active = Some(active);
    }

    /// Keeps a collection's state before the transaction's first write to it.
    fn keep_before(&mut self, ns: (String, String)) {
        let Some(active) = &self.txns.active else { return };
        if active.before.iter().any(|(k, _)| *k == ns) {
            return;
        }
        let copy = self.collection(&ns.0, &ns.1).cloned();
        if let Some(a) = self.txns.active.as_mut() {
            a.before.push((ns, copy));
        }
    }

    /// Puts back every collection the open transaction wrote, and ends it as aborted.
    fn abort_active(&mut self) {
        let Some(active) = self.txns.active.take() else { return };
        for ((db, name), before) in active.before.into_iter().rev() {
            self.drop_collection(&db, &name);
            if let Some(c) = before {
                self.insert_collection(&db, c);
            }
        }
        self.txns.ended.insert(active.lsid, (active.number, false));
    }
}

/// The name of an aggregation's `$out` or `$merge` stage, if it ends with one.
fn out_stage(cmd: &Document) -> Option<&'static str> {
    let Ok(pipeline) = cmd.get_array("pipeline") else { return None };
    let last = pipeline.last()?.as_document()?;
    if last.contains_key("$out") {
        Some("$out")
    } else if last.contains_key("$merge") {
        Some("$merge")
    } else {
        None
    }
}

/// `hello`'s replica set fields (a one-member set named `rs0`).
pub(crate) fn replica_set_fields() -> Document {
    bson::doc! {
        "hosts": ["localhost:27017"],
        "setName": "rs0",
        "setVersion": 1,
        "secondary": false,
        "primary": "localhost:27017",
        "me": "localhost:27017",
    }
}
