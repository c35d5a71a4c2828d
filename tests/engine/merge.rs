//! `$merge` as the server's `MergeProcessor` (jstests/aggregation/sources/merge): `on` fields
//! need a unique index, a matched target keeps its `_id`, `let` is evaluated on each result, a
//! batch is written as one unordered write, and sub-pipeline limits of `$lookup`/`$unionWith`.

use bson::{doc, Bson, Document};
use pattern_playground::db::Database;

fn new_db(setup: &[Document]) -> Database {
    crate::common::db_after(7, setup)
}

fn agg(db: &mut Database, pipeline: Vec<Document>) -> Document {
    let stages: Vec<Bson> = pipeline.into_iter().map(Bson::Document).collect();
    db.run_command(&doc! {"aggregate": "src", "pipeline": stages, "cursor": {}})
}

fn target(db: &mut Database) -> Vec<Document> {
    let r = db.run_command(&doc! {"find": "t", "filter": {}, "sort": {"_id": 1}});
    r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().iter().map(|d| d.as_document().unwrap().clone()).collect()
}

fn error(r: &Document) -> (i32, String) {
    assert_eq!(r.get("ok"), Some(&Bson::Double(0.0)), "expected an error: {r}");
    (r.get_i32("code").unwrap(), r.get_str("errmsg").unwrap().to_string())
}

fn src(docs: Vec<Document>) -> Document {
    doc! {"insert": "src", "documents": docs}
}

fn tgt(docs: Vec<Document>) -> Document {
    doc! {"insert": "t", "documents": docs}
}

fn unique_a() -> Document {
    doc! {"createIndexes": "t", "indexes": [{"key": {"a": 1}, "name": "a_1", "unique": true}]}
}

#[test]
fn on_fields_need_a_unique_index() {
    let no_index = "Cannot find index to verify that join fields will be unique";
    let mut db = new_db(&[src(vec![doc! {"_id": 1, "a": 1}]), tgt(vec![doc! {"_id": 9, "a": 1}])]);
    assert_eq!(error(&agg(&mut db, vec![doc! {"$merge": {"into": "t", "on": "a"}}])), (51183, no_index.into()));
    // A non-unique index does not do; nor does a missing collection.
    db.run_command(&doc! {"createIndexes": "t", "indexes": [{"key": {"a": 1}, "name": "a_1"}]});
    assert_eq!(error(&agg(&mut db, vec![doc! {"$merge": {"into": "t", "on": "a"}}])).0, 51183);
    assert_eq!(error(&agg(&mut db, vec![doc! {"$merge": {"into": "nope", "on": "a"}}])).0, 51183);
    assert_eq!(target(&mut db), vec![doc! {"_id": 9, "a": 1}], "nothing written");
    // `_id`, named or not, needs nothing more.
    let r = agg(&mut db, vec![doc! {"$merge": {"into": "fresh", "on": "_id"}}]);
    assert_eq!(r.get("ok"), Some(&Bson::Double(1.0)), "{r}");
    // A unique index on exactly the fields (in any order).
    let mut db = new_db(&[src(vec![doc! {"_id": 1, "a": 1, "b": 2}]), doc! {"createIndexes": "t", "indexes": [{"key": {"b": 1, "a": -1}, "name": "ba", "unique": true}]}]);
    let r = agg(&mut db, vec![doc! {"$merge": {"into": "t", "on": ["a", "b"]}}]);
    assert_eq!(r.get("ok"), Some(&Bson::Double(1.0)), "{r}");
    assert_eq!(error(&agg(&mut db, vec![doc! {"$merge": {"into": "t", "on": ["a"]}}])).0, 51183);
}

