//! Sessions and multi-document transactions, as a one-member replica set runs them (what an Atlas
//! cluster gives; a standalone server refuses them, and so does the engine in
//! [`Topology::Standalone`]).
//!
//! A transaction's commands carry `lsid`, `txnNumber` and `autocommit: false`, the first also
//! `startTransaction: true` (the drivers add them; the runtime's `ClientSession` does here). The
//! engine runs them on the live collections. Before the transaction's first write to a collection
//! that exists, the collection starts an undo log (`Collection::start_journal`): from then on each
//! of its write paths (insert, update, replace, delete, ...) logs the state of a record it is about
//! to change, once per record (its prior bytes, or "absent" for an insert), and the log knows how
//! many indexes there were; a collection the transaction creates (`create`, an implicit create,
//! `createIndexes`) is noted as created. The log's size is the transaction's writes, never the
//! collection's. So:
//! - the transaction reads its own writes;
//! - `abortTransaction`, an error in any of its commands, or `endSessions` replay the logs (each
//!   touched record goes back to its logged state through the collection's own index upkeep,
//!   the indexes the transaction built are dropped) and drop the collections it created:
//!   nothing of it remains;
//! - `commitTransaction` drops the logs: everything stays;
//! - a command outside the transaction sees the data as before it: the logged states are swapped
//!   in for that command (and out again), and the collections it created are taken out of the
//!   catalog, as snapshot isolation shows other clients only committed data; the swap costs the
//!   transaction's writes, not the collections' sizes;
//! - a write outside the transaction to a collection it wrote would wait for the transaction on
//!   a server until the transaction's lifetime (60 s) ended and aborted it; here the transaction
//!   is aborted at once and the write applied, and the transaction's next command gets
//!   `NoSuchTransaction` with the `TransientTransactionError` label, as it would there. (The
//!   conflict is per collection, where the server's is per document.)
//!
//! Not modelled: several transactions open at once (the engine runs one at a time and says so),
//! prepared transactions, `readConcern: snapshot`'s cluster times, retryable writes; a record id
//! the aborted transaction used is not reused (nor is it on a server), and an index it made
//! multikey stays multikey.

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
    /// Each collection the transaction wrote, in the order of its first write, and whether it
    /// existed before (its undo log is then kept in the collection; otherwise the transaction
    /// created it, and an abort drops it).
    touched: Vec<((String, String), bool)>,
    /// True while an outside command runs with the transaction's changes swapped out.
    swapped: bool,
    /// While swapped: the collections the transaction created, taken out of the catalog.
    hidden: Vec<Collection>,
}

impl Active {
    fn new(lsid: Vec<u8>, number: i64, aborted: bool) -> Active {
        Active { lsid, number, aborted, touched: Vec::new(), swapped: false, hidden: Vec::new() }
    }
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
    /// Outside the open transaction, reading: the state before the transaction is swapped in.
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
            self.txns.active = Some(Active::new(info.lsid, number, false));
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
                self.commit_active();
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
                self.txns.active = Some(Active::new(lsid, number, true));
            }
        }
    }

    /// A command outside the open transaction: a write to what the transaction wrote aborts it;
    /// anything else runs against the collections as they were before it.
    fn outside(&mut self, cmd: &Document, db: &str) -> Route {
        let Some(active) = &self.txns.active else { return Route::Plain };
        if active.touched.is_empty() {
            return Route::Plain;
        }
        let name = cmd.keys().next().map(String::as_str).unwrap_or_default();
        let writes = super::commands::is_write_command(name) || out_stage(cmd).is_some();
        if writes {
            let touched = |ns: &(String, String)| active.touched.iter().any(|(k, _)| k == ns);
            let hits = match written(cmd, db) {
                Some(ns) => touched(&ns),
                // Drops, renames, $out and $merge: conservatively, anything in the same database.
                None => active.touched.iter().any(|((d, _), _)| d == db),
            };
            if hits {
                let (lsid, number) = (active.lsid.clone(), active.number);
                self.abort_active();
                self.txns.active = Some(Active::new(lsid, number, true));
            }
            return Route::Plain;
        }
        self.swap_before();
        Route::Outside
    }

    /// Swaps what the open transaction changed with what was there before (twice: back): each
    /// collection it wrote exchanges its touched records with their logged states (see
    /// `Collection::swap_journal`), and each collection it created is taken out of the catalog
    /// (or put back). Cost: the transaction's writes, not the collections' sizes.
    pub(crate) fn swap_before(&mut self) {
        let Some(mut active) = self.txns.active.take() else { return };
        for ((db, name), existed) in &active.touched {
            if *existed {
                if let Some(c) = self.collection_mut(db, name) {
                    c.swap_journal();
                }
            } else if active.swapped {
                if let Some(i) = active.hidden.iter().position(|c| c.ns == format!("{db}.{name}")) {
                    let c = active.hidden.swap_remove(i);
                    self.insert_collection(db, c);
                }
            } else if let Some(c) = self.drop_collection(db, name) {
                active.hidden.push(c);
            }
        }
        active.swapped = !active.swapped;
        self.txns.active = Some(active);
    }

    /// For a command of the open transaction: whether the transaction created collection
    /// `db.name` (or is creating it: it did not exist before the command). `None` for any other
    /// command.
    pub(crate) fn created_in_transaction(&self, db: &str, name: &str) -> Option<bool> {
        let active = self.txns.active.as_ref().filter(|_| self.txn_inside)?;
        Some(active.touched.iter().any(|((d, n), existed)| d == db && n == name && !existed))
    }

    /// Before the transaction's first write to a collection: starts the collection's undo log,
    /// or notes that the transaction creates it.
    fn keep_before(&mut self, ns: (String, String)) {
        let Some(active) = &self.txns.active else { return };
        if active.touched.iter().any(|(k, _)| *k == ns) {
            return;
        }
        let existed = match self.collection_mut(&ns.0, &ns.1) {
            Some(c) => {
                c.start_journal();
                true
            }
            None => false,
        };
        if let Some(a) = self.txns.active.as_mut() {
            a.touched.push((ns, existed));
        }
    }

    /// Commits the open transaction: its undo logs are dropped.
    fn commit_active(&mut self) {
        let Some(active) = self.txns.active.take() else { return };
        for ((db, name), existed) in &active.touched {
            if let (true, Some(c)) = (*existed, self.collection_mut(db, name)) {
                c.drop_journal();
            }
        }
        self.txns.ended.insert(active.lsid, (active.number, true));
    }

    /// Undoes everything the open transaction wrote (its undo logs replayed, the collections it
    /// created dropped), and ends it as aborted.
    fn abort_active(&mut self) {
        let Some(active) = self.txns.active.take() else { return };
        for ((db, name), existed) in active.touched.into_iter().rev() {
            if existed {
                if let Some(c) = self.collection_mut(&db, &name) {
                    c.undo_journal();
                }
            } else {
                self.drop_collection(&db, &name);
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
