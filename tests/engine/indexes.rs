//! Indexes, statistics, time series buckets and cost counters: the figures of the "Schema
//! design patterns" seed (measured on MongoDB 8.3.11) against the engine's models, index use
//! visible in explain and in the counters, and what the estimate markers say.

use bson::{doc, Bson, DateTime, Document};
use pattern_playground::db::Database;

fn new_db() -> Database {
    let mut db = Database::new();
    db.set_fixed_time(1_700_000_000_000);
    db.set_seed(7);
    db
}

use crate::common::int;

/// Runs `cmd`, which must succeed (`common::ok`, taking the command by value).
fn run(db: &mut Database, cmd: Document) -> Document {
    crate::common::ok(db, &cmd)
}

const BASE: i64 = 1_700_000_000_000;

/// The seed's reading `i`: two sensors alternating, one reading every 5 s.
fn reading(i: i64) -> Document {
    let sensor = if i % 2 == 0 { "s1" } else { "s2" };
    let h = ((i as u32).wrapping_mul(2_654_435_761u32) % 100) as f64;
    doc! {"sensorId": sensor, "t": DateTime::from_millis(BASE + i * 5000), "celsius": 20.0 + h / 10.0}
}

fn insert_readings(db: &mut Database, coll: &str) {
    for chunk in 0..20 {
        let docs: Vec<Bson> = (0..1000).map(|k| Bson::Document(reading(chunk * 1000 + k))).collect();
        run(db, doc! {"insert": coll, "documents": docs});
    }
}

/// The seed's 112 buckets as its capped upserts leave them: per sensor and hour, 200 readings,
/// then the rest of the hour in a second bucket.
fn insert_buckets(db: &mut Database) {
    let mut open: Vec<(String, i64, Vec<Bson>)> = Vec::new();
    for i in 0..20_000 {
        let r = reading(i);
        let t = r.get_datetime("t").unwrap().timestamp_millis();
        let hour = t.div_euclid(3_600_000) * 3_600_000;
        let sensor = r.get_str("sensorId").unwrap().to_string();
        let item = Bson::Document(doc! {"t": r.get("t").unwrap().clone(), "celsius": r.get("celsius").unwrap().clone()});
        match open.iter_mut().find(|(s, h, items)| *s == sensor && *h == hour && items.len() < 200) {
            Some((_, _, items)) => items.push(item),
            None => open.push((sensor, hour, vec![item])),
        }
    }
    let docs: Vec<Bson> = open
        .into_iter()
        .map(|(s, h, items)| {
            let n = items.len() as i32;
            Bson::Document(doc! {"sensorId": s, "hour": DateTime::from_millis(h), "readings": items, "count": n})
        })
        .collect();
    run(db, doc! {"insert": "readingsBucket", "documents": docs});
}

fn total_index_kb(db: &mut Database, coll: &str) -> i64 {
    let s = run(db, doc! {"collStats": coll});
    (int(&s, "totalIndexSize") as f64 / 1024.0).round() as i64
}

#[test]
fn seed_index_sizes_plain_and_bucketed() {
    let mut db = new_db();
    insert_readings(&mut db, "readingsPlain");
    insert_buckets(&mut db);
    run(&mut db, doc! {"createIndexes": "readingsPlain", "indexes": [{"key": {"sensorId": 1, "t": 1}, "name": "sensorId_1_t_1"}]});
    run(&mut db, doc! {"createIndexes": "readingsBucket", "indexes": [{"key": {"sensorId": 1, "hour": 1}, "name": "sensorId_1_hour_1"}]});
    let plain = total_index_kb(&mut db, "readingsPlain");
    let bucketed = total_index_kb(&mut db, "readingsBucket");
    let s = run(&mut db, doc! {"collStats": "readingsPlain"});
    println!("seed index KB: plain {plain} (server 760), bucketed {bucketed} (server 28); plain storageSize {} KB, size {} KB", int(&s, "storageSize") / 1024, int(&s, "size") / 1024);
    assert!((plain - 760).abs() <= 20, "plain indexes {plain} KB, server 760 KB");
    assert!((bucketed - 28).abs() <= 2, "bucketed indexes {bucketed} KB, server 28 KB");
    assert_eq!(int(&run(&mut db, doc! {"collStats": "readingsBucket"}), "count"), 112);
}

