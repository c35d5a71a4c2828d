//! The workloads of bench/workloads/*.js at the Rust API: the same data (same generator, same
//! sizes) and the same commands the mongosh runtime sends, built as BSON documents and run
//! through `Database::run_command`.

#![allow(dead_code)]

use bson::{doc, Bson, DateTime, Document};
use pattern_playground::db::Database;

/// The scripts' generator: `seed = (seed * 1664525 + 1013904223) mod 2^32`, as a double in [0, 1).
pub struct Lcg(u32);

impl Lcg {
    pub fn new(seed: u32) -> Lcg {
        Lcg(seed)
    }

    pub fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        self.0 as f64 / 4_294_967_296.0
    }
}

/// Runs a command and checks that it succeeded.
pub fn run(db: &mut Database, cmd: &Document) -> Document {
    let reply = db.run_command(cmd);
    assert_eq!(reply.get("ok"), Some(&Bson::Double(1.0)), "command failed: {reply}");
    reply
}

pub fn fresh() -> Database {
    let mut db = Database::new();
    db.set_fixed_time(1_704_067_200_000);
    db.set_seed(1);
    db
}

/// Inserts documents in batches as insertMany does.
pub fn insert_all(db: &mut Database, coll: &str, docs: Vec<Document>) {
    for chunk in docs.chunks(1000) {
        let batch: Vec<Bson> = chunk.iter().cloned().map(Bson::Document).collect();
        run(db, &doc! {"insert": coll, "documents": batch, "ordered": true});
    }
}

pub fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

// ---- bucket-upserts ----------------------------------------------------------------------------

/// The 20 update commands (1 000 upserts each) of bucket-upserts.js.
pub fn bucket_commands() -> Vec<Document> {
    let mut rng = Lcg::new(7);
    let start = 1_704_067_200_000i64;
    let mut stmts = Vec::with_capacity(20_000);
    for i in 0..20_000i64 {
        let sensor = format!("s{:02}", i % 20);
        let ms = start + (i / 20) * 10_000;
        let t = DateTime::from_millis(ms);
        let hour = DateTime::from_millis(ms - ms % 3_600_000);
        let v = round1(rng.next() * 1000.0);
        stmts.push(Bson::Document(doc! {
            "q": {"sensorId": sensor, "hour": hour, "count": {"$lt": 200}},
            "u": {"$push": {"readings": {"t": t, "v": v}}, "$inc": {"count": 1, "sum": v}, "$setOnInsert": {"unit": "C", "first": t}},
            "upsert": true,
        }));
    }
    stmts.chunks(1000).map(|c| doc! {"update": "buckets", "updates": c.to_vec(), "ordered": true}).collect()
}

pub fn bucket_setup() -> Database {
    let mut db = fresh();
    run(&mut db, &doc! {"createIndexes": "buckets", "indexes": [{"key": {"sensorId": 1, "hour": 1}, "name": "sensorId_1_hour_1"}]});
    db
}

// ---- large-doc-slice ---------------------------------------------------------------------------

pub fn large_doc_setup() -> Database {
    let mut rng = Lcg::new(11);
    let words = ["great", "sturdy", "cheap", "arrived", "late", "broke", "love", "it", "would", "buy", "again", "meh", "perfect", "fit"];
    let sentence = |rng: &mut Lcg, n: usize, width: usize| {
        let s: Vec<&str> = (0..n).map(|_| words[(rng.next() * words.len() as f64) as usize]).collect();
        let mut s = s.join(" ");
        while s.len() < width {
            s.push('.');
        }
        s.truncate(width);
        s
    };
    let mut reviews = Vec::with_capacity(10_000);
    for i in 0..10_000i64 {
        let user = format!("user{:06}", (rng.next() * 100_000.0) as i64);
        let rating = 1 + (rng.next() * 5.0) as i32;
        let title = sentence(&mut rng, 4, 32);
        let text = sentence(&mut rng, 30, 104);
        reviews.push(Bson::Document(doc! {
            "reviewId": i as i32, "user": user, "rating": rating,
            "date": DateTime::from_millis(1_577_836_800_000 + i * 3_600_000), "title": title, "text": text,
        }));
    }
    let mut db = fresh();
    run(&mut db, &doc! {"insert": "products", "documents": [{"_id": 1, "name": "Ceramic pour-over kettle", "price": 49.5, "reviews": reviews}]});
    db
}

pub fn large_doc_read() -> Document {
    doc! {"find": "products", "filter": {"_id": 1}, "projection": {"name": 1, "price": 1, "reviews": {"$slice": -5}}, "limit": 1, "singleBatch": true, "batchSize": 1}
}

// ---- subset-reads ------------------------------------------------------------------------------

