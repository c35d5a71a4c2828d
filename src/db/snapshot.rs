//! The whole server as bytes: one BSON document
//! `{ format: "pattern-playground", version: 1, ids: {..}, databases: [ { name, collections: [
//! { name, options, uuid, indexes: [specs], documents: [..] } ] } ] }`. Restoring and snapshotting
//! again gives the same bytes.

use bson::raw::{cstr, RawArrayBuf, RawDocumentBuf};
use bson::{doc, spec::BinarySubtype, Binary, Bson, Document};

use crate::error::{Error, ErrorKind, Result};

use super::index::Index;
use super::{Collection, Database, Db, IdGen};

const FORMAT: &str = "pattern-playground";
const VERSION: i32 = 1;

/// The snapshot's bytes; the stored documents are copied in as the BSON bytes they are (each
/// document, collection and database is the last field of the level above, so every level is
/// appended whole).
pub(super) fn write(db: &Database) -> Vec<u8> {
    write_raw(db).unwrap_or_default()
}

fn write_raw(db: &Database) -> Result<Vec<u8>> {
    let raw = |d: Document| RawDocumentBuf::try_from(d).map_err(|e| Error::new(ErrorKind::InternalError, format!("snapshot: {e}")));
    let mut dbs = RawArrayBuf::new();
    for (name, d) in &db.dbs {
        let mut colls = RawArrayBuf::new();
        for (cname, c) in &d.collections {
            let indexes: Vec<Bson> = c.indexes.iter().map(|i| Bson::Document(i.spec.clone())).collect();
            let mut coll = raw(doc! {
                "name": cname.clone(),
                "options": c.options.clone(),
                "uuid": Binary { subtype: BinarySubtype::Uuid, bytes: c.uuid.to_vec() },
                "indexes": indexes,
            })?;
            let mut docs = RawArrayBuf::new();
            for (_, r) in c.iter() {
                docs.push(r.raw()?);
            }
            coll.append(cstr!("documents"), &docs);
            colls.push(&coll);
        }
        let mut one = raw(doc! {"name": name.clone()})?;
        one.append(cstr!("collections"), &colls);
        dbs.push(&one);
    }
    let ids = &db.ids;
    let mut snapshot = raw(doc! {
        "format": FORMAT,
        "version": VERSION,
        "ids": {
            "state": ids.state as i64,
            "process": Binary { subtype: BinarySubtype::Generic, bytes: ids.process.to_vec() },
            "counter": ids.counter as i64,
            "tsIncrement": ids.ts_increment as i64,
        },
    })?;
    snapshot.append(cstr!("databases"), &dbs);
    Ok(snapshot.into_bytes())
}

fn bad(msg: &str) -> Error {
    Error::new(ErrorKind::FailedToParse, format!("invalid snapshot: {msg}"))
}

pub(super) fn read(bytes: &[u8]) -> Result<Database> {
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
