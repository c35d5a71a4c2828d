//! Multi-document transactions on a one-member replica set (`db/txn.rs`): a transaction reads its
//! own writes, other commands see only committed data, abort and errors leave nothing behind,
//! and the server's errors for what a transaction may not do (codes and wording of
//! transaction_participant.cpp and the command checks).

use bson::{doc, Bson, Document};
use pattern_playground::db::{Database, Topology};

use crate::common::{fixed_db, ok};

fn rs() -> Database {
    let mut db = fixed_db(3);
    db.set_topology(Topology::ReplicaSet);
    db
}

fn lsid(n: u8) -> Document {
    doc! {"id": Bson::Binary(bson::Binary { subtype: bson::spec::BinarySubtype::Uuid, bytes: vec![n; 16] })}
}

/// `cmd` as the `n`th command of transaction `txn` of session `s`.
fn in_txn(mut cmd: Document, s: u8, txn: i64, first: bool) -> Document {
    cmd.insert("lsid", lsid(s));
    cmd.insert("txnNumber", txn);
    if first {
        cmd.insert("startTransaction", true);
    }
    cmd.insert("autocommit", false);
    cmd
}

fn commit(s: u8, txn: i64) -> Document {
    in_txn(doc! {"commitTransaction": 1, "$db": "admin"}, s, txn, false)
}

fn abort(s: u8, txn: i64) -> Document {
    in_txn(doc! {"abortTransaction": 1, "$db": "admin"}, s, txn, false)
}

fn ids(db: &mut Database, coll: &str) -> Vec<Bson> {
    let r = ok(db, &doc! {"find": coll, "sort": {"_id": 1}});
    r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().iter().map(|d| d.as_document().unwrap().get("_id").unwrap().clone()).collect()
}

fn error(r: &Document) -> (i32, &str, &str) {
    assert_eq!(r.get("ok"), Some(&Bson::Double(0.0)), "expected an error: {r}");
    (r.get_i32("code").unwrap(), r.get_str("codeName").unwrap(), r.get_str("errmsg").unwrap())
}

fn labels(r: &Document) -> Vec<&str> {
    r.get_array("errorLabels").map(|l| l.iter().filter_map(Bson::as_str).collect()).unwrap_or_default()
}

#[test]
fn a_standalone_refuses_transactions() {
    let mut db = fixed_db(3);
    let r = db.run_command(&in_txn(doc! {"insert": "c", "documents": [{"_id": 1}]}, 1, 1, true));
    assert_eq!(error(&r), (20, "IllegalOperation", "Transaction numbers are only allowed on a replica set member or mongos"));
    assert_eq!(ids(&mut db, "c"), Vec::<Bson>::new());
}

#[test]
fn a_transaction_reads_its_writes_and_others_see_them_only_after_commit() {
    let mut db = rs();
    ok(&mut db, &doc! {"insert": "a", "documents": [{"_id": 1, "n": 1}]});
    ok(&mut db, &in_txn(doc! {"insert": "a", "documents": [{"_id": 2}]}, 1, 1, true));
    ok(&mut db, &in_txn(doc! {"update": "a", "updates": [{"q": {"_id": 1}, "u": {"$inc": {"n": 1}}}]}, 1, 1, false));
    ok(&mut db, &in_txn(doc! {"insert": "b", "documents": [{"_id": 9}]}, 1, 1, false));
    // Inside: its own writes.
    let r = ok(&mut db, &in_txn(doc! {"find": "a", "sort": {"_id": 1}}, 1, 1, false));
    assert_eq!(r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().len(), 2);
    // Outside: as before the transaction (b does not exist yet).
    let r = ok(&mut db, &doc! {"find": "a", "filter": {"_id": 1}});
    assert_eq!(r.get_document("cursor").unwrap().get_array("firstBatch").unwrap()[0].as_document().unwrap().get_i32("n").ok(), Some(1));
    assert_eq!(ids(&mut db, "a"), vec![Bson::Int32(1)]);
    assert_eq!(ids(&mut db, "b"), Vec::<Bson>::new());
    ok(&mut db, &commit(1, 1));
    assert_eq!(ids(&mut db, "a"), vec![Bson::Int32(1), Bson::Int32(2)]);
    assert_eq!(ids(&mut db, "b"), vec![Bson::Int32(9)]);
    // Committing again is a retry; aborting now is too late.
    ok(&mut db, &commit(1, 1));
    assert_eq!(error(&db.run_command(&abort(1, 1))), (256, "TransactionCommitted", "Transaction with { txnNumber: 1 } has been committed."));
}

