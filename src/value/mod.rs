//! Values: the one place that decides how BSON values compare, what counts as equal, how numbers
//! promote, how dotted paths reach into documents and arrays, and how values print inside error
//! messages ([`display`]).

pub mod bytes;
pub mod compare;
pub mod decimal_math;
pub mod display;
pub mod number;
pub mod path;
pub mod raw;
pub mod types;

pub use compare::{canonical_type, compare, compare_documents, equal, hash_key, hash_key_into, KeyHasher};
pub use number::Number;

use bson::{Bson, Document};

/// The BSON size of a document in bytes, as `Object.bsonsize` and `$bsonSize` report it.
/// Computed without encoding.
pub fn bson_size(doc: &Document) -> usize {
    4 + doc.iter().map(|(k, v)| 1 + k.len() + 1 + value_size(v)).sum::<usize>() + 1
}

/// The encoded size of one value (without its type byte and field name).
pub fn value_size(v: &Bson) -> usize {
    match v {
        Bson::Double(_) | Bson::Int64(_) | Bson::DateTime(_) | Bson::Timestamp(_) => 8,
        Bson::Int32(_) => 4,
        Bson::Decimal128(_) => 16,
        Bson::String(s) | Bson::Symbol(s) | Bson::JavaScriptCode(s) => 4 + s.len() + 1,
        Bson::Document(d) => bson_size(d),
        Bson::Array(a) => {
            4 + a.iter().enumerate().map(|(i, v)| 1 + decimal_digits(i) + 1 + value_size(v)).sum::<usize>() + 1
        }
        Bson::Binary(b) => {
            // Subtype 2 (old binary) carries an extra inner length.
            4 + 1 + b.bytes.len() + if u8::from(b.subtype) == 2 { 4 } else { 0 }
        }
        Bson::ObjectId(_) => 12,
        Bson::Boolean(_) => 1,
        Bson::Null | Bson::Undefined | Bson::MinKey | Bson::MaxKey => 0,
        Bson::RegularExpression(r) => r.pattern.as_str().len() + 1 + r.options.as_str().len() + 1,
        Bson::JavaScriptCodeWithScope(c) => 4 + 4 + c.code.len() + 1 + bson_size(&c.scope),
        Bson::DbPointer(_) => {
            let mut d = Document::new();
            d.insert("", v.clone());
            // Document length, type byte, the empty name's NUL and the terminator.
            d.to_vec().map(|b| b.len() - 4 - 1 - 1 - 1).unwrap_or(0)
        }
    }
}

/// How deeply the server lets a BSON object nest (`BSONDepth::getMaxAllowableDepth`): deeper
/// commands are refused before they are parsed.
pub const MAX_NESTING: usize = 200;

/// True when `doc` has objects or arrays nested more than `max` levels below it. Stops looking
/// past `max`, so deeply nested input cannot exhaust the stack.
pub fn nests_deeper_than(doc: &Document, max: usize) -> bool {
    fn value(v: &Bson, left: usize) -> bool {
        match v {
            Bson::Document(d) => left == 0 || d.values().any(|x| value(x, left - 1)),
            Bson::Array(a) => left == 0 || a.iter().any(|x| value(x, left - 1)),
            _ => false,
        }
    }
    doc.values().any(|v| value(v, max))
}

/// [`nests_deeper_than`] on BSON bytes, before they are decoded (decoding recurses).
pub fn raw_nests_deeper_than(doc: &bson::RawDocument, max: usize) -> bool {
    doc.iter().any(|e| e.is_ok_and(|(_, v)| raw_value_nests_deeper_than(v, max)))
}

/// [`raw_nests_deeper_than`] of one top-level value of a document.
pub fn raw_value_nests_deeper_than(v: bson::RawBsonRef<'_>, left: usize) -> bool {
    match v {
        bson::RawBsonRef::Document(d) => left == 0 || d.iter().any(|e| e.is_ok_and(|(_, x)| raw_value_nests_deeper_than(x, left - 1))),
        bson::RawBsonRef::Array(a) => left == 0 || a.into_iter().any(|e| e.is_ok_and(|x| raw_value_nests_deeper_than(x, left - 1))),
        _ => false,
    }
}

pub(crate) fn decimal_digits(mut i: usize) -> usize {
    let mut n = 1;
    while i >= 10 {
        i /= 10;
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn size_matches_encoder() {
        let d = doc! {"a": 1, "b": [1, "x", {"c": 2.5}], "d": {"e": null}, "f": bson::oid::ObjectId::new(), "g": (0..12).collect::<Vec<i32>>()};
        assert_eq!(bson_size(&d), d.to_vec().unwrap().len());
    }
}
