//! Property tests: random documents, filters, updates and commands through
//! `Database::run_command`. Never a panic; every reply has `ok`; a single-document write that
//! fails leaves every collection byte-identical and reports no write; snapshots round-trip.

use bson::{doc, Bson, Document};
use pattern_playground::db::Database;
use proptest::prelude::*;

const FIELDS: &[&str] = &["_id", "a", "b", "a.b", "c.0", "arr", "$d", "e.f.g"];

fn field() -> impl Strategy<Value = String> {
    prop::sample::select(FIELDS).prop_map(String::from)
}

fn scalar() -> impl Strategy<Value = Bson> {
    prop_oneof![
        (-3i32..4).prop_map(Bson::Int32),
        (-3i64..4).prop_map(Bson::Int64),
        prop::sample::select(vec![0.5f64, -1.0, 2.0, f64::NAN, f64::INFINITY]).prop_map(Bson::Double),
        prop::sample::select(vec!["", "x", "yy", "$x"]).prop_map(|s| Bson::String(s.to_string())),
        any::<bool>().prop_map(Bson::Boolean),
        Just(Bson::Null),
    ]
}

fn value() -> impl Strategy<Value = Bson> {
    scalar().prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Bson::Array),
            prop::collection::vec((prop::sample::select(vec!["a", "b", "$c", "d.e"]), inner), 0..3).prop_map(|kv| {
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
    prop::collection::vec((prop::sample::select(vec!["_id", "a", "b", "arr", "$d", "c"]), value()), 0..4).prop_map(|kv| {
        let mut d = Document::new();
        for (k, v) in kv {
            d.insert(k, v);
        }
        d
    })
}

fn filter() -> impl Strategy<Value = Document> {
    let leaf = prop_oneof![
        (field(), value()).prop_map(|(f, v)| doc! {f: v}),
        (field(), prop::sample::select(vec!["$gt", "$lte", "$ne", "$eq"]), scalar()).prop_map(|(f, op, v)| doc! {f: {op: v}}),
        (field(), prop::collection::vec(scalar(), 0..3)).prop_map(|(f, vs)| doc! {f: {"$in": vs}}),
        (field(), any::<bool>()).prop_map(|(f, b)| doc! {f: {"$exists": b}}),
        (field(), scalar()).prop_map(|(f, v)| doc! {f: {"$elemMatch": {"$eq": v}}}),
        Just(doc! {"$bogus": 1}),
        Just(doc! {}),
    ];
    leaf.prop_recursive(2, 6, 3, |inner| {
        prop::collection::vec(inner, 0..3).prop_map(|fs| doc! {"$and": fs.into_iter().map(Bson::Document).collect::<Vec<_>>()})
    })
}

fn update() -> impl Strategy<Value = Bson> {
    prop_oneof![
        (field(), value()).prop_map(|(f, v)| Bson::Document(doc! {"$set": {f: v}})),
        (field(), scalar()).prop_map(|(f, v)| Bson::Document(doc! {"$inc": {f: v}})),
        field().prop_map(|f| Bson::Document(doc! {"$unset": {f: ""}})),
        (field(), value()).prop_map(|(f, v)| Bson::Document(doc! {"$push": {f: v}})),
        (field(), value()).prop_map(|(f, v)| Bson::Document(doc! {"$setOnInsert": {f: v}, "$set": {"z": 1}})),
        document().prop_map(Bson::Document),
        (field(), value()).prop_map(|(f, v)| Bson::Array(vec![Bson::Document(doc! {"$set": {f.replace('$', "_"): {"$literal": v}}})])),
        Just(Bson::Document(doc! {"$bogus": {"a": 1}})),
        Just(Bson::Array(vec![Bson::Document(doc! {"$replaceWith": {"_id": 99}})])),
    ]
}

/// A command and whether it writes at most one document.
fn command() -> impl Strategy<Value = (Document, bool)> {
    prop_oneof![
        document().prop_map(|d| (doc! {"insert": "c", "documents": [d]}, true)),
        (prop::collection::vec(document(), 1..4), any::<bool>())
            .prop_map(|(ds, o)| (doc! {"insert": "c", "documents": ds, "ordered": o}, false)),
        (filter(), update(), any::<bool>(), any::<bool>()).prop_map(|(q, u, upsert, multi)| {
            (doc! {"update": "c", "updates": [{"q": q, "u": u, "upsert": upsert, "multi": multi}]}, !multi)
        }),
        (filter(), any::<bool>()).prop_map(|(q, one)| (doc! {"delete": "c", "deletes": [{"q": q, "limit": if one { 1 } else { 0 }}]}, one)),
        (filter(), update(), any::<bool>(), any::<bool>()).prop_map(|(q, u, upsert, new)| {
            (doc! {"findAndModify": "c", "query": q, "update": u, "upsert": upsert, "new": new}, true)
        }),
        filter().prop_map(|q| (doc! {"findAndModify": "c", "query": q, "remove": true}, true)),
        filter().prop_map(|q| (doc! {"find": "c", "filter": q, "sort": {"a": -1}, "limit": 2}, true)),
        filter().prop_map(|q| (doc! {"count": "c", "query": q}, true)),
        (field(), filter()).prop_map(|(k, q)| (doc! {"distinct": "c", "key": k, "query": q}, true)),
        filter().prop_map(|q| (doc! {"aggregate": "c", "pipeline": [{"$match": q}, {"$group": {"_id": "$a", "n": {"$sum": 1}}}], "cursor": {}}, true)),
        Just((doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "unique": true}]}, true)),
        Just((doc! {"createIndexes": "c", "indexes": [{"key": {"$**": 1}, "name": "all"}]}, true)),
        Just((doc! {"createIndexes": "c", "indexes": [{"key": {"a.$**": -1}, "name": "a_all"}]}, true)),
        Just((doc! {"createIndexes": "c", "indexes": [{"key": {"$**": 1}, "name": "proj", "wildcardProjection": {"arr": 1, "e.f": 1, "_id": 1}}]}, true)),
        (filter(), update()).prop_map(|(q, u)| (doc! {"ppPreviewUpdate": "c", "q": q, "u": u}, true)),
    ]
}