#[test]
fn on_and_mode_validation() {
    let mut db = new_db(&[src(vec![doc! {"_id": 1}])]);
    let cases: Vec<(Document, i32, &str)> = vec![
        (doc! {"into": "t", "on": 5}, 51186, "$merge 'on' field  must be either a string or an array of strings, but found int"),
        (doc! {"into": "t", "on": [1]}, 51134, "$merge 'on' array elements must be strings, but found int"),
        (doc! {"into": "t", "on": []}, 51187, "If explicitly specifying $merge 'on', must include at least one field"),
        (doc! {"into": "t", "on": ["_id", "_id"]}, 31465, "Found a duplicate field '_id'"),
        (
            doc! {"into": "t", "whenMatched": "fail", "whenNotMatched": "fail"},
            51181,
            "Combination of $merge modes 'whenMatched: fail' and 'whenNotMatched: fail' is not supported",
        ),
        (
            doc! {"into": "t", "whenMatched": "keepExisting", "whenNotMatched": "discard"},
            51181,
            "Combination of $merge modes 'whenMatched: keepExisting' and 'whenNotMatched: discard' is not supported",
        ),
        (doc! {"into": "t", "let": {"x": 1}}, 51199, "Cannot use 'let' variables with 'whenMatched: merge' mode"),
        (
            doc! {"into": "t", "let": {"new": "$a"}, "whenMatched": [{"$set": {"a": 1}}]},
            51273,
            "'let' may not define a value for the reserved 'new' variable other than '$$ROOT'",
        ),
    ];
    for (spec, code, msg) in cases {
        let r = agg(&mut db, vec![doc! {"$merge": spec.clone()}]);
        assert_eq!(error(&r), (code, msg.to_string()), "{spec}");
    }
}

#[test]
fn a_matched_target_keeps_its_id() {
    let setup = [
        src(vec![doc! {"_id": 1, "a": 1, "x": "new"}, doc! {"_id": 2, "a": 2, "x": "new"}]),
        tgt(vec![doc! {"_id": 10, "a": 1, "x": "old", "keep": true}]),
        unique_a(),
    ];
    // Results without `_id`: the matched target keeps its own, an inserted one gets a new one.
    for (mode, expected) in [("merge", doc! {"_id": 10, "a": 1, "x": "new", "keep": true}), ("replace", doc! {"_id": 10, "a": 1, "x": "new"})] {
        let mut db = new_db(&setup);
        let r = agg(&mut db, vec![doc! {"$project": {"_id": 0}}, doc! {"$merge": {"into": "t", "on": "a", "whenMatched": mode}}]);
        assert_eq!(r.get("ok"), Some(&Bson::Double(1.0)), "{r}");
        let docs = target(&mut db);
        assert_eq!(docs[0], expected, "{mode}");
        assert_eq!(docs.len(), 2);
        assert!(matches!(docs[1].get("_id"), Some(Bson::ObjectId(_))), "{docs:?}");
        assert_eq!(docs[1].get("a"), Some(&Bson::Int32(2)));
    }
    // Results with another `_id`: the update would change it.
    let mut db = new_db(&setup);
    let (code, msg) = error(&agg(&mut db, vec![doc! {"$merge": {"into": "t", "on": "a", "whenMatched": "merge"}}]));
    assert_eq!(code, 66);
    assert_eq!(
        msg,
        "$merge failed to update the matching document, did you attempt to modify the _id or the shard key? :: caused by :: \
         Performing an update on the path '_id' would modify the immutable field '_id'"
    );
    // The batch's other write (an insert by upsert: the query's field, then the result's) is done.
    let docs = target(&mut db);
    assert_eq!(docs, vec![doc! {"_id": 2, "a": 2, "x": "new"}, doc! {"_id": 10, "a": 1, "x": "old", "keep": true}]);
    let mut db = new_db(&setup);
    let (code, msg) = error(&agg(&mut db, vec![doc! {"$merge": {"into": "t", "on": "a", "whenMatched": "replace"}}]));
    assert_eq!(code, 66);
    assert!(msg.ends_with("After applying the update, the (immutable) field '_id' was found to have been altered to _id: 1"), "{msg}");
}

