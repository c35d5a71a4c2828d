//! One collection in memory: documents in natural (insertion) order keyed by a record id, each
//! stored as its BSON bytes (a [`Record`]; readers decode what they need), and its indexes,
//! `_id_` first: `_id` lookups and checks go through the `_id_` index (no second map of `_id`s). Writes check everything first and change nothing when a check fails.

use bson::{Bson, Document, RawDocument};

use crate::env::Env;
use crate::error::{Error, ErrorKind, Result};
use crate::query::Matcher;
use crate::update::Undo;
use crate::value;

use super::index::{self, Index};

/// A stored document: its BSON bytes, exactly (the length is its BSON size). Holding bytes
/// rather than a decoded `Document` keeps a collection near the size of its data (a decoded
/// document of 64 BSON bytes takes more than 1 000 bytes of heap). Readers decode on demand
/// ([`Record::doc`]), read fields in place ([`Record::raw`]) or copy the bytes as they are (a
/// find's reply, see `wire.rs`).
#[derive(Debug, Clone)]
pub struct Record {
    bytes: Box<[u8]>,
}

impl Record {
    /// The record of `doc` (encoded here, once).
    pub fn encode(doc: &Document) -> Result<Record> {
        Record::encode_sized(doc, value::bson_size(doc))
    }

    /// [`Record::encode`] of a document whose BSON size is known to be `size`.
    fn encode_sized(doc: &Document, size: usize) -> Result<Record> {
        let bytes = super::wire::encode_fast(doc, size)?;
        Ok(Record { bytes: bytes.into_boxed_slice() })
    }

    /// The document's BSON size.
    pub fn size(&self) -> usize {
        self.bytes.len()
    }

    /// The document's BSON bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The document, to read in place.
    pub fn raw(&self) -> Result<&RawDocument> {
        Record::raw_of(&self.bytes)
    }

    /// A stored document's bytes ([`Record::bytes`]), to read in place.
    pub fn raw_of(bytes: &[u8]) -> Result<&RawDocument> {
        RawDocument::from_bytes(bytes).map_err(stored_bson_error)
    }

    /// A stored document's bytes ([`Record::bytes`]) decoded: every field, or only those for
    /// which `keep` is true (see [`Record::doc_with`]).
    pub fn decode_of(bytes: &[u8], keep: Option<&dyn Fn(&str) -> bool>) -> Result<Document> {
        let raw = Record::raw_of(bytes)?;
        match keep {
            Some(keep) => value::raw::decode_fields(raw, keep),
            None => value::raw::decode(raw),
        }
        .map_err(stored_bson_error)
    }

    /// The document's `_id`, read in place (null when absent).
    pub fn id(&self) -> Bson {
        self.stored_id().unwrap_or(Bson::Null)
    }

    /// The document's `_id`, read in place, when it has one.
    pub fn stored_id(&self) -> Option<Bson> {
        self.raw().ok().and_then(|r| value::raw::get(r, "_id").ok().flatten()).and_then(|v| Bson::try_from(v).ok())
    }

    /// The names of the document's top-level fields, in order, each once (the keys of
    /// [`Record::doc`]), read in place.
    pub fn top_keys(&self) -> Result<Vec<String>> {
        let mut names: Vec<&str> = Vec::new();
        // A repeated name is looked for among the names so far while they are few, in a set
        // once they are many (filled then).
        let mut seen: Option<std::collections::HashSet<&str>> = None;
        for el in value::raw::Elements::new(&self.bytes) {
            let Some(name) = el.and_then(|e| std::str::from_utf8(e.name).ok()) else {
                return Ok(self.doc()?.keys().cloned().collect());
            };
            let new = match &mut seen {
                Some(set) => set.insert(name),
                None => !names.contains(&name),
            };
            if new {
                names.push(name);
                if seen.is_none() && names.len() >= 16 {
                    seen = Some(names.iter().copied().collect());
                }
            }
        }
        Ok(names.into_iter().map(String::from).collect())
    }

    /// The document, decoded.
    pub fn doc(&self) -> Result<Document> {
        Record::decode_of(&self.bytes, None)
    }

    /// The document with only the top-level fields for which `keep` is true (for a reader that
    /// reads no other field).
    pub fn doc_with(&self, keep: &dyn Fn(&str) -> bool) -> Result<Document> {
        Record::decode_of(&self.bytes, Some(keep))
    }
}

/// An empty document, for a reader that needs one and must not build it per document (a
/// `Document` starts with a hasher whose keys are made when it is built).
fn empty_document() -> &'static Document {
    static EMPTY: std::sync::OnceLock<Document> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Document::new)
}

/// A stored document that does not decode (it cannot happen for bytes the engine wrote; an
/// error all the same, never a panic).
fn stored_bson_error(e: bson::error::Error) -> Error {
    Error::new(ErrorKind::InternalError, format!("stored document is not valid BSON: {e}"))
}

/// One collection.
#[derive(Debug, Clone)]
pub struct Collection {
    pub name: String,
    /// `db.collection`, as error messages and cursors name it.
    pub ns: String,
    /// The options given to `create` (`timeseries`, `capped`, `validator`, ...).
    pub options: Document,
    /// A UUID for `listCollections` (fixed when the collection is created).
    pub uuid: [u8; 16],
    records: super::records::Records,
    next_rid: u64,
    /// Every index including `_id_` (first), in creation order.
    pub indexes: Vec<Index>,
    data_size: usize,
    /// The open transaction's undo log of this collection, while it has one (see [`Journal`]).
    journal: Option<Box<Journal>>,
}

