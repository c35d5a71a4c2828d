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
