//! An insert command given as bytes (`Database::run_command_raw`, what the WebAssembly bindings
//! send) stores its documents without decoding them when it can (`insert::split_raw`). It must
//! answer, store, index, draw ObjectIds and report exactly as the decoded command does
//! (`run_command` on the command decoded, which is what `run_command_raw` did for every command
//! before), for any bytes: duplicate field names, array elements named out of order, the rare
//! value kinds, `Timestamp(0, 0)`, missing or misplaced `_id`, unique, sparse, partial and
//! wildcard indexes, validators, time series collections and views.

use bson::{doc, spec::BinarySubtype, Binary, Bson, Document, RawDocument, Regex, Timestamp};
use pattern_playground::db::Database;
use proptest::prelude::*;

/// A value; `Raw` is pre-built element bytes' value part (a document written as an array with
/// its elements named out of order, or holding a field twice).
#[derive(Debug, Clone)]
enum V {
    B(Bson),
    Doc(Vec<(String, V)>),
    /// An array whose elements are named by the given names (not `0`, `1`, ... when shuffled).
    Arr(Vec<(String, V)>),
}

fn scalar() -> impl Strategy<Value = Bson> {
    prop_oneof![
        (-3i32..4).prop_map(Bson::Int32),
        (-3i64..4).prop_map(Bson::Int64),
        prop::sample::select(vec![0.5f64, -0.0, 2.0, f64::NAN]).prop_map(Bson::Double),
        prop::sample::select(vec!["", "x", "$x"]).prop_map(|s| Bson::String(s.to_string())),
        any::<bool>().prop_map(Bson::Boolean),
        Just(Bson::Null),
        Just(Bson::Undefined),
        Just(Bson::Timestamp(Timestamp { time: 0, increment: 0 })),
        Just(Bson::Timestamp(Timestamp { time: 5, increment: 1 })),
        Just(Bson::RegularExpression(Regex { pattern: "a".to_string().try_into().unwrap(), options: "mi".to_string().try_into().unwrap() })),
        Just(Bson::Binary(Binary { subtype: BinarySubtype::Generic, bytes: vec![1, 2] })),
        Just(Bson::Binary(Binary { subtype: BinarySubtype::BinaryOld, bytes: vec![3] })),
        Just(Bson::DateTime(bson::DateTime::from_millis(7))),
        Just(Bson::ObjectId(bson::oid::ObjectId::from_bytes([1; 12]))),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["_id", "a", "b", "t", "$d"]).prop_map(String::from)
}

fn value() -> impl Strategy<Value = V> {
    scalar().prop_map(V::B).prop_recursive(3, 10, 3, |inner| {
        prop_oneof![
            prop::collection::vec((key(), inner.clone()), 0..3).prop_map(V::Doc),
            (prop::collection::vec(inner, 0..3), any::<bool>()).prop_map(|(xs, shuffle)| {
                let n = xs.len();
                V::Arr(xs.into_iter().enumerate().map(|(i, x)| ((if shuffle { n - 1 - i } else { i }).to_string(), x)).collect())
            }),
        ]
    })
}

/// A document's fields (a name may repeat).
fn fields() -> impl Strategy<Value = Vec<(String, V)>> {
    prop::collection::vec((key(), value()), 0..4)
}

fn element(out: &mut Vec<u8>, k: &str, v: &V) {
    match v {
        V::B(b) => {
            let d = doc! {"k": b.clone()}.to_vec().expect("encodes");
            // type byte, then the name, then the value as the encoder wrote it
            out.push(d[4]);
            out.extend_from_slice(k.as_bytes());
            out.push(0);
            out.extend_from_slice(&d[4 + 3..d.len() - 1]);
        }
        V::Doc(fs) | V::Arr(fs) => {
            out.push(if matches!(v, V::Doc(_)) { 3 } else { 4 });
            out.extend_from_slice(k.as_bytes());
            out.push(0);
            document(out, fs);
        }
    }
}