#[test]
fn an_upsert_by_set_puts_the_on_fields_first() {
    let mut db = new_db(&[src(vec![doc! {"_id": 1, "b": 2, "a": 5}]), unique_a()]);
    agg(&mut db, vec![doc! {"$merge": {"into": "t", "on": "a"}}]);
    assert_eq!(target(&mut db), vec![doc! {"_id": 1, "a": 5, "b": 2}]);
}

#[test]
fn let_variables_are_expressions_on_each_result() {
    let mut db = new_db(&[src(vec![doc! {"_id": 1, "b": "from source"}]), tgt(vec![doc! {"_id": 1, "b": "target"}])]);
    let r = agg(&mut db, vec![doc! {"$merge": {"into": "t", "let": {"y": "$b", "whole": "$$ROOT"}, "whenMatched": [{"$set": {"z": "$$y", "w": "$$whole._id", "n": "$$new"}}]}}]);
    assert_eq!(r.get("ok"), Some(&Bson::Double(1.0)), "{r}");
    // With whenNotMatched "insert", `new` is defined beside the `let` variables.
    assert_eq!(target(&mut db), vec![doc! {"_id": 1, "b": "target", "z": "from source", "w": 1, "n": {"_id": 1, "b": "from source"}}]);
    // Without it, only the `let` variables are.
    let r = agg(&mut db, vec![doc! {"$merge": {"into": "t", "let": {"y": "$b"}, "whenMatched": [{"$set": {"n": "$$new"}}], "whenNotMatched": "discard"}}]);
    assert_eq!(error(&r), (17276, "Invalid $set :: caused by :: Use of undefined variable: new".into()));
}

#[test]
fn when_not_matched_fail_writes_the_batch_matches_first() {
    let setup = [
        src(vec![doc! {"_id": 1, "x": 1}, doc! {"_id": 2, "x": 2}, doc! {"_id": 3, "x": 3}]),
        tgt(vec![doc! {"_id": 1, "x": 0}, doc! {"_id": 3, "x": 0}]),
    ];
    for mode in ["replace", "merge"] {
        let mut db = new_db(&setup);
        let (code, msg) = error(&agg(&mut db, vec![doc! {"$merge": {"into": "t", "whenMatched": mode, "whenNotMatched": "fail"}}]));
        assert_eq!(code, 13113);
        assert_eq!(msg, "$merge could not find a matching document in the target collection for at least one document in the source collection");
        assert_eq!(target(&mut db), vec![doc! {"_id": 1, "x": 1}, doc! {"_id": 3, "x": 3}], "{mode}");
    }
    // whenMatched: "fail" inserts the batch unordered: everything but the duplicate.
    let mut db = new_db(&setup);
    let r = agg(&mut db, vec![doc! {"$match": {"_id": {"$gt": 1}}}, doc! {"$merge": {"into": "t", "whenMatched": "fail"}}]);
    let (code, msg) = error(&r);
    assert_eq!(code, 11000);
    assert_eq!(msg, "$merge failed due to a DuplicateKey error :: caused by :: E11000 duplicate key error collection: test.t index: _id_ dup key: { _id: 3 }");
    assert_eq!(target(&mut db), vec![doc! {"_id": 1, "x": 0}, doc! {"_id": 2, "x": 2}, doc! {"_id": 3, "x": 0}]);
    // An `on` value missing from a result fails the batch before anything is written.
    let mut db = new_db(&[src(vec![doc! {"_id": 1, "a": 1}, doc! {"_id": 2}]), unique_a()]);
    let (code, msg) = error(&agg(&mut db, vec![doc! {"$merge": {"into": "t", "on": "a"}}]));
    assert_eq!((code, msg.as_str()), (51132, "$merge write error: 'on' field 'a' cannot be missing, null, undefined or an array"));
    assert_eq!(target(&mut db), Vec::<Document>::new());
    let mut db = new_db(&[src(vec![doc! {"_id": 1, "a": [1]}]), unique_a()]);
    assert_eq!(error(&agg(&mut db, vec![doc! {"$merge": {"into": "t", "on": "a"}}])), (51185, "$merge write error: 'on' field 'a' is an array".into()));
}