#[test]
fn abort_and_errors_leave_nothing_behind() {
    let mut db = rs();
    ok(&mut db, &doc! {"insert": "a", "documents": [{"_id": 1}]});
    ok(&mut db, &in_txn(doc! {"insert": "a", "documents": [{"_id": 2}]}, 1, 1, true));
    ok(&mut db, &in_txn(doc! {"insert": "new", "documents": [{"_id": 1}]}, 1, 1, false));
    ok(&mut db, &abort(1, 1));
    assert_eq!(ids(&mut db, "a"), vec![Bson::Int32(1)]);
    let names = ok(&mut db, &doc! {"listCollections": 1, "nameOnly": true});
    assert_eq!(names.get_document("cursor").unwrap().get_array("firstBatch").unwrap().len(), 1);
    // A duplicate key inside transaction 2 aborts it: the earlier insert is gone, and commit says so.
    ok(&mut db, &in_txn(doc! {"insert": "a", "documents": [{"_id": 3}]}, 1, 2, true));
    let dup = db.run_command(&in_txn(doc! {"insert": "a", "documents": [{"_id": 1}]}, 1, 2, false));
    // In a transaction the write error is the command's error.
    assert_eq!(error(&dup), (11000, "DuplicateKey", "E11000 duplicate key error collection: test.a index: _id_ dup key: { _id: 1 }"));
    assert_eq!(labels(&dup), Vec::<&str>::new());
    let r = db.run_command(&commit(1, 2));
    assert_eq!(error(&r), (251, "NoSuchTransaction", "Transaction with { txnNumber: 2 } has been aborted."));
    assert_eq!(labels(&r), vec!["TransientTransactionError"]);
    assert_eq!(ids(&mut db, "a"), vec![Bson::Int32(1)]);
}

#[test]
fn what_a_transaction_may_not_do() {
    let mut db = rs();
    ok(&mut db, &doc! {"insert": "a", "documents": [{"_id": 1}]});
    let r = db.run_command(&in_txn(doc! {"drop": "a"}, 1, 1, true));
    assert_eq!(error(&r), (263, "OperationNotSupportedInTransaction", "Cannot run 'drop' in a multi-document transaction."));
    let r = db.run_command(&in_txn(doc! {"aggregate": "a", "pipeline": [{"$out": "b"}], "cursor": {}}, 1, 2, true));
    assert_eq!(error(&r).2, "$out cannot be used in a transaction");
    let r = db.run_command(&in_txn(doc! {"find": "a"}, 1, 7, false));
    assert_eq!(error(&r).0, 251);
    assert_eq!(labels(&r), vec!["TransientTransactionError"]);
    assert!(error(&r).2.starts_with("Given transaction number 7 does not match any in-progress transactions."), "{r}");
    let mut auto = in_txn(doc! {"find": "a"}, 1, 8, true);
    auto.insert("autocommit", true);
    assert_eq!(error(&db.run_command(&auto)).2, "Specifying autocommit=true is not allowed.");
    let r = db.run_command(&in_txn(doc! {"commitTransaction": 1}, 1, 2, false));
    assert_eq!(error(&r).1, "Unauthorized");
    // An older transaction number cannot start again.
    let r = db.run_command(&in_txn(doc! {"find": "a"}, 1, 1, true));
    assert_eq!(error(&r).1, "TransactionTooOld");
    assert_eq!(ids(&mut db, "a"), vec![Bson::Int32(1)]);
}