#[test]
fn seed_time_series_buckets_and_size() {
    let mut db = new_db();
    run(&mut db, doc! {"create": "readingsTs", "timeseries": {"timeField": "t", "metaField": "sensorId", "granularity": "seconds"}});
    insert_readings(&mut db, "readingsTs");
    let s = run(&mut db, doc! {"collStats": "readingsTs"});
    let ts = s.get_document("timeseries").unwrap();
    assert_eq!(int(ts, "bucketCount"), 56);
    let kb = int(&s, "size") as f64 / 1024.0;
    println!("seed time series: {} buckets, size {kb:.1} KB (server 75 KB)", int(ts, "bucketCount"));
    // The column model gives about 54 KB (see src/db/storage.rs).
    assert!((45.0..=90.0).contains(&kb), "time series size {kb} KB, server 75 KB");
    let est: Vec<&str> = s.get_array("estimated").unwrap().iter().filter_map(|v| v.as_str()).collect();
    assert!(est.contains(&"size") && est.contains(&"storageSize") && est.contains(&"indexSizes"), "{est:?}");
}

#[test]
fn stats_mark_estimates_and_keep_exact_sizes() {
    let mut db = new_db();
    run(&mut db, doc! {"insert": "c", "documents": [{"_id": 1, "a": "x"}, {"_id": 2, "a": "y"}]});
    let s = run(&mut db, doc! {"collStats": "c"});
    assert_eq!(int(&s, "size"), 2 * 23);
    assert_eq!(int(&s, "count"), 2);
    assert_eq!(int(&s, "avgObjSize"), 23);
    assert_eq!(int(&s, "nindexes"), 1);
    let est: Vec<&str> = s.get_array("estimated").unwrap().iter().filter_map(|v| v.as_str()).collect();
    assert_eq!(est, vec!["storageSize", "freeStorageSize", "totalIndexSize", "totalSize", "indexSizes"]);
    let ix = s.get_document("indexSizes").unwrap();
    assert_eq!(int(ix, "_id_"), int(&s, "totalIndexSize"));
    assert_eq!(int(&s, "totalSize"), int(&s, "storageSize") + int(&s, "totalIndexSize"));
    let d = run(&mut db, doc! {"dbStats": 1});
    assert_eq!((int(&d, "collections"), int(&d, "objects"), int(&d, "dataSize"), int(&d, "indexes")), (1, 2, 46, 1));
    assert_eq!(int(&d, "indexSize"), int(&s, "totalIndexSize"));
    assert_eq!(int(&d, "storageSize"), int(&s, "storageSize"));
    // Scaled figures are divided.
    let k = run(&mut db, doc! {"collStats": "c", "scale": 1024});
    assert_eq!(int(&k, "totalIndexSize"), int(&s, "totalIndexSize") / 1024);
}

#[test]
fn index_sizes_grow_with_keys() {
    let mut db = new_db();
    let docs: Vec<Bson> = (0..5000).map(|i| Bson::Document(doc! {"_id": i, "name": format!("customer number {i}")})).collect();
    run(&mut db, doc! {"insert": "c", "documents": docs});
    let before = int(&run(&mut db, doc! {"collStats": "c"}), "totalIndexSize");
    run(&mut db, doc! {"createIndexes": "c", "indexes": [{"key": {"name": 1}, "name": "name_1"}]});
    let s = run(&mut db, doc! {"collStats": "c"});
    let ix = s.get_document("indexSizes").unwrap();
    assert!(int(ix, "name_1") > int(ix, "_id_"), "{ix}");
    assert!(int(&s, "totalIndexSize") > before);
    assert_eq!(int(&s, "totalIndexSize") % 4096, 0, "whole allocation units");
}

