//! Engine memory (`cargo bench --bench memory`): inserts 100 000 small documents and reports the
//! growth of the live heap (a counting global allocator) against the sum of their BSON sizes.

mod counting_alloc;
mod workloads;

use std::sync::atomic::Ordering;

use counting_alloc::{reset_peak, Counting, LIVE, PEAK};

use bson::{doc, Bson, DateTime};

#[global_allocator]
static GLOBAL: Counting = Counting;

const DOCS: i64 = 100_000;

/// The documents of the measurement (about 64 bytes of BSON each).
fn reading(i: i64, rng: &mut workloads::Lcg) -> bson::Document {
    doc! {
        "_id": i, "sensorId": format!("s{:03}", i % 500), "t": DateTime::from_millis(1_704_067_200_000 + i * 1000),
        "v": (rng.next() * 4000.0).round() / 100.0, "ok": rng.next() > 0.1,
    }
}

/// Live heap growth while `f` builds and keeps something.
fn growth<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = LIVE.load(Ordering::Relaxed);
    let kept = f();
    (LIVE.load(Ordering::Relaxed).saturating_sub(before), kept)
}

fn main() {
    // The representations the engine could keep, for comparison: decoded `Document`s, raw BSON
    // bytes (`RawDocumentBuf`) and the collection's records (exactly sized bytes, what it stores).
    let bytes: Vec<Vec<u8>> = {
        let mut rng = workloads::Lcg::new(23);
        (0..DOCS).map(|i| reading(i, &mut rng).to_vec().unwrap()).collect()
    };
    let bson_total: usize = bytes.iter().map(Vec::len).sum();
    let (decoded, kept) = growth(|| bytes.iter().map(|b| bson::Document::from_reader(b.as_slice()).unwrap()).collect::<Vec<_>>());
    drop(kept);
    let (raw, kept) = growth(|| bytes.iter().map(|b| bson::RawDocumentBuf::from_bytes(b.clone()).unwrap()).collect::<Vec<_>>());
    drop(kept);
    let docs: Vec<bson::Document> = bytes.iter().map(|b| bson::Document::from_reader(b.as_slice()).unwrap()).collect();
    let (records, kept) = growth(|| docs.iter().map(|d| pattern_playground::db::Record::encode(d).unwrap()).collect::<Vec<_>>());
    drop(kept);
    println!(
        "memory: as decoded Documents {:.1} bytes per document ({:.2}x BSON; size_of Bson = {}, Document = {}); as RawDocumentBuf {:.1} ({:.2}x); as records {:.1} ({:.2}x, size_of Record = {})",
        decoded as f64 / DOCS as f64,
        decoded as f64 / bson_total as f64,
        std::mem::size_of::<Bson>(),
        std::mem::size_of::<bson::Document>(),
        raw as f64 / DOCS as f64,
        raw as f64 / bson_total as f64,
        records as f64 / DOCS as f64,
        records as f64 / bson_total as f64,
        std::mem::size_of::<pattern_playground::db::Record>(),
    );
    // Where a collection's bytes go: the same documents in a bare `Collection` (records,
    // records map and `_id_` index, which also answers `_id` lookups), then the index alone.
    let (whole, kept) = growth(|| {
        let mut c = pattern_playground::db::Collection::new("test", "c", bson::Document::new(), [0; 16]);
        for d in &docs {
            c.insert(d.clone()).unwrap();
        }
        c
    });
    drop(kept);
    let (id_index, kept) = growth(|| {
        let mut ix = pattern_playground::db::index::Index::id_index();
        for (i, d) in docs.iter().enumerate() {
            ix.add(d, i as u64);
        }
        ix
    });
    drop(kept);
    drop(docs);
    let per = |n: usize| n as f64 / DOCS as f64;
    println!(
        "memory: a Collection of them {:.1} bytes per document = records {:.1} + `_id_` index entries {:.1} + records map and the rest {:.1}",
        per(whole),
        per(records),
        per(id_index),
        per(whole.saturating_sub(records + id_index)),
    );
    drop(bytes);

    let mut db = workloads::fresh();
    workloads::run(&mut db, &doc! {"create": "readings"});
    let before = LIVE.load(Ordering::Relaxed);
    let mut bson_bytes = 0usize;
    let mut rng = workloads::Lcg::new(23);
    for batch in 0..DOCS / 1000 {
        let docs: Vec<Bson> = (0..1000)
            .map(|k| {
                let d = reading(batch * 1000 + k, &mut rng);
                bson_bytes += pattern_playground::value::bson_size(&d);
                Bson::Document(d)
            })
            .collect();
        workloads::run(&mut db, &doc! {"insert": "readings", "documents": docs});
    }
    let after = LIVE.load(Ordering::Relaxed);
    let growth = after.saturating_sub(before);
    let ratio = growth as f64 / bson_bytes as f64;
    println!("memory: {DOCS} documents, {bson_bytes} BSON bytes ({:.1} per document)", bson_bytes as f64 / DOCS as f64);
    println!(
        "memory: live heap grew {growth} bytes ({:.1} per document) = {ratio:.2}x the BSON bytes (target <= 2x: {})",
        growth as f64 / DOCS as f64,
        if ratio <= 2.0 { "met" } else { "MISSED" }
    );
    std::hint::black_box(&db);
    drop(db);
    // The transient peak of one insert command of 100 000 documents given as bytes (as the Node
    // runner and the site's worker send it: mongosh's batch of 100 000): what the heap reaches
    // while the command runs, beyond what the collection then holds.
    let mut db = workloads::fresh();
    workloads::run(&mut db, &doc! {"create": "readings"});
    let mut rng = workloads::Lcg::new(23);
    let docs: Vec<Bson> = (0..DOCS).map(|i| Bson::Document(reading(i, &mut rng))).collect();
    let cmd = doc! {"insert": "readings", "documents": docs, "$db": "test"}.to_vec().unwrap();
    let base = LIVE.load(Ordering::Relaxed);
    reset_peak();
    let reply = db.run_command_raw(&cmd);
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    let held = LIVE.load(Ordering::Relaxed).saturating_sub(base);
    drop(reply);
    println!(
        "memory: one insert command of {DOCS} documents ({} bytes): the heap peaked {:.1} bytes per document above where it started ({:.1}x the command's bytes) and then held {:.1}",
        cmd.len(),
        peak as f64 / DOCS as f64,
        peak as f64 / cmd.len() as f64,
        held as f64 / DOCS as f64,
    );
    std::hint::black_box(&db);
}
