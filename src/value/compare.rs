//! The server's order of BSON values (`BSONElement::woCompare`): across types by canonical type,
//! within a type by value. Equality in the engine is `compare(a, b) == Equal`; nothing uses
//! `Bson`'s derived `PartialEq` to match.

use std::cmp::Ordering;

use bson::{Bson, Document};

use super::number::Number;

/// The server's `canonicalizeBSONType`: the rank that orders values of different types.
/// MinKey < undefined < null < numbers < string/symbol < object < array < binData < ObjectId
/// < bool < date < timestamp < regex < dbPointer < code < codeWithScope < MaxKey.
pub fn canonical_type(v: &Bson) -> i32 {
    match v {
        Bson::MinKey => -1,
        Bson::Undefined => 0,
        Bson::Null => 5,
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => 10,
        Bson::String(_) | Bson::Symbol(_) => 15,
        Bson::Document(_) => 20,
        Bson::Array(_) => 25,
        Bson::Binary(_) => 30,
        Bson::ObjectId(_) => 35,
        Bson::Boolean(_) => 40,
        Bson::DateTime(_) => 45,
        Bson::Timestamp(_) => 47,
        Bson::RegularExpression(_) => 50,
        Bson::DbPointer(_) => 55,
        Bson::JavaScriptCode(_) => 60,
        Bson::JavaScriptCodeWithScope(_) => 65,
        Bson::MaxKey => 127,
    }
}

/// Orders two values as the server does (no collation).
pub fn compare(a: &Bson, b: &Bson) -> Ordering {
    let (ta, tb) = (canonical_type(a), canonical_type(b));
    if ta != tb {
        return ta.cmp(&tb);
    }
    compare_same_type(a, b)
}

/// True when the two values are equal in the server's sense (numbers across types, field names
/// and order inside documents).
pub fn equal(a: &Bson, b: &Bson) -> bool {
    compare(a, b) == Ordering::Equal
}