/// The stored data as bytes (the id generator's state left out: a failed upsert may draw an
/// ObjectId).
fn data(db: &Database) -> Vec<u8> {
    let mut d = Document::from_reader(db.snapshot().as_slice()).expect("snapshots decode");
    d.remove("ids");
    d.to_vec().expect("encodes")
}

fn failed(reply: &Document) -> bool {
    reply.get("ok") != Some(&Bson::Double(1.0)) || reply.contains_key("writeErrors")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, max_shrink_iters: 200, ..ProptestConfig::default() })]

    #[test]
    fn commands_never_panic_and_failed_writes_change_nothing(
        seed in prop::collection::vec(document(), 0..4),
        commands in prop::collection::vec(command(), 1..8),
    ) {
        let mut db = Database::new();
        db.set_fixed_time(1_700_000_000_000);
        db.set_seed(3);
        for (i, d) in seed.into_iter().enumerate() {
            let mut d = d;
            d.insert("_id", i as i32);
            db.run_command(&doc! {"insert": "c", "documents": [d]});
        }
        for (cmd, single) in commands {
            let before = data(&db);
            let reply = db.run_command(&cmd);
            prop_assert!(reply.contains_key("ok"), "reply without ok: {}", reply);
            if single && failed(&reply) {
                prop_assert!(data(&db) == before, "failed single-document write changed data: {} -> {}", cmd, reply);
                prop_assert!(db.last_write_report().is_empty(), "failed write reported writes: {}", cmd);
            }
            let bytes = db.snapshot();
            let restored = Database::restore(&bytes).expect("snapshots restore");
            prop_assert_eq!(restored.snapshot(), bytes);
            // The indexes hold exactly the keys of the documents after every command.
            let v = db.run_command(&doc! {"validate": "c"});
            if v.get("ok") == Some(&Bson::Double(1.0)) {
                prop_assert_eq!(v.get("valid"), Some(&Bson::Boolean(true)), "validate after {}: {}", cmd, v);
            }
        }
    }
}

