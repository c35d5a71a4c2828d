//! Command and stage validation the server does (jstests): `count` and `distinct` arguments,
//! `findAndModify` argument types and positional projections, `$match` field paths, a command's
//! `let` names, a standalone's write concern.

use bson::{doc, Bson, Document};
use pattern_playground::db::Database;

fn new_db(setup: &[Document]) -> Database {
    crate::common::db_after(7, setup)
}

/// (description, setup, command, expected code or 0 for success)
fn check(cases: Vec<(&str, Vec<Document>, Document, i32)>) {
    let mut failures = Vec::new();
    for (name, setup, cmd, code) in cases {
        let mut db = new_db(&setup);
        let r = db.run_command(&cmd);
        let got = if r.get("ok") == Some(&Bson::Double(1.0)) {
            match r.get_array("writeErrors") {
                Ok(we) => we[0].as_document().and_then(|d| d.get_i32("code").ok()).unwrap_or(-1),
                Err(_) => 0,
            }
        } else {
            r.get_i32("code").unwrap_or(-1)
        };
        if got != code {
            failures.push(format!("{name}: expected {code}, got {r}"));
        }
    }
    assert!(failures.is_empty(), "{} failing case(s):\n{}", failures.len(), failures.join("\n"));
}

fn ins(docs: Vec<Document>) -> Document {
    doc! {"insert": "c", "documents": docs}
}

#[test]
fn command_arguments() {
    let one = || vec![ins(vec![doc! {"_id": 42, "a": [1, 2], "b": 3}])];
    check(vec![
        ("fam query int", one(), doc! {"findAndModify": "c", "query": 1, "update": {"v": 2}}, 14),
        ("fam sort str", one(), doc! {"findAndModify": "c", "sort": "x", "update": {"v": 2}}, 14),
        ("fam fields bool", one(), doc! {"findAndModify": "c", "fields": false, "update": {"v": 2}}, 14),
        ("fam positional remove", one(), doc! {"findAndModify": "c", "query": {"a": 2}, "fields": {"a.$": 1}, "remove": true}, 0),
        ("fam positional new false", one(), doc! {"findAndModify": "c", "query": {"a": 2}, "fields": {"a.$": 1}, "update": {"$set": {"x": 1}}}, 0),
        ("fam positional new true", one(), doc! {"findAndModify": "c", "query": {"a": 2}, "fields": {"a.$": 1}, "update": {"$set": {"x": 1}}, "new": true}, 2),
        ("fam positional new true, nothing matched", one(), doc! {"findAndModify": "c", "query": {"a": 9}, "fields": {"a.$": 1}, "update": {"$set": {"x": 1}}, "new": true}, 2),
        ("count known fields", one(), doc! {"count": "c", "query": {}, "limit": 1, "skip": 0, "hint": {"_id": 1}, "comment": "x", "maxTimeMS": 10, "$db": "test"}, 0),
        ("distinct plain key", one(), doc! {"distinct": "c", "key": "a"}, 0),
        ("match $and path", one(), doc! {"aggregate": "c", "pipeline": [{"$match": {"$or": [{"b": 1}, {"$and": [{"x.$y": 1}]}]}}], "cursor": {}}, 16410),
        ("match DBRef path", one(), doc! {"aggregate": "c", "pipeline": [{"$match": {"r.$id": 1, "$expr": true}}], "cursor": {}}, 0),
        ("find accepts the path", one(), doc! {"find": "c", "filter": {"a.$c": 4}}, 0),
        ("count unknown", one(), doc! {"count": "c", "foo": 1}, 40415),
        ("distinct nul", one(), doc! {"distinct": "c", "key": "a\0b"}, 31032),
        ("match $c", one(), doc! {"aggregate": "c", "pipeline": [{"$match": {"a.$c": 4}}], "cursor": {}}, 16410),
        ("dbref projection", vec![ins(vec![doc! {"_id": 1, "r": {"$ref": "x", "$id": 5}}])], doc! {"find": "c", "filter": {}, "projection": {"r.$ref": 1, "r.$id": 1}}, 0),
        // A command's `let` (variables.cpp, validateVariable): FailedToParse with context, and
        // system variables only for internal clients.
        ("let lower-case name", one(), doc! {"find": "c", "filter": {"$expr": {"$eq": ["$b", "$$x"]}}, "let": {"x": 3}}, 0),
        ("let upper-case name", one(), doc! {"find": "c", "filter": {}, "let": {"Bad": 1}}, 9),
        ("let empty name", one(), doc! {"aggregate": "c", "pipeline": [], "cursor": {}, "let": {"": 1}}, 9),
        ("let bad character", one(), doc! {"find": "c", "filter": {}, "let": {"a-b": 1}}, 9),
        ("let ROOT", one(), doc! {"find": "c", "filter": {}, "let": {"ROOT": 1}}, 9),
        ("let NOW", one(), doc! {"find": "c", "filter": {}, "let": {"NOW": 1}}, 4738901),
        ("let CURRENT", one(), doc! {"find": "c", "filter": {}, "let": {"CURRENT": 1}}, 0),
        // A standalone's write concern (write_concern.cpp, validateWriteConcern).
        ("w 1", one(), doc! {"insert": "c", "documents": [{"x": 1}], "writeConcern": {"w": 1}}, 0),
        ("w majority", one(), doc! {"insert": "c", "documents": [{"x": 1}], "writeConcern": {"w": "majority"}}, 0),
        ("w invalid mode", one(), doc! {"insert": "c", "documents": [{"x": 1}], "writeConcern": {"w": "invalid"}}, 2),
        ("w 2", one(), doc! {"update": "c", "updates": [{"q": {}, "u": {"$set": {"x": 1}}}], "writeConcern": {"w": 2}}, 2),
        ("w 51", one(), doc! {"delete": "c", "deletes": [{"q": {}, "limit": 0}], "writeConcern": {"w": 51}}, 9),
        ("w -1", one(), doc! {"findAndModify": "c", "query": {}, "remove": true, "writeConcern": {"w": -1}}, 9),
    ]);
}

