//! An operator update that needs no old document (no validator, no before-image) decodes only
//! the top-level fields its paths start with (and `_id`), and writes the stored bytes back with
//! those fields encoded again in place (`wire::splice_fields`); the affected indexes' keys are
//! read from the old and new bytes and compared as bytes (`Collection::update_in_place`). It
//! must answer, store, index and report exactly as the path that decodes the whole document and
//! replaces it (taken when the collection has a validator: here one every document passes), for
//! any document and update: numeric promotion and overflow, `$push` to a non-array, fields
//! added, renamed or removed (their order), `_id` changes, positional paths, unique, sparse,
//! partial, compound and wildcard indexes, arrays along key paths, DBRef-like `$` fields, and
//! index key moves put off (`KeyMoves`: a few documents here make batches of one or two, so
//! they are applied during the statement as well as at its end, and after a failing document).

use bson::{doc, Bson, Document};
use pattern_playground::db::Database;
use proptest::prelude::*;

fn scalar() -> impl Strategy<Value = Bson> {
    prop_oneof![
        prop::sample::select(vec![0i32, 1, -2, i32::MAX, i32::MIN]).prop_map(Bson::Int32),
        prop::sample::select(vec![0i64, 3, i64::MAX, i64::MIN]).prop_map(Bson::Int64),
        prop::sample::select(vec![0.5f64, -0.0, 2.0, f64::NAN, 1e300]).prop_map(Bson::Double),
        Just(Bson::Decimal128("1.5".parse().expect("decimal"))),
        prop::sample::select(vec!["", "x", "y"]).prop_map(|s| Bson::String(s.to_string())),
        any::<bool>().prop_map(Bson::Boolean),
        Just(Bson::Null),
        Just(Bson::DateTime(bson::DateTime::from_millis(7))),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "b", "c", "d", "$ref", "$id"]).prop_map(String::from)
}

fn value() -> impl Strategy<Value = Bson> {
    scalar().prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Bson::Array),
            prop::collection::vec((prop::sample::select(vec!["x", "y"]), inner), 0..3)
                .prop_map(|fs| Bson::Document(fs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

/// A document: `_id`, then fields in a random order (a name given twice keeps its first place).
fn document() -> impl Strategy<Value = Document> {
    (0i32..12, prop::collection::vec((key(), value()), 0..5)).prop_map(|(id, fs)| {
        let mut d = doc! {"_id": id};
        for (k, v) in fs {
            d.insert(k, v);
        }
        d
    })
}

fn path() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "b", "c", "e", "a.x", "b.1", "a.$", "b.$[]", "_id", "$id"]).prop_map(String::from)
}

/// One modifier with one or two paths.
fn modifier() -> impl Strategy<Value = Document> {
    let op = prop::sample::select(vec!["$inc", "$set", "$unset", "$push", "$addToSet", "$pull", "$min", "$max", "$mul", "$pop", "$rename", "$bit", "$currentDate"]);
    (op, prop::collection::vec((path(), scalar()), 1..3), any::<bool>()).prop_map(|(op, fields, each)| {
        let mut spec = Document::new();
        for (p, v) in fields {
            let operand = match op {
                "$push" | "$addToSet" if each => Bson::Document(doc! {"$each": [v.clone(), 1]}),
                "$pop" => Bson::Int32(if each { 1 } else { -1 }),
                "$rename" => Bson::String(if each { "e".into() } else { "c".into() }),
                "$bit" => Bson::Document(doc! {"or": 5}),
                "$currentDate" => Bson::Boolean(true),
                _ => v,
            };
            spec.insert(p, operand);
        }
        doc! {op: spec}
    })
}

fn update() -> impl Strategy<Value = Document> {
    prop::collection::vec(modifier(), 1..3).prop_map(|ms| {
        let mut u = Document::new();
        for m in ms {
            for (k, v) in m {
                u.insert(k, v);
            }
        }
        u
    })
}

fn filter() -> impl Strategy<Value = Document> {
    prop::sample::select(vec![doc! {}, doc! {"b": 1}, doc! {"b": {"$type": "array"}}, doc! {"_id": {"$lt": 3}}])
}