#[test]
fn explain_shows_index_use_and_costs() {
    let mut db = new_db();
    insert_readings(&mut db, "r");
    run(&mut db, doc! {"createIndexes": "r", "indexes": [{"key": {"sensorId": 1, "t": 1}, "name": "sensorId_1_t_1"}]});
    let hour = DateTime::from_millis(BASE + 3_600_000);
    let next = DateTime::from_millis(BASE + 7_200_000);
    let q = doc! {"sensorId": "s1", "t": {"$gte": hour, "$lt": next}};
    let r = run(&mut db, doc! {"explain": {"find": "r", "filter": q.clone()}, "verbosity": "executionStats"});
    let win = r.get_document("queryPlanner").unwrap().get_document("winningPlan").unwrap();
    assert_eq!(win.get_str("stage").unwrap(), "FETCH");
    let ix = win.get_document("inputStage").unwrap();
    assert_eq!((ix.get_str("stage").unwrap(), ix.get_str("indexName").unwrap()), ("IXSCAN", "sensorId_1_t_1"));
    let st = r.get_document("executionStats").unwrap();
    // One reading per sensor every 10 s: 360 in the hour.
    assert_eq!((int(st, "nReturned"), int(st, "totalKeysExamined"), int(st, "totalDocsExamined")), (360, 360, 360));
    let size = crate_size(&reading(720));
    assert_eq!(int(st, "bytesRead"), 360 * size);
    assert_eq!(int(st, "bytesWritten"), 0);
    let stages = st.get_document("executionStages").unwrap();
    assert_eq!(int(stages, "docsExamined"), 360);
    assert_eq!(int(stages.get_document("inputStage").unwrap(), "keysExamined"), 360);
    // The same query run for real reports the same counters.
    run(&mut db, doc! {"find": "r", "filter": q});
    let c = db.last_cost();
    assert_eq!((c.keys_examined, c.docs_examined, c.docs_returned, c.bytes_read), (360, 360, 360, 360 * size as u64));
    // Without the index: a collection scan of every document.
    run(&mut db, doc! {"find": "r", "filter": {"celsius": {"$gt": 100}}});
    let c = db.last_cost();
    assert_eq!((c.keys_examined, c.docs_examined, c.docs_returned), (0, 20_000, 0));
}

/// The BSON size of a reading as stored (with its generated `_id` first).
fn crate_size(d: &Document) -> i64 {
    let mut with_id = doc! {"_id": bson::oid::ObjectId::new()};
    with_id.extend(d.clone());
    let mut bytes = Vec::new();
    with_id.to_writer(&mut bytes).unwrap();
    bytes.len() as i64
}

#[test]
fn capped_upserts_use_the_index_once_it_exists() {
    let mut db = new_db();
    let upsert = |i: i64| {
        let r = reading(i);
        let t = r.get_datetime("t").unwrap().timestamp_millis();
        let hour = DateTime::from_millis(t.div_euclid(3_600_000) * 3_600_000);
        let s = r.get_str("sensorId").unwrap().to_string();
        doc! {"update": "b", "updates": [{
            "q": {"sensorId": &s, "hour": hour, "count": {"$lt": 200}},
            "u": {"$push": {"readings": {"t": r.get("t").unwrap().clone()}}, "$inc": {"count": 1}, "$setOnInsert": {"sensorId": &s, "hour": hour}},
            "upsert": true,
        }]}
    };
    for i in 0..2000 {
        let r = run(&mut db, upsert(i));
        assert!(!r.contains_key("writeErrors"), "{r}");
    }
    // Before the index: a scan of every bucket until the match.
    run(&mut db, upsert(2002));
    let scan = db.last_cost();
    assert_eq!(scan.keys_examined, 0);
    assert!(scan.docs_examined >= 10, "{scan:?}");
    run(&mut db, doc! {"createIndexes": "b", "indexes": [{"key": {"sensorId": 1, "hour": 1}, "name": "sensorId_1_hour_1"}]});
    // Reading 1998 (s1, 00:59:50) goes to the open bucket of s1's 00:00 hour: the index leads to
    // that hour's two buckets (the full one and the open one) and to nothing else.
    run(&mut db, upsert(1998));
    let ix = db.last_cost();
    assert_eq!((ix.keys_examined, ix.docs_examined), (2, 2), "{ix:?}");
    assert_eq!(ix.bytes_written as i64 > 0, true);
    let n: i64 = int(&run(&mut db, doc! {"count": "b"}), "n");
    assert_eq!(n, 13);
}