/// The undo log an open transaction keeps of a collection it writes (`txn.rs`): each record it
/// touched, once, with its state from before the transaction's first write to it (its bytes, or
/// `None` when the transaction inserted it), and how many indexes the collection had then. Its
/// size is that of the transaction's writes, not of the collection. [`Collection::swap_journal`]
/// exchanges the logged states with the live ones (twice: back), so an outside reader sees the
/// collection as before the transaction and an abort puts it back.
#[derive(Debug, Clone, Default)]
struct Journal {
    /// Each touched record id with its other state (before the transaction, or while swapped, the
    /// transaction's), in first-touch order.
    prior: Vec<(u64, Option<Record>)>,
    /// The record ids in `prior`.
    seen: std::collections::HashSet<u64>,
    /// The number of indexes when the log started (the transaction may only add indexes).
    indexes: usize,
    /// While swapped: the indexes the transaction created, taken out.
    hidden: Vec<Index>,
    /// True while the logged (pre-transaction) states are the live ones.
    swapped: bool,
}

impl Collection {
    pub fn new(db: &str, name: &str, options: Document, uuid: [u8; 16]) -> Collection {
        // Time series collections and views have no `_id` index.
        let timeseries = options.contains_key("timeseries") || options.contains_key("viewOn");
        Collection {
            name: name.to_string(),
            ns: format!("{db}.{name}"),
            options,
            uuid,
            records: super::records::Records::new(),
            next_rid: 1,
            indexes: if timeseries { Vec::new() } else { vec![Index::id_index()] },
            data_size: 0,
            journal: None,
        }
    }

    /// Starts the undo log of an open transaction (nothing when one is kept already).
    pub(crate) fn start_journal(&mut self) {
        if self.journal.is_none() {
            self.journal = Some(Box::new(Journal { indexes: self.indexes.len(), ..Journal::default() }));
        }
    }

    /// Forgets the undo log (the transaction committed).
    pub(crate) fn drop_journal(&mut self) {
        self.journal = None;
    }

    /// Puts the collection back as it was when the log started (the transaction aborted): its
    /// touched records and the indexes' entries for them, without the indexes it created.
    pub(crate) fn undo_journal(&mut self) {
        if self.journal.as_ref().is_some_and(|j| !j.swapped) {
            self.swap_journal();
        }
        self.journal = None;
    }

    /// Exchanges each logged record state with the live one, keeping the indexes and the data
    /// size consistent, and takes out (or puts back) the indexes created since the log started.
    /// Cost: the touched records, not the collection. Every live state of a touched record is
    /// taken out of the indexes before any logged one is put in, so no unique key is held twice
    /// on the way.
    pub(crate) fn swap_journal(&mut self) {
        let Some(mut j) = self.journal.take() else { return };
        if j.swapped {
            self.indexes.append(&mut j.hidden);
        }
        let mut live = Vec::with_capacity(j.prior.len());
        for (rid, _) in &j.prior {
            let rec = self.records.remove(*rid);
            if let Some(r) = &rec {
                self.data_size -= r.size();
                if let Ok(doc) = r.doc() {
                    self.index_remove(&doc, *rid);
                }
            }
            live.push(rec);
        }
        for ((rid, other), now) in j.prior.iter_mut().zip(live) {
            if let Some(r) = other.take() {
                self.data_size += r.size();
                if let Ok(doc) = r.doc() {
                    self.index_add(&doc, *rid);
                }
                self.records.insert(*rid, r);
            }
            *other = now;
        }
        if !j.swapped {
            j.hidden = self.indexes.split_off(j.indexes.min(self.indexes.len()));
        }
        j.swapped = !j.swapped;
        self.journal = Some(j);
    }

    /// Logs record `rid`'s state before its first change under the open transaction's log.
    fn note(&mut self, rid: u64) {
        if let Some(j) = &mut self.journal {
            if j.seen.insert(rid) {
                j.prior.push((rid, self.records.get(rid).cloned()));
            }
        }
    }

    pub fn is_timeseries(&self) -> bool {
        self.options.contains_key("timeseries")
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The sum of the documents' BSON sizes.
    pub fn data_size(&self) -> usize {
        self.data_size
    }

    /// Documents in natural order with their record ids.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (u64, &Record)> {
        self.records.iter()
    }

    /// Every document, decoded, in natural order.
    pub fn documents(&self) -> Result<Vec<Document>> {
        self.records.iter().map(|(_, r)| r.doc()).collect()
    }

    pub fn get(&self, rid: u64) -> Option<&Record> {
        self.records.get(rid)
    }

    /// The `_id_` index (none in time series collections and views).
    fn id_index(&self) -> Option<&Index> {
        self.indexes.iter().find(|ix| ix.is_id())
    }

    /// The record id the `_id_` index holds for `id` (another record's when it is not `rid`).
    fn id_holder(ix: &Index, id: &Bson, rid: u64) -> Option<u64> {
        let mut holder = None;
        ix.entries().rids_of(&ix.key_of_values([id]), |r| {
            holder = Some(r);
            r == rid
        });
        holder
    }

    /// The record whose `_id` equals `id` (through the `_id` index when there is one).
    pub fn rid_by_id(&self, id: &Bson) -> Option<u64> {
        match self.id_index() {
            Some(ix) => ix.entries().first_rid(&ix.key_of_values([id])),
            None => self.records.iter().find(|(_, r)| r.stored_id().is_some_and(|v| value::equal(&v, id))).map(|(k, _)| k),
        }
    }

    /// True when the collection has an `_id` index (not time series collections and views).
    pub fn has_id_index(&self) -> bool {
        self.id_index().is_some()
    }

    /// True when the collection has a non-empty `validator`.
    pub fn has_validator(&self) -> bool {
        matches!(self.options.get("validator"), Some(Bson::Document(v)) if !v.is_empty())
    }