#[test]
fn let_parameter_wording() {
    let mut db = new_db(&[]);
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "let": {"Bad": 1}});
    assert_eq!(r.get_str("errmsg").unwrap(), "Invalid 'let' parameter :: caused by :: 'Bad' starts with an invalid character for a user variable name");
    assert_eq!(r.get_str("codeName").unwrap(), "FailedToParse");
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "let": {"NOW": 1}});
    assert_eq!(r.get_str("errmsg").unwrap(), "Attempt to set internal constant: NOW");
}

#[test]
fn write_concern_on_a_standalone() {
    let mut db = new_db(&[]);
    let r = db.run_command(&doc! {"insert": "c", "documents": [{"x": 1}], "writeConcern": {"w": "invalid"}});
    assert_eq!(
        r.get_str("errmsg").unwrap(),
        "cannot use non-majority 'w' mode \"invalid\" when a host is not a member of a replica set"
    );
    // The write did not happen.
    let r = db.run_command(&doc! {"count": "c"});
    assert_eq!(r.get("n"), Some(&Bson::Int32(0)));
}

#[test]
fn dbref_paths_in_projections() {
    let setup = || vec![ins(vec![doc! {"_id": 1, "r": {"$ref": "x", "$id": 5, "$db": "d", "o": 1}}])];
    check(vec![
        ("find inclusion", setup(), doc! {"find": "c", "filter": {}, "projection": {"r.$ref": 1, "r.$id": 1}}, 0),
        ("find exclusion", setup(), doc! {"find": "c", "filter": {}, "projection": {"r.$db": 0}}, 0),
        ("$project", setup(), doc! {"aggregate": "c", "pipeline": [{"$project": {"r.$ref": 1, "r.$id": 1}}], "cursor": {}}, 0),
        ("$unset", setup(), doc! {"aggregate": "c", "pipeline": [{"$unset": "r.$db"}], "cursor": {}}, 0),
        ("$addFields", setup(), doc! {"aggregate": "c", "pipeline": [{"$addFields": {"r.$id": 6}}], "cursor": {}}, 0),
        ("field path", setup(), doc! {"aggregate": "c", "pipeline": [{"$project": {"x": "$r.$id"}}], "cursor": {}}, 0),
    ]);
}