#[test]
fn a_write_outside_to_what_the_transaction_wrote_aborts_it() {
    let mut db = rs();
    ok(&mut db, &doc! {"insert": "a", "documents": [{"_id": 1}]});
    ok(&mut db, &in_txn(doc! {"insert": "a", "documents": [{"_id": 2}]}, 1, 1, true));
    // Another collection: no conflict.
    ok(&mut db, &doc! {"insert": "other", "documents": [{"_id": 1}]});
    ok(&mut db, &in_txn(doc! {"find": "a"}, 1, 1, false));
    ok(&mut db, &doc! {"insert": "a", "documents": [{"_id": 3}]});
    let r = db.run_command(&commit(1, 1));
    assert_eq!(error(&r).0, 251);
    assert_eq!(labels(&r), vec!["TransientTransactionError"]);
    assert_eq!(ids(&mut db, "a"), vec![Bson::Int32(1), Bson::Int32(3)]);
    assert_eq!(ids(&mut db, "other"), vec![Bson::Int32(1)]);
}

#[test]
fn a_one_member_replica_set_names_itself_and_reports_unmet_write_concerns() {
    let mut db = rs();
    let hello = ok(&mut db, &doc! {"hello": 1});
    assert_eq!(hello.get_str("setName").ok(), Some("rs0"));
    assert_eq!(hello.get_bool("isWritablePrimary").ok(), Some(true));
    let r = ok(&mut db, &doc! {"insert": "a", "documents": [{"_id": 1}], "writeConcern": {"w": 2}});
    assert_eq!(r.get_document("writeConcernError").unwrap().get_str("codeName").ok(), Some("UnsatisfiableWriteConcern"));
    let r = ok(&mut db, &doc! {"insert": "a", "documents": [{"_id": 2}], "writeConcern": {"w": "dc"}});
    assert_eq!(r.get_document("writeConcernError").unwrap().get_str("errmsg").ok(), Some("No write concern mode named 'dc' found in replica set configuration"));
    assert_eq!(ids(&mut db, "a"), vec![Bson::Int32(1), Bson::Int32(2)]);
}

/// The collection's records as stored: record id and BSON bytes, in natural order.
fn stored(db: &Database, coll: &str) -> Vec<(u64, Vec<u8>)> {
    db.collection("test", coll).map(|c| c.iter().map(|(rid, r)| (rid, r.bytes().to_vec())).collect()).unwrap_or_default()
}

/// The `_id`s queries on `k` and `tag` find through their indexes (in index order); outside any
/// transaction, or in transaction `txn` of session 1.
fn through_indexes(db: &mut Database, coll: &str) -> Vec<Vec<Bson>> {
    through_indexes_in(db, coll, None)
}

fn through_indexes_in(db: &mut Database, coll: &str, txn: Option<i64>) -> Vec<Vec<Bson>> {
    let mut out = Vec::new();
    for (filter, hint) in [
        (doc! {"k": {"$gte": 0}}, "k_1"),
        (doc! {"k": {"$lt": 0}}, "k_1"),
        (doc! {"tag": "x"}, "tag_1"),
        (doc! {"tag": {"$in": ["y", "z"]}}, "tag_1"),
    ] {
        let cmd = doc! {"find": coll, "filter": filter, "hint": hint, "batchSize": 1000};
        let r = ok(db, &match txn {
            Some(t) => in_txn(cmd, 1, t, false),
            None => cmd,
        });
        let docs = r.get_document("cursor").unwrap().get_array("firstBatch").unwrap();
        out.push(docs.iter().map(|d| d.as_document().unwrap().get("_id").unwrap().clone()).collect());
    }
    out
}

/// 30 documents with a unique index on `k` and a multikey index on `tag`.
fn indexed() -> Database {
    let mut db = rs();
    let docs: Vec<Document> = (1..=30).map(|i| doc! {"_id": i, "k": i * 10, "tag": if i % 3 == 0 { vec!["x", "y"] } else { vec!["z"] }}).collect();
    ok(&mut db, &doc! {"insert": "a", "documents": docs});
    ok(&mut db, &doc! {"createIndexes": "a", "indexes": [{"key": {"k": 1}, "name": "k_1", "unique": true}, {"key": {"tag": 1}, "name": "tag_1"}]});
    db
}

