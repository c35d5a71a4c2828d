//! Filters matched on a stored document's bytes (`Matcher::match_details_raw`, the collection
//! scan's fast path) answer exactly as on the decoded document, or leave the answer to it.

use bson::{doc, Bson, DateTime, Document};
use pattern_playground::db::Record;
use pattern_playground::env::Env;
use pattern_playground::query::Matcher;
use proptest::prelude::*;

fn scalar() -> impl Strategy<Value = Bson> {
    prop_oneof![
        (-3i32..4).prop_map(Bson::Int32),
        (-3i64..4).prop_map(Bson::Int64),
        prop::sample::select(vec![0.5f64, -1.0, 2.0, f64::NAN, f64::INFINITY]).prop_map(Bson::Double),
        prop::sample::select(vec!["", "x", "yy", "s1"]).prop_map(|s| Bson::String(s.to_string())),
        any::<bool>().prop_map(Bson::Boolean),
        Just(Bson::Null),
        (0i64..3).prop_map(|t| Bson::DateTime(DateTime::from_millis(t))),
    ]
}

fn value() -> impl Strategy<Value = Bson> {
    scalar().prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Bson::Array),
            prop::collection::vec((prop::sample::select(vec!["a", "b", "c"]), inner), 0..3).prop_map(|kv| {
                let mut d = Document::new();
                for (k, v) in kv {
                    d.insert(k, v);
                }
                Bson::Document(d)
            }),
        ]
    })
}

fn document() -> impl Strategy<Value = Document> {
    prop::collection::vec((prop::sample::select(vec!["_id", "a", "b", "c", "v"]), value()), 0..5).prop_map(|kv| {
        let mut d = Document::new();
        for (k, v) in kv {
            d.insert(k, v);
        }
        d
    })
}

fn path() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["_id", "a", "b", "v", "a.b", "a.c", "a.b.c", "b.a", "a.0", "c.1.a"]).prop_map(String::from)
}

fn filter() -> impl Strategy<Value = Document> {
    let leaf = prop_oneof![
        (path(), value()).prop_map(|(f, v)| doc! {f: v}),
        (path(), prop::sample::select(vec!["$gt", "$gte", "$lt", "$lte", "$ne", "$eq"]), scalar()).prop_map(|(f, op, v)| doc! {f: {op: v}}),
        (path(), prop::collection::vec(scalar(), 0..3)).prop_map(|(f, vs)| doc! {f: {"$in": vs}}),
        (path(), prop::collection::vec(scalar(), 0..3)).prop_map(|(f, vs)| doc! {f: {"$nin": vs}}),
        (path(), any::<bool>()).prop_map(|(f, b)| doc! {f: {"$exists": b}}),
        (path(), prop::sample::select(vec!["number", "string", "null", "array", "object", "date"])).prop_map(|(f, t)| doc! {f: {"$type": t}}),
        (path(), scalar()).prop_map(|(f, v)| doc! {f: {"$not": {"$gt": v}}}),
        (path(), scalar()).prop_map(|(f, v)| doc! {f: {"$elemMatch": {"$eq": v}}}),
        (path(), 0i32..3).prop_map(|(f, n)| doc! {f: {"$size": n}}),
        path().prop_map(|f| doc! {f: {"$regex": "^s|y"}}),
        scalar().prop_map(|v| doc! {"$expr": {"$gt": ["$a", v]}}),
        Just(doc! {"$expr": {"$divide": [1, "$v"]}}),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..3).prop_map(|fs| doc! {"$and": fs.into_iter().map(Bson::Document).collect::<Vec<_>>()}),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|fs| doc! {"$or": fs.into_iter().map(Bson::Document).collect::<Vec<_>>()}),
            prop::collection::vec(inner, 1..3).prop_map(|fs| doc! {"$nor": fs.into_iter().map(Bson::Document).collect::<Vec<_>>()}),
        ]
    })
}

fn env() -> Env {
    Env::new(DateTime::from_millis(1_700_000_000_000))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, max_shrink_iters: 500, ..ProptestConfig::default() })]

    /// Whenever the bytes answer, the answer (match, array position, or error) is the decoded
    /// document's.
    #[test]
    fn matching_bytes_answers_as_the_decoded_document(doc in document(), filter in filter()) {
        let Ok(m) = Matcher::parse(&filter) else { return Ok(()) };
        let rec = Record::encode(&doc).expect("encodes");
        let env = env();
        let decoded = m.match_details(&doc, &env);
        match m.match_details_raw(rec.raw().expect("stored bytes"), &env) {
            Ok(Some(d)) => prop_assert_eq!(Ok(d), decoded.map_err(|e| e.message), "{} on {}", filter, doc),
            Ok(None) => {}
            Err(e) => prop_assert_eq!(Err(e.message), decoded.map_err(|e| e.message), "{} on {}", filter, doc),
        }
    }
}

/// The shapes the fast path is for are answered from the bytes, and a path through an array or
/// a whole-document predicate is left to the decoded document.
#[test]
fn common_filters_are_answered_from_the_bytes() {
    let doc = doc! {"_id": 1, "sensor": "s001", "v": 12.5, "m": {"site": 3, "deep": {"x": "y"}}, "tags": ["a", "b"]};
    let rec = Record::encode(&doc).unwrap();
    let raw = rec.raw().unwrap();
    let env = env();
    let answers = |f: Document| Matcher::parse(&f).unwrap().match_details_raw(raw, &env).unwrap().map(|d| d.matched);
    assert_eq!(answers(doc! {"v": {"$lt": 48}}), Some(true));
    assert_eq!(answers(doc! {"v": {"$gte": 48}}), Some(false));
    assert_eq!(answers(doc! {"sensor": {"$in": ["s000", "s001"]}, "m.site": 3}), Some(true));
    assert_eq!(answers(doc! {"m.deep.x": "y", "missing": {"$exists": false}}), Some(true));
    assert_eq!(answers(doc! {"$or": [{"v": 1}, {"m.site": {"$ne": 3}}]}), Some(false));
    assert_eq!(answers(doc! {"sensor.x": null}), Some(true));
    assert_eq!(answers(doc! {"tags": "a"}), None);
    assert_eq!(answers(doc! {"v": {"$lt": 48}, "tags.0": "a"}), None);
    assert_eq!(answers(doc! {"$expr": {"$lt": ["$v", 48]}}), None);
    // A definite "no" before an undecided child is still a "no", as the decoded path says.
    assert_eq!(answers(doc! {"v": 1, "tags": "a"}), Some(false));
}

