//! The figures of the "Schema design patterns" seed, measured on this engine (release build):
//! 20 000 readings inserted one document each, then as capped hourly buckets by upsert, then in a
//! time series collection; index and data sizes from `collStats`; timings of the ingests.
//!
//! `cargo run --release --example seed_figures`

use std::time::Instant;

use bson::{doc, Bson, DateTime, Document};
use pattern_playground::db::Database;

/// Readings per ingest (`SEED_N` overrides, for profiling).
fn n() -> i64 {
    std::env::var("SEED_N").ok().and_then(|s| s.parse().ok()).unwrap_or(20_000)
}
const BASE: i64 = 1_700_000_000_000;

fn reading(i: i64) -> Document {
    let sensor = if i % 2 == 0 { "s1" } else { "s2" };
    let h = ((i as u32).wrapping_mul(2_654_435_761u32) % 100) as f64;
    doc! {"sensorId": sensor, "t": DateTime::from_millis(BASE + i * 5000), "celsius": 20.0 + h / 10.0}
}

fn run(db: &mut Database, cmd: Document) -> Document {
    let r = db.run_command(&cmd);
    assert_eq!(r.get("ok"), Some(&Bson::Double(1.0)), "{cmd} -> {r}");
    r
}

fn kb(stats: &Document, field: &str) -> f64 {
    let v = stats.get(field).cloned().unwrap_or(Bson::Null);
    let n = match v {
        Bson::Int32(n) => n as f64,
        Bson::Int64(n) => n as f64,
        Bson::Double(f) => f,
        _ => 0.0,
    };
    n / 1024.0
}

/// The seed's 20 000 capped upserts (one bucket per sensor and hour, at most 200 readings), in
/// batches of 1 000; returns the milliseconds they took.
fn capped_upserts(db: &mut Database, coll: &str, index_first: bool) -> f64 {
    if index_first {
        run(db, doc! {"createIndexes": coll, "indexes": [{"key": {"sensorId": 1, "hour": 1}, "name": "sensorId_1_hour_1"}]});
    }
    let t = Instant::now();
    let mut ops = Vec::new();
    for i in 0..n() {
        let r = reading(i);
        let ts = r.get_datetime("t").map(|d| d.timestamp_millis()).unwrap_or(0);
        let hour = DateTime::from_millis(ts.div_euclid(3_600_000) * 3_600_000);
        let sensor = r.get_str("sensorId").unwrap_or("").to_string();
        let item = doc! {"t": r.get("t").cloned().unwrap_or(Bson::Null), "celsius": r.get("celsius").cloned().unwrap_or(Bson::Null)};
        ops.push(Bson::Document(doc! {
            "q": {"sensorId": &sensor, "hour": hour, "count": {"$lt": 200}},
            "u": {"$push": {"readings": item}, "$inc": {"count": 1}, "$setOnInsert": {"sensorId": &sensor, "hour": hour}},
            "upsert": true,
        }));
        if ops.len() == 1000 {
            run(db, doc! {"update": coll, "updates": std::mem::take(&mut ops), "ordered": true});
        }
    }
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    let mut db = Database::new();
    db.set_fixed_time(1_700_000_000_000);
    db.set_seed(7);

    let t = Instant::now();
    for chunk in 0..(n() / 1000) {
        let docs: Vec<Bson> = (0..1000).map(|k| Bson::Document(reading(chunk * 1000 + k))).collect();
        run(&mut db, doc! {"insert": "readingsPlain", "documents": docs});
    }
    let plain_ms = t.elapsed().as_secs_f64() * 1000.0;

    // The seed's capped upserts, without an index (created after ingest, as the seed does)...
    let bucket_ms = capped_upserts(&mut db, "readingsBucket", false);
    run(&mut db, doc! {"createIndexes": "readingsPlain", "indexes": [{"key": {"sensorId": 1, "t": 1}, "name": "sensorId_1_t_1"}]});
    run(&mut db, doc! {"createIndexes": "readingsBucket", "indexes": [{"key": {"sensorId": 1, "hour": 1}, "name": "sensorId_1_hour_1"}]});
    // ... and again into a collection that has the index from the start.
    let indexed_ms = capped_upserts(&mut db, "readingsBucket2", true);

    let ts_created = db.run_command(&doc! {"create": "readingsTs", "timeseries": {"timeField": "t", "metaField": "sensorId", "granularity": "seconds"}});
    let t = Instant::now();
    for chunk in 0..(n() / 1000) {
        let docs: Vec<Bson> = (0..1000).map(|k| Bson::Document(reading(chunk * 1000 + k))).collect();
        db.run_command(&doc! {"insert": "readingsTs", "documents": docs});
    }
    let ts_ms = t.elapsed().as_secs_f64() * 1000.0;

    let plain = run(&mut db, doc! {"collStats": "readingsPlain"});
    let buck = run(&mut db, doc! {"collStats": "readingsBucket"});
    let ts = db.run_command(&doc! {"collStats": "readingsTs"});
    println!("plain:    {} docs, size {:.0} KB, storage {:.0} KB, indexes {:.0} KB {}, ingest {plain_ms:.0} ms",
        plain.get("count").cloned().unwrap_or(Bson::Null), kb(&plain, "size"), kb(&plain, "storageSize"), kb(&plain, "totalIndexSize"), plain.get_document("indexSizes").map(|d| d.to_string()).unwrap_or_default());
    println!("bucketed: {} docs, size {:.0} KB, storage {:.0} KB, indexes {:.0} KB {}, ingest {bucket_ms:.0} ms (capped upserts, _id index only)",
        buck.get("count").cloned().unwrap_or(Bson::Null), kb(&buck, "size"), kb(&buck, "storageSize"), kb(&buck, "totalIndexSize"), buck.get_document("indexSizes").map(|d| d.to_string()).unwrap_or_default());
    println!("capped upserts with the {{sensorId, hour}} index: {indexed_ms:.0} ms");
    println!("time series: create {ts_created}; {} ; ingest {ts_ms:.0} ms", ts);
    println!("time series: size {:.0} KB, buckets {}", kb(&ts, "size"), ts.get_document("timeseries").ok().and_then(|t| t.get("bucketCount").cloned()).unwrap_or(Bson::Null));
}
