//! `createIndex` on a full collection reads each key from the stored bytes where no array lies
//! along its paths (`Index::bulk_load_stored`) and sorts the keys once: the index it builds
//! must be the one that inserting the documents one by one into the indexed collection gives,
//! key for key and in the same order, whatever the index kind and documents.

use bson::{doc, Bson, Document};
use proptest::prelude::*;

use super::common::{fixed_db, ok};
use super::delete_many::{fields, ids};

fn specs() -> Vec<Bson> {
    vec![
        Bson::Document(doc! {"key": {"a": 1}, "name": "a_1"}),
        Bson::Document(doc! {"key": {"a.x": -1}, "name": "ax"}),
        Bson::Document(doc! {"key": {"b": -1, "_id": 1}, "name": "b_-1__id_1"}),
        Bson::Document(doc! {"key": {"b": 1}, "name": "b_sparse", "sparse": true}),
        Bson::Document(doc! {"key": {"c": 1}, "name": "c_partial", "partialFilterExpression": {"c": {"$exists": true}}}),
        Bson::Document(doc! {"key": {"u": 1, "c": -1}, "name": "u_c"}),
        Bson::Document(doc! {"key": {"$**": 1}, "name": "all"}),
    ]
}

const NAMES: [&str; 7] = ["a_1", "ax", "b_-1__id_1", "b_sparse", "c_partial", "u_c", "all"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    #[test]
    fn an_index_built_on_a_full_collection_is_the_one_inserts_build(docs in prop::collection::vec(fields(), 0..40)) {
        let (mut before, mut after) = (fixed_db(1), fixed_db(1));
        ok(&mut before, &doc! {"create": "c"});
        ok(&mut after, &doc! {"create": "c"});
        let built_first = before.run_command(&doc! {"createIndexes": "c", "indexes": specs()});
        prop_assert_eq!(built_first.get("ok"), Some(&Bson::Double(1.0)), "{}", built_first);
        for (i, fs) in docs.iter().enumerate() {
            let mut d = doc! {"_id": i as i32};
            for (k, v) in fs {
                d.insert(*k, v.clone());
            }
            let a = before.run_command(&doc! {"insert": "c", "documents": [d.clone()]});
            // A document the indexes refuse (parallel arrays in {u, c}) is not stored before
            // them either, so that the two collections hold the same documents.
            if a.get("writeErrors").is_none() {
                ok(&mut after, &doc! {"insert": "c", "documents": [d]});
            }
        }
        ok(&mut after, &doc! {"createIndexes": "c", "indexes": specs()});
        for name in NAMES {
            // Every document the index holds, in its key order (a multikey index's record met once
            // per key; a hint on `$**` needs a path to expand, so the wildcard index is read for `a`).
            let filter = if name == "all" { doc! {"a": {"$exists": true}} } else { Document::new() };
            let find = doc! {"find": "c", "filter": filter, "hint": name, "batchSize": 1000, "projection": {"_id": 1}};
            let (x, y) = (before.run_command(&find), after.run_command(&find));
            prop_assert_eq!(&x, &y, "{}", name);
            if x.get("ok") == Some(&Bson::Double(1.0)) {
                prop_assert_eq!(ids(&x), ids(&y));
            }
        }
        let v = ok(&mut after, &doc! {"validate": "c"});
        prop_assert_eq!(v.get("valid"), Some(&Bson::Boolean(true)), "{}", v);
        let keys = |r: &Document| r.get_document("executionStats").ok().and_then(|s| s.get("totalKeysExamined").cloned());
        let e = doc! {"explain": {"find": "c", "filter": {"b": {"$gte": 0}}, "hint": "b_-1__id_1"}, "verbosity": "executionStats"};
        let (ex, ey) = (before.run_command(&e), after.run_command(&e));
        prop_assert_eq!(keys(&ex), keys(&ey));
        // every index's whole scan examines as many keys
        for name in NAMES {
            let filter = if name == "all" { doc! {"a": {"$exists": true}} } else { Document::new() };
            let e = doc! {"explain": {"find": "c", "filter": filter, "hint": name}, "verbosity": "executionStats"};
            let (ex, ey) = (before.run_command(&e), after.run_command(&e));
            prop_assert_eq!(keys(&ex), keys(&ey), "{}", name);
        }
    }
}