fn group_spec() -> impl Strategy<Value = Document> {
    prop::sample::select(vec![
        doc! {"_id": "$a", "n": {"$sum": 1}, "s": {"$sum": "$v"}, "f": {"$first": "$b"}, "p": {"$push": "$a.b"}},
        doc! {"_id": {"x": "$a.b", "y": "$c"}, "m": {"$max": "$v"}, "l": {"$last": "$c.1.a"}},
        doc! {"_id": null, "top": {"$top": {"sortBy": {"a": 1, "_id": 1}, "output": ["$b", "$c"]}}, "k": {"$addToSet": {"$type": "$b"}}},
        doc! {"_id": {"$cond": [{"$gt": ["$v", 0]}, "pos", "other"]}, "avg": {"$avg": "$v"}, "n": {"$count": {}}},
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, max_shrink_iters: 200, ..ProptestConfig::default() })]

    /// A `$group` pipeline over a collection decodes only the fields it reads
    /// (`aggregate::deps`); its results and errors are those of the same pipeline over whole
    /// documents (a stage that reads the whole document and changes nothing defeats the
    /// analysis).
    #[test]
    fn a_group_over_the_fields_it_reads_answers_as_over_whole_documents(
        docs in prop::collection::vec(document(), 0..8),
        filter in filter(),
        sort in prop::option::of(prop::sample::select(vec![doc! {"v": 1, "_id": 1}, doc! {"a.b": -1, "_id": 1}])),
        before in prop::option::of(prop::sample::select(vec![
            doc! {"$addFields": {"w": {"$add": ["$v", 1]}, "a.z": "$b"}},
            doc! {"$unwind": {"path": "$c", "preserveNullAndEmptyArrays": true}},
            doc! {"$project": {"a": 1, "v": {"$multiply": ["$v", 2]}}},
            doc! {"$project": {"b": 0}},
            doc! {"$lookup": {"from": "c", "localField": "a", "foreignField": "b", "as": "b"}},
            doc! {"$unset": ["v", "c.a"]},
        ])),
        group in group_spec(),
    ) {
        let mut db = pattern_playground::db::Database::new();
        db.set_fixed_time(1_700_000_000_000);
        for (i, mut d) in docs.into_iter().enumerate() {
            d.insert("_id", i as i32);
            db.run_command(&doc! {"insert": "c", "documents": [d]});
        }
        let mut stages = vec![Bson::Document(doc! {"$match": filter})];
        if let Some(s) = sort {
            stages.push(Bson::Document(doc! {"$sort": s}));
        }
        // The same pipeline over whole documents: a stage that changes nothing but reads the
        // whole document, after the `$match` and `$sort` the planner answers.
        let mut whole = stages.clone();
        whole.push(Bson::Document(doc! {"$replaceWith": "$$ROOT"}));
        for s in [before.map(Bson::Document), Some(Bson::Document(doc! {"$group": group}))].into_iter().flatten() {
            stages.push(s.clone());
            whole.push(s);
        }
        let fast = db.run_command(&doc! {"aggregate": "c", "pipeline": stages.clone(), "cursor": {}});
        let slow = db.run_command(&doc! {"aggregate": "c", "pipeline": whole, "cursor": {}});
        prop_assert!(fast.to_vec().unwrap() == slow.to_vec().unwrap(), "{:?}: {} vs {}", stages, fast, slow);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, max_shrink_iters: 200, ..ProptestConfig::default() })]

    /// A find's in-memory sort decodes only the sort's fields; its order is the sort
    /// specification's over whole documents (stable: ties keep natural order).
    #[test]
    fn a_sort_over_its_fields_orders_as_over_whole_documents(
        docs in prop::collection::vec(document(), 0..10),
        sort in prop::sample::select(vec![doc! {"v": 1}, doc! {"a.b": -1, "v": 1}, doc! {"a": 1, "c.1.a": -1}, doc! {"b": -1}]),
    ) {
        let mut db = pattern_playground::db::Database::new();
        let mut stored = Vec::new();
        for (i, mut d) in docs.into_iter().enumerate() {
            d.insert("_id", i as i32);
            let r = db.run_command(&doc! {"insert": "c", "documents": [d.clone()]});
            if r.get_i32("n").ok() == Some(1) {
                stored.push(d);
            }
        }
        let spec = pattern_playground::query::sort::SortSpec::parse_find(&sort).unwrap();
        stored.sort_by(|a, b| spec.compare(a, b));
        let expected: Vec<Bson> = stored.iter().map(|d| d.get("_id").cloned().unwrap()).collect();
        let reply = db.run_command(&doc! {"find": "c", "filter": {}, "sort": sort.clone(), "batchSize": 1000});
        let got: Vec<Bson> = reply.get_document("cursor").unwrap().get_array("firstBatch").unwrap().iter().map(|d| d.as_document().unwrap().get("_id").cloned().unwrap()).collect();
        prop_assert_eq!(got, expected, "{}", sort);
    }
}
