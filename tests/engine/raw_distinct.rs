//! `distinct` over a collection decodes of each matched document only the key's top-level field.
//! It must answer exactly as `distinct` over the same documents decoded whole, which a view with
//! an empty pipeline gives (a view's documents come out of its pipeline decoded): the same values
//! in the same order, with the same types, for dotted keys through documents and arrays,
//! numeric indexes, null vs missing, and every BSON type.

use bson::{doc, Document};
use proptest::prelude::*;

use super::common::ok;
use super::gen::{collection_of, fields};

fn key() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["a", "b", "c", "_id", "a.b", "a.d", "c.a.b", "a.0", "b.1.a", "a.b.d", "z"])
}

/// The whole reply (an error's too), as bytes: types and order compared exactly.
fn reply(db: &mut pattern_playground::db::Database, coll: &str, key: &str, query: &Document) -> Vec<u8> {
    let r = db.run_command(&doc! {"distinct": coll, "key": key, "query": query.clone()});
    r.to_vec().expect("reply encodes")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn distinct_reading_one_field_answers_as_over_whole_documents(
        docs in prop::collection::vec(fields(), 0..12),
        key in key(),
        from in 0i32..4,
    ) {
        let mut db = collection_of(&docs);
        ok(&mut db, &doc! {"create": "whole", "viewOn": "c", "pipeline": []});
        // no filter, an `_id` range (an index scan), a filter no index answers (a scan)
        for query in [doc! {}, doc! {"_id": {"$gte": from}}, doc! {"b": {"$ne": from}}] {
            let read = reply(&mut db, "c", key, &query);
            let whole = reply(&mut db, "whole", key, &query);
            let shown = |b: &[u8]| Document::from_reader(b).map(|d| d.to_string()).unwrap_or_default();
            prop_assert!(read == whole, "{key} {query}\n read:  {}\n whole: {}", shown(&read), shown(&whole));
            // values, not an error both gave
            prop_assert!(Document::from_reader(read.as_slice()).is_ok_and(|d| d.get_array("values").is_ok()), "{key} {query}: {}", shown(&read));
        }
    }
}
