//! `ppAnalyzeSchema` (crate::schema): field paths with presence, types, array lengths, samples,
//! distinct counts (exact, then estimated) and bytes per path, on a sample for large collections.

use bson::{doc, Bson, Document};
use pattern_playground::db::Database;

fn new_db() -> Database {
    crate::common::fixed_db(11)
}

fn ok(db: &mut Database, cmd: Document) -> Document {
    crate::common::ok(db, &cmd)
}

fn field<'a>(r: &'a Document, path: &str) -> &'a Document {
    r.get_array("fields").unwrap().iter().map(|f| f.as_document().unwrap()).find(|f| f.get_str("path").ok() == Some(path)).unwrap_or_else(|| panic!("no {path} in {r}"))
}

fn int(d: &Document, k: &str) -> i64 {
    match d.get(k) {
        Some(Bson::Int32(n)) => *n as i64,
        Some(Bson::Int64(n)) => *n,
        other => panic!("{k}: {other:?} in {d}"),
    }
}

#[test]
fn paths_presence_types_arrays_samples_and_bytes() {
    let mut db = new_db();
    let docs = vec![
        doc! {"_id": 1, "name": "a", "tags": ["x", "y", "z"], "addr": {"city": "P", "zip": 1}, "items": [{"sku": "s1", "q": 1}, {"sku": "s2"}]},
        doc! {"_id": 2, "name": "b", "tags": [], "addr": {"city": "R"}},
        doc! {"_id": 3, "name": 7, "tags": ["x"], "items": [{"sku": "s1", "q": 2i64}]},
        doc! {"_id": 4, "name": "a", "tags": ["x", "y", "z", "w", "v", "u", "t", "s", "r", "q", "p", "o"]},
    ];
    ok(&mut db, doc! {"insert": "c", "documents": docs.clone()});
    let r = ok(&mut db, doc! {"ppAnalyzeSchema": "c"});
    assert_eq!((int(&r, "count"), int(&r, "sampled"), r.get_bool("isSample").unwrap()), (4, 4, false));
    let sizes: i64 = docs.iter().map(|d| d.to_vec().unwrap().len() as i64).sum();
    assert_eq!(int(&r, "sampleBytes"), sizes);
    let paths: Vec<&str> = r.get_array("fields").unwrap().iter().map(|f| f.as_document().unwrap().get_str("path").unwrap()).collect();
    assert_eq!(paths, vec!["_id", "name", "tags", "addr", "addr.city", "addr.zip", "items", "items.sku", "items.q"]);
    let name = field(&r, "name");
    assert_eq!(name.get_f64("presence").unwrap(), 100.0);
    assert_eq!(name.get_array("types").unwrap(), &vec![Bson::Document(doc! {"type": "int", "count": 1, "percent": 25.0}), Bson::Document(doc! {"type": "string", "count": 3, "percent": 75.0})]);
    assert_eq!((int(name, "distinct"), name.get_bool("distinctEstimated").unwrap()), (3, false));
    assert_eq!(name.get_array("samples").unwrap(), &vec![Bson::String("a".into()), Bson::String("b".into()), Bson::Int32(7)]);
    let tags = field(&r, "tags");
    let lengths = tags.get_document("arrayLengths").unwrap();
    assert_eq!((int(lengths, "min"), lengths.get_f64("median").unwrap(), int(lengths, "max")), (0, 2.0, 12));
    let hist: Vec<(i64, i64, i64)> = lengths.get_array("histogram").unwrap().iter().map(|b| {
        let b = b.as_document().unwrap();
        (int(b, "from"), int(b, "to"), int(b, "count"))
    }).collect();
    assert_eq!(hist.len(), 7);
    assert_eq!(hist[0], (0, 1, 2));
    assert_eq!(hist[1], (2, 3, 1));
    assert_eq!(hist[6], (12, 12, 1));
    assert_eq!(hist.iter().map(|h| h.2).sum::<i64>(), 4);
    assert_eq!(tags.get_array("elementTypes").unwrap(), &vec![Bson::Document(doc! {"type": "string", "count": 16, "percent": 100.0})]);
    // Bytes: a field's whole element (type, key, NUL, value); a parent includes its children.
    let zip = field(&r, "addr.zip");
    assert_eq!(int(zip, "bytes"), 1 + 3 + 1 + 4);
    assert_eq!(zip.get_f64("presence").unwrap(), 25.0);
    let addr = field(&r, "addr");
    let addr_bytes: i64 = [&docs[0], &docs[1]].iter().map(|d| 1 + 4 + 1 + d.get_document("addr").unwrap().to_vec().unwrap().len() as i64).sum();
    assert_eq!(int(addr, "bytes"), addr_bytes);
    // A path inside an array of documents counts each document once for presence.
    let sku = field(&r, "items.sku");
    assert_eq!((int(sku, "count"), int(sku, "distinct")), (2, 2));
    let q = field(&r, "items.q");
    assert_eq!(q.get_array("types").unwrap().len(), 2);
    // Top-level bytes plus the 5 bytes of each document's frame add up to the sample's size.
    let top: i64 = ["_id", "name", "tags", "addr", "items"].iter().map(|p| int(field(&r, p), "bytes")).sum();
    assert_eq!(top + 5 * 4, sizes);
}

#[test]
fn large_collections_are_sampled_and_distinct_counts_estimated() {
    let mut db = new_db();
    for chunk in 0..5 {
        let docs: Vec<Document> = (0..10_000).map(|i| doc! {"n": chunk * 10_000 + i, "k": i % 3}).collect();
        ok(&mut db, doc! {"insert": "big", "documents": docs});
    }
    let r = ok(&mut db, doc! {"ppAnalyzeSchema": "big", "sample": 20_000});
    assert_eq!((int(&r, "count"), int(&r, "sampled"), r.get_bool("isSample").unwrap()), (50_000, 20_000, true));
    let n = field(&r, "n");
    assert!(n.get_bool("distinctEstimated").unwrap());
    let est = int(n, "distinct");
    assert!((est - 20_000).abs() < 1_000, "estimate {est}");
    let k = field(&r, "k");
    assert_eq!((int(k, "distinct"), k.get_bool("distinctEstimated").unwrap()), (3, false));
    // The same reply every time (a fixed seed).
    assert_eq!(ok(&mut db, doc! {"ppAnalyzeSchema": "big", "sample": 20_000}), r);
    // The default sample is Compass's 1000 documents.
    assert_eq!(int(&ok(&mut db, doc! {"ppAnalyzeSchema": "big"}), "sampled"), 1000);
}

#[test]
fn errors() {
    let mut db = new_db();
    let r = db.run_command(&doc! {"ppAnalyzeSchema": "missing"});
    assert_eq!(r.get_str("codeName").unwrap(), "NamespaceNotFound");
    ok(&mut db, doc! {"insert": "c", "documents": [{"a": 1}]});
    let r = db.run_command(&doc! {"ppAnalyzeSchema": "c", "sample": 0});
    assert_eq!(r.get_str("codeName").unwrap(), "BadValue");
    ok(&mut db, doc! {"create": "v", "viewOn": "c", "pipeline": []});
    let r = db.run_command(&doc! {"ppAnalyzeSchema": "v"});
    assert_eq!(r.get_str("codeName").unwrap(), "CommandNotSupportedOnView");
}