    /// Document validation (`validator`, `validationLevel`, `validationAction` options): fails
    /// with `DocumentValidationFailure` (121) when `doc` does not match the validator. With
    /// `validationLevel: "moderate"`, an update of a document that did not match (`old`) is not
    /// checked; `"off"` and `validationAction: "warn"` accept everything. The error's `errInfo`
    /// names the document (`failingDocumentId`) and explains the failure (`details`, see
    /// [`crate::query::validation_error`]).
    pub fn check_validator(&self, doc: &Document, old: Option<&Document>, env: &Env) -> Result<()> {
        let Some(Bson::Document(validator)) = self.options.get("validator") else { return Ok(()) };
        if validator.is_empty() {
            return Ok(());
        }
        let level = self.options.get_str("validationLevel").unwrap_or("strict");
        let action = self.options.get_str("validationAction").unwrap_or("error");
        if level == "off" || action == "warn" {
            return Ok(());
        }
        let m = Matcher::parse(validator)?;
        // An evaluation error (a `$expr` dividing by zero) fails validation, as in the server
        // (`checkValidation` catches it); the details then explain the error.
        if m.matches(doc, env).unwrap_or(false) {
            return Ok(());
        }
        if let (Some(old), "moderate") = (old, level) {
            if !m.matches(old, env).unwrap_or(false) {
                return Ok(());
            }
        }
        let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
        let mut info = bson::doc! {"failingDocumentId": id};
        if let Some(details) = crate::query::validation_error::explain(validator, doc, env) {
            info.insert("details", details);
        }
        Err(Error::new(ErrorKind::DocumentValidationFailure, "Document failed validation").with_info(bson::doc! {"errInfo": info}))
    }

    /// Checks that `doc` could be stored as record `rid` (a new record when `rid` is not
    /// stored yet): `_id` and unique keys.
    pub fn check_write(&self, doc: &Document, rid: u64) -> Result<()> {
        self.check_write_where(doc, rid, true, &vec![true; self.indexes.len()])
    }

    /// The `_id` check of a write to record `rid` (when `id`): no other record holds the
    /// document's `_id`.
    fn check_id(&self, doc: &Document, rid: u64, id: bool) -> Result<()> {
        if let (Some(ix), Some(id), true) = (self.id_index(), doc.get("_id"), id) {
            if let Some(other) = Self::id_holder(ix, id, rid) {
                if other != rid {
                    let mut key = Document::new();
                    key.insert("_id", id.clone());
                    return Err(index::duplicate_key_error(&self.ns, index::ID_INDEX_NAME, &bson::doc! {"_id": 1}, &key));
                }
            }
        }
        Ok(())
    }

    /// [`Collection::check_write`] of the `_id` (when `id`) and of the indexes marked in `indexes`
    /// (the others are known not to change).
    fn check_write_where(&self, doc: &Document, rid: u64, id: bool, indexes: &[bool]) -> Result<()> {
        self.check_id(doc, rid, id)?;
        for (ix, _) in self.indexes.iter().zip(indexes).filter(|(i, check)| **check && !i.is_id()) {
            ix.check_unique(&self.ns, doc, rid)?;
            if !ix.unique {
                // Key generation errors (parallel arrays) apply to every index.
                ix.keys_of(doc)?;
            }
        }
        Ok(())
    }

    /// Inserts a prepared document (its `_id` first) after the checks; returns its record id.
    pub fn insert(&mut self, doc: Document) -> Result<u64> {
        let rec = Record::encode(&doc)?;
        self.insert_record(rec, Some(&doc))
    }

    /// [`Collection::insert`] of a prepared document given as the bytes encoding it gives (see
    /// `value::raw::check_stored_form`): the bytes become the record as they are.
    pub fn insert_bytes(&mut self, bytes: Vec<u8>) -> Result<u64> {
        self.insert_record(Record { bytes: bytes.into_boxed_slice() }, None)
    }

    /// Stores `rec` (decoded: `doc`, when the caller has it) as a new record after the checks.
    /// Each index's key is read from the bytes when no array lies along its paths (one key, no
    /// decoding); otherwise, or when a unique key is taken (for the error's wording), the
    /// document is decoded and goes through the general key generator and checks.
    fn insert_record(&mut self, rec: Record, doc: Option<&Document>) -> Result<u64> {
        let rid = self.next_rid;
        let raw = rec.raw()?;
        // Every index's key, back to back in one buffer (`ends`: where each ends; `None` for a
        // sparse index that leaves the document out).
        let mut buf: Vec<u8> = Vec::with_capacity(32 * self.indexes.len());
        let mut ends: Vec<Option<usize>> = Vec::with_capacity(self.indexes.len());
        for ix in &self.indexes {
            let start = buf.len();
            match ix.raw_key_into(raw, &mut buf) {
                None => break,
                Some(false) => ends.push(None),
                Some(true) => {
                    if (ix.unique || ix.is_id()) && ix.entries().first_rid(&buf[start..]).is_some() {
                        break;
                    }
                    ends.push(Some(buf.len()));
                }
            }
        }
        if ends.len() < self.indexes.len() {
            let decoded;
            let doc = match doc {
                Some(d) => d,
                None => {
                    decoded = rec.doc()?;
                    &decoded
                }
            };
            self.check_write(doc, rid)?;
            self.next_rid += 1;
            self.note(rid);
            self.index_add(doc, rid);
        } else {
            self.next_rid += 1;
            self.note(rid);
            let mut start = 0;
            for (ix, end) in self.indexes.iter_mut().zip(ends) {
                if let Some(end) = end {
                    ix.add_key(&buf[start..end], rid);
                    start = end;
                }
            }
        }
        self.data_size += rec.size();
        self.records.insert(rid, rec);
        Ok(rid)
    }

    /// Replaces record `rid` with `doc` after the checks (the record keeps its place).
    pub fn replace(&mut self, rid: u64, doc: Document) -> Result<()> {
        self.check_write(&doc, rid)?;
        let Some(old) = self.records.get(rid) else { return Ok(()) };
        let (old_doc, old_size) = (old.doc()?, old.size());
        let rec = Record::encode(&doc)?;
        self.note(rid);
        self.index_remove(&old_doc, rid);
        self.index_add(&doc, rid);
        self.data_size = self.data_size - old_size + rec.size();
        self.records.insert(rid, rec);
        Ok(())
    }