fn compare_same_type(a: &Bson, b: &Bson) -> Ordering {
    use Bson::*;
    match (a, b) {
        (String(x), String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (String(x), Symbol(y)) | (Symbol(x), String(y)) | (Symbol(x), Symbol(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Document(x), Document(y)) => compare_documents(x, y),
        (Array(x), Array(y)) => compare_arrays(x, y),
        (Binary(x), Binary(y)) => x
            .bytes
            .len()
            .cmp(&y.bytes.len())
            .then_with(|| u8::from(x.subtype).cmp(&u8::from(y.subtype)))
            .then_with(|| x.bytes.cmp(&y.bytes)),
        (ObjectId(x), ObjectId(y)) => x.bytes().cmp(&y.bytes()),
        (Boolean(x), Boolean(y)) => x.cmp(y),
        (DateTime(x), DateTime(y)) => x.timestamp_millis().cmp(&y.timestamp_millis()),
        (Timestamp(x), Timestamp(y)) => (x.time, x.increment).cmp(&(y.time, y.increment)),
        (RegularExpression(x), RegularExpression(y)) => {
            x.pattern.as_str().as_bytes().cmp(y.pattern.as_str().as_bytes()).then_with(|| x.options.as_str().cmp(y.options.as_str()))
        }
        (JavaScriptCode(x), JavaScriptCode(y)) => x.as_bytes().cmp(y.as_bytes()),
        (JavaScriptCodeWithScope(x), JavaScriptCodeWithScope(y)) => {
            x.code.as_bytes().cmp(y.code.as_bytes()).then_with(|| compare_documents(&x.scope, &y.scope))
        }
        (DbPointer(_), DbPointer(_)) => {
            // The driver type hides its fields; compare the canonical Extended JSON form.
            let (ja, jb) = (a.clone().into_canonical_extjson().to_string(), b.clone().into_canonical_extjson().to_string());
            ja.cmp(&jb)
        }
        _ => match (Number::from_bson(a), Number::from_bson(b)) {
            (Some(x), Some(y)) => x.cmp_num(y),
            // MinKey, MaxKey, null, undefined: all values of the type are equal.
            _ => Ordering::Equal,
        },
    }
}

/// `BSONObj::woCompare` with field names considered: element by element, each by canonical type,
/// then field name, then value; a prefix sorts first.
pub fn compare_documents(a: &Document, b: &Document) -> Ordering {
    let mut ia = a.iter();
    let mut ib = b.iter();
    loop {
        match (ia.next(), ib.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some((ka, va)), Some((kb, vb))) => {
                let o = canonical_type(va)
                    .cmp(&canonical_type(vb))
                    .then_with(|| ka.as_bytes().cmp(kb.as_bytes()))
                    .then_with(|| compare_same_type_or_type(va, vb));
                if o != Ordering::Equal {
                    return o;
                }
            }
        }
    }
}

fn compare_same_type_or_type(a: &Bson, b: &Bson) -> Ordering {
    compare(a, b)
}

/// Arrays compare as the documents `{ "0": .., "1": .. }` they are stored as.
pub fn compare_arrays(a: &[Bson], b: &[Bson]) -> Ordering {
    for (x, y) in a.iter().zip(b.iter()) {
        let o = compare(x, y);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// The hasher of maps and sets keyed by [`hash_key`] bytes (groups, `$in`, `_id` lookups):
/// aHash, which bson's documents already use, rather than std's SipHash, whose resistance to
/// crafted keys buys nothing in an engine serving one learner's own data.
pub type KeyHasher = ahash::RandomState;

/// A byte key equal for exactly the values the server treats as equal (1, 1.0, `Long(1)` and
/// `Decimal128('1.00')` share one key). Used for hashing in groups, sets and `$in`.
pub fn hash_key(v: &Bson) -> Vec<u8> {
    let mut out = Vec::with_capacity(16);
    write_key(v, &mut out);
    out
}

/// [`hash_key`] into a reused buffer (cleared first).
pub fn hash_key_into(v: &Bson, out: &mut Vec<u8>) {
    out.clear();
    write_key(v, out);
}

/// [`hash_key`] built part by part from values read in place (`value::raw`), for a reader that
/// looks a key up without building it (the `$group` that reads stored bytes): the same bytes
/// as the key of the value decoded and built.
pub mod parts {
    use bson::{Bson, Document, RawBsonRef};

    /// Appends the key of `v`.
    pub fn value(v: &Bson, out: &mut Vec<u8>) {
        super::write_key(v, out);
    }

    /// Appends the key of a value read in place: a string's from its bytes, others decoded.
    /// `None` when the value does not decode.
    pub fn raw_value(v: RawBsonRef<'_>, out: &mut Vec<u8>) -> Option<()> {
        let (kind, s) = match v {
            RawBsonRef::String(s) => (Bson::String(String::new()), s),
            RawBsonRef::Symbol(s) => (Bson::Symbol(String::new()), s),
            RawBsonRef::JavaScriptCode(s) => (Bson::JavaScriptCode(String::new()), s),
            other => {
                super::write_key(&crate::value::raw::decode_value(other).ok()?, out);
                return Some(());
            }
        };
        super::write_type(&kind, out);
        super::write_str(s, out);
        Some(())
    }

    /// Starts the key of a document; then `field` and a value for each field, then
    /// `document_end`.
    pub fn document_start(out: &mut Vec<u8>) {
        super::write_type(&Bson::Document(Document::new()), out);
    }

    pub fn field(name: &str, out: &mut Vec<u8>) {
        out.extend_from_slice(name.as_bytes());
        out.push(0);
    }

    pub fn document_end(out: &mut Vec<u8>) {
        out.push(0xff);
    }
}

/// The key of a value's type.
fn write_type(v: &Bson, out: &mut Vec<u8>) {
    out.extend_from_slice(&(canonical_type(v) as i8).to_le_bytes());
}

/// The key of a string after its type's.
fn write_str(s: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn write_key(v: &Bson, out: &mut Vec<u8>) {
    write_type(v, out);
    match v {
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
            let n = Number::from_bson(v).expect("is a number");
            if n.is_nan() {
                out.push(0);
            } else if let Some(i) = n.to_exact_i64() {
                out.push(1);
                out.extend_from_slice(&i.to_le_bytes());
            } else {
                match n {
                    Number::Decimal(d) => {
                        // Decimals that are exact doubles share the double's key.
                        let f = super::number::d128_to_f64(d);
                        if Number::Double(f).cmp_num(n) == Ordering::Equal {
                            out.push(2);
                            out.extend_from_slice(&f.to_bits().to_le_bytes());
                        } else {
                            out.push(3);
                            out.extend_from_slice(format!("{}", d.reduce_key()).as_bytes());
                        }
                    }
                    _ => {
                        out.push(2);
                        out.extend_from_slice(&n.to_f64().to_bits().to_le_bytes());
                    }
                }
            }
        }
        Bson::String(s) | Bson::Symbol(s) | Bson::JavaScriptCode(s) => write_str(s, out),
        Bson::Document(d) => {
            for (k, v) in d {
                parts::field(k, out);
                write_key(v, out);
            }
            parts::document_end(out);
        }
        Bson::Array(a) => {
            for v in a {
                write_key(v, out);
            }
            out.push(0xff);
        }
        Bson::Null | Bson::Undefined | Bson::MinKey | Bson::MaxKey => {}
        // Fixed-width values (the common non-numeric keys: `_id`s, dates) without a BSON round trip.
        Bson::ObjectId(o) => out.extend_from_slice(&o.bytes()),
        Bson::DateTime(d) => out.extend_from_slice(&d.timestamp_millis().to_le_bytes()),
        Bson::Boolean(b) => out.push(u8::from(*b)),
        Bson::Timestamp(t) => {
            out.extend_from_slice(&t.time.to_le_bytes());
            out.extend_from_slice(&t.increment.to_le_bytes());
        }
        other => {
            let mut d = Document::new();
            d.insert("", other.clone());
            if let Ok(bytes) = d.to_vec() {
                out.extend_from_slice(&bytes);
            }
        }
    }
}

/// Decimal values equal in the server's sense print alike once trailing zeros are folded.
trait ReduceKey {
    fn reduce_key(&self) -> String;
}

impl ReduceKey for decmathlib_rs::d128::d128 {
    fn reduce_key(&self) -> String {
        let s = format!("{self}");
        // `+12300E-2` -> coefficient 12300, exponent -2 -> 123E0
        let (sign, rest) = s.split_at(1);
        let (coef, exp) = match rest.split_once('E') {
            Some((c, e)) => (c.to_string(), e.trim_start_matches('+').parse::<i64>().unwrap_or(0)),
            None => (rest.to_string(), 0),
        };
        let trimmed = coef.trim_end_matches('0');
        let removed = (coef.len() - trimmed.len()) as i64;
        if trimmed.is_empty() {
            return "0".into();
        }
        format!("{sign}{trimmed}E{}", exp + removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{bson, doc, oid::ObjectId};

    /// A key built from parts read in place is the key of the value decoded and built.
    #[test]
    fn key_parts_read_in_place_make_the_decoded_values_key() {
        let d = doc! {
            "s": "ab\u{0}c", "e": "", "y": Bson::Symbol("ab".into()), "j": Bson::JavaScriptCode("ab".into()),
            "i": 1, "l": Bson::Int64(1), "f": 1.5, "n": f64::NAN, "z": -0.0, "x": Bson::Decimal128("1.50".parse().unwrap()),
            "d": {"a": [1, "b"], "c": null}, "u": Bson::Undefined, "b": true, "o": ObjectId::from_bytes([3; 12]),
        };
        let bytes = d.to_vec().unwrap();
        let raw = bson::RawDocument::from_bytes(&bytes).unwrap();
        let mut whole = Vec::new();
        parts::document_start(&mut whole);
        for item in raw {
            let (k, v) = item.unwrap();
            let mut one = Vec::new();
            parts::raw_value(v, &mut one).unwrap();
            assert_eq!(one, hash_key(&crate::value::raw::decode_value(v).unwrap()), "{k}");
            parts::field(k.as_str(), &mut whole);
            parts::raw_value(v, &mut whole).unwrap();
        }
        parts::document_end(&mut whole);
        assert_eq!(whole, hash_key(&Bson::Document(d)));
        // Strings of each kind keep apart.
        assert_ne!(hash_key(&bson!("ab")), hash_key(&Bson::JavaScriptCode("ab".into())));
    }

    #[test]
    fn type_order() {
        let ordered = vec![
            Bson::MinKey,
            Bson::Null,
            bson!(1),
            bson!("a"),
            bson!({}),
            bson!([]),
            Bson::Binary(bson::Binary { subtype: bson::spec::BinarySubtype::Generic, bytes: vec![] }),
            Bson::ObjectId(ObjectId::from_bytes([0; 12])),
            bson!(false),
            Bson::DateTime(bson::DateTime::from_millis(0)),
            Bson::Timestamp(bson::Timestamp { time: 0, increment: 0 }),
            Bson::RegularExpression(bson::Regex { pattern: "a".try_into().unwrap(), options: "".try_into().unwrap() }),
            Bson::MaxKey,
        ];
        for w in ordered.windows(2) {
            assert_eq!(compare(&w[0], &w[1]), Ordering::Less, "{:?} < {:?}", w[0], w[1]);
        }
    }

    #[test]
    fn numbers_equal_across_types_and_hash_alike() {
        let one: Vec<Bson> = vec![bson!(1), bson!(1i64), bson!(1.0), Bson::Decimal128("1.00".parse().unwrap())];
        for a in &one {
            for b in &one {
                assert!(equal(a, b));
                assert_eq!(hash_key(a), hash_key(b));
            }
        }
        assert_ne!(hash_key(&bson!(1.5)), hash_key(&bson!(1)));
    }

    #[test]
    fn documents_compare_by_field_then_value() {
        assert_eq!(compare(&bson!({"a": 1}), &bson!({"b": 0})), Ordering::Less);
        assert_eq!(compare(&bson!({"a": 1}), &bson!({"a": 1, "b": 0})), Ordering::Less);
        assert_eq!(compare_documents(&doc! {"a": 2}, &doc! {"a": 1.5}), Ordering::Greater);
    }
}