fn document(out: &mut Vec<u8>, fs: &[(String, V)]) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    for (k, v) in fs {
        element(out, k, v);
    }
    out.push(0);
    let len = (out.len() - start) as i32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// `{ insert: "c", documents: [..], ordered, bypassDocumentValidation? }` as bytes.
fn insert_bytes(coll: &str, docs: &[Vec<(String, V)>], ordered: bool, bypass: Option<bool>) -> Vec<u8> {
    let mut out = vec![0; 4];
    element(&mut out, "insert", &V::B(Bson::String(coll.into())));
    out.push(4);
    out.extend_from_slice(b"documents\0");
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    for (i, d) in docs.iter().enumerate() {
        out.push(3);
        out.extend_from_slice(i.to_string().as_bytes());
        out.push(0);
        document(&mut out, d);
    }
    out.push(0);
    let len = (out.len() - start) as i32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
    element(&mut out, "ordered", &V::B(Bson::Boolean(ordered)));
    if let Some(b) = bypass {
        element(&mut out, "bypassDocumentValidation", &V::B(Bson::Boolean(b)));
    }
    out.push(0);
    let len = out.len() as i32;
    out[..4].copy_from_slice(&len.to_le_bytes());
    out
}

/// What the engine did with every command given as bytes before inserts were split: decode it
/// (the engine's own decoder), then run it.
fn decoded(bytes: &[u8]) -> Document {
    pattern_playground::value::raw::decode(RawDocument::from_bytes(bytes).expect("valid bytes")).expect("decodes")
}

#[derive(Debug, Clone)]
enum Cmd {
    Insert(String, Vec<Vec<(String, V)>>, bool, Option<bool>),
    Other(Document),
}

fn cmd() -> impl Strategy<Value = Cmd> {
    prop_oneof![
        6 => (prop::sample::select(vec!["c", "v", "ts"]), prop::collection::vec(fields(), 1..4), any::<bool>(), prop::option::of(any::<bool>()))
            .prop_map(|(c, ds, o, b)| Cmd::Insert(c.to_string(), ds, o, b)),
        1 => prop::sample::select(vec![
            doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "unique": true}]},
            doc! {"createIndexes": "c", "indexes": [{"key": {"b": -1, "a.b": 1}, "name": "b_ab", "sparse": true}]},
            doc! {"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_p", "partialFilterExpression": {"a": {"$gt": 0}}, "unique": true}]},
            doc! {"createIndexes": "c", "indexes": [{"key": {"$**": 1}, "name": "all"}]},
            doc! {"collMod": "c", "validator": {"a": {"$exists": true}}},
            doc! {"collMod": "c", "validator": {}},
            doc! {"create": "ts", "timeseries": {"timeField": "t"}},
            doc! {"create": "v", "viewOn": "c", "pipeline": []},
            doc! {"delete": "c", "deletes": [{"q": {"a": {"$exists": true}}, "limit": 0}]},
        ])
        .prop_map(Cmd::Other),
    ]
}