fn index_spec() -> impl Strategy<Value = Document> {
    prop_oneof![
        Just(doc! {"a": 1}),
        Just(doc! {"a": -1, "b": 1}),
        Just(doc! {"b": 1, "a": 1}),
        Just(doc! {"arr": 1}),
        Just(doc! {"c.d": 1, "c.e": -1}),
        Just(doc! {"c.d": 1, "c.e": 1}),
        Just(doc! {"arr": -1}),
        Just(doc! {"_id": 1, "a": 1}),
        Just(doc! {"$**": 1}),
        Just(doc! {"c.$**": -1}),
        Just(doc! {"arr.$**": 1}),
    ]
}

fn ids_of(reply: &Document) -> Vec<Bson> {
    reply
        .get_document("cursor")
        .and_then(|c| c.get_array("firstBatch"))
        .map(|b| b.iter().filter_map(|d| d.as_document().and_then(|d| d.get("_id")).cloned()).collect())
        .unwrap_or_default()
}

fn sorted(mut v: Vec<Bson>) -> Vec<Bson> {
    v.sort_by(pattern_playground::value::compare);
    v
}

/// Values of other types and numeric types beside the small ones (index keys compare them as
/// bytes: equal numbers of different types, strings with NUL, the ends of the type order).
fn wide() -> impl Strategy<Value = Bson> {
    prop::sample::select(vec![
        Bson::Int64(2),
        Bson::Decimal128("1.50".parse().unwrap()),
        Bson::Decimal128("2.0000000000000000000000000000001".parse().unwrap()),
        Bson::Double(-0.0),
        Bson::Double(f64::NAN),
        Bson::Double(-7.25),
        Bson::String("s\u{0}".into()),
        Bson::String(String::new()),
        Bson::MinKey,
        Bson::MaxKey,
        Bson::Boolean(true),
        Bson::Document(doc! {"x": 1}),
    ])
}

fn index_doc() -> impl Strategy<Value = Document> {
    let small = prop_oneof![(0i32..4).prop_map(Bson::Int32), Just(Bson::Double(1.5)), Just(Bson::String("s".into())), Just(Bson::Null), wide()];
    (
        prop::option::of(small.clone()),
        prop::option::of(small.clone()),
        prop::option::of(prop::collection::vec(small.clone(), 0..4)),
        prop::option::of(prop::collection::vec((small.clone(), small), 0..4)),
    )
        .prop_map(|(a, b, arr, c)| {
            let mut d = Document::new();
            if let Some(a) = a {
                d.insert("a", a);
            }
            if let Some(b) = b {
                d.insert("b", b);
            }
            if let Some(arr) = arr {
                d.insert("arr", arr);
            }
            if let Some(c) = c {
                d.insert("c", c.into_iter().map(|(x, y)| Bson::Document(doc! {"d": x, "e": y})).collect::<Vec<_>>());
            }
            d
        })
}

