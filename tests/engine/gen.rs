//! Generators of stored documents for the property tests that compare a path reading the
//! stored bytes with the decoded path (`raw_sort.rs`, `raw_group.rs`, `raw_fields.rs`), and the
//! replies they compare: every BSON type, the numbers that compare equal across types, NaN and
//! -0, strings with a NUL or non-ASCII text, arrays and embedded documents two levels deep.

use bson::{doc, oid::ObjectId, spec::BinarySubtype, Binary, Bson, DateTime, Decimal128, Document, Regex, Timestamp};
use pattern_playground::db::Database;
use proptest::prelude::*;

use super::common::{fixed_db, ok};

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

/// A database whose collection `c` holds one document per entry of `docs`: `_id` its position
/// (an int32), then its fields.
pub fn collection_of(docs: &[Vec<(&'static str, Bson)>]) -> Database {
    let mut db = fixed_db(1);
    ok(&mut db, &doc! {"create": "c"});
    let documents: Vec<Bson> = docs
        .iter()
        .enumerate()
        .map(|(i, fs)| {
            let mut d = doc! {"_id": i as i32};
            for (k, v) in fs {
                d.insert(*k, v.clone());
            }
            Bson::Document(d)
        })
        .collect();
    if !documents.is_empty() {
        ok(&mut db, &doc! {"insert": "c", "documents": documents});
    }
    db
}

/// The whole reply to an `aggregate` of collection `c` (an error's too), as bytes: types, field
/// order, NaN and -0 compared exactly.
pub fn aggregate_reply(db: &mut Database, pipeline: &[Document]) -> Vec<u8> {
    let r = db.run_command(&doc! {"aggregate": "c", "pipeline": pipeline.to_vec(), "cursor": {"batchSize": 1000}});
    r.to_vec().expect("reply encodes")
}

/// A reply's bytes shown as a document (for a failure's message).
pub fn show(bytes: &[u8]) -> String {
    Document::from_reader(bytes).map(|d| d.to_string()).unwrap_or_default()
}
