//! Open cursors: what a `find` or `aggregate` has not returned yet, by cursor id, for `getMore`
//! and `killCursors`.
//!
//! A command computes its results once; the first batch is cut from them and the rest is kept
//! here (stored documents by record id, read again when a later batch is written, so a batch
//! shows documents as they are then and skips deleted ones; built documents as they are). A
//! `getMore` never runs the query again: it takes the next batch off the front.
//!
//! Batches follow the server (`FindCommon`): the first holds `batchSize` documents (101 when the
//! command gives none), a `getMore` `batchSize` documents (no count limit when it gives none),
//! and every batch stops before a document that would take it past 16 MiB (a batch always holds
//! at least one). The cursor closes (id 0) once the results are exhausted; a batch that is full
//! by count leaves it open when the server's plan could not know that no result follows (it
//! learns that on the next read), as a collection scan or a pipeline.

use std::collections::{BTreeMap, VecDeque};

use bson::{Bson, Document};

use crate::error::{Error, ErrorKind, Result};

use super::commands::Batch;
use super::validate::MAX_USER_SIZE;
use super::Database;

/// The server's first batch when the command gives no `batchSize` (`kDefaultBatchSize`).
pub const DEFAULT_FIRST_BATCH: i64 = 101;

/// The results a cursor has not returned yet.
#[derive(Debug, Clone)]
pub(crate) enum Rest {
    /// Record ids of a collection's stored documents, returned as they are.
    Stored(VecDeque<u64>),
    /// Documents the command built (projected, from a view or a pipeline).
    Docs(VecDeque<Document>),
}

impl Rest {
    fn is_empty(&self) -> bool {
        match self {
            Rest::Stored(r) => r.is_empty(),
            Rest::Docs(d) => d.is_empty(),
        }
    }
}

/// One open cursor.
#[derive(Debug, Clone)]
pub(crate) struct OpenCursor {
    /// `db.collection` as replies name it (`db.$cmd.aggregate` for `aggregate: 1`).
    pub ns: String,
    /// The collection whose records `Rest::Stored` names, and its UUID when the cursor opened
    /// (a collection dropped and created again is another collection).
    pub collection: String,
    pub uuid: Option<[u8; 16]>,
    pub rest: Rest,
    /// True when the plan knows it is exhausted as soon as its last result is read (a `limit`
    /// reached): a batch full by count then closes the cursor.
    pub eof_known: bool,
}

/// The open cursors of a server.
#[derive(Debug, Clone, Default)]
pub(crate) struct Cursors {
    open: BTreeMap<i64, OpenCursor>,
}

/// A batch cut from a cursor's results: stored records or documents.
pub(crate) enum Cut {
    Stored(Vec<u64>),
    Docs(Vec<Document>),
}

impl Database {
    /// Cuts the first batch off `cursor`'s results, keeps the rest under a new cursor id when
    /// any may remain, and returns the reply `{ cursor: { firstBatch, id, ns } }`. Stored records
    /// go in the reply through `ctx_batch` (written from the collection, see [`Batch`]).
    pub(crate) fn open_cursor(&mut self, dbname: &str, mut cursor: OpenCursor, batch_size: Option<i64>, single_batch: bool, ctx_batch: &mut Option<Batch>) -> Document {
        let limit = batch_size.unwrap_or(DEFAULT_FIRST_BATCH);
        let (cut, full) = self.cut(dbname, &mut cursor, Some(limit));
        let keep = !single_batch && (!cursor.rest.is_empty() || (full && !cursor.eof_known));
        let id = if keep { self.register(cursor.clone()) } else { 0 };
        batch_reply(&cursor, cut, id, "firstBatch", ctx_batch)
    }