fn index() -> impl Strategy<Value = Vec<Document>> {
    let all = vec![
        doc! {"key": {"a": 1}, "name": "a_1"},
        doc! {"key": {"b": 1, "a": -1}, "name": "b_a", "unique": true},
        doc! {"key": {"c": 1}, "name": "c_s", "sparse": true},
        doc! {"key": {"a.x": 1}, "name": "ax_u", "unique": true, "sparse": true},
        doc! {"key": {"d": 1, "c": 1}, "name": "d_c_p", "partialFilterExpression": {"d": {"$gt": 0}}},
        doc! {"key": {"$**": 1}, "name": "all"},
    ];
    prop::sample::subsequence(all, 0..4)
}

fn fresh() -> Database {
    let mut db = Database::new();
    db.set_fixed_time(1_700_000_000_000);
    db.set_seed(5);
    db
}

/// Two databases holding `docs` in collection `c` with `indexes`: one whose updates may take
/// the in-place and bytes paths, and one whose pass-all validator sends every update through
/// the whole document; and the indexes as `listIndexes` gives them.
fn fast_and_whole(docs: &[Bson], indexes: &[Document]) -> (Database, Database, Vec<Document>) {
    let mut fast = fresh();
    let mut whole = fresh();
    whole.run_command(&doc! {"create": "c", "validator": {"$expr": true}});
    for db in [&mut fast, &mut whole] {
        db.run_command(&doc! {"insert": "c", "documents": docs.to_vec(), "ordered": false});
        if !indexes.is_empty() {
            db.run_command(&doc! {"createIndexes": "c", "indexes": indexes.to_vec()});
        }
    }
    let listed = fast.run_command(&doc! {"listIndexes": "c"});
    let batch = listed.get_document("cursor").and_then(|c| c.get_array("firstBatch")).cloned().unwrap_or_default();
    let indexes = batch.into_iter().filter_map(|b| if let Bson::Document(d) = b { Some(d) } else { None }).collect();
    (fast, whole, indexes)
}

/// Runs one update statement on both databases of [`fast_and_whole`] and checks they agree:
/// the replies (as bytes: a NaN is not equal to itself), the stored data in every index's
/// order, and the write reports.
fn same_update(fast: &mut Database, whole: &mut Database, indexes: &[Document], q: &Document, u: &Document, multi: bool) -> Result<(), TestCaseError> {
    let cmd = doc! {"update": "c", "updates": [{"q": q.clone(), "u": u.clone(), "multi": multi}]};
    let a = fast.run_command(&cmd);
    let b = whole.run_command(&cmd);
    prop_assert_eq!(a.to_vec().expect("encodes"), b.to_vec().expect("encodes"), "replies differ for {}: {} / {}", u, a, b);
    prop_assert_eq!(contents(fast, indexes), contents(whole, indexes), "stored data differs after {}", u);
    prop_assert_eq!(format!("{:?}", fast.last_write_report()), format!("{:?}", whole.last_write_report()));
    Ok(())
}

