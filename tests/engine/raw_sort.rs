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
    ids(&ok(db, &doc! {"aggregate": "c", "pipeline": pipeline, "cursor": {"batchSize": 10000}}))
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

/// A sort of many documents (past the few thousand where the sort first deals its entries into
/// buckets by their keys' leading bytes, `exec::bucket_sort`) orders as the decoded sort does:
/// mixed types, numbers spread over every magnitude and sign, long shared prefixes, ties, and
/// hundreds of keys that share their first 8 or 16 bytes (dealt by their later bytes).
#[test]
fn many_documents_sort_as_the_decoded_sort() {
    let value = |i: i64, salt: i64| -> Option<Bson> {
        let h = (i.wrapping_mul(2_654_435_761).wrapping_add(salt * 40_503)) % 1_000_003;
        Some(match h % 12 {
            0 => Bson::Int32((h % 2000) as i32 - 1000),
            1 => Bson::Double((h as f64) / 7.0 - 70_000.0),
            2 => Bson::Double(((h % 50) as f64) * 1e-300),
            3 => Bson::Int64(h * 1_000_000_007 - 500_000_000_000),
            4 => Bson::String(format!("shared-prefix-{:06}", h % 5000)),
            5 => Bson::String("x".repeat((h % 40) as usize)),
            6 => Bson::Null,
            7 => return None,
            8 => Bson::Array(vec![Bson::Int32((h % 30) as i32), Bson::Double((h % 17) as f64 / 3.0)]),
            9 => Bson::Document(doc! {"b": (h % 9) as i32}),
            10 => Bson::Boolean(h % 2 == 0),
            _ => Bson::Double(if h % 3 == 0 { f64::NAN } else { (h % 10) as f64 }),
        })
    };
    let mut db = fixed_db(1);
    let docs: Vec<Document> = (0..6000)
        .map(|i| {
            let mut d = doc! {"_id": i as i32};
            for (k, salt) in [("a", 1), ("b", 2)] {
                if let Some(v) = value(i, salt) {
                    d.insert(k, v);
                }
            }
            // a number in a narrow range (keys sharing their first bytes), with many ties
            d.insert("n", 1000.0 + (i % 97) as f64 / 8.0);
            // a few short strings, each shared by hundreds of documents: with `n` after it, a
            // compound key whose first 8 bytes many share (dealt again by its next bytes)
            d.insert("s", format!("s{:03}", i % 7));
            d
        })
        .collect();
    ok(&mut db, &doc! {"insert": "c", "documents": docs});
    for spec in [doc! {"a": 1}, doc! {"a": -1, "_id": 1}, doc! {"b": 1, "a": -1}, doc! {"n": 1}, doc! {"n": -1, "a": 1}, doc! {"a.b": 1}, doc! {"s": 1, "n": 1}, doc! {"s": -1, "n": -1, "_id": 1}] {
        let decoded = aggregate(&mut db, vec![doc! {"$skip": 0}, doc! {"$sort": spec.clone()}]);
        assert_eq!(decoded.len(), 6000);
        let mut cursor = ok(&mut db, &doc! {"aggregate": "c", "pipeline": [{"$sort": spec.clone()}], "cursor": {"batchSize": 6000}});
        assert_eq!(ids(&cursor), decoded, "{spec}");
        cursor = ok(&mut db, &doc! {"find": "c", "filter": {}, "sort": spec.clone(), "batchSize": 6000});
        assert_eq!(ids(&cursor), decoded, "find {spec}");
    }
}
