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

fn run(db: &mut Database, cmd: Document) -> Document {
    let r = db.run_command(&cmd);
    assert_eq!(r.get("ok"), Some(&Bson::Double(1.0)), "{cmd} -> {r}");
    r
}

fn int(d: &Document, k: &str) -> i64 {
    match d.get(k) {
        Some(Bson::Int32(n)) => *n as i64,
        Some(Bson::Int64(n)) => *n,
        Some(Bson::Double(f)) => *f as i64,
        other => panic!("{k}: {other:?} in {d}"),
    }
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
