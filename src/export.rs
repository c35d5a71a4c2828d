//! Exporting a collection as `mongoimport` and `mongorestore` read it: Extended JSON lines
//! (relaxed or canonical, by the `bson` crate's Extended JSON v2 writer), a `.bson` dump
//! stream (the stored documents' BSON one after another) and a `.metadata.json` (options and
//! indexes). Canonical JSON and `.bson` give back byte-identical documents when imported
//! (`import`); relaxed JSON is lossy where the Extended JSON spec makes it so (an int64 that
//! fits an int32 is written as a plain number and read back as an int32).

use bson::{Bson, Document};

use crate::db::Collection;
use crate::import::json;

/// One document as one line of Extended JSON (no newline).
pub fn document_to_extjson(doc: &Document, canonical: bool) -> String {
    let mut out = Vec::new();
    write_extjson(&mut out, doc, canonical);
    String::from_utf8(out).unwrap_or_default()
}

/// Writes one document as Extended JSON into `out` (no newline).
fn write_extjson(out: &mut Vec<u8>, doc: &Document, canonical: bool) {
    // Top-level fields one by one: only one field's JSON tree is held at a time.
    out.push(b'{');
    for (i, (k, v)) in doc.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let _ = serde_json::to_writer(&mut *out, k);
        out.push(b':');
        let value = if canonical { json::to_canonical(v) } else { json::to_relaxed(v) };
        let _ = serde_json::to_writer(&mut *out, &value);
    }
    out.push(b'}');
}

/// The collection as Extended JSON lines, in natural order (`mongoexport`'s output).
pub fn collection_to_extjson(c: &Collection, canonical: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(c.data_size() * 2);
    // Stored documents always decode (the engine wrote them).
    for doc in c.iter().filter_map(|(_, rec)| rec.doc().ok()) {
        write_extjson(&mut out, &doc, canonical);
        out.push(b'\n');
    }
    out
}

/// The collection as a `.bson` dump stream, in natural order (`mongodump`'s output).
pub fn collection_to_bson(c: &Collection) -> Vec<u8> {
    let mut out = Vec::with_capacity(c.data_size());
    for (_, rec) in c.iter() {
        out.extend_from_slice(rec.bytes());
    }
    out
}

/// The collection's `.metadata.json`: `{ indexes, options, collectionName, type }` in
/// canonical Extended JSON, as mongodump writes it.
pub fn collection_metadata(c: &Collection) -> String {
    let indexes: Vec<Bson> = c.indexes.iter().map(|i| Bson::Document(i.spec.clone())).collect();
    let kind = if c.options.contains_key("viewOn") {
        "view"
    } else if c.is_timeseries() {
        "timeseries"
    } else {
        "collection"
    };
    let mut meta = Document::new();
    meta.insert("indexes", indexes);
    meta.insert("options", c.options.clone());
    meta.insert("collectionName", c.name.clone());
    meta.insert("type", kind);
    Bson::Document(meta).into_canonical_extjson().to_string()
}

/// One collection exported as the bindings ask for it (`format`: `json`, `canonical`, `bson` or
/// `metadata`; an empty `db` is `test`), or why it cannot be.
pub fn export_request(db: &crate::db::Database, db_name: &str, collection: &str, format: &str) -> Result<Vec<u8>, String> {
    let db_name = if db_name.is_empty() { crate::db::DEFAULT_DB } else { db_name };
    let c = db.collection(db_name, collection).ok_or_else(|| format!("no collection {db_name}.{collection}"))?;
    match format {
        "json" => Ok(collection_to_extjson(c, false)),
        "canonical" => Ok(collection_to_extjson(c, true)),
        "bson" => Ok(collection_to_bson(c)),
        "metadata" => Ok(collection_metadata(c).into_bytes()),
        other => Err(format!("unknown export format {other:?}: json, canonical, bson or metadata")),
    }
}
