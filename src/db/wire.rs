//! Replies as BSON bytes (what the bindings hand to JavaScript). A find's first batch of stored
//! documents ([`Batch`]) is written straight from the collection: each stored document's BSON
//! bytes are copied into the reply as they are, never decoded.

use bson::{Bson, Document};

use super::commands::Batch;
use super::Database;
use crate::error::{Error, ErrorKind, Result};

/// The reply with `cursor.firstBatch` taken from `batch`'s records (of database `dbname`).
pub(super) fn reply_bytes(db: &Database, dbname: &str, reply: &Document, batch: Option<&Batch>) -> Result<Vec<u8>> {
    let Some(batch) = batch else { return encode_fast(reply, 256) };
    let mut out = Vec::new();
    document(&mut out, reply, &mut |out, key, value| match (key, value) {
        ("cursor", Bson::Document(cursor)) => {
            element_header(out, 0x03, key);
            document(out, cursor, &mut |out, key, value| match key {
                k if k == batch.field => {
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
pub(super) fn batch_docs(db: &Database, dbname: &str, batch: &Batch) -> Result<Vec<Bson>> {
    let Some(c) = db.collection(dbname, &batch.collection) else { return Ok(Vec::new()) };
    batch.rids.iter().filter_map(|rid| c.get(*rid)).map(|r| r.doc().map(Bson::Document)).collect()
}

/// A stored document's BSON bytes, written into a buffer of its known size (`size_hint`) without
/// the per-field work of the bson crate's encoder (key validation, a string per array index).
/// Values of the rare kinds (code with scope, DBPointer) go through the bson crate.
pub(crate) fn encode_fast(doc: &Document, size_hint: usize) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(size_hint);
    write_doc_or_encode(&mut out, doc)?;
    Ok(out)
}

/// The bytes of stored document `raw` after an update that decoded only its top-level fields
/// for which `keep` is true (into `fields`, then changed): each kept field is written from
/// `fields` at its place (left out when `fields` no longer has it), every other element is
/// copied as it is, and the fields of `fields` that `raw` did not have follow, in their order.
/// For a stored document (the bytes encoding gives) that is what encoding the whole updated
/// document gives: a document keeps its fields in place and adds new ones at its end.
pub(crate) fn splice_fields(raw: &bson::RawDocument, fields: &Document, keep: &dyn Fn(&str) -> bool, size_hint: usize) -> Result<Vec<u8>> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(size_hint);
    out.extend_from_slice(&[0; 4]);
    let mut written: Vec<&str> = Vec::with_capacity(fields.len());
    let mut at = 4;
    for el in raw.iter_elements() {
        let el = el.map_err(|e| Error::new(ErrorKind::InternalError, format!("stored document does not read: {e}")))?;
        let name = el.key().as_str();
        let end = at + 1 + name.len() + 1 + el.size();
        if !keep(name) {
            out.extend_from_slice(&bytes[at..end]);
        } else if !written.contains(&name) {
            written.push(name);
            if let Some(v) = fields.get(name) {
                write_one(&mut out, name, v)?;
            }
        }
        at = end;
    }
    for (k, v) in fields {
        if !written.contains(&k.as_str()) {
            write_one(&mut out, k, v)?;
        }
    }
    out.push(0);
    patch_len(&mut out, 0);
    Ok(out)
}

/// A stored document's bytes with the edits of an update worked out on them
/// (`Update::apply_bytes`): each edited element written again in its place (an appended-to
/// array keeps its bytes and gets the new elements after its last, named by their indexes),
/// the rest copied as it is. For a stored document that is what [`splice_fields`] gives.
pub(crate) fn splice_edits(bytes: &[u8], edits: &[(usize, usize, &str, crate::update::Edit)], size_hint: usize) -> Result<Vec<u8>> {
    let bad = || Error::new(ErrorKind::InternalError, "stored document does not read");
    let mut out = Vec::with_capacity(size_hint);
    out.extend_from_slice(&[0; 4]);
    let mut at = 4;
    for (start, end, name, edit) in edits {
        out.extend_from_slice(bytes.get(at..*start).ok_or_else(bad)?);
        match edit {
            crate::update::Edit::Same(_) => out.extend_from_slice(bytes.get(*start..*end).ok_or_else(bad)?),
            crate::update::Edit::Value(v) => write_one(&mut out, name, v)?,
            crate::update::Edit::Append { values, len } => {
                // The element's header (type, name), then the array without its terminator.
                let array = *start + 1 + name.len() + 1;
                out.extend_from_slice(bytes.get(*start..*end - 1).ok_or_else(bad)?);
                let array_at = out.len() - (*end - 1 - array);
                let mut index = itoa_buf();
                for (i, v) in values.iter().enumerate() {
                    write_one(&mut out, index.format(len + i), v)?;
                }
                out.push(0);
                patch_len(&mut out, array_at);
            }
        }
        at = *end;
    }
    out.extend_from_slice(bytes.get(at..bytes.len().saturating_sub(1)).ok_or_else(bad)?);
    out.push(0);
    patch_len(&mut out, 0);
    Ok(out)
}

/// Appends one element: the fast writer, or the bson crate for the rare kinds.
pub(crate) fn write_one(out: &mut Vec<u8>, key: &str, v: &Bson) -> Result<()> {
    let start = out.len();
    if !write_element(out, key, v) {
        out.truncate(start);
        let mut one = Document::new();
        one.insert(key, v.clone());
        let bytes = encode(&one)?;
        out.extend_from_slice(&bytes[4..bytes.len() - 1]);
    }
    Ok(())
}

/// Appends `doc`'s BSON to `out`: the fast writer, or the bson crate for the rare kinds.
fn write_doc_or_encode(out: &mut Vec<u8>, doc: &Document) -> Result<()> {
    let start = out.len();
    if !write_doc(out, doc) {
        out.truncate(start);
        out.extend_from_slice(&encode(doc)?);
    }
    Ok(())
}

/// Writes `doc`; false when it holds a value of a kind left to the bson crate (what was written
/// is then left for the caller to truncate).
fn write_doc(out: &mut Vec<u8>, doc: &Document) -> bool {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    for (k, v) in doc {
        if !write_element(out, k, v) {
            return false;
        }
    }
    out.push(0);
    patch_len(out, start);
    true
}

fn write_element(out: &mut Vec<u8>, key: &str, v: &Bson) -> bool {
    if key.as_bytes().contains(&0) {
        return false;
    }
    write_entry(out, key, v)
}

/// [`write_element`] for a key known to hold no NUL (an array index).
fn write_entry(out: &mut Vec<u8>, key: &str, v: &Bson) -> bool {
    element_header(out, v.element_type() as u8, key);
    let string = |out: &mut Vec<u8>, s: &str| {
        out.extend_from_slice(&((s.len() + 1) as i32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
        out.push(0);
    };
    match v {
        Bson::Double(f) => out.extend_from_slice(&f.to_le_bytes()),
        Bson::String(s) | Bson::JavaScriptCode(s) | Bson::Symbol(s) => string(out, s),
        Bson::Document(d) => return write_doc(out, d),
        Bson::Array(a) => {
            let start = out.len();
            out.extend_from_slice(&[0; 4]);
            let mut index = itoa_buf();
            for (i, x) in a.iter().enumerate() {
                if !write_entry(out, index.format(i), x) {
                    return false;
                }
            }
            out.push(0);
            patch_len(out, start);
        }
        Bson::Binary(b) => {
            let sub = u8::from(b.subtype);
            if sub == 2 {
                return false;
            }
            out.extend_from_slice(&(b.bytes.len() as i32).to_le_bytes());
            out.push(sub);
            out.extend_from_slice(&b.bytes);
        }
        Bson::Undefined | Bson::Null | Bson::MinKey | Bson::MaxKey => {}
        Bson::ObjectId(o) => out.extend_from_slice(&o.bytes()),
        Bson::Boolean(b) => out.push(*b as u8),
        Bson::DateTime(d) => out.extend_from_slice(&d.timestamp_millis().to_le_bytes()),
        Bson::RegularExpression(r) => {
            for part in [r.pattern.as_str(), r.options.as_str()] {
                out.extend_from_slice(part.as_bytes());
                out.push(0);
            }
        }
        Bson::Int32(i) => out.extend_from_slice(&i.to_le_bytes()),
        Bson::Timestamp(t) => {
            out.extend_from_slice(&t.increment.to_le_bytes());
            out.extend_from_slice(&t.time.to_le_bytes());
        }
        Bson::Int64(i) => out.extend_from_slice(&i.to_le_bytes()),
        Bson::Decimal128(d) => out.extend_from_slice(&d.bytes()),
        Bson::JavaScriptCodeWithScope(_) | Bson::DbPointer(_) => return false,
    }
    true
}

/// Array index keys ("0", "1", ...) without allocating a string each.
struct IndexKey {
    buf: [u8; 20],
}

fn itoa_buf() -> IndexKey {
    IndexKey { buf: [0; 20] }
}

impl IndexKey {
    fn format(&mut self, mut i: usize) -> &str {
        let mut at = self.buf.len();
        loop {
            at -= 1;
            self.buf[at] = b'0' + (i % 10) as u8;
            i /= 10;
            if i == 0 {
                break;
            }
        }
        std::str::from_utf8(&self.buf[at..]).unwrap_or("0")
    }
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
        let records: Vec<_> = batch.rids.iter().filter_map(|rid| c.get(*rid)).collect();
        out.reserve(records.iter().map(|r| r.size() + 8).sum());
        let mut index = itoa_buf();
        for (i, rec) in records.into_iter().enumerate() {
            element_header(out, 0x03, index.format(i));
            out.extend_from_slice(rec.bytes());
        }
    }
    out.push(0);
    patch_len(out, start);
    Ok(())
}

/// One element (type, name, value): the fast writer, or the bson crate for the rare kinds.
fn element(out: &mut Vec<u8>, key: &str, value: &Bson) -> Result<()> {
    let start = out.len();
    if write_element(out, key, value) {
        return Ok(());
    }
    out.truncate(start);
    let mut one = Document::new();
    one.insert(key, value.clone());
    let bytes = encode(&one)?;
    // A one-element document: 4 length bytes, the element, the terminating NUL.
    out.extend_from_slice(&bytes[4..bytes.len() - 1]);
    Ok(())
}

fn element_header(out: &mut Vec<u8>, kind: u8, key: &str) {
    out.reserve(key.len() + 2);
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
    /// The fast encoder writes what the bson crate writes, for every kind of value.
    #[test]
    fn fast_encoding_matches_the_bson_crate() {
        use bson::spec::BinarySubtype;
        use bson::{Binary, Bson, DateTime, Decimal128, Regex, Timestamp};
        let d = doc! {
            "d": 1.5, "s": "text é", "o": {"a": [1, {"b": null}], "e": {}}, "arr": (0..25).collect::<Vec<i32>>(),
            "bin": Binary { subtype: BinarySubtype::Generic, bytes: vec![1, 2, 3] },
            "u": Bson::Undefined, "oid": bson::oid::ObjectId::from_bytes([7; 12]), "t": true, "f": false,
            "dt": DateTime::from_millis(-5), "n": null, "re": Regex { pattern: "a.c".try_into().unwrap(), options: "i".try_into().unwrap() },
            "js": Bson::JavaScriptCode("x".into()), "sym": Bson::Symbol("y".into()), "i": 7, "ts": Timestamp { time: 3, increment: 4 },
            "l": 9i64, "dec": Decimal128::from_bytes([1; 16]), "min": Bson::MinKey, "max": Bson::MaxKey,
        };
        let mut out = Vec::new();
        assert!(super::write_doc(&mut out, &d));
        assert_eq!(out, d.to_vec().unwrap());
        assert_eq!(crate::value::bson_size(&d), out.len());
        // Kinds left to the bson crate.
        let rare = doc! {"a": 1, "old": Binary { subtype: BinarySubtype::BinaryOld, bytes: vec![9] }};
        assert_eq!(super::encode_fast(&rare, 0).unwrap(), rare.to_vec().unwrap());
        // The fast decoder gives back what the bson crate decodes, for every kind of value.
        for d in [d, rare] {
            let bytes = d.to_vec().unwrap();
            let raw = bson::RawDocument::from_bytes(&bytes).unwrap();
            let fast = crate::value::raw::decode(raw).unwrap();
            assert_eq!(fast, bson::Document::try_from(raw).unwrap());
            assert_eq!(fast.to_vec().unwrap(), bytes);
        }
    }

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