pub fn subset_setup() -> Database {
    let mut rng = Lcg::new(13);
    let text = "Does what it says on the box, would buy again.";
    let mut products = Vec::with_capacity(1000);
    for p in 0..1000i32 {
        let mut recent = Vec::new();
        for _ in 0..10 {
            let user = format!("user{}", (rng.next() * 1000.0) as i32);
            let rating = 1 + (rng.next() * 5.0) as i32;
            let len = 20 + (rng.next() * 20.0) as usize;
            recent.push(Bson::Document(doc! {"user": user, "rating": rating, "text": &text[..len]}));
        }
        let price = (rng.next() * 10_000.0).round() / 100.0;
        products.push(doc! {"_id": p, "name": format!("Product {p}"), "price": price, "tags": ["kitchen", "sale"], "recentReviews": recent});
    }
    let mut db = fresh();
    insert_all(&mut db, "products", products);
    db
}

pub fn subset_read(i: i32) -> Document {
    doc! {"find": "products", "filter": {"_id": (i * 7919) % 1000}, "limit": 1, "singleBatch": true, "batchSize": 1}
}

// ---- expr-drift-audit --------------------------------------------------------------------------

pub fn orders_setup() -> Database {
    let mut rng = Lcg::new(17);
    let mut orders = Vec::with_capacity(5000);
    for i in 0..5000i32 {
        let n = 1 + (rng.next() * 5.0) as usize;
        let mut items = Vec::new();
        let mut total = 0i64;
        for _ in 0..n {
            let sku = format!("sku{}", (rng.next() * 500.0) as i32);
            let price = 100 + (rng.next() * 9900.0) as i32;
            let qty = 1 + (rng.next() * 4.0) as i32;
            total += (price * qty) as i64;
            items.push(Bson::Document(doc! {"sku": sku, "price": price, "qty": qty}));
        }
        if i % 50 == 7 {
            total += 1;
        }
        orders.push(doc! {"_id": i, "customer": format!("c{}", i % 700), "items": items, "total": total as i32});
    }
    let mut db = fresh();
    insert_all(&mut db, "orders", orders);
    db
}

/// countDocuments as mongosh sends it: an aggregate with `$match` and `$group`.
pub fn drift_audit() -> Document {
    doc! {"aggregate": "orders", "pipeline": [
        {"$match": {"$expr": {"$ne": ["$total", {"$sum": {"$map": {"input": "$items", "as": "it", "in": {"$multiply": ["$$it.price", "$$it.qty"]}}}}]}}},
        {"$group": {"_id": 1, "n": {"$sum": 1}}},
    ], "cursor": {}}
}

// ---- extended-ref-update -----------------------------------------------------------------------

pub fn extended_ref_setup() -> Database {
    let mut orders = Vec::with_capacity(5000);
    for i in 0..5000i32 {
        let s = i % 2;
        let (name, city) = if s == 0 { ("Harbour Street", "Leith") } else { ("Old Mill", "Perth") };
        orders.push(doc! {
            "_id": i, "date": DateTime::from_millis(1_704_067_200_000 + i as i64 * 60_000),
            "store": {"_id": s, "name": name, "city": city}, "amount": (i * 37) % 1000,
        });
    }
    let mut db = fresh();
    insert_all(&mut db, "orders", orders);
    run(&mut db, &doc! {"createIndexes": "orders", "indexes": [{"key": {"store._id": 1}, "name": "store._id_1"}]});
    db
}

pub fn extended_ref_update() -> Document {
    doc! {"update": "orders", "updates": [{"q": {"store._id": 0}, "u": {"$set": {"store.name": "Harbour Street Market", "store.city": "Edinburgh"}}, "multi": true}], "ordered": true}
}

// ---- group-readings ----------------------------------------------------------------------------

pub fn readings_docs() -> Vec<Document> {
    let mut rng = Lcg::new(19);
    (0..20_000i64)
        .map(|i| {
            let v = (rng.next() * 4000.0).round() / 100.0;
            let ok = rng.next() > 0.1;
            doc! {"sensorId": format!("s{:02}", i % 50), "t": DateTime::from_millis(1_704_067_200_000 + i * 1000), "v": v, "ok": ok}
        })
        .collect()
}

pub fn readings_setup() -> Database {
    let mut db = fresh();
    let docs = readings_docs()
        .into_iter()
        .enumerate()
        .map(|(i, d)| {
            let mut with_id = doc! {"_id": i as i32};
            with_id.extend(d);
            with_id
        })
        .collect();
    insert_all(&mut db, "readings", docs);
    db
}

pub fn group_readings() -> Document {
    doc! {"aggregate": "readings", "pipeline": [
        {"$match": {"v": {"$gte": 10}, "ok": true}},
        {"$group": {"_id": "$sensorId", "n": {"$sum": 1}, "avg": {"$avg": "$v"}, "max": {"$max": "$v"}}},
        {"$sort": {"avg": -1, "_id": 1}},
    ], "cursor": {}}
}
