//! What the storage layer accepts: the server's `fixDocumentForInsert` (size, nesting depth, `_id`
//! rules, `_id` moved first) and the nesting and size limits of updated documents. (The field
//! name rules of replacement documents are the update module's.)

use bson::{Bson, Document};

use crate::error::{Error, ErrorKind, Result};
use crate::value;

/// `BSONObjMaxUserSize`.
pub const MAX_USER_SIZE: usize = 16 * 1024 * 1024;
/// `BSONDepth::getMaxDepthForUserStorage()`.
pub const MAX_DEPTH: usize = 100;

/// Prepares a document for insertion as the server's `fixDocumentForInsert` does: rejects
/// documents over 16 MiB or nested deeper than 100 levels and invalid `_id` values, puts `_id`
/// first (generating an ObjectId with `new_id` when absent), and replaces top-level
/// `Timestamp(0, 0)` values with `now_ts()`.
pub fn prepare_insert(
    doc: &Document,
    new_id: &mut dyn FnMut() -> Bson,
    now_ts: &mut dyn FnMut() -> bson::Timestamp,
) -> Result<Document> {
    let size = value::bson_size(doc);
    if size > MAX_USER_SIZE {
        return Err(Error::bad_value(format!(
            "object to insert too large. size in bytes: {size}, max size: {MAX_USER_SIZE}"
        )));
    }
    check_insert_depth(doc, 1)?;
    if let Some(id) = doc.get("_id") {
        valid_id_field(id)?;
    }
    let first_is_id = doc.keys().next().map(|k| k == "_id").unwrap_or(false);
    let has_zero_ts = doc.values().any(is_zero_timestamp);
    if first_is_id && !has_zero_ts {
        return Ok(doc.clone());
    }
    let mut out = Document::new();
    match doc.get("_id") {
        Some(id) => {
            out.insert("_id", id.clone());
        }
        None => {
            out.insert("_id", new_id());
        }
    }
    for (k, v) in doc {
        if k == "_id" {
            continue;
        }
        if is_zero_timestamp(v) {
            out.insert(k.clone(), Bson::Timestamp(now_ts()));
        } else {
            out.insert(k.clone(), v.clone());
        }
    }
    Ok(out)
}

/// Whether an element is a `Timestamp(0, 0)` (the server fills those in at the top level).
pub fn is_zero_timestamp_at(bytes: &[u8], (_, kind, range): &(&str, bson::spec::ElementType, std::ops::Range<usize>)) -> bool {
    *kind == bson::spec::ElementType::Timestamp && bytes[range.end - 8..range.end].iter().all(|b| *b == 0)
}

/// [`prepare_insert`] on a document's bytes which
/// `value::raw::check_stored_form` found in the stored form and within the storage depth
/// (so decoding and encoding them would give them back, and the depth check passes): the same
/// checks and errors, and the same document, written as bytes: `None` when the bytes are stored
/// as they are (`_id` first, no top-level `Timestamp(0, 0)`), else the document with `_id` first
/// (generated with `new_id` when absent) and each top-level `Timestamp(0, 0)` replaced by
/// `now_ts()`.
pub fn prepare_insert_raw(
    bytes: &[u8],
    new_id: &mut dyn FnMut() -> Bson,
    now_ts: &mut dyn FnMut() -> bson::Timestamp,
) -> Result<Option<Vec<u8>>> {
    let bad = |e: bson::error::Error| Error::new(ErrorKind::InvalidBSON, e.to_string());
    let size = bytes.len();
    if size > MAX_USER_SIZE {
        return Err(Error::bad_value(format!(
            "object to insert too large. size in bytes: {size}, max size: {MAX_USER_SIZE}"
        )));
    }
    let raw = bson::RawDocument::from_bytes(bytes).map_err(bad)?;
    // One pass without allocating: where `_id` is (checked as `prepare_insert` checks it) and
    // whether a top-level `Timestamp(0, 0)` needs filling.
    let mut id_at = None;
    let mut zero_ts = false;
    for (i, el) in raw.iter_elements().enumerate() {
        let el = el.map_err(bad)?;
        if id_at.is_none() && el.key().as_str() == "_id" {
            id_at = Some(i);
            valid_id_field(&value::raw::decode_value(el.value().map_err(bad)?).map_err(bad)?)?;
        }
        zero_ts |= el.element_type() == bson::spec::ElementType::Timestamp
            && matches!(el.value(), Ok(bson::RawBsonRef::Timestamp(t)) if t.time == 0 && t.increment == 0);
    }
    if id_at == Some(0) && !zero_ts {
        return Ok(None);
    }
    let spans = value::raw::element_spans(raw).map_err(bad)?;
    let zero_ts = |s: &(&str, bson::spec::ElementType, std::ops::Range<usize>)| is_zero_timestamp_at(bytes, s);
    let mut out = Vec::with_capacity(size + 20);
    out.extend_from_slice(&[0; 4]);
    match id_at {
        Some(i) => out.extend_from_slice(&bytes[spans[i].2.clone()]),
        None => match new_id() {
            Bson::ObjectId(oid) => {
                out.extend_from_slice(b"\x07_id\0");
                out.extend_from_slice(&oid.bytes());
            }
            _ => out.extend_from_slice(b"\x0A_id\0"),
        },
    }
    for (i, span) in spans.iter().enumerate() {
        if Some(i) == id_at {
            continue;
        }
        if zero_ts(span) {
            let ts = now_ts();
            out.push(0x11);
            out.extend_from_slice(span.0.as_bytes());
            out.push(0);
            out.extend_from_slice(&ts.increment.to_le_bytes());
            out.extend_from_slice(&ts.time.to_le_bytes());
        } else {
            out.extend_from_slice(&bytes[span.2.clone()]);
        }
    }
    out.push(0);
    let len = out.len() as i32;
    out[..4].copy_from_slice(&len.to_le_bytes());
    Ok(Some(out))
}

