//! Importer benchmark: 10 000, 100 000 and 1 000 000 small documents generated here, as
//! mongoexport JSON lines (relaxed Extended JSON), a mongodump `.bson` stream and CSV, each
//! parsed alone (`import::Reader` in batches of 1000) and parsed and inserted into a database
//! (`import::import_file`). Prints the times; asserts only that every document arrived.
//!
//! `cargo run --profile fast-test --example import_bench [N...]` (`PARSE_ONLY=1`: no inserts)

use std::time::Instant;

use bson::{doc, oid::ObjectId, DateTime};
use pattern_playground::db::Database;
use pattern_playground::import::{self, Format, Options};

fn main() {
    let sizes: Vec<usize> = {
        let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
        if args.is_empty() {
            vec![10_000, 100_000, 1_000_000]
        } else {
            args
        }
    };
    println!("{:>9} {:>6} {:>10} {:>10} {:>14} {:>12}", "docs", "format", "MB", "parse s", "parse+insert s", "docs/s (all)");
    for n in sizes {
        let mut json = Vec::new();
        let mut bson_bytes = Vec::new();
        let mut csv = b"_id,n,name,score,active,city\n".to_vec();
        for i in 0..n {
            let mut oid = [0u8; 12];
            oid[..4].copy_from_slice(&1_700_000_000u32.to_be_bytes());
            oid[4..12].copy_from_slice(&(i as u64).to_be_bytes());
            let d = doc! {
                "_id": ObjectId::from_bytes(oid),
                "n": i as i32,
                "name": format!("user {i}"),
                "score": i as f64 * 0.5,
                "tags": ["a", "b"],
                "at": DateTime::from_millis(1_700_000_000_000 + i as i64),
            };
            json.extend_from_slice(pattern_playground::export::document_to_extjson(&d, false).as_bytes());
            json.push(b'\n');
            d.to_writer(&mut bson_bytes).expect("encodes");
            csv.extend_from_slice(format!("{i},{i},user {i},{},true,Paris\n", i as f64 * 0.5).as_bytes());
        }
        for (name, format, bytes) in [("json", Format::Json, &json), ("bson", Format::Bson, &bson_bytes), ("csv", Format::Csv, &csv)] {
            let opts = Options::new(format);
            let t = Instant::now();
            let mut reader = import::Reader::new(name, bytes, &opts).expect("reader");
            let mut count = 0;
            while let Some(b) = reader.next_batch(1000) {
                assert!(b.errors.is_empty(), "{:?}", b.errors.first());
                count += b.docs.len();
            }
            let parse = t.elapsed().as_secs_f64();
            assert_eq!(count, n);
            if std::env::var_os("PARSE_ONLY").is_some() {
                println!("{n:>9} {name:>6} {:>10.1} {parse:>10.3}", bytes.len() as f64 / 1e6);
                continue;
            }
            let mut db = Database::new();
            let t = Instant::now();
            let report = import::import_file(&mut db, "test", "c", name, bytes, &opts);
            let all = t.elapsed().as_secs_f64();
            assert_eq!((report.inserted as usize, report.failed), (n, 0), "{:?}", report.errors.first());
            println!(
                "{n:>9} {name:>6} {:>10.1} {parse:>10.3} {all:>14.3} {:>12.0}",
                bytes.len() as f64 / 1e6,
                n as f64 / all
            );
        }
    }
}