#[test]
fn bytes_read_count_every_document_examined() {
    let mut db = new_db();
    let reviews: Vec<Bson> = (0..1000).map(|i| Bson::Document(doc! {"user": format!("u{}", i % 700), "stars": 1 + i % 5, "text": format!("Review {i} {}", "lorem ipsum ".repeat(12))})).collect();
    run(&mut db, doc! {"insert": "fat", "documents": [{"_id": "BK-204", "title": "Distributed Systems", "reviews": reviews}]});
    let size = int(&run(&mut db, doc! {"collStats": "fat"}), "size") as u64;
    let mut total = 0;
    for _ in 0..10 {
        run(&mut db, doc! {"find": "fat", "filter": {"_id": "BK-204"}, "projection": {"title": 1, "reviews": {"$slice": -5}}, "limit": 1});
        let c = db.last_cost();
        assert_eq!((c.keys_examined, c.docs_examined, c.docs_returned), (1, 1, 1));
        total += c.bytes_read;
    }
    // A projection does not make the read cheaper: the whole document is loaded each time.
    assert_eq!(total, 10 * size);
    run(&mut db, doc! {"update": "fat", "updates": [{"q": {"_id": "BK-204"}, "u": {"$set": {"title": "DS"}}}]});
    let c = db.last_cost();
    assert_eq!(c.bytes_read, size);
    assert_eq!(c.bytes_written, size - 17);
}

#[test]
fn unique_violations_leave_the_data_unchanged() {
    let mut db = new_db();
    run(&mut db, doc! {"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 2}]});
    run(&mut db, doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "unique": true}]});
    let before = db.snapshot();
    // Updates meet the index while the server's executor runs them: their errors carry its context.
    let cases = [
        (doc! {"insert": "c", "documents": [{"_id": 3, "a": 1}]}, ""),
        (doc! {"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"a": 1}}}]}, "Plan executor error during update :: caused by :: "),
        (doc! {"update": "c", "updates": [{"q": {"_id": 9}, "u": {"$set": {"a": 1}}, "upsert": true}]}, "Plan executor error during update :: caused by :: "),
        (doc! {"findAndModify": "c", "query": {"_id": 2}, "update": {"$set": {"a": 1}}}, "Plan executor error during findAndModify :: caused by :: "),
    ];
    for (cmd, context) in cases {
        let r = db.run_command(&cmd);
        let e = match r.get_array("writeErrors") {
            Ok(w) => w[0].as_document().unwrap().clone(),
            Err(_) => r.clone(),
        };
        assert_eq!(int(&e, "code"), 11000, "{cmd} -> {r}");
        assert_eq!(e.get_str("errmsg").unwrap(), format!("{context}E11000 duplicate key error collection: test.c index: a_1 dup key: {{ a: 1 }}"), "{r}");
        assert_eq!(e.get_document("keyPattern").unwrap(), &doc! {"a": 1});
        assert_eq!(db.snapshot(), before, "{cmd} changed the data");
    }
}

/// Regression: `$in` lists on the fields of a compound index were multiplied into one seek
/// range per combination (100 × 100 × 100 values: a million ranges, seconds and gigabytes);
/// the scan now seeks on fewer fields and checks the rest per key, with the same results.
#[test]
fn in_lists_on_a_compound_index_do_not_multiply_into_millions_of_ranges() {
    let mut db = new_db();
    let docs: Vec<Document> = (0..60).map(|i| doc! {"_id": i, "a": i % 10, "b": i % 7, "c": i % 3}).collect();
    run(&mut db, doc! {"insert": "c", "documents": docs});
    run(&mut db, doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1, "b": -1, "c": 1}, "name": "abc"}]});
    let list = |odd: bool| -> Vec<i32> { (0..100).filter(|v| !odd || v % 2 == 1).collect() };
    let r = run(&mut db, doc! {"find": "c", "filter": {"a": {"$in": list(true)}, "b": {"$in": list(false)}, "c": {"$in": [0, 2]}}, "sort": {"_id": 1}});
    let ids: Vec<i32> = r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().iter().map(|d| d.as_document().unwrap().get_i32("_id").unwrap()).collect();
    let want: Vec<i32> = (0..60).filter(|i| (i % 10) % 2 == 1 && i % 3 != 1).collect();
    assert_eq!(ids, want);
    let e = run(&mut db, doc! {"explain": {"find": "c", "filter": {"a": {"$in": list(true)}, "b": {"$in": list(false)}, "c": {"$in": [0, 2]}}}, "verbosity": "executionStats"});
    assert!(e.to_string().contains("IXSCAN"), "{e}");
}