/// The collection's documents in natural order, then in each index's order, as reply bytes.
fn contents(db: &mut Database, indexes: &[Document]) -> Vec<Vec<u8>> {
    let mut out = vec![db.run_command(&doc! {"find": "c", "filter": {}}).to_vec().expect("encodes")];
    for ix in indexes {
        let name = ix.get_str("name").expect("name");
        out.push(db.run_command(&doc! {"find": "c", "filter": {}, "hint": name}).to_vec().expect("encodes"));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn in_place_updates_answer_store_and_index_as_whole_document_ones(
        docs in prop::collection::vec(document(), 1..12),
        indexes in index(),
        steps in prop::collection::vec((filter(), update(), any::<bool>()), 1..5),
    ) {
        let docs: Vec<Bson> = docs.iter().cloned().map(Bson::Document).collect();
        let (mut fast, mut whole, indexes) = fast_and_whole(&docs, &indexes);
        prop_assert_eq!(contents(&mut fast, &indexes), contents(&mut whole, &indexes));
        for (q, u, multi) in steps {
            same_update(&mut fast, &mut whole, &indexes, &q, &u, multi)?;
        }
    }
}

#[test]
fn fields_keep_their_places_and_new_ones_follow() {
    let mut db = fresh();
    db.run_command(&doc! {"insert": "c", "documents": [{"_id": 1, "a": 1, "s": "x", "v": i32::MAX, "tags": ["a"], "z": {"q": 1}}]});
    db.run_command(&doc! {"createIndexes": "c", "indexes": [{"key": {"s": 1, "v": 1}, "name": "s_v"}]});
    let r = db.run_command(&doc! {"update": "c", "updates": [{"q": {}, "u": {"$inc": {"v": 1, "n": 2}, "$push": {"tags": "b"}, "$unset": {"a": ""}, "$rename": {"z": "y"}}, "multi": true}]});
    assert_eq!(r.get_i32("nModified").ok(), Some(1), "{r}");
    let found = db.run_command(&doc! {"find": "c", "filter": {"s": "x", "v": 2_147_483_648i64}, "hint": "s_v"});
    let batch = found.get_document("cursor").unwrap().get_array("firstBatch").unwrap();
    // (compared as bytes: documents compare equal whatever their field order)
    let stored = batch.first().and_then(Bson::as_document).map(|d| d.to_vec().unwrap());
    let expected = doc! {"_id": 1, "s": "x", "v": 2_147_483_648i64, "tags": ["a", "b"], "n": 2, "y": {"q": 1}};
    assert_eq!(batch.len(), 1);
    assert_eq!(stored, Some(expected.to_vec().unwrap()), "{found}");
    let e = db.run_command(&doc! {"update": "c", "updates": [{"q": {}, "u": {"$push": {"s": 1}}}]});
    let err = e.get_array("writeErrors").unwrap()[0].as_document().unwrap().clone();
    assert_eq!(err.get_i32("code").ok(), Some(2), "{e}");
    assert_eq!(
        err.get_str("errmsg").ok(),
        Some("Plan executor error during update :: caused by :: The field 's' must be an array but is of type string in document {_id: 1}")
    );
}

/// Updates the bytes path takes (`Update::apply_bytes`: each path one top-level field the
/// documents have, `$inc`, `$mul`, `$set`, `$min`, `$max`, an appending `$push`), with nested
/// values, deep ones, numbers that overflow and operands of every kind: against the path that
/// decodes the whole document (a validator every document passes), as above.
fn top_level_update() -> impl Strategy<Value = Document> {
    let op = prop::sample::select(vec!["$inc", "$set", "$min", "$max", "$mul", "$push"]);
    let field = prop::sample::select(vec!["a", "b", "c", "d"]);
    let deep = (0usize..3).prop_map(|n| {
        // 99 or 100 levels: the storage limit is met exactly by some.
        let mut v = Bson::Int32(1);
        for _ in 0..(97 + n) {
            v = Bson::Document(doc! {"x": v});
        }
        v
    });
    let operand = prop_oneof![4 => value(), 1 => deep];
    prop::collection::vec((op, prop::collection::vec((field, operand, any::<bool>()), 1..3)), 1..3).prop_map(|ms| {
        let mut u = Document::new();
        for (op, fields) in ms {
            let mut spec = Document::new();
            for (f, v, each) in fields {
                let v = match op {
                    "$push" if each => Bson::Document(doc! {"$each": [v, 1]}),
                    "$push" if v == Bson::Int32(0) => Bson::Document(doc! {"$each": []}),
                    _ => v,
                };
                spec.insert(f, v);
            }
            u.insert(op, spec);
        }
        u
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn updates_on_the_bytes_answer_store_and_index_as_whole_document_ones(
        docs in prop::collection::vec((0i32..12, value(), prop::collection::vec(value(), 0..3), value(), value()), 1..10),
        indexes in index(),
        steps in prop::collection::vec((filter(), top_level_update(), any::<bool>()), 1..5),
    ) {
        let docs: Vec<Bson> = docs.into_iter().map(|(id, a, b, c, d)| Bson::Document(doc! {"_id": id, "a": a, "b": b, "c": c, "d": d})).collect();
        let (mut fast, mut whole, indexes) = fast_and_whole(&docs, &indexes);
        for (q, u, multi) in steps {
            same_update(&mut fast, &mut whole, &indexes, &q, &u, multi)?;
            // The records' bytes too (a reply decodes them: array element names would not show).
            let records = |db: &Database| db.collection("test", "c").map(|c| c.iter().map(|(_, r)| r.bytes().to_vec()).collect::<Vec<_>>());
            prop_assert_eq!(records(&fast), records(&whole), "stored bytes differ after {}", u);
        }
    }
}