fn is_zero_timestamp(v: &Bson) -> bool {
    matches!(v, Bson::Timestamp(t) if t.time == 0 && t.increment == 0)
}

/// `validateDepth`: at most 100 levels of non-empty embedded documents and arrays.
fn check_insert_depth(doc: &Document, level: usize) -> Result<()> {
    for v in doc.values() {
        check_insert_depth_value(v, level)?;
    }
    Ok(())
}

fn check_insert_depth_value(v: &Bson, level: usize) -> Result<()> {
    let non_empty = match v {
        Bson::Document(d) => !d.is_empty(),
        Bson::Array(a) => !a.is_empty(),
        _ => return Ok(()),
    };
    if !non_empty {
        return Ok(());
    }
    if level == MAX_DEPTH {
        return Err(Error::new(
            ErrorKind::Overflow,
            format!("cannot insert document because it exceeds {MAX_DEPTH} levels of nesting"),
        ));
    }
    match v {
        Bson::Document(d) => check_insert_depth(d, level + 1),
        Bson::Array(a) => a.iter().try_for_each(|e| check_insert_depth_value(e, level + 1)),
        _ => Ok(()),
    }
}

/// `storageValidIdField`: `_id` may not be a regex, an array or undefined, and an embedded
/// document in it may not hold `$`-prefixed names (other than a DBRef's).
pub fn valid_id_field(id: &Bson) -> Result<()> {
    match id {
        Bson::RegularExpression(_) | Bson::Array(_) | Bson::Undefined => Err(Error::new(
            ErrorKind::InvalidIdField,
            format!("The '_id' value cannot be of type {}", value::types::type_name(id)),
        )),
        Bson::Document(d) => storage_valid_embedded(d).map_err(|e| {
            if e.kind == ErrorKind::DollarPrefixedFieldName {
                Error::new(e.kind, format!("_id fields may not contain '$'-prefixed fields: {}", e.message))
            } else {
                e
            }
        }),
        _ => Ok(()),
    }
}

/// `BSONObj::storageValidEmbedded`: no `$`-prefixed names at any depth, except a leading DBRef
/// (`$ref` string, `$id`, optional `$db` string).
fn storage_valid_embedded(d: &Document) -> Result<()> {
    let entries: Vec<(&String, &Bson)> = d.iter().collect();
    let mut i = 0;
    while i < entries.len() {
        let (name, v) = entries[i];
        if name.starts_with('$') {
            let is_dbref_start = i == 0
                && name == "$ref"
                && matches!(v, Bson::String(_))
                && entries.get(1).map(|(n, _)| n.as_str() == "$id").unwrap_or(false);
            if !is_dbref_start {
                return Err(dollar_not_valid(name));
            }
            // Skip `$ref` and `$id`; an optional string `$db` may follow.
            i = 2;
            if let Some((n, v)) = entries.get(2) {
                if n.as_str() == "$db" && matches!(v, Bson::String(_)) {
                    i = 3;
                } else if n.starts_with('$') {
                    return Err(dollar_not_valid(n));
                }
            }
            // The server does not look inside `$id`.
            continue;
        }
        storage_valid_embedded_value(v)?;
        i += 1;
    }
    Ok(())
}

