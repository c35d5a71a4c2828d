//! Replies as BSON bytes (what the bindings hand to JavaScript). A find's first batch of stored
//! documents ([`Batch`]) is written straight from the collection: each stored document is encoded
//! once into the reply, never copied as a `Document` first.

use bson::{Bson, Document};

use super::commands::Batch;
use super::Database;
use crate::error::{Error, ErrorKind, Result};

/// The reply with `cursor.firstBatch` taken from `batch`'s records (of database `dbname`).
pub(super) fn reply_bytes(db: &Database, dbname: &str, reply: &Document, batch: Option<&Batch>) -> Result<Vec<u8>> {
    let Some(batch) = batch else { return encode(reply) };
    let mut out = Vec::new();
    document(&mut out, reply, &mut |out, key, value| match (key, value) {
        ("cursor", Bson::Document(cursor)) => {
            element_header(out, 0x03, key);
            document(out, cursor, &mut |out, key, value| match key {
                "firstBatch" => {
                    element_header(out, 0x04, key);
                    stored_array(out, db, dbname, batch)
                }
                _ => element(out, key, value),
            })
        }
        _ => element(out, key, value),
    })?;
    Ok(out)
}

/// The first batch's documents, for `Database::run_command` (which returns a `Document`).
pub(super) fn batch_docs(db: &Database, dbname: &str, batch: &Batch) -> Vec<Bson> {
    let Some(c) = db.collection(dbname, &batch.collection) else { return Vec::new() };
    batch.rids.iter().filter_map(|rid| c.get(*rid)).map(|r| Bson::Document(r.doc.clone())).collect()
}

fn encode(doc: &Document) -> Result<Vec<u8>> {
    doc.to_vec().map_err(|e| Error::new(ErrorKind::InternalError, format!("reply is not serializable: {e}")))
}

/// Writes a document whose elements are written by `each` (which may write them differently).
fn document(out: &mut Vec<u8>, doc: &Document, each: &mut dyn FnMut(&mut Vec<u8>, &str, &Bson) -> Result<()>) -> Result<()> {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    for (k, v) in doc {
        each(out, k, v)?;
    }
    out.push(0);
    patch_len(out, start);
    Ok(())
}

fn stored_array(out: &mut Vec<u8>, db: &Database, dbname: &str, batch: &Batch) -> Result<()> {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    if let Some(c) = db.collection(dbname, &batch.collection) {
        for (i, rec) in batch.rids.iter().filter_map(|rid| c.get(*rid)).enumerate() {
            element_header(out, 0x03, &i.to_string());
            out.extend_from_slice(&encode(&rec.doc)?);
        }
    }
    out.push(0);
    patch_len(out, start);
    Ok(())
}

/// One element (type, name, value) encoded by the bson crate.
fn element(out: &mut Vec<u8>, key: &str, value: &Bson) -> Result<()> {
    let mut one = Document::new();
    one.insert(key, value.clone());
    let bytes = encode(&one)?;
    // A one-element document: 4 length bytes, the element, the terminating NUL.
    out.extend_from_slice(&bytes[4..bytes.len() - 1]);
    Ok(())
}

fn element_header(out: &mut Vec<u8>, kind: u8, key: &str) {
    out.push(kind);
    out.extend_from_slice(key.as_bytes());
    out.push(0);
}

fn patch_len(out: &mut [u8], start: usize) {
    let len = (out.len() - start) as i32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use bson::doc;

    use super::super::Database;

    /// The bytes of `run_command_bytes` are those of `run_command`'s reply, for finds that return
    /// stored documents (written from the collection) and every other reply.
    #[test]
    fn reply_bytes_match_documents() {
        let mut db = Database::new();
        db.set_fixed_time(0);
        let big: Vec<i32> = (0..1000).collect();
        db.run_command(&doc! {"insert": "c", "documents": [{"_id": 1, "a": {"b": [1, 2]}, "big": big}, {"_id": 2, "a": "x"}, {"_id": 3}]});
        db.run_command(&doc! {"create": "v", "viewOn": "c", "pipeline": [{"$match": {"_id": {"$gt": 1}}}]});
        let cmds = [
            doc! {"find": "c", "filter": {}},
            doc! {"find": "c", "filter": {"_id": 2}, "limit": 1, "singleBatch": true},
            doc! {"find": "c", "filter": {"_id": 9}},
            doc! {"find": "c", "filter": {}, "projection": {"big": {"$slice": -2}}},
            doc! {"find": "c", "filter": {}, "sort": {"_id": -1}, "skip": 1},
            doc! {"find": "v", "filter": {}},
            doc! {"find": "nope", "filter": {}},
            doc! {"find": "c", "filter": {"$bad": 1}},
            doc! {"aggregate": "c", "pipeline": [], "cursor": {}},
            doc! {"count": "c"},
        ];
        for cmd in cmds {
            let expected = db.run_command(&cmd).to_vec().unwrap();
            assert_eq!(db.run_command_bytes(&cmd), expected, "{cmd}");
        }
    }
}