    /// Updates record `rid`: its document is decoded once (only the top-level fields `fields`
    /// and `_id` when `fields` is given: an operator update's, see `Update::top_fields`), `save`
    /// keeps aside what the update touches (see [`Undo`]: the top-level fields it changes,
    /// which tell which indexes can change), `change` edits the decoded document (knowing what
    /// was kept) and returns its new BSON size when it modified it, and the result is encoded
    /// once into the record (with `fields`: the stored bytes with those fields encoded again in
    /// their places, or left out when removed, and the fields added after them, as encoding the
    /// whole document gives). When `change` fails, or the result fails the write checks (`_id`,
    /// unique keys), the stored bytes were never touched and the error is returned. Only the
    /// indexes whose keys can change (those on a field the update touches) are checked and
    /// moved; their keys are read from the old and new bytes where no array lies along the key
    /// paths (one key each, compared as bytes: an unchanged key costs no tree work).
    /// Before all that, with `fields`, `fast` is given the stored document: when it answers
    /// (the bytes path, `Update::apply_bytes`: `Ok(None)` for no change, else the new bytes),
    /// nothing is decoded, `save` and `change` are not called, and the new bytes go through the
    /// same keys and checks.
    /// Returns the new BSON size when the document was modified. Used where no one needs the old
    /// document (no validator, no returned before-image).
    pub(crate) fn update_in_place(
        &mut self,
        rid: u64,
        fields: Option<&[&str]>,
        mut moves: Option<&mut KeyMoves>,
        fast: impl FnOnce(&RawDocument) -> Option<Result<Option<Vec<u8>>>>,
        save: impl FnOnce(&Document) -> Undo,
        change: impl FnOnce(&mut Document, &Undo) -> Result<Option<usize>>,
    ) -> Result<Option<usize>> {
        let Some(rec) = self.records.get(rid) else { return Ok(None) };
        // A field whose name starts with `$` is checked against its neighbours (a DBRef's
        // `$ref`, `$id`, `$db`): such an update sees the whole document.
        let fields = fields.filter(|f| !f.iter().any(|n| n.starts_with('$')));
        let keep = |name: &str| name == "_id" || fields.is_some_and(|f| f.contains(&name));
        let partial = fields.is_some();
        let old_size = rec.size();
        let raw = rec.raw()?;
        // The buffers of the previous document, when there was one.
        let Scratch { mut old_keys, mut new_keys, mut affected, mut general } = moves.as_deref_mut().map(|m| std::mem::take(&mut m.scratch)).unwrap_or_default();
        old_keys.clear();
        new_keys.clear();
        affected.clear();
        general.clear();
        // The bytes path first (see `fast`): nothing decoded, no undo needed (the stored bytes
        // are not touched until the write's checks pass).
        let fast = match fields {
            Some(_) => fast(raw),
            None => None,
        };
        let (mut doc, undo, fast_bytes) = match fast {
            Some(r) => {
                let Some(bytes) = r? else {
                    if let Some(m) = moves {
                        m.scratch = Scratch { old_keys, new_keys, affected, general };
                    }
                    return Ok(None);
                };
                let touched = fields.unwrap_or_default();
                affected.extend(self.indexes.iter().map(|ix| ix.may_change(|f| touched.contains(&f))));
                (None, None, Some(bytes))
            }
            None => {
                let doc = match fields {
                    Some(_) => rec.doc_with(&keep)?,
                    None => rec.doc()?,
                };
                let undo = save(&doc);
                affected.extend(self.indexes.iter().map(|ix| ix.may_change(|f| undo.touches(f))));
                (Some(doc), Some(undo), None)
            }
        };
        // The affected indexes' old keys: read from the stored bytes (one key, no key documents)
        // where no array lies along the key paths, else generated from the decoded document.
        let mut old_full: Option<Document> = None;
        for (ix, a) in self.indexes.iter().zip(&affected) {
            old_keys.begin();
            if *a && !old_keys.push_raw(ix, raw) {
                let full = match (partial, &old_full) {
                    (false, _) => doc.as_ref().unwrap_or_else(|| empty_document()),
                    (true, Some(d)) => d,
                    (true, None) => old_full.insert(rec.doc()?),
                };
                if let Ok(Some(keys)) = ix.keys_of(full) {
                    old_keys.push_docs(ix, &keys);
                }
            }
        }
        let id_touched = undo.as_ref().is_some_and(|u| u.touches("_id"));
        let rec = match (fast_bytes, undo) {
            (Some(bytes), _) => Record { bytes: bytes.into_boxed_slice() },
            (None, None) => return Err(Error::new(ErrorKind::InternalError, "update: no undo point")),
            (None, Some(undo)) => {
                let Some(doc) = doc.as_mut() else { return Err(Error::new(ErrorKind::InternalError, "update: no document")) };
                let Some(new_size) = change(doc, &undo)? else {
                    if let Some(m) = moves {
                        m.scratch = Scratch { old_keys, new_keys, affected, general };
                    }
                    return Ok(None);
                };
                if partial {
                    let bytes = super::wire::splice_fields(raw, doc, &keep, new_size)?;
                    debug_assert_eq!(bytes.len(), new_size, "incremental size after an in-place update");
                    if bytes.len() != new_size {
                        return Err(Error::new(ErrorKind::InternalError, "update: the size of an updated document was miscounted"));
                    }
                    Record { bytes: bytes.into_boxed_slice() }
                } else {
                    let rec = Record::encode_sized(doc, new_size)?;
                    debug_assert_eq!(rec.size(), new_size, "incremental size after an in-place update");
                    rec
                }
            }
        };
        // The new keys, read from the new bytes the same way; `general` marks an index that
        // needs the general key generator (its checks and keys go through the whole document).
        let new_raw = rec.raw()?;
        for (ix, a) in self.indexes.iter().zip(&affected) {
            new_keys.begin();
            general.push(*a && !new_keys.push_raw(ix, new_raw));
        }
        let full: Option<Document> = if partial && general.iter().any(|g| *g) { Some(rec.doc()?) } else { None };
        let new_doc = full.as_ref().or(doc.as_ref()).unwrap_or_else(|| empty_document());
        self.check_update(new_doc, &rec, partial && full.is_none(), rid, id_touched, &affected, &general, &new_keys)?;
        let size = rec.size();
        self.note(rid);
        self.data_size = self.data_size - old_size + size;
        for (i, ix) in self.indexes.iter_mut().enumerate() {
            if !affected[i] {
                continue;
            }
            if !general[i] {
                // No array along the key paths: one key or none, no multikey paths to note.
                if old_keys.keys(i).eq(new_keys.keys(i)) {
                    continue;
                }
                let one_old = old_keys.keys(i).nth(1).is_none();
                if let (Some(m), false, false, true) = (moves.as_deref_mut(), ix.unique, ix.is_id(), one_old) {
                    // No check reads this index's entries: the move can wait for the batch (the
                    // old document had one key or none: no array along the paths either).
                    m.push(i, rid, old_keys.keys(i).next(), new_keys.keys(i).next());
                    continue;
                }
                for k in old_keys.keys(i) {
                    ix.remove_key(k, rid);
                }
                for k in new_keys.keys(i) {
                    ix.add_key(k, rid);
                }
            } else {
                ix.rekey(old_keys.keys(i), new_doc, rid);
            }
        }
        self.records.insert(rid, rec);
        if let Some(m) = moves {
            m.scratch = Scratch { old_keys, new_keys, affected, general };
            if m.is_full(self.records.len()) {
                self.apply_key_moves(m);
            }
        }
        Ok(Some(size))
    }

