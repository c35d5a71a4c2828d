//! `value::raw::lookup` (a dotted path read from a stored document's bytes, for the raw match and
//! the index keys) answers as the bson crate's own `RawDocument::get` walk does, on every kind of
//! value, on names that are not ASCII and on bytes that do not read.

use bson::spec::BinarySubtype;
use bson::{Binary, Bson, DateTime, Decimal128, Document, RawDocument, Regex, Timestamp};
use pattern_playground::value::raw::{lookup, RawLookup};
use proptest::prelude::*;

/// The walk `lookup` did before it read the bytes itself: the bson crate's `get` per part.
fn reference<'a>(doc: &'a RawDocument, parts: &[&str]) -> RawLookup<'a> {
    let mut cur = doc;
    for (i, part) in parts.iter().enumerate() {
        let v = match cur.get(part) {
            Ok(Some(v)) => v,
            Ok(None) => return RawLookup::Missing,
            Err(_) => return RawLookup::Decode,
        };
        let last = i + 1 == parts.len();
        match v {
            bson::RawBsonRef::Array(_) => return RawLookup::Decode,
            bson::RawBsonRef::Document(d) if !last => cur = d,
            _ if !last => return RawLookup::Missing,
            _ => return RawLookup::Value(v),
        }
    }
    RawLookup::Missing
}

const NAMES: [&str; 6] = ["a", "b", "_id", "é", "", "v"];

fn scalar() -> impl Strategy<Value = Bson> {
    prop_oneof![
        (-3i32..4).prop_map(Bson::Int32),
        (-3i64..4).prop_map(Bson::Int64),
        prop::sample::select(vec![0.5f64, -1.0, f64::NAN]).prop_map(Bson::Double),
        prop::sample::select(vec!["", "x", "né"]).prop_map(|s| Bson::String(s.to_string())),
        any::<bool>().prop_map(Bson::Boolean),
        Just(Bson::Null),
        Just(Bson::Undefined),
        Just(Bson::MinKey),
        Just(Bson::MaxKey),
        (0i64..3).prop_map(|t| Bson::DateTime(DateTime::from_millis(t))),
        Just(Bson::ObjectId(bson::oid::ObjectId::from_bytes([7; 12]))),
        Just(Bson::Decimal128(Decimal128::from_bytes([1; 16]))),
        (0u32..3).prop_map(|t| Bson::Timestamp(Timestamp { time: t, increment: 1 })),
        Just(Bson::Binary(Binary { subtype: BinarySubtype::Generic, bytes: vec![1, 2] })),
        Just(Bson::RegularExpression(Regex { pattern: "a.".to_string().try_into().unwrap(), options: "i".to_string().try_into().unwrap() })),
        Just(Bson::JavaScriptCode("f()".into())),
        Just(Bson::Symbol("s".into())),
    ]
}

fn value() -> impl Strategy<Value = Bson> {
    scalar().prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Bson::Array),
            prop::collection::vec((prop::sample::select(NAMES.to_vec()), inner), 0..4).prop_map(|kv| Bson::Document(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

fn document() -> impl Strategy<Value = Document> {
    prop::collection::vec((prop::sample::select(NAMES.to_vec()), value()), 0..6).prop_map(|kv| kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn path() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(NAMES.to_vec()), 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn lookup_answers_as_the_crate_walk(doc in document(), path in path(), flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3)) {
        let mut bytes = doc.to_vec().unwrap();
        // Some runs damage the bytes (the document's own length and terminator stay, so that
        // it still opens as a raw document and the walk meets the damage).
        let n = bytes.len();
        for (at, b) in flips {
            if n > 5 {
                bytes[4 + at.index(n - 5)] = b;
            }
        }
        let Ok(raw) = RawDocument::from_bytes(&bytes) else { return Ok(()) };
        let got = format!("{:?}", lookup(raw, &path));
        let want = format!("{:?}", reference(raw, &path));
        prop_assert_eq!(got, want);
    }
}
