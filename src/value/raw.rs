//! Stored documents are BSON bytes (see `db::collection::Record`): decoding them, and reading a
//! dotted path in place without decoding the document.

use bson::{Bson, Document, RawBsonRef, RawDocument};

/// A document decoded from its bytes: the bson crate's reader walks the bytes (and checks them),
/// the values are built here directly. The crate's own conversion goes through an owned raw value
/// first, which copies every embedded document and array before decoding it again; decoding is
/// what every read of a stored document pays. Values of the rare kinds (binary, regex, code with
/// scope, DBPointer) go through the bson crate.
pub fn decode(raw: &RawDocument) -> Result<Document, bson::error::Error> {
    let mut out = Document::new();
    for item in raw {
        let (k, v) = item?;
        out.insert(k.as_str(), decode_value(v)?);
    }
    Ok(out)
}

/// The top-level fields of a document for which `keep` is true, decoded (the others are skipped
/// unread), in their order: for readers that need only some fields (an index's key fields, a
/// `$group`'s inputs).
pub fn decode_fields(raw: &RawDocument, keep: &dyn Fn(&str) -> bool) -> Result<Document, bson::error::Error> {
    let mut out = Document::new();
    for item in raw {
        let (k, v) = item?;
        if keep(k.as_str()) {
            out.insert(k.as_str(), decode_value(v)?);
        }
    }
    Ok(out)
}

/// One value decoded (see [`decode`]).
pub fn decode_value(v: RawBsonRef<'_>) -> Result<Bson, bson::error::Error> {
    use RawBsonRef as R;
    Ok(match v {
        R::Double(f) => Bson::Double(f),
        R::String(s) => Bson::String(s.to_owned()),
        R::Document(d) => Bson::Document(decode(d)?),
        R::Array(a) => {
            let mut items = Vec::new();
            for x in a {
                items.push(decode_value(x?)?);
            }
            Bson::Array(items)
        }
        R::Boolean(b) => Bson::Boolean(b),
        R::Null => Bson::Null,
        R::Int32(i) => Bson::Int32(i),
        R::Int64(i) => Bson::Int64(i),
        R::DateTime(d) => Bson::DateTime(d),
        R::ObjectId(o) => Bson::ObjectId(o),
        R::Timestamp(t) => Bson::Timestamp(t),
        R::Decimal128(d) => Bson::Decimal128(d),
        R::MinKey => Bson::MinKey,
        R::MaxKey => Bson::MaxKey,
        R::Undefined => Bson::Undefined,
        R::JavaScriptCode(s) => Bson::JavaScriptCode(s.to_owned()),
        R::Symbol(s) => Bson::Symbol(s.to_owned()),
        other => Bson::try_from(other)?,
    })
}

/// What a dotted path reaches in a document read in place.
#[derive(Debug, Clone, Copy)]
pub enum RawLookup<'a> {
    /// The path is missing (or runs into a scalar).
    Missing,
    /// The value at the end of the path, reached through embedded documents only.
    Value(RawBsonRef<'a>),
    /// The path meets an array (the value depends on array traversal) or unreadable bytes:
    /// read the decoded document instead.
    Decode,
}

/// The server's `getFieldDottedOrArray` on bytes, for paths through embedded documents only: the
/// value `parts` reach, missing when they run into a scalar or a missing field, and
/// [`RawLookup::Decode`] as soon as an array is met (array traversal is left to the decoded
/// path, `path::walk_matcher_path`).
pub fn lookup<'a, S: AsRef<str>>(doc: &'a RawDocument, parts: &[S]) -> RawLookup<'a> {
    let mut cur = doc;
    for (i, part) in parts.iter().enumerate() {
        let v = match cur.get(part.as_ref()) {
            Ok(Some(v)) => v,
            Ok(None) => return RawLookup::Missing,
            Err(_) => return RawLookup::Decode,
        };
        let last = i + 1 == parts.len();
        match v {
            RawBsonRef::Array(_) => return RawLookup::Decode,
            RawBsonRef::Document(d) if !last => cur = d,
            _ if !last => return RawLookup::Missing,
            _ => return RawLookup::Value(v),
        }
    }
    RawLookup::Missing
}