    /// `getMore`: the next batch of cursor `id`, read by `collection` of database `dbname`.
    pub(crate) fn get_more(&mut self, dbname: &str, id: i64, collection: &str, batch_size: Option<i64>, ctx_batch: &mut Option<Batch>) -> Result<Document> {
        let Some(mut cursor) = self.cursors.open.remove(&id) else {
            return Err(Error::new(ErrorKind::CursorNotFound, format!("cursor id {id} not found")));
        };
        let ns = format!("{dbname}.{collection}");
        if cursor.ns != ns {
            let message = format!("Requested getMore on namespace '{ns}', but cursor belongs to a different namespace {}", cursor.ns);
            self.cursors.open.insert(id, cursor);
            return Err(Error::new(ErrorKind::Unauthorized, message));
        }
        if let (Rest::Stored(_), Some(uuid)) = (&cursor.rest, cursor.uuid) {
            if self.collection(dbname, &cursor.collection).map(|c| c.uuid) != Some(uuid) {
                return Err(Error::new(
                    ErrorKind::QueryPlanKilled,
                    format!("collection dropped. UUID {}", uuid_text(&uuid)),
                ));
            }
        }
        let limit = batch_size.filter(|n| *n > 0);
        let (cut, full) = self.cut(dbname, &mut cursor, limit);
        let keep = !cursor.rest.is_empty() || (full && !cursor.eof_known);
        let reply = batch_reply(&cursor, cut, if keep { id } else { 0 }, "nextBatch", ctx_batch);
        if keep {
            self.cursors.open.insert(id, cursor);
        }
        Ok(reply)
    }

    /// `killCursors`: closes the given cursors of namespace `ns`; returns (killed, not found).
    pub(crate) fn kill_cursors(&mut self, ns: &str, ids: &[i64]) -> (Vec<i64>, Vec<i64>) {
        let mut killed = Vec::new();
        let mut not_found = Vec::new();
        for id in ids {
            if self.cursors.open.get(id).is_some_and(|c| c.ns == ns) {
                self.cursors.open.remove(id);
                killed.push(*id);
            } else {
                not_found.push(*id);
            }
        }
        (killed, not_found)
    }

    /// Keeps a cursor under a new id: positive, random, as the server's.
    fn register(&mut self, cursor: OpenCursor) -> i64 {
        loop {
            let id = (self.ids.next_u64() >> 1) as i64;
            if id != 0 && !self.cursors.open.contains_key(&id) {
                self.cursors.open.insert(id, cursor);
                return id;
            }
        }
    }

    /// Takes up to `limit` results (no count limit when `None`) off the front of the cursor,
    /// stopping before 16 MiB. Returns the batch and whether it stopped by count.
    fn cut(&self, dbname: &str, cursor: &mut OpenCursor, limit: Option<i64>) -> (Cut, bool) {
        let limit = limit.map(|n| n.max(0) as usize).unwrap_or(usize::MAX);
        let max_bytes = MAX_USER_SIZE;
        let mut bytes = 0usize;
        match &mut cursor.rest {
            Rest::Stored(rids) => {
                let coll = self.collection(dbname, &cursor.collection);
                let mut out = Vec::new();
                while out.len() < limit {
                    let Some(rid) = rids.front().copied() else { break };
                    // A document deleted since the cursor opened is skipped.
                    let Some(rec) = coll.and_then(|c| c.get(rid)) else {
                        rids.pop_front();
                        continue;
                    };
                    if !out.is_empty() && bytes + rec.size() > max_bytes {
                        return (Cut::Stored(out), false);
                    }
                    bytes += rec.size();
                    out.push(rid);
                    rids.pop_front();
                }
                let full = out.len() >= limit;
                (Cut::Stored(out), full)
            }
            Rest::Docs(docs) => {
                let mut out = Vec::new();
                while out.len() < limit {
                    let Some(size) = docs.front().map(crate::value::bson_size) else { break };
                    if !out.is_empty() && bytes + size > max_bytes {
                        return (Cut::Docs(out), false);
                    }
                    bytes += size;
                    if let Some(d) = docs.pop_front() {
                        out.push(d);
                    }
                }
                let full = out.len() >= limit;
                (Cut::Docs(out), full)
            }
        }
    }
}

/// `{ cursor: { <field>: batch, id, ns } }`; stored records go through `ctx_batch`.
fn batch_reply(cursor: &OpenCursor, cut: Cut, id: i64, field: &'static str, ctx_batch: &mut Option<Batch>) -> Document {
    let docs: Vec<Bson> = match cut {
        Cut::Docs(d) => d.into_iter().map(Bson::Document).collect(),
        Cut::Stored(rids) => {
            *ctx_batch = Some(Batch { collection: cursor.collection.clone(), rids, field });
            Vec::new()
        }
    };
    let mut c = Document::new();
    c.insert(field, docs);
    c.insert("id", Bson::Int64(id));
    c.insert("ns", cursor.ns.clone());
    let mut reply = Document::new();
    reply.insert("cursor", c);
    reply
}

fn uuid_text(b: &[u8; 16]) -> String {
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}
