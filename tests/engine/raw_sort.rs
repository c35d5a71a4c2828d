//! A sort read from the stored bytes (`exec::sort_records`: a leading `$sort` of a pipeline, a
//! `$sort` after a pushed-down `$match`, a find's sort) orders exactly as the `$sort` stage does
//! on decoded documents (`SortSpec::sort`, reached here by a `$skip: 0` in front, which keeps
//! the stage from being pushed down): type order, numbers equal across types, NaN, null and
//! missing, arrays (smallest or largest element, empty as undefined), paths through embedded
//! documents and arrays, and ties in natural order.

use bson::{doc, Bson, Document};
use proptest::prelude::*;

use super::common::{fixed_db, ok};
use super::gen::{collection_of, fields};

fn spec() -> impl Strategy<Value = Document> {
    let path = prop::sample::select(vec!["a", "b", "c", "a.b", "c.d", "a.0", "c.a.b", "_id"]);
    prop::collection::vec((path, prop::sample::select(vec![1, -1])), 1..3).prop_map(|keys| {
        let mut d = Document::new();
        for (k, dir) in keys {
            if !d.contains_key(k) {
                d.insert(k, dir);
            }
        }
        d
    })
}

/// The `_id`s of every document a cursor reply holds in its first batch.
fn ids(reply: &Document) -> Vec<Bson> {
    let batch = reply.get_document("cursor").and_then(|c| c.get_array("firstBatch")).expect("firstBatch");
    batch.iter().map(|d| d.as_document().and_then(|d| d.get("_id")).cloned().unwrap_or(Bson::Null)).collect()
}

fn aggregate(db: &mut pattern_playground::db::Database, pipeline: Vec<Document>) -> Vec<Bson> {
    ids(&ok(db, &doc! {"aggregate": "c", "pipeline": pipeline, "cursor": {"batchSize": 1000}}))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn sorts_read_from_bytes_order_as_the_decoded_sort(docs in prop::collection::vec(fields(), 0..12), spec in spec()) {
        let mut db = collection_of(&docs);
        let decoded = aggregate(&mut db, vec![doc! {"$skip": 0}, doc! {"$sort": spec.clone()}]);
        // A leading `$sort`: the records sorted by their keys, then decoded.
        prop_assert_eq!(&aggregate(&mut db, vec![doc! {"$sort": spec.clone()}]), &decoded, "{}", spec);
        // The same into a `$group` that reads only some fields.
        let grouped = ok(&mut db, &doc! {"aggregate": "c", "pipeline": [{"$sort": spec.clone()}, {"$group": {"_id": null, "all": {"$push": "$_id"}}}], "cursor": {}});
        let all = grouped.get_document("cursor").and_then(|c| c.get_array("firstBatch")).ok().and_then(|b| b.first()).and_then(|d| d.as_document()).and_then(|d| d.get_array("all").ok()).cloned().unwrap_or_default();
        prop_assert_eq!(&all, &decoded);
        // After a pushed-down `$match` (the query planner's sort).
        let matched = aggregate(&mut db, vec![doc! {"$match": {"_id": {"$gte": 0}}}, doc! {"$sort": spec.clone()}]);
        prop_assert_eq!(&matched, &decoded);
        // A find's sort.
        let found = ids(&ok(&mut db, &doc! {"find": "c", "filter": {}, "sort": spec.clone(), "batchSize": 1000}));
        prop_assert_eq!(&found, &decoded);
    }
}

/// Ties keep natural order, arrays sort by their smallest (ascending) or largest (descending)
/// element, missing sorts as null, an empty array as undefined (before null).
#[test]
fn ties_arrays_and_missing() {
    let mut db = fixed_db(1);
    ok(&mut db, &doc! {"insert": "c", "documents": [
        {"_id": 0, "a": [3, 1]},
        {"_id": 1, "a": 2},
        {"_id": 2},
        {"_id": 3, "a": []},
        {"_id": 4, "a": 1.0},
        {"_id": 5, "a": null},
        {"_id": 6, "a": Bson::Int64(2)},
    ]});
    let up = aggregate(&mut db, vec![doc! {"$sort": {"a": 1}}]);
    assert_eq!(up, [3, 2, 5, 0, 4, 1, 6].map(Bson::Int32).to_vec());
    let down = aggregate(&mut db, vec![doc! {"$sort": {"a": -1}}]);
    assert_eq!(down, [0, 1, 6, 4, 2, 5, 3].map(Bson::Int32).to_vec());
}
