//! Cursors: `batchSize` on `find` and `aggregate`, `getMore`, `killCursors`, as the server
//! batches (`FindCommon`: 101 documents in a first batch by default, a getMore without
//! `batchSize` up to 16 MiB, a cursor id until the results are exhausted).

use bson::{doc, Bson, Document};
use pattern_playground::db::Database;

fn db_with(n: i32) -> Database {
    let mut db = Database::new();
    db.set_fixed_time(1_700_000_000_000);
    db.set_seed(7);
    let docs: Vec<Document> = (0..n).map(|i| doc! {"_id": i, "v": i % 7}).collect();
    if n > 0 {
        let r = db.run_command(&doc! {"insert": "c", "documents": docs});
        assert_eq!(r.get_i32("n").unwrap(), n, "{r}");
    }
    db
}

/// The `_id`s of a reply's batch (`firstBatch` or `nextBatch`) and the cursor id.
fn batch(reply: &Document) -> (Vec<i32>, i64) {
    let c = reply.get_document("cursor").unwrap_or_else(|_| panic!("no cursor: {reply}"));
    let docs = c.get_array("firstBatch").or_else(|_| c.get_array("nextBatch")).unwrap();
    let ids = docs.iter().map(|d| d.as_document().unwrap().get_i32("_id").unwrap()).collect();
    (ids, c.get_i64("id").unwrap())
}

fn get_more(db: &mut Database, id: i64, batch_size: Option<i32>) -> Document {
    let mut cmd = doc! {"getMore": id, "collection": "c"};
    if let Some(b) = batch_size {
        cmd.insert("batchSize", b);
    }
    db.run_command(&cmd)
}

/// Reads a cursor to its end with getMores of `batch_size`; returns every `_id` and the batch sizes.
fn drain(db: &mut Database, first: &Document, batch_size: Option<i32>) -> (Vec<i32>, Vec<usize>) {
    let (mut ids, mut id) = batch(first);
    let mut sizes = vec![ids.len()];
    while id != 0 {
        let r = get_more(db, id, batch_size);
        let (more, next) = batch(&r);
        sizes.push(more.len());
        ids.extend(more);
        id = next;
    }
    (ids, sizes)
}

#[test]
fn find_batches_as_the_server() {
    let all: Vec<i32> = (0..250).collect();
    // Default: 101, then everything left in one getMore (it fits in 16 MiB).
    let mut db = db_with(250);
    let r = db.run_command(&doc! {"find": "c", "filter": {}});
    let (first, id) = batch(&r);
    assert_eq!(first.len(), 101);
    assert!(id > 0, "{r}");
    assert_eq!(r.get_document("cursor").unwrap().get_str("ns").unwrap(), "test.c");
    assert_eq!(drain(&mut db, &r, None), (all.clone(), vec![101, 149]));

    // batchSize 0: nothing in the first batch, a live cursor.
    let mut db = db_with(5);
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "batchSize": 0});
    assert_eq!(batch(&r).0, Vec::<i32>::new());
    assert_ne!(batch(&r).1, 0);
    assert_eq!(drain(&mut db, &r, Some(2)), (vec![0, 1, 2, 3, 4], vec![0, 2, 2, 1]));

    // batchSize 2 over 4 documents: the scan does not know it is done after the second batch,
    // so the cursor stays open until a getMore finds nothing more.
    let mut db = db_with(4);
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "batchSize": 2});
    assert_eq!(drain(&mut db, &r, Some(2)), (vec![0, 1, 2, 3], vec![2, 2, 0]));

    // A limit reached closes the cursor; a sort, a filter and a projection page the same way.
    let mut db = db_with(10);
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "limit": 4, "batchSize": 2});
    assert_eq!(drain(&mut db, &r, Some(2)), (vec![0, 1, 2, 3], vec![2, 2]));
    let r = db.run_command(&doc! {"find": "c", "filter": {"v": {"$lt": 3}}, "sort": {"_id": -1}, "projection": {"v": 0}, "batchSize": 3});
    assert_eq!(drain(&mut db, &r, None), (vec![9, 8, 7, 2, 1, 0], vec![3, 3]));

    // singleBatch closes the cursor after the first batch.
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "batchSize": 3, "singleBatch": true});
    assert_eq!(batch(&r), (vec![0, 1, 2], 0));

    // Everything in the first batch: no cursor.
    let r = db.run_command(&doc! {"find": "c", "filter": {}});
    assert_eq!(batch(&r), ((0..10).collect(), 0));
}

#[test]
fn aggregate_batches_as_the_server() {
    let mut db = db_with(150);
    let r = db.run_command(&doc! {"aggregate": "c", "pipeline": [{"$project": {"v": 0}}], "cursor": {}});
    assert_eq!(drain(&mut db, &r, None).1, vec![101, 49]);
    let r = db.run_command(&doc! {"aggregate": "c", "pipeline": [], "cursor": {"batchSize": 0}});
    let (first, id) = batch(&r);
    assert!(first.is_empty() && id != 0, "{r}");
    let (ids, sizes) = drain(&mut db, &r, Some(100));
    assert_eq!(ids, (0..150).collect::<Vec<_>>());
    assert_eq!(sizes, vec![0, 100, 50]);
    // A pipeline's cursor stays open after a batch full by count, as the server's.
    let r = db.run_command(&doc! {"aggregate": "c", "pipeline": [{"$limit": 2}], "cursor": {"batchSize": 2}});
    assert_eq!(drain(&mut db, &r, None), (vec![0, 1], vec![2, 0]));
    // aggregate: 1 pages under its own namespace.
    let r = db.run_command(&doc! {"aggregate": 1, "pipeline": [{"$documents": [{"_id": 1}, {"_id": 2}]}], "cursor": {"batchSize": 1}});
    let (_, id) = batch(&r);
    let more = db.run_command(&doc! {"getMore": id, "collection": "$cmd.aggregate"});
    assert_eq!(batch(&more).0, vec![2]);
    // Negative batchSize.
    let r = db.run_command(&doc! {"aggregate": "c", "pipeline": [], "cursor": {"batchSize": -1}});
    assert_eq!(r.get_i32("code").unwrap(), 51024, "{r}");
}

