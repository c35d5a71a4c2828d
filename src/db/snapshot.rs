//! The whole server as bytes: one BSON document
//! `{ format: "pattern-playground", version: 1, ids: {..}, databases: [ { name, collections: [
//! { name, options, uuid, indexes: [specs], documents: [..] } ] } ] }`. Restoring and snapshotting
//! again gives the same bytes.

use std::io::Write;

use bson::{doc, spec::BinarySubtype, Binary, Bson, Document};

use crate::error::{Error, ErrorKind, Result};

use super::index::Index;
use super::{Collection, Database, Db, IdGen};

const FORMAT: &str = "pattern-playground";
const VERSION: i32 = 1;

/// The snapshot's bytes; the stored documents are copied in as the BSON bytes they are (each
/// document, collection and database is the last field of the level above, so every level is
/// written in place, in one buffer sized for it: the documents' bytes are copied once).
pub(super) fn write(db: &Database) -> Vec<u8> {
    write_raw(db).unwrap_or_default()
}

fn write_raw(db: &Database) -> Result<Vec<u8>> {
    let capacity: usize = db
        .dbs
        .values()
        .flat_map(|d| d.collections.values())
        // Per document: its bytes, the array's type byte, its index as a name and the name's NUL.
        .map(|c| c.data_size() + c.len() * 9 + 1024)
        .sum::<usize>()
        + 1024;
    let mut w = Writer { out: Vec::with_capacity(capacity) };
    let top = w.open();
    let ids = &db.ids;
    w.fields(&doc! {
        "format": FORMAT,
        "version": VERSION,
        "ids": {
            "state": ids.state as i64,
            "process": Binary { subtype: BinarySubtype::Generic, bytes: ids.process.to_vec() },
            "counter": ids.counter as i64,
            "tsIncrement": ids.ts_increment as i64,
        },
    })?;
    let dbs = w.open_field(ARRAY, "databases");
    for (i, (name, d)) in db.dbs.iter().enumerate() {
        let one = w.open_element(DOCUMENT, i);
        w.fields(&doc! {"name": name.clone()})?;
        let colls = w.open_field(ARRAY, "collections");
        for (j, (cname, c)) in d.collections.iter().enumerate() {
            let coll = w.open_element(DOCUMENT, j);
            let indexes: Vec<Bson> = c.indexes.iter().map(|i| Bson::Document(i.spec.clone())).collect();
            w.fields(&doc! {
                "name": cname.clone(),
                "options": c.options.clone(),
                "uuid": Binary { subtype: BinarySubtype::Uuid, bytes: c.uuid.to_vec() },
                "indexes": indexes,
            })?;
            let docs = w.open_field(ARRAY, "documents");
            for (k, (_, r)) in c.iter().enumerate() {
                w.name(DOCUMENT, k);
                w.out.extend_from_slice(r.bytes());
            }
            w.close(docs)?;
            w.close(coll)?;
        }
        w.close(colls)?;
        w.close(one)?;
    }
    w.close(dbs)?;
    w.close(top)?;
    Ok(w.out)
}

const DOCUMENT: u8 = 0x03;
const ARRAY: u8 = 0x04;

/// Writes nested BSON documents and arrays into one buffer: `open*` leaves room for a length
/// that `close` fills in.
struct Writer {
    out: Vec<u8>,
}

impl Writer {
    fn open(&mut self) -> usize {
        let at = self.out.len();
        self.out.extend_from_slice(&[0; 4]);
        at
    }

    /// An element's type and name.
    fn key(&mut self, ty: u8, name: &str) {
        self.out.push(ty);
        self.out.extend_from_slice(name.as_bytes());
        self.out.push(0);
    }

    /// An array element's type and name (its index).
    fn name(&mut self, ty: u8, index: usize) {
        self.out.push(ty);
        // Writing into a Vec<u8> cannot fail.
        let _ = write!(self.out, "{index}");
        self.out.push(0);
    }

    fn open_field(&mut self, ty: u8, name: &str) -> usize {
        self.key(ty, name);
        self.open()
    }

    fn open_element(&mut self, ty: u8, index: usize) -> usize {
        self.name(ty, index);
        self.open()
    }

    fn close(&mut self, at: usize) -> Result<()> {
        self.out.push(0);
        let len = i32::try_from(self.out.len() - at)
            .map_err(|_| Error::new(ErrorKind::InternalError, "snapshot: more than 2 GiB of BSON"))?;
        self.out[at..at + 4].copy_from_slice(&len.to_le_bytes());
        Ok(())
    }

    /// The elements of `d`, in order (a document's bytes without its length and final NUL).
    fn fields(&mut self, d: &Document) -> Result<()> {
        let bytes = d.to_vec().map_err(|e| Error::new(ErrorKind::InternalError, format!("snapshot: {e}")))?;
        self.out.extend_from_slice(&bytes[4..bytes.len() - 1]);
        Ok(())
    }
}

fn bad(msg: &str) -> Error {
    Error::new(ErrorKind::FailedToParse, format!("invalid snapshot: {msg}"))
}