    /// Applies the index key moves [`Collection::update_in_place`] put off (see [`KeyMoves`]),
    /// per index: all removals, then all additions (one record moves once in a statement, so
    /// the result is the one of moving each in turn), each sorted and made in one pass over the
    /// leaves they touch (`KeyTree::remove_sorted`, `KeyTree::insert_sorted`). Leaves `moves`
    /// empty.
    pub(crate) fn apply_key_moves(&mut self, moves: &mut KeyMoves) {
        let mut list = std::mem::take(&mut moves.list);
        // (stable: the moves of each index stay in the order the records came, most often
        // record id order, which `sorted_pairs` then need not restore among equal keys)
        list.sort_by_key(|m| m.index);
        for group in list.chunk_by(|a, b| a.index == b.index) {
            let Some(ix) = self.indexes.get_mut(group[0].index as usize) else { continue };
            if group.len() >= (ix.entries().len() / 8).max(1) {
                // Many moves (an eighth of the entries or more): one pass over the leaves drops
                // the moved records' entries and merges in their new keys, sorted (the old keys
                // are neither sorted nor searched for).
                let rids: Vec<u64> = group.iter().map(|m| m.rid).collect();
                let moved = RidSet::new(&rids);
                let pairs = index::sorted_pairs(group.iter().filter_map(|m| moves.key(m, false).map(|k| (k, m.rid))));
                ix.replace_rids(|rid| moved.contains(rid), &pairs);
                continue;
            }
            for old in [true, false] {
                let pairs = index::sorted_pairs(group.iter().filter_map(|m| moves.key(m, old).map(|k| (k, m.rid))));
                if old {
                    ix.remove_sorted_keys(&pairs);
                } else {
                    ix.add_sorted_keys(&pairs);
                }
            }
        }
        list.clear();
        moves.list = list;
        moves.bytes.clear();
    }