#[test]
fn a_get_more_reads_documents_as_they_are_then() {
    let mut db = db_with(6);
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "batchSize": 2});
    let (_, id) = batch(&r);
    db.run_command(&doc! {"delete": "c", "deletes": [{"q": {"_id": 3}, "limit": 1}]});
    db.run_command(&doc! {"update": "c", "updates": [{"q": {"_id": 4}, "u": {"$set": {"v": 40}}}]});
    let more = get_more(&mut db, id, Some(2));
    let docs = more.get_document("cursor").unwrap().get_array("nextBatch").unwrap().clone();
    assert_eq!(docs, vec![Bson::Document(doc! {"_id": 2, "v": 2}), Bson::Document(doc! {"_id": 4, "v": 40})]);
    // The same through the reply bytes the bindings use.
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "batchSize": 1});
    let (_, id) = batch(&r);
    let bytes = db.run_command_bytes(&doc! {"getMore": id, "collection": "c", "batchSize": 2});
    let reply = Document::from_reader(bytes.as_slice()).unwrap();
    assert_eq!(batch(&reply).0, vec![1, 2]);
}

#[test]
fn a_dropped_collection_kills_its_cursors() {
    let mut db = db_with(4);
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "batchSize": 1});
    let (_, id) = batch(&r);
    db.run_command(&doc! {"drop": "c"});
    db.run_command(&doc! {"insert": "c", "documents": [{"_id": 9}, {"_id": 10}]});
    let more = get_more(&mut db, id, None);
    assert_eq!(more.get_i32("code").unwrap(), 175, "{more}");
    assert_eq!(more.get_str("codeName").unwrap(), "QueryPlanKilled");
}

#[test]
fn get_more_and_kill_cursors_errors() {
    let mut db = db_with(5);
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "batchSize": 1});
    let (_, id) = batch(&r);
    let wrong = db.run_command(&doc! {"getMore": id, "collection": "d"});
    assert_eq!(wrong.get_i32("code").unwrap(), 13, "{wrong}");
    assert_eq!(
        wrong.get_str("errmsg").unwrap(),
        "Requested getMore on namespace 'test.d', but cursor belongs to a different namespace test.c"
    );
    // The cursor survives a refused getMore; killCursors closes it.
    let k = db.run_command(&doc! {"killCursors": "c", "cursors": [id, 77i64]});
    assert_eq!(k.get_array("cursorsKilled").unwrap(), &vec![Bson::Int64(id)], "{k}");
    assert_eq!(k.get_array("cursorsNotFound").unwrap(), &vec![Bson::Int64(77)]);
    let gone = get_more(&mut db, id, None);
    assert_eq!(gone.get_i32("code").unwrap(), 43, "{gone}");
    assert_eq!(gone.get_str("errmsg").unwrap(), format!("cursor id {id} not found"));
    let bad = db.run_command(&doc! {"killCursors": "c", "cursors": [1]});
    assert_eq!(bad.get_str("errmsg").unwrap(), "BSON field 'killCursors.cursors.0' is the wrong type 'int', expected type 'long'");
    let neg = db.run_command(&doc! {"find": "c", "filter": {}, "batchSize": -1});
    assert_eq!(neg.get_i32("code").unwrap(), 51024, "{neg}");
}

/// A getMore without batchSize stops before 16 MiB (and a batch holds at least one document).
#[test]
fn batches_stop_at_16_mib() {
    let mut db = Database::new();
    let big = "x".repeat(5 * 1024 * 1024);
    for i in 0..5 {
        let r = db.run_command(&doc! {"insert": "c", "documents": [{"_id": i, "s": big.clone()}]});
        assert_eq!(r.get_i32("n").unwrap(), 1);
    }
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "batchSize": 0});
    assert_eq!(drain(&mut db, &r, None).1, vec![0, 3, 2]);
    let r = db.run_command(&doc! {"aggregate": "c", "pipeline": [{"$set": {"t": 1}}], "cursor": {}});
    assert_eq!(drain(&mut db, &r, None).1, vec![3, 2]);
}

#[test]
fn server_status_answers_as_a_standalone() {
    let mut db = db_with(0);
    let r = db.run_command(&doc! {"serverStatus": 1});
    assert_eq!(r.get_str("version").unwrap(), "8.0.0", "{r}");
    assert_eq!(r.get_str("process").unwrap(), "mongod");
    assert_eq!(r.get_document("storageEngine").unwrap().get_str("name").unwrap(), "inMemory");
    assert_eq!(r.get("ok"), Some(&Bson::Double(1.0)));
}