pub(super) fn read(bytes: &[u8]) -> Result<Database> {
    // The usual snapshot (one this engine wrote) is read in place, its documents stored as the
    // bytes they are; anything else (and every error) takes the decoding path below.
    if let Some(db) = read_in_place(bytes) {
        return Ok(db);
    }
    let fast = bson::RawDocument::from_bytes(bytes).ok().and_then(|raw| crate::value::raw::decode(raw).ok());
    let snap = match fast {
        Some(d) => d,
        None => Document::from_reader(bytes).map_err(|e| Error::new(ErrorKind::InvalidBSON, format!("invalid snapshot: {e}")))?,
    };
    if snap.get_str("format").ok() != Some(FORMAT) {
        return Err(bad("not a Pattern Playground snapshot"));
    }
    if snap.get_i32("version").ok() != Some(VERSION) {
        return Err(bad("unsupported version"));
    }
    let mut out = Database::new();
    if let Ok(ids) = snap.get_document("ids") {
        let mut process = [0u8; 5];
        if let Ok(p) = ids.get_binary_generic("process") {
            if p.len() == 5 {
                process.copy_from_slice(p);
            }
        }
        out.ids = IdGen {
            state: ids.get_i64("state").unwrap_or(1) as u64,
            process,
            counter: ids.get_i64("counter").unwrap_or(0) as u32,
            ts_increment: ids.get_i64("tsIncrement").unwrap_or(0) as u32,
        };
    }
    let dbs = snap.get_array("databases").map_err(|_| bad("missing databases"))?;
    for d in dbs {
        let Bson::Document(d) = d else { return Err(bad("database entry is not a document")) };
        let name = d.get_str("name").map_err(|_| bad("database without a name"))?.to_string();
        let mut db = Db::default();
        for c in d.get_array("collections").map_err(|_| bad("missing collections"))? {
            let Bson::Document(c) = c else { return Err(bad("collection entry is not a document")) };
            let cname = c.get_str("name").map_err(|_| bad("collection without a name"))?;
            let options = c.get_document("options").cloned().unwrap_or_default();
            let mut uuid = [0u8; 16];
            if let Some(Bson::Binary(b)) = c.get("uuid") {
                if b.bytes.len() == 16 {
                    uuid.copy_from_slice(&b.bytes);
                }
            }
            let mut coll = Collection::new(&name, cname, options, uuid);
            coll.indexes.clear();
            for spec in c.get_array("indexes").map_err(|_| bad("missing indexes"))? {
                let Bson::Document(spec) = spec else { return Err(bad("index spec is not a document")) };
                let ix = if spec.get_str("name").ok() == Some(super::index::ID_INDEX_NAME) {
                    Index::id_index()
                } else {
                    Index::from_spec(spec)?
                };
                coll.indexes.push(ix);
            }
            for doc in c.get_array("documents").map_err(|_| bad("missing documents"))? {
                let Bson::Document(doc) = doc else { return Err(bad("document entry is not a document")) };
                coll.insert(doc.clone())?;
            }
            db.collections.insert(cname.to_string(), coll);
        }
        out.dbs.insert(name, db);
    }
    Ok(out)
}

/// [`read`] without decoding the stored documents: `None` when anything is not as [`write`]
/// writes it, or a document is not in the form the engine stores as it is
/// (`value::raw::check_stored_form`), or an insert fails; the decoding path then gives the
/// answer (and its error).
fn read_in_place(bytes: &[u8]) -> Option<Database> {
    use bson::raw::RawBsonRef;
    let snap = bson::RawDocument::from_bytes(bytes).ok()?;
    if snap.get_str("format").ok()? != FORMAT || snap.get_i32("version").ok()? != VERSION {
        return None;
    }
    let mut out = Database::new();
    let ids = snap.get_document("ids").ok()?;
    let process = ids.get_binary("process").ok()?;
    if process.subtype != BinarySubtype::Generic {
        return None;
    }
    let process: [u8; 5] = process.bytes.try_into().ok()?;
    out.ids = IdGen {
        state: ids.get_i64("state").ok()? as u64,
        process,
        counter: ids.get_i64("counter").ok()? as u32,
        ts_increment: ids.get_i64("tsIncrement").ok()? as u32,
    };
    for d in snap.get_array("databases").ok()? {
        let d = d.ok()?.as_document()?;
        let name = d.get_str("name").ok()?.to_string();
        let mut db = Db::default();
        for c in d.get_array("collections").ok()? {
            let c = c.ok()?.as_document()?;
            let cname = c.get_str("name").ok()?;
            let options = crate::value::raw::decode(c.get_document("options").ok()?).ok()?;
            let uuid: [u8; 16] = c.get_binary("uuid").ok()?.bytes.try_into().ok()?;
            let mut coll = Collection::new(&name, cname, options, uuid);
            coll.indexes.clear();
            // The `_id` index (first, when there is one) takes the documents as they come; the
            // others are built after them, each from its sorted keys (`Collection::add_index`).
            let mut later = Vec::new();
            for spec in c.get_array("indexes").ok()? {
                let spec = crate::value::raw::decode(spec.ok()?.as_document()?).ok()?;
                if spec.get_str("name").ok() == Some(super::index::ID_INDEX_NAME) {
                    if !later.is_empty() || !coll.indexes.is_empty() {
                        return None;
                    }
                    coll.indexes.push(Index::id_index());
                } else {
                    later.push(Index::from_spec(&spec).ok()?);
                }
            }
            for doc in c.get_array("documents").ok()? {
                let RawBsonRef::Document(doc) = doc.ok()? else { return None };
                let form = crate::value::raw::check_stored_form(doc, crate::value::MAX_NESTING).ok()?;
                if !form.same || form.depth + 1 >= crate::value::MAX_NESTING {
                    return None;
                }
                coll.insert_bytes(doc.as_bytes().to_vec()).ok()?;
            }
            for ix in later {
                coll.add_index(ix).ok()?;
            }
            if db.collections.insert(cname.to_string(), coll).is_some() {
                return None;
            }
        }
        if out.dbs.insert(name, db).is_some() {
            return None;
        }
    }
    Some(out)
}