fn index_filter() -> impl Strategy<Value = Document> {
    let v = prop_oneof![(0i32..4).prop_map(Bson::Int32), Just(Bson::Double(1.5)), Just(Bson::String("s".into())), Just(Bson::Null), wide()];
    let f = prop::sample::select(vec!["a", "b", "arr", "arr", "c.d", "c.e", "c.d", "c.e", "_id"]);
    let leaf = prop_oneof![
        (f.clone(), v.clone()).prop_map(|(f, v)| doc! {f: v}),
        (f.clone(), prop::sample::select(vec!["$gt", "$gte", "$lt", "$lte"]), v.clone()).prop_map(|(f, op, v)| doc! {f: {op: v}}),
        (f.clone(), v.clone(), v.clone()).prop_map(|(f, x, y)| doc! {f: {"$gte": x, "$lt": y}}),
        (f.clone(), prop::collection::vec(v.clone(), 1..3)).prop_map(|(f, vs)| doc! {f: {"$in": vs}}),
        (v.clone(), v.clone()).prop_map(|(x, y)| doc! {"c": {"$elemMatch": {"d": x, "e": {"$gte": y}}}}),
        (f.clone(), v).prop_map(|(f, x)| doc! {"$or": [{f: x}, {"a": {"$gt": 1}}]}),
        (f.clone(), any::<bool>()).prop_map(|(f, b)| doc! {f: {"$exists": b}}),
        (f.clone(), prop::sample::select(vec!["^s", "s", "^$", "^t", "^t|s", "^s?", "^(s)"])).prop_map(|(f, re)| doc! {f: {"$regex": re}}),
        (f.clone(), prop::sample::select(vec!["number", "string", "null", "array", "object", "double", "int"])).prop_map(|(f, t)| doc! {f: {"$type": t}}),
        f.prop_map(|f| doc! {f: {"$ne": null}}),
    ];
    prop::collection::vec(leaf, 1..4).prop_map(|fs| {
        let mut d = Document::new();
        d.insert("$and", fs.into_iter().map(Bson::Document).collect::<Vec<_>>());
        d
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, max_shrink_iters: 200, ..ProptestConfig::default() })]

    /// Index plans find exactly the documents a collection scan finds, and a sort is a sort.
    #[test]
    fn index_plans_find_what_a_scan_finds(
        docs in prop::collection::vec(index_doc(), 0..12),
        indexes in prop::collection::vec(index_spec(), 0..4),
        filter in index_filter(),
        sort in prop::option::of(prop::sample::select(vec![doc! {"a": 1}, doc! {"a": -1, "b": 1}, doc! {"c.d": 1}, doc! {"_id": -1}])),
    ) {
        let mut plain = Database::new();
        let mut indexed = Database::new();
        let docs: Vec<Document> = docs.into_iter().enumerate().map(|(i, mut d)| { d.insert("_id", i as i32); d }).collect();
        for db in [&mut plain, &mut indexed] {
            db.run_command(&doc! {"insert": "c", "documents": docs.clone()});
        }
        for (i, key) in indexes.iter().enumerate() {
            indexed.run_command(&doc! {"createIndexes": "c", "indexes": [{"key": key.clone(), "name": format!("i{i}")}]});
        }
        let mut find = doc! {"find": "c", "filter": filter.clone()};
        if let Some(s) = &sort {
            find.insert("sort", s.clone());
        }
        let a = plain.run_command(&find);
        let b = indexed.run_command(&find);
        prop_assert_eq!(a.get("ok"), b.get("ok"), "{} / {}", a, b);
        prop_assert_eq!(sorted(ids_of(&a)), sorted(ids_of(&b)), "filter {} indexes {:?}", filter, indexes);
        if let Some(s) = &sort {
            let spec = pattern_playground::query::sort::SortSpec::parse(s).expect("sort parses");
            let batch: Vec<Document> = b.get_document("cursor").and_then(|c| c.get_array("firstBatch")).map(|x| x.iter().filter_map(|d| d.as_document().cloned()).collect()).unwrap_or_default();
            for w in batch.windows(2) {
                prop_assert!(spec.compare(&w[0], &w[1]) != std::cmp::Ordering::Greater, "not sorted by {}: {:?}", s, batch);
            }
        }
        let count = |db: &mut Database| db.run_command(&doc! {"count": "c", "query": filter.clone()}).get_i32("n").ok();
        prop_assert_eq!(count(&mut plain), count(&mut indexed));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, max_shrink_iters: 200, ..ProptestConfig::default() })]

    /// A hinted wildcard index is expanded for a queried path (its scan is on `$_path`) or
    /// refused, never scanned whole, and it finds what the collection scan finds.
    #[test]
    fn hinted_wildcard_plans_find_what_a_scan_finds(
        docs in prop::collection::vec(index_doc(), 0..12),
        key in prop::sample::select(vec![doc! {"$**": 1}, doc! {"c.$**": 1}, doc! {"arr.$**": -1}, doc! {"c.d.$**": 1}]),
        filter in index_filter(),
    ) {
        let mut db = Database::new();
        let docs: Vec<Document> = docs.into_iter().enumerate().map(|(i, mut d)| { d.insert("_id", i as i32); d }).collect();
        db.run_command(&doc! {"insert": "c", "documents": docs.clone()});
        db.run_command(&doc! {"createIndexes": "c", "indexes": [{"key": key.clone(), "name": "w"}]});
        let scan = db.run_command(&doc! {"find": "c", "filter": filter.clone(), "hint": {"$natural": 1}});
        let hinted = db.run_command(&doc! {"find": "c", "filter": filter.clone(), "hint": "w"});
        if hinted.get("ok") != Some(&Bson::Double(1.0)) {
            prop_assert_eq!(hinted.get_i32("code").ok(), Some(291), "{}", hinted);
            return Ok(());
        }
        prop_assert_eq!(sorted(ids_of(&scan)), sorted(ids_of(&hinted)), "filter {} index {} over {:?}", filter, key, docs);
        let e = db.run_command(&doc! {"explain": {"find": "c", "filter": filter.clone(), "hint": "w"}, "verbosity": "queryPlanner"});
        let mut stage = e.get_document("queryPlanner").and_then(|q| q.get_document("winningPlan")).cloned().unwrap_or_default();
        while stage.get_str("stage").ok() != Some("IXSCAN") {
            match stage.get_document("inputStage") {
                Ok(d) => stage = d.clone(),
                Err(_) => break,
            }
        }
        let kp = stage.get_document("keyPattern").cloned().unwrap_or_default();
        prop_assert_eq!(kp.keys().next().map(String::as_str), Some("$_path"), "{}", e);
        let v = db.run_command(&doc! {"validate": "c"});
        prop_assert_eq!(v.get("valid"), Some(&Bson::Boolean(true)), "{}", v);
    }
}