    /// The write checks of an updated document (see [`Collection::check_write_where`], in the
    /// same order, with the same errors): an index whose new key was read from the bytes
    /// (`general` false) is checked by that key (one key, no array: its keys generate), the
    /// others through the whole document (`doc`, or `rec` decoded when `doc` is `partial`: it
    /// holds `_id` and the fields the update touched).
    #[allow(clippy::too_many_arguments)]
    fn check_update(&self, doc: &Document, rec: &Record, partial: bool, rid: u64, id: bool, affected: &[bool], general: &[bool], new_keys: &DocKeys) -> Result<()> {
        self.check_id(doc, rid, id)?;
        let mut decoded: Option<Document> = None;
        let whole = |decoded: &mut Option<Document>| -> Result<()> {
            if partial && decoded.is_none() {
                *decoded = Some(rec.doc()?);
            }
            Ok(())
        };
        for (i, ix) in self.indexes.iter().enumerate() {
            if !affected[i] || ix.is_id() {
                continue;
            }
            if general[i] {
                whole(&mut decoded)?;
                let full = decoded.as_ref().unwrap_or(doc);
                ix.check_unique(&self.ns, full, rid)?;
                if !ix.unique {
                    // Key generation errors (parallel arrays) apply to every index.
                    ix.keys_of(full)?;
                }
            } else if ix.unique {
                for k in new_keys.keys(i) {
                    let mut clash = false;
                    ix.entries().rids_of(k, |r| {
                        clash = r != rid;
                        !clash
                    });
                    if clash {
                        // The error names the key as a document: the general check words it.
                        whole(&mut decoded)?;
                        ix.check_unique(&self.ns, decoded.as_ref().unwrap_or(doc), rid)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Removes record `rid`, returning its document (`None` when there is no such record).
    pub fn remove(&mut self, rid: u64) -> Result<Option<Document>> {
        let Some(old) = self.records.get(rid) else { return Ok(None) };
        let doc = old.doc()?;
        self.remove_record(rid)?;
        Ok(Some(doc))
    }

    /// Removes record `rid`, returning it (`None` when there is no such record). Each index's
    /// key is read from the stored bytes when no array lies along its paths (see
    /// [`Collection::insert_bytes`]); the document is decoded only for an index that needs the
    /// general key generator. Fails (changing nothing) only on a record that does not decode.
    pub fn remove_record(&mut self, rid: u64) -> Result<Option<Record>> {
        let Some(old) = self.records.get(rid) else { return Ok(None) };
        let raw = old.raw()?;
        let mut buf: Vec<u8> = Vec::with_capacity(32 * self.indexes.len());
        let mut ends: Vec<Option<usize>> = Vec::with_capacity(self.indexes.len());
        for ix in &self.indexes {
            match ix.raw_key_into(raw, &mut buf) {
                None => break,
                Some(false) => ends.push(None),
                Some(true) => ends.push(Some(buf.len())),
            }
        }
        let doc = if ends.len() < self.indexes.len() { Some(old.doc()?) } else { None };
        self.note(rid);
        let Some(rec) = self.records.remove(rid) else { return Ok(None) };
        self.data_size -= rec.size();
        match doc {
            Some(doc) => self.index_remove(&doc, rid),
            None => {
                let mut start = 0;
                for (ix, end) in self.indexes.iter_mut().zip(ends) {
                    if let Some(end) = end {
                        ix.remove_key(&buf[start..end], rid);
                        start = end;
                    }
                }
            }
        }
        Ok(Some(rec))
    }

    /// Removes the records `rids` (those stored; a repeated id counts once), calling `each`
    /// with each one in the order given before anything is removed, until it answers false;
    /// returns how many were removed. Fails, changing nothing, when `each` fails or a record
    /// whose index keys must be read does not decode. Under an
    /// open transaction's log, one record at a time ([`Collection::remove_record`]); else at
    /// once: every index's keys of the records are made first (read from the stored bytes where
    /// they can be, see [`Collection::remove_record`]), then the records go, then each index
    /// drops its keys in one sorted pass (`KeyTree::remove_sorted`), so a `deleteMany` of many
    /// documents costs what it removes, not a search and a leaf shift per key. When the records
    /// removed are many (an eighth or more, ascending), no key is made and no record is read
    /// (only those `each` is called with): each index keeps, in one pass, the entries of the
    /// records that stay (`KeyTree::retain_rids`).
    pub fn remove_many(&mut self, rids: &[u64], mut each: impl FnMut(&Record) -> Result<bool>) -> Result<usize> {
        let mut more = true;
        if self.journal.is_some() {
            let mut n = 0;
            for rid in rids {
                if let (Some(rec), true) = (self.records.get(*rid), more) {
                    more = each(rec)?;
                }
                n += usize::from(self.remove_record(*rid)?.is_some());
            }
            return Ok(n);
        }
        // Ascending ids (a collection scan's) cannot repeat; others are checked. When they are
        // also many (an eighth of the records or more), the records are walked in order and the
        // map is rebuilt without them, rather than searched and removed from one by one.
        let ascending = rids.windows(2).all(|w| w[0] < w[1]);
        let dense = ascending && !rids.is_empty() && rids.len().saturating_mul(8) >= self.records.len();
        // Each index's keys, back to back in one buffer per index, with the record ids (none
        // when `dense`: the indexes then drop entries by record id).
        let mut keys: Vec<Vec<u8>> = vec![Vec::new(); self.indexes.len()];
        let mut spans: Vec<Vec<(usize, usize, u64)>> = vec![Vec::with_capacity(if dense { 0 } else { rids.len() }); self.indexes.len()];
        let mut targets = Vec::with_capacity(rids.len());
        let mut visit = |rid: u64, rec: &Record, targets: &mut Vec<u64>| -> Result<()> {
            if more {
                more = each(rec)?;
            }
            let raw = rec.raw()?;
            targets.push(rid);
            let mut doc: Option<Document> = None;
            for (i, ix) in self.indexes.iter().enumerate() {
                let buf = &mut keys[i];
                let start = buf.len();
                match ix.raw_key_into(raw, buf) {
                    Some(true) => spans[i].push((start, buf.len(), rid)),
                    Some(false) => {}
                    None => {
                        if doc.is_none() {
                            doc = Some(rec.doc()?);
                        }
                        if let Some(Ok(Some(ks))) = doc.as_ref().map(|d| ix.keys_of(d)) {
                            for k in ks {
                                let start = buf.len();
                                buf.extend_from_slice(&ix.index_key(&k));
                                spans[i].push((start, buf.len(), rid));
                            }
                        }
                    }
                }
            }
            Ok(())
        };
        if dense {
            // The indexes drop the records' entries by record id, below: no keys are needed, so
            // no record is read but those `each` is given (a slot lookup finds which are stored).
            for &rid in rids {
                let Some(rec) = self.records.get(rid) else { continue };
                if more {
                    more = each(rec)?;
                }
                targets.push(rid);
            }
        } else {
            let mut seen = std::collections::HashSet::new();
            for &rid in rids {
                let Some(rec) = self.records.get(rid) else { continue };
                if !ascending && !seen.insert(rid) {
                    continue;
                }
                visit(rid, rec, &mut targets)?;
            }
        }
        let mut n = 0;
        if dense {
            let mut gone = targets.iter().peekable();
            let mut freed = 0;
            self.records.retain(|rid, rec| {
                while gone.next_if(|g| **g < rid).is_some() {}
                if gone.next_if_eq(&&rid).is_some() {
                    freed += rec.size();
                    n += 1;
                    return false;
                }
                true
            });
            self.data_size -= freed;
        } else {
            for rid in &targets {
                if let Some(rec) = self.records.remove(*rid) {
                    self.data_size -= rec.size();
                    n += 1;
                }
            }
        }
        if dense {
            // One pass over each index, keeping the entries of the records that stay.
            let gone = RidSet::new(&targets);
            for ix in &mut self.indexes {
                ix.remove_rids(|rid| gone.contains(rid));
            }
            return Ok(n);
        }
        for ((ix, buf), spans) in self.indexes.iter_mut().zip(&keys).zip(spans) {
            let pairs = index::sorted_pairs(spans.into_iter().map(|(a, b, rid)| (&buf[a..b], rid)));
            ix.remove_sorted_keys(&pairs);
        }
        Ok(n)
    }

    /// Removes every document (indexes stay).
    pub fn clear(&mut self) {
        if self.journal.is_some() {
            let rids: Vec<u64> = self.records.iter().map(|(rid, _)| rid).collect();
            for rid in rids {
                self.note(rid);
            }
        }
        self.records.clear();
        for ix in &mut self.indexes {
            ix.clear();
        }
        self.data_size = 0;
    }

    /// Adds an index over the existing documents, bulk-loaded (see [`Index::bulk_load`]); fails,
    /// leaving the collection as it was, on a duplicate key of a unique index or a document whose
    /// keys cannot be generated.
    pub fn add_index(&mut self, mut index: Index) -> Result<()> {
        // The keys are made of the key fields only: the other fields are not decoded (all of
        // them are for a partial or `$**` index).
        let all = index.may_change(|_| false);
        let fields: Vec<String> = index.key.keys().map(|f| f.split('.').next().unwrap_or(f).to_string()).collect();
        let keep = move |name: &str| all || fields.iter().any(|f| f == name);
        let decode = |raw: &RawDocument| value::raw::decode_fields(raw, &keep).map_err(stored_bson_error);
        index.bulk_load_stored(&self.ns, self.records.iter().map(|(rid, r)| r.raw().map(|raw| (rid, raw))), decode)?;
        self.indexes.push(index);
        Ok(())
    }

    fn index_add(&mut self, doc: &Document, rid: u64) {
        for ix in self.indexes.iter_mut() {
            ix.add(doc, rid);
        }
    }

    fn index_remove(&mut self, doc: &Document, rid: u64) {
        for ix in self.indexes.iter_mut() {
            ix.remove(doc, rid);
        }
    }

    /// Whether an open transaction keeps an undo log of the collection.
    pub(crate) fn has_journal(&self) -> bool {
        self.journal.is_some()
    }

    /// Where the collection is before documents are appended to it (an import): see
    /// [`Collection::truncate_to`].
    pub(crate) fn append_mark(&self) -> AppendMark {
        AppendMark {
            next_rid: self.next_rid,
            indexes: self.indexes.len(),
            multikey: self.indexes.iter().map(|ix| (ix.multikey, ix.multikey_paths.clone(), ix.wildcard.as_ref().map(|w| w.multikey.clone()))).collect(),
        }
    }

    /// Puts the collection back as it was at `mark`, when only inserts happened since: the
    /// records appended since are removed
    /// through the index upkeep, the indexes created since dropped, the others' multikey state
    /// and the next record id put back. Cost: the appended records, not the collection.
    pub(crate) fn truncate_to(&mut self, mark: AppendMark) {
        self.indexes.truncate(mark.indexes);
        let appended: Vec<u64> = self.records.range(mark.next_rid..).map(|(rid, _)| rid).collect();
        for rid in appended {
            if self.remove(rid).is_err() {
                // A record that does not decode (it cannot happen for bytes the engine wrote).
                if let Some(r) = self.records.remove(rid) {
                    self.data_size -= r.size();
                }
            }
        }
        for (ix, (multikey, paths, wildcard)) in self.indexes.iter_mut().zip(mark.multikey) {
            ix.multikey = multikey;
            ix.multikey_paths = paths;
            if let (Some(w), Some(set)) = (ix.wildcard.as_mut(), wildcard) {
                w.multikey = set;
            }
        }
        self.next_rid = mark.next_rid;
    }
}

/// Index key moves an update statement puts off: for an index that no write check reads (not
/// unique, not `_id`) and a document with one key or none in it, before and after. Applied in
/// key order (`Collection::apply_key_moves`) when moves for a quarter of the collection's
/// documents have gathered and when the statement ends, so that moving the
/// keys of many documents walks each index's tree in order rather than at random (at a million
/// documents the random walk's cache misses dominated an `updateMany`; a batch that is a
/// fixed share of the collection visits each leaf a fixed number of times).
#[derive(Debug, Default)]
pub(crate) struct KeyMoves {
    /// Each move's old key, then its new one.
    bytes: Vec<u8>,
    list: Vec<KeyMove>,
    /// The buffers [`Collection::update_in_place`] fills for each document, kept for the next
    /// one (no allocation per document).
    scratch: Scratch,
}

/// The per-document buffers of [`Collection::update_in_place`] (see [`KeyMoves`]).
#[derive(Debug, Default)]
struct Scratch {
    old_keys: DocKeys,
    new_keys: DocKeys,
    affected: Vec<bool>,
    general: Vec<bool>,
}

#[derive(Debug, Clone, Copy)]
struct KeyMove {
    rid: u64,
    /// Where the old key starts in `bytes` (the new one follows it).
    start: u32,
    /// The keys' lengths ([`NO_KEY`]: no key in the index).
    old_len: u32,
    new_len: u32,
    index: u32,
}

const NO_KEY: u32 = u32::MAX;

/// Record ids as a bitmap over their range: the records removed at once, for an index dropping
/// their entries in one pass (`KeyTree::retain_rids`).
struct RidSet {
    first: u64,
    bits: Vec<u64>,
}

impl RidSet {
    fn new(rids: &[u64]) -> RidSet {
        let (first, last) = rids.iter().fold((u64::MAX, 0), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
        if first > last {
            return RidSet { first: 0, bits: Vec::new() };
        }
        let mut bits = vec![0u64; ((last - first) / 64 + 1) as usize];
        for rid in rids {
            let at = rid - first;
            if let Some(w) = bits.get_mut((at / 64) as usize) {
                *w |= 1 << (at % 64);
            }
        }
        RidSet { first, bits }
    }

    fn contains(&self, rid: u64) -> bool {
        let Some(at) = rid.checked_sub(self.first) else { return false };
        self.bits.get((at / 64) as usize).is_some_and(|w| w & (1 << (at % 64)) != 0)
    }
}

impl KeyMoves {
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Whether the moves gathered for a collection of `n` documents are to be applied now (or
    /// their key bytes would not be placed by a `u32`).
    fn is_full(&self, n: usize) -> bool {
        self.list.len() >= (n / 4).max(1) || self.bytes.len() > (u32::MAX / 2) as usize
    }

    fn push(&mut self, index: usize, rid: u64, old: Option<&[u8]>, new: Option<&[u8]>) {
        let start = self.bytes.len() as u32;
        let mut place = |k: Option<&[u8]>| match k {
            Some(k) => {
                self.bytes.extend_from_slice(k);
                k.len() as u32
            }
            None => NO_KEY,
        };
        let (old_len, new_len) = (place(old), place(new));
        self.list.push(KeyMove { rid, start, old_len, new_len, index: index as u32 });
    }

    /// A move's old (`old`) or new key.
    fn key(&self, m: &KeyMove, old: bool) -> Option<&[u8]> {
        let start = m.start as usize;
        let (at, len) = if old { (start, m.old_len) } else { (start + if m.old_len == NO_KEY { 0 } else { m.old_len as usize }, m.new_len) };
        (len != NO_KEY).then(|| &self.bytes[at..at + len as usize])
    }
}

/// The keys one document has in each index of a collection, as the indexes order them (see
/// `keystring.rs`), back to back in one buffer: an update's old and new keys without a key
/// document or an allocation per key.
#[derive(Debug, Default)]
struct DocKeys {
    bytes: Vec<u8>,
    /// Where each key ends in `bytes`.
    ends: Vec<usize>,
    /// Per index (in order), the first of its keys in `ends`.
    first: Vec<usize>,
}

impl DocKeys {
    /// Forgets every key (the buffers stay).
    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        self.first.clear();
    }

    /// Starts the next index's keys (none until some are pushed).
    fn begin(&mut self) {
        self.first.push(self.ends.len());
    }

    /// The current index's key read from `raw` ([`Index::raw_key_into`]): false when the
    /// general key generator must decide (nothing pushed).
    fn push_raw(&mut self, ix: &Index, raw: &RawDocument) -> bool {
        match ix.raw_key_into(raw, &mut self.bytes) {
            None => false,
            Some(false) => true,
            Some(true) => {
                self.ends.push(self.bytes.len());
                true
            }
        }
    }

    /// The current index's keys given as key documents.
    fn push_docs(&mut self, ix: &Index, keys: &[Document]) {
        for k in keys {
            self.bytes.extend_from_slice(&ix.index_key(k));
            self.ends.push(self.bytes.len());
        }
    }

    /// Index `i`'s keys.
    fn keys(&self, i: usize) -> impl Iterator<Item = &[u8]> + Clone {
        let from = self.first.get(i).copied().unwrap_or(self.ends.len());
        let to = self.first.get(i + 1).copied().unwrap_or(self.ends.len());
        (from..to).map(|k| &self.bytes[if k == 0 { 0 } else { self.ends[k - 1] }..self.ends[k]])
    }
}

/// A collection's state before an import appended to it ([`Collection::append_mark`]).
#[derive(Debug, Clone)]
pub(crate) struct AppendMark {
    next_rid: u64,
    indexes: usize,
    /// Each index's `multikey`, `multikey_paths` and wildcard multikey paths.
    multikey: Vec<(bool, Vec<Vec<String>>, Option<std::collections::BTreeSet<String>>)>,
}

/// The `_id` values a filter is restricted to by a top-level equality, if it has one the index
/// can answer.
pub(crate) fn id_equalities(filter: &Document) -> Option<Vec<Bson>> {
    let v = filter.get("_id")?;
    let usable = |v: &Bson| match v {
        Bson::RegularExpression(_) | Bson::Array(_) => false,
        Bson::Document(d) => !d.keys().any(|k| k.starts_with('$')),
        _ => true,
    };
    match v {
        Bson::Document(d) if d.keys().next().map(|k| k.starts_with('$')).unwrap_or(false) => {
            if d.len() != 1 {
                return None;
            }
            match (d.keys().next().map(String::as_str), d.values().next()) {
                (Some("$eq"), Some(x)) if usable(x) => Some(vec![x.clone()]),
                (Some("$in"), Some(Bson::Array(xs))) if xs.iter().all(usable) => Some(xs.clone()),
                _ => None,
            }
        }
        x if usable(x) => Some(vec![x.clone()]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    /// A stored document's top-level names, each once in the order first met, with a repeated
    /// name among few names and among many (past the point where a set takes over).
    #[test]
    fn top_keys_names_each_field_once() {
        let record = |names: &[String]| {
            let mut raw = bson::RawDocumentBuf::new();
            for (i, n) in names.iter().enumerate() {
                let key: &bson::raw::CStr = n.as_str().try_into().unwrap();
                raw.append(key, i as i32);
            }
            Record { bytes: raw.into_bytes().into_boxed_slice() }
        };
        let few: Vec<String> = ["_id", "a", "b", "a", "c", "_id"].iter().map(|s| s.to_string()).collect();
        assert_eq!(record(&few).top_keys().unwrap(), vec!["_id", "a", "b", "c"]);
        let mut many: Vec<String> = (0..20).map(|i| format!("f{i}")).collect();
        many.extend(["f3", "f17", "g", "f0", "g"].iter().map(|s| s.to_string()));
        let mut want: Vec<String> = (0..20).map(|i| format!("f{i}")).collect();
        want.push("g".into());
        assert_eq!(record(&many).top_keys().unwrap(), want);
        assert_eq!(record(&few).id(), Bson::Int32(0));
        assert_eq!(record(&many).id(), Bson::Null);
    }

    #[test]
    fn natural_order_and_id_index() {
        let mut c = Collection::new("test", "c", Document::new(), [0; 16]);
        let a = c.insert(doc! {"_id": 2, "x": 1}).unwrap();
        let b = c.insert(doc! {"_id": 1, "x": 2}).unwrap();
        assert!(a < b);
        assert_eq!(c.rid_by_id(&Bson::Double(1.0)), Some(b));
        let e = c.insert(doc! {"_id": 1i64}).unwrap_err();
        assert_eq!(e.code_num(), 11000);
        assert_eq!(e.message, "E11000 duplicate key error collection: test.c index: _id_ dup key: { _id: 1 }");
        c.replace(a, doc! {"_id": 2, "x": 10}).unwrap();
        let ids: Vec<_> = c.iter().map(|(_, r)| r.doc().unwrap().get("_id").cloned().unwrap()).collect();
        assert_eq!(ids, vec![Bson::Int32(2), Bson::Int32(1)]);
        c.remove(a).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c.data_size(), value::bson_size(&doc! {"_id": 1, "x": 2}));
    }
}