fn count_with(db: &mut Database, filter: Document, hint: Option<Bson>) -> i64 {
    let mut cmd = doc! {"count": "c", "query": filter};
    if let Some(h) = hint {
        cmd.insert("hint", h);
    }
    int(&run(db, cmd), "n")
}

fn find_ids(db: &mut Database, filter: Document, hint: Bson) -> Vec<Bson> {
    let r = run(db, doc! {"find": "c", "filter": filter, "hint": hint});
    let mut ids: Vec<Bson> = r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().iter().map(|d| d.as_document().unwrap().get("_id").unwrap().clone()).collect();
    ids.sort_by(pattern_playground::value::compare);
    ids
}

#[test]
fn positional_key_paths_index_the_element_named() {
    // {"a.0": 1} keys {a: [5]} by its element 0 and {a: {"0": 5}} by its field: both are found.
    let mut db = new_db();
    run(&mut db, doc! {"insert": "c", "documents": [{"_id": 1, "a": {"0": 5}}, {"_id": 2, "a": [5]}]});
    assert_eq!(count_with(&mut db, doc! {"a.0": 5}, None), 2);
    run(&mut db, doc! {"createIndexes": "c", "indexes": [{"key": {"a.0": 1}, "name": "a0"}]});
    assert_eq!(count_with(&mut db, doc! {"a.0": 5}, None), 2);
    assert_eq!(count_with(&mut db, doc! {"a.0": 5}, Some(Bson::String("a0".into()))), 2);
    assert_eq!(count_with(&mut db, doc! {"a.0": {"$gt": 4, "$lt": 6}}, Some(Bson::String("a0".into()))), 2);
    // Indexing a positional element is not multikey.
    let ex = run(&mut db, doc! {"explain": {"find": "c", "filter": {"a.0": 5}, "hint": "a0"}});
    let stage = ex.get_document("queryPlanner").unwrap().get_document("winningPlan").unwrap().get_document("inputStage").unwrap();
    assert_eq!(stage.get("isMultiKey"), Some(&Bson::Boolean(false)), "{stage}");

    // Nested arrays: "a.0.b" through a[0] and an object field alike.
    let mut db = new_db();
    run(&mut db, doc! {"insert": "c", "documents": [{"_id": 1, "a": [{"b": 3}, {"b": 4}]}, {"_id": 2, "a": {"0": {"b": 3}}}, {"_id": 3, "a": [[{"b": 3}]]}]});
    let before = count_with(&mut db, doc! {"a.0.b": 3}, None);
    run(&mut db, doc! {"createIndexes": "c", "indexes": [{"key": {"a.0.b": 1}, "name": "a0b"}]});
    assert_eq!(count_with(&mut db, doc! {"a.0.b": 3}, Some(Bson::String("a0b".into()))), before);
    assert_eq!(before, 3);

    // A positional element that is itself an array is one key (the array): $elemMatch on the
    // path cannot use the index's bounds (the server's match_numeric_components test).
    let mut db = new_db();
    run(&mut db, doc! {"createIndexes": "c", "indexes": [{"key": {"f1.0": 1}, "name": "f10"}]});
    run(&mut db, doc! {"insert": "c", "documents": [{"_id": 1, "f1": [[42, 5], [77, 99]]}, {"_id": 2, "f1": {"0": [42, 5]}}]});
    assert_eq!(count_with(&mut db, doc! {"f1.0": {"$elemMatch": {"$eq": 5}}}, Some(Bson::String("f10".into()))), 2);
    assert_eq!(count_with(&mut db, doc! {"f1.0": 5}, Some(Bson::String("f10".into()))), 1);

    // An embedded document with a numeric field inside an array the key path indexes by
    // position is ambiguous.
    let r = db.run_command(&doc! {"insert": "c", "documents": [{"_id": 3, "f1": [{"0": 1}]}]});
    let err = r.get_array("writeErrors").unwrap()[0].as_document().unwrap().clone();
    assert_eq!(err.get("code"), Some(&Bson::Int32(16746)), "{r}");
    assert_eq!(count_with(&mut db, doc! {}, None), 2);

    // An update that makes the same ambiguity fails with the same code and changes nothing:
    // `$set "a.0.0"` gives a[0] a field "0" under the index {"a.0.c": 1}.
    let mut db = new_db();
    run(&mut db, doc! {"createIndexes": "c", "indexes": [{"key": {"a.0.c": 1}, "name": "a0c"}]});
    run(&mut db, doc! {"insert": "c", "documents": [{"_id": 1, "a": [{"c": 1}]}]});
    let r = db.run_command(&doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a.0.0": 5}}}]});
    let err = r.get_array("writeErrors").unwrap()[0].as_document().unwrap().clone();
    assert_eq!(err.get("code"), Some(&Bson::Int32(16746)), "{r}");
    let found = run(&mut db, doc! {"find": "c", "filter": {}});
    let first = found.get_document("cursor").unwrap().get_array("firstBatch").unwrap()[0].clone();
    assert_eq!(first, Bson::Document(doc! {"_id": 1, "a": [{"c": 1}]}));
}

#[test]
fn multikey_bounds_combine_only_under_an_elem_match_of_the_array() {
    // b is an array inside a's element: {$gte: 1, $lte: 1} may hold for different elements of b.
    let mut db = new_db();
    run(&mut db, doc! {"insert": "c", "documents": [{"_id": 1, "a": [{"b": [0, 2]}]}]});
    run(&mut db, doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a"}, {"key": {"a.b": 1}, "name": "ab"}]});
    let q = doc! {"a": {"$elemMatch": {"b": {"$gte": 1, "$lte": 1}}}};
    assert_eq!(find_ids(&mut db, q.clone(), Bson::Document(doc! {"$natural": 1})), vec![Bson::Int32(1)]);
    assert_eq!(find_ids(&mut db, q.clone(), Bson::String("ab".into())), vec![Bson::Int32(1)]);
    assert_eq!(find_ids(&mut db, q, Bson::String("a".into())), vec![Bson::Int32(1)]);
    // An $elemMatch on b itself holds one element of it: the bounds are [1, 1].
    let q = doc! {"a.b": {"$elemMatch": {"$gte": 1, "$lte": 1}}};
    assert_eq!(find_ids(&mut db, q.clone(), Bson::String("ab".into())), Vec::<Bson>::new());
    let ex = run(&mut db, doc! {"explain": {"find": "c", "filter": q, "hint": "ab"}});
    let stage = ex.get_document("queryPlanner").unwrap().get_document("winningPlan").unwrap().get_document("inputStage").unwrap();
    assert_eq!(stage.get_document("indexBounds").unwrap().get_array("a.b").unwrap(), &vec![Bson::String("[1, 1]".into())]);
    // Compound fields through a nested array combine only when the $elemMatch holds its element.
    let mut db = new_db();
    run(&mut db, doc! {"insert": "c", "documents": [{"_id": 1, "a": [{"b": [{"c": 1, "d": 2}, {"c": 2, "d": 1}]}]}]});
    run(&mut db, doc! {"createIndexes": "c", "indexes": [{"key": {"a.b.c": 1, "a.b.d": 1}, "name": "cd"}]});
    let q = doc! {"a": {"$elemMatch": {"b.c": 1, "b.d": 1}}};
    assert_eq!(find_ids(&mut db, q.clone(), Bson::String("cd".into())), find_ids(&mut db, q, Bson::Document(doc! {"$natural": 1})));
}

#[test]
fn min_and_max_bound_the_hinted_index() {
    let mut db = new_db();
    let docs: Vec<Bson> = (0..10).map(|i| Bson::Document(doc! {"_id": i, "a": i, "b": 9 - i})).collect();
    run(&mut db, doc! {"insert": "c", "documents": docs});
    run(&mut db, doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"b": -1, "a": 1}, "name": "b_-1_a_1"}]});
    let ids = |db: &mut Database, cmd: Document| -> Vec<i32> {
        let r = run(db, cmd);
        r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().iter().map(|d| d.as_document().unwrap().get_i32("_id").unwrap()).collect()
    };
    // max is excluded, min included, in index order.
    assert_eq!(ids(&mut db, doc! {"find": "c", "filter": {}, "max": {"a": 4}, "hint": {"a": 1}}), vec![0, 1, 2, 3]);
    assert_eq!(ids(&mut db, doc! {"find": "c", "filter": {}, "min": {"a": 7}, "hint": "a_1"}), vec![7, 8, 9]);
    assert_eq!(ids(&mut db, doc! {"find": "c", "filter": {"a": {"$ne": 3}}, "min": {"a": 2}, "max": {"a": 5}, "hint": {"a": 1}}), vec![2, 4]);
    // A descending field: b from 6 down to (not including) 3.
    assert_eq!(ids(&mut db, doc! {"find": "c", "filter": {}, "min": {"b": 6, "a": Bson::MinKey}, "max": {"b": 3, "a": Bson::MinKey}, "hint": "b_-1_a_1"}), vec![3, 4, 5]);
    let err = |db: &mut Database, cmd: Document| -> (i32, String) {
        let r = db.run_command(&cmd);
        (r.get_i32("code").unwrap_or(0), r.get_str("errmsg").unwrap_or("").to_string())
    };
    assert_eq!(err(&mut db, doc! {"find": "c", "max": {"a": 4}}).0, 51173);
    assert_eq!(err(&mut db, doc! {"find": "c", "max": {"b": 4}, "hint": {"a": 1}}).0, 51174);
    assert_eq!(err(&mut db, doc! {"find": "c", "max": {"b": 4}, "hint": "b_-1_a_1"}).0, 51174);
    assert_eq!(err(&mut db, doc! {"find": "c", "min": {"a": 4}, "max": {"a": 4}, "hint": {"a": 1}}).0, 51175);
    assert_eq!(err(&mut db, doc! {"find": "c", "min": {"a": 4}, "max": {"b": 4}, "hint": {"a": 1}}).0, 51176);
    assert_eq!(err(&mut db, doc! {"find": "c", "min": {"a": 4}, "hint": {"$natural": 1}}).0, 291);
    assert_eq!(err(&mut db, doc! {"find": "c", "min": 4, "hint": {"a": 1}}).0, 14);
}