/// Inserts, updates (moving unique keys between documents), replaces, deletes, findAndModify
/// and an upsert, all in transaction `txn` of session 1 (0: outside any transaction).
fn many_writes(db: &mut Database, txn: i64) {
    let mut first = true;
    let mut in_txn = |cmd: Document, _: u8, txn: i64, _: bool| {
        if txn == 0 {
            return cmd;
        }
        let cmd = in_txn(cmd, 1, txn, first);
        first = false;
        cmd
    };
    ok(db, &in_txn(doc! {"insert": "a", "documents": [{"_id": 100, "k": -5, "tag": ["x"]}]}, 1, txn, true));
    // Document 1 gives up key 10, document 2 takes it (a unique key changing hands).
    ok(db, &in_txn(doc! {"update": "a", "updates": [{"q": {"_id": 1}, "u": {"$set": {"k": -10}}}]}, 1, txn, false));
    ok(db, &in_txn(doc! {"update": "a", "updates": [{"q": {"_id": 2}, "u": {"$set": {"k": 10, "tag": ["x", "q"]}}}]}, 1, txn, false));
    // Document 3 is deleted and document 4 takes its key in a replacement.
    ok(db, &in_txn(doc! {"delete": "a", "deletes": [{"q": {"_id": 3}, "limit": 1}]}, 1, txn, false));
    ok(db, &in_txn(doc! {"update": "a", "updates": [{"q": {"_id": 4}, "u": {"k": 30, "tag": "y", "new": true}}]}, 1, txn, false));
    ok(db, &in_txn(doc! {"findAndModify": "a", "query": {"_id": 5}, "update": {"$inc": {"k": 1}, "$unset": {"tag": ""}}}, 1, txn, false));
    ok(db, &in_txn(doc! {"findAndModify": "a", "query": {"_id": 6}, "remove": true}, 1, txn, false));
    ok(db, &in_txn(doc! {"update": "a", "updates": [{"q": {"_id": 200}, "u": {"$set": {"k": 60, "tag": "z"}}, "upsert": true}]}, 1, txn, false));
    ok(db, &in_txn(doc! {"update": "a", "updates": [{"q": {"k": {"$gte": 250}}, "u": {"$mul": {"k": 2}}, "multi": true}]}, 1, txn, false));
    ok(db, &in_txn(doc! {"delete": "a", "deletes": [{"q": {"tag": "z", "k": {"$lt": 100}}, "limit": 0}]}, 1, txn, false));
}

#[test]
fn abort_puts_back_documents_and_index_entries_exactly() {
    let mut db = indexed();
    let (docs, found) = (stored(&db, "a"), through_indexes(&mut db, "a"));
    let size = db.collection("test", "a").unwrap().data_size();
    many_writes(&mut db, 1);
    // The transaction sees its writes.
    assert_ne!(stored(&db, "a"), docs);
    let r = ok(&mut db, &in_txn(doc! {"find": "a", "filter": {"k": 10}, "hint": "k_1"}, 1, 1, false));
    assert_eq!(r.get_document("cursor").unwrap().get_array("firstBatch").unwrap()[0].as_document().unwrap().get("_id"), Some(&Bson::Int32(2)));
    ok(&mut db, &abort(1, 1));
    assert_eq!(stored(&db, "a"), docs);
    assert_eq!(through_indexes(&mut db, "a"), found);
    assert_eq!(db.collection("test", "a").unwrap().data_size(), size);
    // The unique index holds the old keys again, and none of the transaction's.
    let dup = db.run_command(&doc! {"insert": "a", "documents": [{"_id": 300, "k": 30}]});
    assert_eq!(dup.get_array("writeErrors").unwrap()[0].as_document().unwrap().get_i32("code").ok(), Some(11000));
    ok(&mut db, &doc! {"insert": "a", "documents": [{"_id": 301, "k": -10}, {"_id": 302, "k": 61}, {"_id": 303, "k": -5}]});

    // The same writes ended by an error in the transaction, and by endSessions.
    let mut db = indexed();
    let docs = stored(&db, "a");
    many_writes(&mut db, 1);
    let r = db.run_command(&in_txn(doc! {"insert": "a", "documents": [{"_id": 10, "k": 1}]}, 1, 1, false));
    assert_eq!(error(&r).0, 11000);
    assert_eq!(stored(&db, "a"), docs);
    many_writes(&mut db, 2);
    ok(&mut db, &doc! {"endSessions": [lsid(1)]});
    assert_eq!(stored(&db, "a"), docs);
    assert_eq!(through_indexes(&mut db, "a"), through_indexes(&mut indexed(), "a"));
}

