//! Generators of stored documents for the property tests that compare a path reading the
//! stored bytes with the decoded path (`raw_sort.rs`, `raw_group.rs`): every BSON type, the
//! numbers that compare equal across types, NaN and -0, strings with a NUL or non-ASCII text,
//! arrays and embedded documents two levels deep.

use bson::{oid::ObjectId, spec::BinarySubtype, Binary, Bson, DateTime, Decimal128, Document, Regex, Timestamp};
use proptest::prelude::*;

/// One value of any BSON type but arrays and documents.
pub fn scalar() -> impl Strategy<Value = Bson> {
    prop_oneof![
        (-2i32..3).prop_map(Bson::Int32),
        prop_oneof![(-2i64..3).prop_map(Bson::Int64), Just(Bson::Int64(i64::MAX))],
        prop::sample::select(vec![0.5f64, -0.0, 0.0, 1.0, -2.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300]).prop_map(Bson::Double),
        prop::sample::select(vec!["1", "1.0", "-0", "0.5", "NaN", "1E+400"]).prop_map(|s| Bson::Decimal128(s.parse::<Decimal128>().expect("decimal"))),
        prop::sample::select(vec!["", "x", "x\u{0}", "y", "é"]).prop_map(|s| Bson::String(s.to_string())),
        Just(Bson::Symbol("x".to_string())),
        any::<bool>().prop_map(Bson::Boolean),
        Just(Bson::Null),
        Just(Bson::Undefined),
        Just(Bson::MinKey),
        Just(Bson::MaxKey),
        (0i64..2).prop_map(|t| Bson::DateTime(DateTime::from_millis(t))),
        (0u32..2).prop_map(|t| Bson::Timestamp(Timestamp { time: t, increment: 1 })),
        (0u8..2).prop_map(|b| Bson::ObjectId(ObjectId::from_bytes([b; 12]))),
        Just(Bson::RegularExpression(Regex { pattern: "a".to_string().try_into().expect("pattern"), options: "i".to_string().try_into().expect("options") })),
        (0u8..2).prop_map(|b| Bson::Binary(Binary { subtype: BinarySubtype::Generic, bytes: vec![b] })),
        Just(Bson::JavaScriptCode("f".to_string())),
    ]
}

/// A scalar, or an array or document of them (two levels deep at most).
pub fn value() -> impl Strategy<Value = Bson> {
    scalar().prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Bson::Array),
            prop::collection::vec((prop::sample::select(vec!["a", "b", "d"]), inner), 0..3).prop_map(|kv| {
                let mut d = Document::new();
                for (k, v) in kv {
                    d.insert(k, v);
                }
                Bson::Document(d)
            }),
        ]
    })
}

/// A document's fields other than `_id` (each at most once; any may be missing).
pub fn fields() -> impl Strategy<Value = Vec<(&'static str, Bson)>> {
    prop::collection::vec((prop::sample::select(vec!["a", "b", "c"]), value()), 0..4)
}