fn storage_valid_embedded_value(v: &Bson) -> Result<()> {
    match v {
        Bson::Document(d) => storage_valid_embedded(d),
        Bson::Array(a) => {
            for e in a {
                storage_valid_embedded_value(e)?;
            }
            Ok(())
        }
        Bson::JavaScriptCodeWithScope(c) => storage_valid_embedded(&c.scope),
        _ => Ok(()),
    }
}

fn dollar_not_valid(name: &str) -> Error {
    Error::new(ErrorKind::DollarPrefixedFieldName, format!("{name} is not valid for storage."))
}

/// The nesting limit of stored documents (`Document exceeds maximum nesting depth of 100`).
pub fn check_depth(doc: &Document) -> Result<()> {
    doc.values().try_for_each(|v| check_storage_depth(v, 1))
}

/// [`check_depth`] of some values of a document, each with its nesting level (the values an
/// in-place update changed).
pub fn check_depth_of(values: &[(&Bson, usize)]) -> Result<()> {
    values.iter().try_for_each(|(v, level)| check_storage_depth(v, *level))
}

fn check_storage_depth(v: &Bson, level: usize) -> Result<()> {
    if level > MAX_DEPTH {
        return Err(Error::new(
            ErrorKind::Overflow,
            format!("Document exceeds maximum nesting depth of {MAX_DEPTH}"),
        ));
    }
    match v {
        Bson::Document(d) => d.values().try_for_each(|c| check_storage_depth(c, level + 1)),
        Bson::Array(a) => a.iter().try_for_each(|c| check_storage_depth(c, level + 1)),
        _ => Ok(()),
    }
}

/// The size limit of a document written by an update (17419), for writes the update module
/// does not make (`$merge`).
pub fn check_updated_size(doc: &Document) -> Result<()> {
    if value::bson_size(doc) > MAX_USER_SIZE {
        return Err(Error::code(17419, format!("Resulting document after update is larger than {MAX_USER_SIZE}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn prep(d: &Document) -> Result<Document> {
        prepare_insert(d, &mut || Bson::Int32(99), &mut || bson::Timestamp { time: 7, increment: 1 })
    }

    #[test]
    fn insert_puts_id_first_and_generates_one() {
        assert_eq!(prep(&doc! {"a": 1, "_id": 2}).unwrap(), doc! {"_id": 2, "a": 1});
        assert_eq!(prep(&doc! {"a": 1}).unwrap(), doc! {"_id": 99, "a": 1});
        let ts = bson::Timestamp { time: 0, increment: 0 };
        assert_eq!(
            prep(&doc! {"_id": 1, "t": ts}).unwrap(),
            doc! {"_id": 1, "t": bson::Timestamp { time: 7, increment: 1 }}
        );
    }

    #[test]
    fn insert_rejects_bad_ids() {
        let e = prep(&doc! {"_id": [1]}).unwrap_err();
        assert_eq!((e.code_num(), e.message.as_str()), (53, "The '_id' value cannot be of type array"));
        let e = prep(&doc! {"_id": {"a": 1, "$b": 1}}).unwrap_err();
        assert_eq!(e.code_num(), 52);
        assert_eq!(e.message, "_id fields may not contain '$'-prefixed fields: $b is not valid for storage.");
        assert!(prep(&doc! {"_id": {"$ref": "c", "$id": 1, "$db": "d"}}).is_ok());
        assert!(prep(&doc! {"$a": 1, "a": {"$b": 1}}).is_ok());
    }

    #[test]
    fn insert_depth_limit() {
        let mut d = doc! {"x": 1};
        for _ in 0..99 {
            d = doc! {"a": d};
        }
        assert!(prep(&d).is_ok());
        let d = doc! {"a": d};
        let e = prep(&d).unwrap_err();
        assert_eq!(e.code_num(), 15);
    }
}