#[test]
fn a_commit_keeps_what_the_transaction_wrote_and_its_indexes() {
    let mut db = indexed();
    many_writes(&mut db, 1);
    let (docs, found) = (stored(&db, "a"), through_indexes_in(&mut db, "a", Some(1)));
    ok(&mut db, &commit(1, 1));
    assert_eq!(stored(&db, "a"), docs);
    assert_eq!(through_indexes(&mut db, "a"), found);
    // As the same writes made without a transaction.
    let mut plain = indexed();
    many_writes(&mut plain, 0);
    assert_eq!(stored(&plain, "a"), docs);
    assert_eq!(through_indexes(&mut plain, "a"), found);
    // Nothing of the transaction is undone later (a new one aborting touches only its own writes).
    ok(&mut db, &in_txn(doc! {"delete": "a", "deletes": [{"q": {}, "limit": 0}]}, 1, 2, true));
    assert!(stored(&db, "a").is_empty());
    ok(&mut db, &abort(1, 2));
    assert_eq!(stored(&db, "a"), docs);
    assert_eq!(through_indexes(&mut db, "a"), found);
}

#[test]
fn an_outside_read_sees_the_data_as_before_the_transaction() {
    let mut db = indexed();
    let (docs, found) = (stored(&db, "a"), through_indexes(&mut db, "a"));
    let all = |db: &mut Database| ok(db, &doc! {"find": "a", "batchSize": 1000}).get_document("cursor").unwrap().get_array("firstBatch").unwrap().clone();
    let before = all(&mut db);
    many_writes(&mut db, 1);
    // An index the transaction built on a collection it created, and that collection.
    ok(&mut db, &in_txn(doc! {"createIndexes": "fresh", "indexes": [{"key": {"f": 1}, "name": "f_1"}]}, 1, 1, false));
    ok(&mut db, &in_txn(doc! {"insert": "fresh", "documents": [{"_id": 1, "f": 1}]}, 1, 1, false));
    let inside = (stored(&db, "a"), through_indexes_in(&mut db, "a", Some(1)));
    assert_ne!(inside.1, found);
    assert_eq!(all(&mut db), before);
    assert_eq!(through_indexes(&mut db, "a"), found);
    let r = ok(&mut db, &doc! {"count": "a", "query": {"k": {"$gte": 0}}, "hint": "k_1"});
    assert_eq!(r.get_i32("n").ok(), Some(30));
    let r = ok(&mut db, &doc! {"aggregate": "a", "pipeline": [{"$lookup": {"from": "fresh", "localField": "_id", "foreignField": "_id", "as": "f"}}, {"$match": {"f": {"$ne": []}}}], "cursor": {}});
    assert!(r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().is_empty());
    let names = ok(&mut db, &doc! {"listCollections": 1, "nameOnly": true});
    assert_eq!(names.get_document("cursor").unwrap().get_array("firstBatch").unwrap().len(), 1);
    // Each outside command swapped the transaction's writes out and back: it still sees them.
    assert_eq!((stored(&db, "a"), through_indexes_in(&mut db, "a", Some(1))), inside);
    assert_eq!(ids(&mut db, "fresh"), Vec::<Bson>::new());
    ok(&mut db, &in_txn(doc! {"find": "fresh"}, 1, 1, false));
    ok(&mut db, &commit(1, 1));
    assert_eq!(stored(&db, "a"), inside.0);
    assert_ne!(stored(&db, "a"), docs);
    assert_eq!(ids(&mut db, "fresh"), vec![Bson::Int32(1)]);
    let r = ok(&mut db, &doc! {"listIndexes": "fresh"});
    assert_eq!(r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().len(), 2);
}