#[test]
fn sub_pipelines_nest_at_most_20_deep() {
    let nested = |depth: usize| -> Document {
        let mut stage = doc! {"$lookup": {"from": "src", "pipeline": [], "as": "x"}};
        for _ in 1..depth {
            stage = doc! {"$lookup": {"from": "src", "pipeline": [stage], "as": "x"}};
        }
        stage
    };
    let mut db = new_db(&[src(vec![doc! {"_id": 1}])]);
    let r = agg(&mut db, vec![nested(20)]);
    assert_eq!(r.get("ok"), Some(&Bson::Double(1.0)), "{r}");
    let r = agg(&mut db, vec![nested(21)]);
    assert_eq!(error(&r), (232, "Maximum number of nested sub-pipelines exceeded. Limit is 20".into()));
    assert_eq!(r.get_str("codeName").unwrap(), "MaxSubPipelineDepthExceeded");
    let mut union = doc! {"$unionWith": {"coll": "src", "pipeline": [nested(20)]}};
    assert_eq!(error(&agg(&mut db, vec![union.clone()])).0, 232);
    union = doc! {"$unionWith": {"coll": "src", "pipeline": [nested(19)]}};
    assert_eq!(agg(&mut db, vec![union]).get("ok"), Some(&Bson::Double(1.0)));
}

#[test]
fn documents_only_without_a_collection() {
    let only = (73, "'$documents' can only be run with {aggregate: 1}".to_string());
    let mut db = new_db(&[src(vec![doc! {"_id": 1, "a": 1}])]);
    let docs = doc! {"$documents": [{"a": 1}]};
    assert_eq!(error(&agg(&mut db, vec![doc! {"$lookup": {"from": "src", "pipeline": [docs.clone()], "as": "x"}}])), only);
    assert_eq!(error(&agg(&mut db, vec![doc! {"$unionWith": {"coll": "src", "pipeline": [docs.clone()]}}])), only);
    assert_eq!(error(&agg(&mut db, vec![docs.clone()])), only);
    // Without `from`/`coll` they run.
    let r = agg(&mut db, vec![doc! {"$lookup": {"localField": "a", "foreignField": "a", "pipeline": [docs.clone()], "as": "x"}}]);
    assert_eq!(r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().len(), 1, "{r}");
    let r = agg(&mut db, vec![doc! {"$unionWith": {"pipeline": [docs]}}]);
    assert_eq!(r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().len(), 2, "{r}");
}

#[test]
fn out_and_merge_write_into_another_database() {
    let mut db = new_db(&[src(vec![doc! {"_id": 1, "s": "open"}, doc! {"_id": 2, "s": "done"}])]);
    agg(&mut db, vec![doc! {"$match": {"s": "done"}}, doc! {"$out": {"db": "archive", "coll": "done"}}]);
    agg(&mut db, vec![doc! {"$match": {"s": "open"}}, doc! {"$merge": {"into": {"db": "archive", "coll": "open"}}}]);
    let find = |db: &mut Database, coll: &str, dbname: &str| {
        let r = db.run_command(&doc! {"find": coll, "$db": dbname});
        r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().clone()
    };
    assert_eq!(find(&mut db, "done", "archive"), vec![Bson::Document(doc! {"_id": 2, "s": "done"})]);
    assert_eq!(find(&mut db, "open", "archive"), vec![Bson::Document(doc! {"_id": 1, "s": "open"})]);
    // Nothing of either landed in the source database.
    let names = db.run_command(&doc! {"listCollections": 1, "nameOnly": true});
    let names: Vec<&str> = names.get_document("cursor").unwrap().get_array("firstBatch").unwrap().iter().filter_map(|c| c.as_document()?.get_str("name").ok()).collect();
    assert_eq!(names, vec!["src"]);
}