#[test]
fn nan_bounds_find_what_a_scan_finds() {
    // NaN sorts below every number and equals only itself: `$lte`/`$gte` NaN match NaN alone
    // and `$lt`/`$gt` NaN nothing, through an index (plain, under an array, wildcard) as in a scan.
    let mut db = new_db();
    run(
        &mut db,
        doc! {"insert": "c", "documents": [
            {"_id": 1, "d": f64::NAN, "c": [{"d": f64::NAN, "e": 0}]},
            {"_id": 2, "d": f64::NEG_INFINITY, "c": [{"d": f64::NEG_INFINITY}]},
            {"_id": 3, "d": 0, "c": [{"d": 0}]},
            {"_id": 4, "d": ("NaN".parse::<bson::Decimal128>().unwrap())},
        ]},
    );
    run(
        &mut db,
        doc! {"createIndexes": "c", "indexes": [{"key": {"d": 1}, "name": "d"}, {"key": {"c.d": 1}, "name": "cd"}, {"key": {"$**": 1}, "name": "all"}]},
    );
    for path in ["d", "c.d"] {
        for op in ["$lte", "$gte", "$lt", "$gt"] {
            for nan in [Bson::Double(f64::NAN), Bson::Decimal128("NaN".parse().unwrap())] {
                let mut cond = Document::new();
                cond.insert(op, nan.clone());
                let mut filter = Document::new();
                filter.insert(path, cond);
                let scan = find_ids(&mut db, filter.clone(), Bson::Document(doc! {"$natural": 1}));
                let want: Vec<Bson> = if op.ends_with('e') { if path == "d" { vec![Bson::Int32(1), Bson::Int32(4)] } else { vec![Bson::Int32(1)] } } else { vec![] };
                assert_eq!(scan, want, "{filter} by a scan");
                let plain = if path == "d" { "d" } else { "cd" };
                for hint in [plain, "all"] {
                    assert_eq!(find_ids(&mut db, filter.clone(), Bson::String(hint.into())), want, "{filter} through {hint}");
                }
            }
        }
    }
}