/// A small value for the documents of the hinted-plan property: numbers, a string, null, and
/// (nested) arrays and documents with numeric field names.
fn nested_value() -> impl Strategy<Value = Bson> {
    let leaf = prop_oneof![4 => (0i32..3).prop_map(Bson::Int32), 1 => Just(Bson::Null), 1 => Just(Bson::String("s".into()))];
    leaf.prop_recursive(3, 10, 3, |inner| {
        prop_oneof![
            3 => prop::collection::vec(inner.clone(), 0..3).prop_map(Bson::Array),
            2 => prop::collection::vec((prop::sample::select(vec!["0", "1", "b", "d"]), inner), 1..3).prop_map(|kv| {
                let mut d = Document::new();
                for (k, v) in kv {
                    d.insert(k, v);
                }
                Bson::Document(d)
            }),
        ]
    })
}

fn nested_doc() -> impl Strategy<Value = Document> {
    (prop::option::of(nested_value()), prop::option::of(nested_value())).prop_map(|(a, c)| {
        let mut d = Document::new();
        if let Some(a) = a {
            d.insert("a", a);
        }
        if let Some(c) = c {
            d.insert("c", c);
        }
        d
    })
}

fn nested_filter() -> impl Strategy<Value = Document> {
    let v = || prop_oneof![4 => (0i32..3).prop_map(Bson::Int32), 1 => Just(Bson::Null)];
    let f = prop::sample::select(vec!["a", "a.0", "a.b", "a.0.b", "a.1", "a.0.0", "c.d", "c.0", "c.0.d", "c.b"]);
    let inner = prop::sample::select(vec!["b", "d", "0", "0.b", "b.0"]);
    let leaf = prop_oneof![
        (f.clone(), v()).prop_map(|(f, v)| doc! {f: v}),
        (f.clone(), prop::sample::select(vec!["$gt", "$gte", "$lt", "$lte"]), v()).prop_map(|(f, op, v)| doc! {f: {op: v}}),
        (f.clone(), v(), v()).prop_map(|(f, x, y)| doc! {f: {"$gte": x, "$lte": y}}),
        (f.clone(), prop::collection::vec(v(), 1..3)).prop_map(|(f, vs)| doc! {f: {"$in": vs}}),
        (f.clone(), v(), v()).prop_map(|(f, x, y)| doc! {f: {"$elemMatch": {"$gte": x, "$lte": y}}}),
        (prop::sample::select(vec!["a", "c", "a.0", "a.b"]), inner.clone(), v(), v()).prop_map(|(f, i, x, y)| doc! {f: {"$elemMatch": {i: {"$gte": x, "$lte": y}}}}),
        (prop::sample::select(vec!["a", "c"]), inner.clone(), v(), inner, v()).prop_map(|(f, i, x, j, y)| doc! {f: {"$elemMatch": {i: x, j: {"$gte": y}}}}),
    ];
    prop::collection::vec(leaf, 1..3).prop_map(|fs| {
        let mut d = Document::new();
        d.insert("$and", fs.into_iter().map(Bson::Document).collect::<Vec<_>>());
        d
    })
}