fn fresh() -> Database {
    let mut db = Database::new();
    db.set_fixed_time(1_700_000_000_000);
    db.set_seed(5);
    db
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn raw_inserts_answer_and_store_as_decoded_ones(cmds in prop::collection::vec(cmd(), 1..8)) {
        let mut raw = fresh();
        let mut dec = fresh();
        for c in cmds {
            let bytes = match &c {
                Cmd::Insert(coll, docs, ordered, bypass) => insert_bytes(coll, docs, *ordered, *bypass),
                Cmd::Other(d) => d.to_vec().expect("encodes"),
            };
            let before = raw.snapshot();
            let a = Document::from_reader(raw.run_command_raw(&bytes).as_slice()).expect("reply decodes");
            let b = dec.run_command(&decoded(&bytes));
            // (compared as bytes: a NaN is not equal to itself)
            prop_assert_eq!(a.to_vec().expect("encodes"), b.to_vec().expect("encodes"), "replies differ for {:?}: {} / {}", c, a, b);
            prop_assert_eq!(raw.snapshot(), dec.snapshot(), "stored data differs after {:?}", c);
            prop_assert_eq!(format!("{:?}", raw.last_write_report()), format!("{:?}", dec.last_write_report()));
            prop_assert_eq!(raw.last_write_count(), dec.last_write_count());
            if let Cmd::Insert(_, docs, _, _) = &c {
                let failed = a.get("ok") != Some(&Bson::Double(1.0)) || a.contains_key("writeErrors");
                if docs.len() == 1 && failed {
                    // A failed write changes nothing (the ObjectId it may have drawn aside).
                    let strip = |s: Vec<u8>| { let mut d = Document::from_reader(s.as_slice()).expect("decodes"); d.remove("ids"); d.to_vec().expect("encodes") };
                    prop_assert_eq!(strip(raw.snapshot()), strip(before), "failed insert changed data: {:?}", c);
                }
            }
        }
    }
}

#[test]
fn bytes_kept_as_they_are_or_normalized_as_decoding_does() {
    // `{_id: 1, a: 1, a: 2}`: the field named twice keeps its first place and its last value, as
    // decoding gives; an array named out of order is renumbered.
    let docs = vec![
        vec![("_id".to_string(), V::B(Bson::Int32(1))), ("a".into(), V::B(Bson::Int32(1))), ("a".into(), V::B(Bson::Int32(2)))],
        vec![("_id".to_string(), V::B(Bson::Int32(2))), ("r".into(), V::Arr(vec![("1".into(), V::B(Bson::Int32(7))), ("0".into(), V::B(Bson::Int32(8)))]))],
        vec![("x".to_string(), V::B(Bson::Timestamp(Timestamp { time: 0, increment: 0 }))), ("_id".into(), V::B(Bson::Int32(3)))],
    ];
    let mut db = fresh();
    let reply = Document::from_reader(db.run_command_raw(&insert_bytes("c", &docs, true, None)).as_slice()).unwrap();
    assert_eq!(reply, doc! {"n": 3, "ok": 1.0});
    let found = db.run_command(&doc! {"find": "c"});
    let batch = found.get_document("cursor").unwrap().get_array("firstBatch").unwrap();
    assert_eq!(batch[0], Bson::Document(doc! {"_id": 1, "a": 2}));
    assert_eq!(batch[1], Bson::Document(doc! {"_id": 2, "r": [7, 8]}));
    let third = batch[2].as_document().unwrap();
    assert_eq!(third.keys().collect::<Vec<_>>(), vec!["_id", "x"]);
    assert_ne!(third.get_timestamp("x").unwrap(), Timestamp { time: 0, increment: 0 });
    assert_eq!(db.last_write_count(), 0, "a find writes nothing");
}

#[test]
fn reports_are_bounded_and_counted() {
    let mut db = fresh();
    let docs: Vec<Bson> = (0..2500).map(|i| Bson::Document(doc! {"_id": i})).collect();
    let bytes = doc! {"insert": "c", "documents": docs}.to_vec().unwrap();
    db.run_command_raw(&bytes);
    assert_eq!(db.last_write_count(), 2500);
    assert_eq!(db.last_write_report().len(), pattern_playground::db::MAX_WRITE_REPORTS);
    assert_eq!(db.last_write_report()[999].id, Bson::Int32(999));
    db.run_command(&doc! {"delete": "c", "deletes": [{"q": {}, "limit": 0}]});
    assert_eq!(db.last_write_count(), 2500);
    db.run_command(&doc! {"ping": 1});
    assert_eq!((db.last_write_count(), db.last_write_report().len()), (0, 0));
}