#[test]
fn repeated_updates_of_one_document_are_undone_to_the_original() {
    let mut db = indexed();
    let (docs, found) = (stored(&db, "a"), through_indexes(&mut db, "a"));
    ok(&mut db, &in_txn(doc! {"update": "a", "updates": [{"q": {"_id": 9}, "u": {"$set": {"k": -1}}}]}, 1, 1, true));
    for i in 0..5 {
        ok(&mut db, &in_txn(doc! {"update": "a", "updates": [{"q": {"_id": 9}, "u": {"$inc": {"k": -1}, "$push": {"tag": i}}}]}, 1, 1, false));
    }
    ok(&mut db, &in_txn(doc! {"update": "a", "updates": [{"q": {"_id": 9}, "u": {"_id": 9, "k": 5}}]}, 1, 1, false));
    ok(&mut db, &in_txn(doc! {"delete": "a", "deletes": [{"q": {"_id": 9}, "limit": 1}]}, 1, 1, false));
    ok(&mut db, &in_txn(doc! {"insert": "a", "documents": [{"_id": 9, "k": 90, "tag": "other"}]}, 1, 1, false));
    ok(&mut db, &in_txn(doc! {"update": "a", "updates": [{"q": {"_id": 9}, "u": {"$set": {"k": 91}}}]}, 1, 1, false));
    // An outside read in between sees the original.
    let r = ok(&mut db, &doc! {"find": "a", "filter": {"_id": 9}});
    assert_eq!(r.get_document("cursor").unwrap().get_array("firstBatch").unwrap()[0].as_document().unwrap().get_i32("k").ok(), Some(90));
    ok(&mut db, &abort(1, 1));
    assert_eq!(stored(&db, "a"), docs);
    assert_eq!(through_indexes(&mut db, "a"), found);
}

#[test]
fn a_transaction_builds_indexes_only_on_a_collection_it_creates_while_empty() {
    let mut db = indexed();
    // Indexes that all exist: nothing to build, fine.
    let r = ok(&mut db, &in_txn(doc! {"createIndexes": "a", "indexes": [{"key": {"k": 1}, "name": "k_1", "unique": true}]}, 1, 1, true));
    assert_eq!(r.get_str("note").ok(), Some("all indexes already exist"));
    let r = db.run_command(&in_txn(doc! {"createIndexes": "a", "indexes": [{"key": {"z": 1}, "name": "z_1"}]}, 1, 1, false));
    assert_eq!(error(&r), (263, "OperationNotSupportedInTransaction", "Cannot create new indexes on existing collection test.a in a multi-document transaction."));
    assert_eq!(error(&db.run_command(&commit(1, 1))).0, 251);
    // A collection the transaction created: while it is empty.
    ok(&mut db, &in_txn(doc! {"create": "b"}, 1, 2, true));
    let r = ok(&mut db, &in_txn(doc! {"createIndexes": "b", "indexes": [{"key": {"z": 1}, "name": "z_1"}]}, 1, 2, false));
    assert_eq!((r.get_i32("numIndexesAfter").ok(), r.get_bool("createdCollectionAutomatically").ok()), (Some(2), Some(true)));
    ok(&mut db, &in_txn(doc! {"insert": "b", "documents": [{"_id": 1}]}, 1, 2, false));
    let r = db.run_command(&in_txn(doc! {"createIndexes": "b", "indexes": [{"key": {"y": 1}, "name": "y_1"}]}, 1, 2, false));
    assert_eq!(error(&r), (263, "OperationNotSupportedInTransaction", "Cannot create new indexes on non-empty collection test.b in a multi-document transaction."));
    assert_eq!(ids(&mut db, "b"), Vec::<Bson>::new());
    let names = ok(&mut db, &doc! {"listCollections": 1, "nameOnly": true});
    assert_eq!(names.get_document("cursor").unwrap().get_array("firstBatch").unwrap().len(), 1);
    // Outside a transaction, with one open: built as usual.
    ok(&mut db, &in_txn(doc! {"insert": "c", "documents": [{"_id": 1}]}, 1, 3, true));
    ok(&mut db, &doc! {"createIndexes": "a", "indexes": [{"key": {"z": 1}, "name": "z_1"}]});
    ok(&mut db, &commit(1, 3));
}
