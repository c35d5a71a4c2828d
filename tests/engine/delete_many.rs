//! A `deleteMany` removes its matches at once (`Collection::remove_many`, each index's keys in
//! one sorted pass): it must remove exactly what a find of the same filter returns and leave
//! every index holding exactly the keys of the documents left (`validate`), whatever the index
//! kinds (multikey, compound, descending, sparse, partial, unique, wildcard) and documents.

use bson::{doc, Bson, Document};
use proptest::prelude::*;

use super::common::{fixed_db, int, ok};

pub(crate) fn value() -> impl Strategy<Value = Bson> {
    let scalar = prop_oneof![
        (-3i32..4).prop_map(Bson::Int32),
        prop::sample::select(vec![0.5f64, 2.0, f64::NAN]).prop_map(Bson::Double),
        prop::sample::select(vec!["", "x", "y"]).prop_map(|s| Bson::String(s.to_string())),
        Just(Bson::Null),
    ];
    scalar.prop_recursive(2, 6, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Bson::Array),
            prop::collection::vec((prop::sample::select(vec!["x", "y"]), inner), 0..2).prop_map(|kv| {
                let mut d = Document::new();
                for (k, v) in kv {
                    d.insert(k, v);
                }
                Bson::Document(d)
            }),
        ]
    })
}

pub(crate) fn fields() -> impl Strategy<Value = Vec<(&'static str, Bson)>> {
    prop::collection::vec((prop::sample::select(vec!["a", "b", "c", "u"]), value()), 0..4)
}

pub(crate) fn ids(reply: &Document) -> Vec<Bson> {
    let batch = reply.get_document("cursor").and_then(|c| c.get_array("firstBatch")).expect("firstBatch");
    batch.iter().map(|d| d.as_document().and_then(|d| d.get("_id")).cloned().unwrap_or(Bson::Null)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    #[test]
    fn delete_many_removes_the_matches_and_their_keys(docs in prop::collection::vec(fields(), 0..40), filter in prop::sample::select(vec![
        doc! {},
        doc! {"a": {"$exists": true}},
        doc! {"b": {"$gte": 0}},
        doc! {"_id": {"$mod": [3, 0]}},
        doc! {"c": null},
        doc! {"$or": [{"a": "x"}, {"u": {"$type": "array"}}]},
    ]), hinted in any::<bool>()) {
        let mut db = fixed_db(1);
        ok(&mut db, &doc! {"create": "c"});
        ok(&mut db, &doc! {"createIndexes": "c", "indexes": [
            {"key": {"a": 1}, "name": "a_1"},
            {"key": {"b": -1, "_id": 1}, "name": "b_-1__id_1"},
            {"key": {"b": 1}, "name": "b_sparse", "sparse": true},
            {"key": {"c": 1}, "name": "c_partial", "partialFilterExpression": {"c": {"$exists": true}}},
            {"key": {"u": 1}, "name": "u_unique", "unique": true, "sparse": true},
            {"key": {"$**": 1}, "name": "all"},
        ]});
        for (i, fs) in docs.iter().enumerate() {
            let mut d = doc! {"_id": i as i32};
            for (k, v) in fs {
                d.insert(*k, v.clone());
            }
            // Some inserts fail (a key taken in the unique index): those documents are not stored.
            db.run_command(&doc! {"insert": "c", "documents": [d]});
        }
        let all = ids(&ok(&mut db, &doc! {"find": "c", "filter": {}, "batchSize": 1000}));
        // Through an index scan (its record ids in key order, a multikey index's met more than
        // once) or a collection scan: a find with the same hint says what matches.
        let mut find = doc! {"find": "c", "filter": filter.clone(), "batchSize": 1000};
        let mut stmt = doc! {"q": filter.clone(), "limit": 0};
        if hinted {
            stmt.insert("hint", "all");
            find.insert("hint", "all");
        }
        let found = db.run_command(&find);
        let r = db.run_command(&doc! {"delete": "c", "deletes": [stmt]});
        if found.get("ok") != Some(&Bson::Double(1.0)) {
            // A hint the filter cannot use: nothing removed.
            prop_assert_eq!(ids(&ok(&mut db, &doc! {"find": "c", "filter": {}, "batchSize": 1000})), all);
            return Ok(());
        }
        let matching = ids(&found);
        prop_assert_eq!(int(&r, "n"), matching.len() as i64);
        let left = ids(&ok(&mut db, &doc! {"find": "c", "filter": {}, "batchSize": 1000}));
        let expected: Vec<Bson> = all.iter().filter(|id| !matching.contains(id)).cloned().collect();
        prop_assert_eq!(left, expected);
        let v = ok(&mut db, &doc! {"validate": "c"});
        prop_assert_eq!(v.get("valid"), Some(&Bson::Boolean(true)), "{}", v);
    }
}
