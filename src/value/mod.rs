//! Values: the one place that decides how BSON values compare, what counts as equal, how numbers
//! promote, how dotted paths reach into documents and arrays, and how values print inside error
//! messages ([`display`]).

pub mod compare;
pub mod display;
pub mod number;
pub mod path;
pub mod types;

pub use compare::{canonical_type, compare, compare_documents, equal, hash_key};
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

fn decimal_digits(mut i: usize) -> usize {
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