/// An update moves index keys in two ways: a few moves are removed and added key by key
/// (`KeyTree::remove_sorted`, `insert_sorted`), many (an eighth of the entries or more) in one
/// pass that drops the moved records' entries and merges their new keys in
/// (`KeyTree::merge_rids`); and sorts them by comparison, or, from 2 048 on, in buckets with
/// each run of one key put in record id order (when an index scan handed the records over in
/// another order). All of them leave the index holding exactly the documents' keys, so an
/// index scan finds what a collection scan finds, in the index's order, for every value.
#[test]
fn updates_of_few_and_of_many_documents_move_index_keys_alike() {
    for n in [400, 20_000] {
        let mut db = new_db();
        let docs: Vec<Bson> = (0..n).map(|i| Bson::Document(doc! {"_id": i, "g": i % 7, "v": (i * 37) % 101, "s": format!("k{:03}", (i * 13) % 50)})).collect();
        run(&mut db, doc! {"insert": "c", "documents": docs});
        run(&mut db, doc! {"createIndexes": "c", "indexes": [{"key": {"v": 1}, "name": "v_1"}, {"key": {"s": -1, "v": 1}, "name": "s_v"}, {"key": {"g": 1}, "name": "g_1"}]});
        // Few moves (3), then many (about half, then all), then a few again; then every
        // record in `g` order, not in record id order, to one key, and all once more.
        for (q, u, hint) in [
            (doc! {"_id": {"$in": [5, 77, 301]}}, doc! {"$inc": {"v": 1000}}, None),
            (doc! {"g": {"$lt": 4}}, doc! {"$inc": {"v": -3}, "$set": {"s": "mid"}}, None),
            (doc! {}, doc! {"$mul": {"v": 2}}, None),
            (doc! {"g": 6, "v": {"$gt": 100}}, doc! {"$set": {"s": "zz"}}, None),
            (doc! {"g": {"$gte": 0}}, doc! {"$set": {"s": "same", "v": 1}}, Some("g_1")),
            (doc! {"g": {"$gte": 3}}, doc! {"$mul": {"v": -1}}, Some("g_1")),
        ] {
            let mut statement = doc! {"q": q, "u": u, "multi": true};
            if let Some(hint) = hint {
                statement.insert("hint", hint);
            }
            run(&mut db, doc! {"update": "c", "updates": [statement]});
            let v = run(&mut db, doc! {"validate": "c"});
            assert_eq!(v.get("valid"), Some(&Bson::Boolean(true)), "{v}");
            let ids = |reply: &Document| -> Vec<Bson> {
                reply.get_document("cursor").and_then(|c| c.get_array("firstBatch")).map(|b| b.iter().filter_map(|d| d.as_document()?.get("_id").cloned()).collect()).unwrap_or_default()
            };
            for (sort, hint) in [(doc! {"v": 1, "_id": 1}, "v_1"), (doc! {"s": -1, "v": 1, "_id": 1}, "s_v")] {
                let by_index = run(&mut db, doc! {"find": "c", "filter": {}, "sort": sort.clone(), "hint": hint, "batchSize": 100_000});
                let by_scan = run(&mut db, doc! {"find": "c", "filter": {}, "sort": sort, "hint": {"$natural": 1}, "batchSize": 100_000});
                assert_eq!(ids(&by_index), ids(&by_scan), "{hint}");
                assert_eq!(ids(&by_index).len(), n as usize);
                // Without a sort, the index's own order: its keys, ties in record id order
                // (here the `_id` order).
                let walked = run(&mut db, doc! {"find": "c", "filter": {}, "hint": hint, "batchSize": 100_000});
                assert_eq!(ids(&walked), ids(&by_scan), "{hint} walked");
            }
        }
    }
}