/// The indexes of the hinted-plan property (all created, each hinted).
fn nested_indexes() -> Vec<Document> {
    vec![
        doc! {"a": 1},
        doc! {"a.0": 1},
        doc! {"a.b": 1},
        doc! {"a.0.b": -1},
        doc! {"a.1": 1},
        doc! {"a.0.0": 1},
        doc! {"a.b": 1, "a.d": 1},
        doc! {"a.0": 1, "c.d": -1},
        doc! {"c.d": 1},
        doc! {"c.0.d": 1},
        doc! {"c.b": 1, "c.d": 1},
        doc! {"c": 1, "a.b": 1},
        doc! {"$**": 1},
        doc! {"a.$**": -1},
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, max_shrink_iters: 300, ..ProptestConfig::default() })]

    /// A plan never changes the answer: every index, hinted, finds what the collection scan
    /// finds, over numeric path components, nested arrays and `$elemMatch`.
    #[test]
    fn every_hinted_plan_finds_what_the_scan_finds(
        docs in prop::collection::vec(nested_doc(), 0..10),
        filter in nested_filter(),
    ) {
        let indexes = nested_indexes();
        let mut db = Database::new();
        let docs: Vec<Document> = docs.into_iter().enumerate().map(|(i, mut d)| { d.insert("_id", i as i32); d }).collect();
        for (i, key) in indexes.iter().enumerate() {
            db.run_command(&doc! {"createIndexes": "c", "indexes": [{"key": key.clone(), "name": format!("i{i}")}]});
        }
        // One at a time: a document the indexes refuse (parallel or ambiguous arrays) is left out.
        for d in &docs {
            db.run_command(&doc! {"insert": "c", "documents": [d.clone()]});
        }
        let scan = db.run_command(&doc! {"find": "c", "filter": filter.clone(), "hint": {"$natural": 1}});
        prop_assert_eq!(scan.get("ok"), Some(&Bson::Double(1.0)), "{}", scan);
        let want = sorted(ids_of(&scan));
        for i in 0..indexes.len() {
            let hinted = db.run_command(&doc! {"find": "c", "filter": filter.clone(), "hint": format!("i{i}")});
            if hinted.get("ok") != Some(&Bson::Double(1.0)) {
                continue; // the index was refused at creation
            }
            prop_assert_eq!(&sorted(ids_of(&hinted)), &want, "filter {} hint {} over {:?}", filter, indexes[i], docs);
        }
        let v = db.run_command(&doc! {"validate": "c"});
        prop_assert_eq!(v.get("valid"), Some(&Bson::Boolean(true)), "{}", v);
        let planned = db.run_command(&doc! {"find": "c", "filter": filter.clone()});
        prop_assert_eq!(&sorted(ids_of(&planned)), &want, "filter {} (planner's choice) over {:?}", filter, docs);
    }
}