/// The nesting limits around their edges: the storage depth (100 levels, a write error of the
/// document) and the command's (200 levels, the command refused before it runs), on bytes as on
/// the decoded command.
#[test]
fn nesting_limits_as_on_the_decoded_command() {
    let nested = |levels: usize| (0..levels).fold(Bson::Int32(1), |inner, i| if i % 2 == 0 { Bson::Document(doc! {"x": inner}) } else { Bson::Array(vec![inner]) });
    for levels in (96..=102).chain(194..=202) {
        let cmd = doc! {"insert": "c", "documents": [{"_id": 1, "a": nested(levels)}, {"_id": 2}], "ordered": false};
        let bytes = cmd.to_vec().unwrap();
        let mut raw = fresh();
        let mut dec = fresh();
        let a = Document::from_reader(raw.run_command_raw(&bytes).as_slice()).unwrap();
        let b = dec.run_command(&cmd);
        assert_eq!(a, b, "{levels} levels");
        assert_eq!(raw.snapshot(), dec.snapshot(), "{levels} levels");
        let expect_n = if levels < 100 { 2 } else if levels + 1 >= 200 { -1 } else { 1 };
        match expect_n {
            -1 => assert_eq!(a.get_i32("code").ok(), Some(15), "{levels}: {a}"),
            n => assert_eq!(a.get_i32("n").ok(), Some(n), "{levels}: {a}"),
        }
    }
}

/// A `deleteMany` keeps the reports of the first documents it deletes, in order, across its
/// statements, and counts them all, whether it removes many records at once (a scan's ids, an
/// eighth of the collection or more) or a few one by one; the index stays the records'.
#[test]
fn delete_reports_span_statements_and_the_index_follows() {
    let mut db = fresh();
    let docs: Vec<Bson> = (0..3000).map(|i| Bson::Document(doc! {"_id": i, "g": i % 3, "k": i})).collect();
    db.run_command_raw(&doc! {"insert": "c", "documents": docs}.to_vec().unwrap());
    db.run_command(&doc! {"createIndexes": "c", "indexes": [{"key": {"k": 1}, "name": "k_1"}]});
    // 600 then 800 documents: the second statement's reports stop at the bound.
    let r = db.run_command(&doc! {"delete": "c", "deletes": [{"q": {"_id": {"$lt": 600}}, "limit": 0}, {"q": {"g": 1}, "limit": 0}]});
    assert_eq!(r.get_i32("n").ok(), Some(1400), "{r}");
    assert_eq!(db.last_write_count(), 1400);
    let reports = db.last_write_report();
    assert_eq!(reports.len(), pattern_playground::db::MAX_WRITE_REPORTS);
    assert_eq!((reports[0].id.clone(), reports[599].id.clone()), (Bson::Int32(0), Bson::Int32(599)));
    assert_eq!((reports[600].id.clone(), reports[999].id.clone()), (Bson::Int32(601), Bson::Int32(601 + 3 * 399)));
    assert_eq!(reports[600].changed_paths, vec!["_id", "g", "k"]);
    // 100 of the 1 600 left: removed one by one.
    db.run_command(&doc! {"delete": "c", "deletes": [{"q": {"g": 2, "_id": {"$lt": 900}}, "limit": 0}]});
    assert_eq!((db.last_write_count(), db.last_write_report().len()), (100, 100));
    assert_eq!(db.last_write_report()[99].id, Bson::Int32(899));
    // What the index finds is what a scan finds.
    let ids = |db: &mut Database, hint: Bson| -> Vec<i32> {
        let r = db.run_command(&doc! {"find": "c", "filter": {"k": {"$gte": 0}}, "hint": hint, "batchSize": 5000, "sort": {"_id": 1}});
        r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().iter().map(|d| d.as_document().unwrap().get_i32("_id").unwrap()).collect()
    };
    let by_index = ids(&mut db, Bson::String("k_1".into()));
    let by_scan = ids(&mut db, Bson::Document(doc! {"$natural": 1}));
    assert_eq!(by_index.len(), 1500);
    assert_eq!(by_index, by_scan);
    assert!(by_index.iter().all(|i| *i >= 600 && i % 3 != 1 && !(i % 3 == 2 && *i < 900)));
}
