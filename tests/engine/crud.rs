//! Commands through `Database::run_command`: replies and errors (code, codeName, errmsg) as the
//! server sends them. Each case runs its setup commands on a fresh database, then one command
//! whose reply must contain the expected fields (nested values compared exactly).

use bson::{doc, Bson, Document};
use pattern_playground::db::{Database, WriteOp};

fn new_db() -> Database {
    let mut db = Database::new();
    db.set_fixed_time(1_700_000_000_000);
    db.set_seed(7);
    db
}

/// Every field of `expected` is in `actual` with the same value (types included).
fn contains(actual: &Document, expected: &Document) -> Result<(), String> {
    for (k, v) in expected {
        match actual.get(k) {
            Some(a) if same_in_order(a, v) => {}
            Some(a) => return Err(format!("field {k}: expected {v}, got {a}")),
            None => return Err(format!("field {k} missing")),
        }
    }
    Ok(())
}

/// Equality of values with documents compared field by field in order (`Bson`'s `==` ignores
/// the order of a document's fields).
fn same_in_order(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Document(x), Bson::Document(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|((ka, va), (kb, vb))| ka == kb && same_in_order(va, vb)),
        (Bson::Array(x), Bson::Array(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same_in_order(p, q)),
        _ => a == b,
    }
}

fn run_setup(db: &mut Database, setup: &[Document]) {
    for s in setup {
        let r = db.run_command(s);
        assert_eq!(r.get("ok"), Some(&Bson::Double(1.0)), "setup {s} failed: {r}");
    }
}

/// (description, setup, command, expected reply fields)
type Case = (&'static str, Vec<Document>, Document, Document);

fn check_all(cases: Vec<Case>) {
    let mut failures = Vec::new();
    for (name, setup, cmd, expected) in cases {
        let mut db = new_db();
        run_setup(&mut db, &setup);
        let reply = db.run_command(&cmd);
        if let Err(e) = contains(&reply, &expected) {
            failures.push(format!("{name}: {e}\n    reply: {reply}"));
        }
    }
    assert!(failures.is_empty(), "{} failing case(s):\n{}", failures.len(), failures.join("\n"));
}

fn err(code: i32, code_name: &str, errmsg: &str) -> Document {
    doc! {"ok": 0.0, "errmsg": errmsg, "code": code, "codeName": code_name}
}

fn ins(docs: Vec<Document>) -> Document {
    doc! {"insert": "c", "documents": docs}
}

fn find_all() -> Document {
    doc! {"find": "c", "filter": {}}
}

fn batch(docs: Vec<Document>) -> Document {
    doc! {"cursor": {"firstBatch": docs, "id": 0i64, "ns": "test.c"}, "ok": 1.0}
}

#[test]
fn insert_replies_and_errors() {
    let dup = "E11000 duplicate key error collection: test.c index: _id_ dup key: { _id: 1 }";
    check_all(vec![
        ("insert two", vec![], ins(vec![doc! {"_id": 1}, doc! {"_id": 2}]), doc! {"n": 2, "ok": 1.0}),
        (
            "ordered insert stops at the duplicate",
            vec![],
            ins(vec![doc! {"_id": 1}, doc! {"_id": 1}, doc! {"_id": 2}]),
            doc! {"n": 1, "writeErrors": [{"index": 1, "code": 11000, "keyPattern": {"_id": 1}, "keyValue": {"_id": 1}, "errmsg": dup}]},
        ),
        (
            "unordered insert goes on after the duplicate",
            vec![],
            doc! {"insert": "c", "documents": [{"_id": 1}, {"_id": 1}, {"_id": 2}], "ordered": false},
            doc! {"n": 2, "writeErrors": [{"index": 1, "code": 11000, "keyPattern": {"_id": 1}, "keyValue": {"_id": 1}, "errmsg": dup}]},
        ),
        (
            "duplicate of a stored document, numbers equal across types",
            vec![ins(vec![doc! {"_id": 1}])],
            ins(vec![doc! {"_id": 1.0}]),
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 11000, "keyPattern": {"_id": 1}, "keyValue": {"_id": 1.0}, "errmsg": "E11000 duplicate key error collection: test.c index: _id_ dup key: { _id: 1.0 }"}]},
        ),
        (
            "_id may not be an array",
            vec![],
            ins(vec![doc! {"_id": [1]}]),
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 53, "errmsg": "The '_id' value cannot be of type array"}]},
        ),
        (
            "_id may not be a regex",
            vec![],
            ins(vec![doc! {"_id": Bson::RegularExpression(bson::Regex { pattern: "a".to_string().try_into().unwrap(), options: String::new().try_into().unwrap() })}]),
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 53, "errmsg": "The '_id' value cannot be of type regex"}]},
        ),
        (
            "_id may not hold $-prefixed fields",
            vec![],
            ins(vec![doc! {"_id": {"$a": 1}}]),
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 52, "errmsg": "_id fields may not contain '$'-prefixed fields: $a is not valid for storage."}]},
        ),
        ("top-level $-prefixed and dotted names are allowed", vec![], ins(vec![doc! {"_id": 1, "$a": 1, "a.b": 2, "c": {"$d": 1}}]), doc! {"n": 1}),
        (
            "documents must be an array",
            vec![],
            doc! {"insert": "c", "documents": 1},
            err(14, "TypeMismatch", "BSON field 'insert.documents' is the wrong type 'int', expected type 'array'"),
        ),
        (
            "documents is required",
            vec![],
            doc! {"insert": "c"},
            err(40414, "Location40414", "BSON field 'insert.documents' is missing but a required field"),
        ),
        (
            "a document must be an object",
            vec![],
            doc! {"insert": "c", "documents": [1]},
            err(14, "TypeMismatch", "BSON field 'insert.documents.0' is the wrong type 'int', expected type 'object'"),
        ),
        (
            "empty batch",
            vec![],
            doc! {"insert": "c", "documents": []},
            err(16, "InvalidLength", "Write batch sizes must be between 1 and 100000. Got 0 operations."),
        ),
        (
            "collection name must be a string",
            vec![],
            doc! {"insert": 1, "documents": [{}]},
            err(73, "InvalidNamespace", "collection name has invalid type int"),
        ),
        (
            "invalid collection name",
            vec![],
            doc! {"insert": "a$b", "documents": [{}]},
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 73, "errmsg": "Invalid collection name: a$b"}]},
        ),
    ]);
}

#[test]
fn insert_too_large() {
    let mut db = new_db();
    let big = "x".repeat(16 * 1024 * 1024);
    let reply = db.run_command(&ins(vec![doc! {"_id": 1, "s": big}]));
    // length, `_id` element (type, name, int), `s` element (type, name, length, bytes, NUL), end
    let size = 4 + (1 + 4 + 4) + (1 + 2 + 4 + 16 * 1024 * 1024 + 1) + 1;
    let expected = doc! {"n": 0, "writeErrors": [{"index": 0, "code": 2, "errmsg": format!("object to insert too large. size in bytes: {size}, max size: 16777216")}]};
    contains(&reply, &expected).unwrap();
}

#[test]
fn insert_generates_object_id_first() {
    let mut db = new_db();
    db.run_command(&ins(vec![doc! {"a": 1, "b": 2}]));
    let reply = db.run_command(&find_all());
    let first = reply.get_document("cursor").unwrap().get_array("firstBatch").unwrap()[0].as_document().unwrap().clone();
    let keys: Vec<&String> = first.keys().collect();
    assert_eq!(keys, ["_id", "a", "b"]);
    assert!(matches!(first.get("_id"), Some(Bson::ObjectId(_))));
    // The ObjectId's timestamp is the database clock.
    let Some(Bson::ObjectId(oid)) = first.get("_id") else { unreachable!() };
    assert_eq!(oid.timestamp().timestamp_millis(), 1_700_000_000_000);
    // `_id` given later in the document moves first.
    db.run_command(&ins(vec![doc! {"a": 1, "_id": 5}]));
    let reply = db.run_command(&find_all());
    let second = reply.get_document("cursor").unwrap().get_array("firstBatch").unwrap()[1].as_document().unwrap().clone();
    assert_eq!(second, doc! {"_id": 5, "a": 1});
}

#[test]
fn find_natural_order_skip_limit() {
    let setup = || vec![ins(vec![doc! {"_id": 3}, doc! {"_id": 1}, doc! {"_id": 2}])];
    check_all(vec![
        ("natural order", setup(), find_all(), batch(vec![doc! {"_id": 3}, doc! {"_id": 1}, doc! {"_id": 2}])),
        ("skip and limit", setup(), doc! {"find": "c", "skip": 1, "limit": 1}, batch(vec![doc! {"_id": 1}])),
        ("$natural -1", setup(), doc! {"find": "c", "sort": {"$natural": -1}}, batch(vec![doc! {"_id": 2}, doc! {"_id": 1}, doc! {"_id": 3}])),
        ("find by _id uses the index", setup(), doc! {"find": "c", "filter": {"_id": 1.0}}, batch(vec![doc! {"_id": 1}])),
        ("find by _id $in", setup(), doc! {"find": "c", "filter": {"_id": {"$in": [2, 3, 9]}}}, batch(vec![doc! {"_id": 3}, doc! {"_id": 2}])),
        ("missing collection", vec![], doc! {"find": "nope"}, doc! {"cursor": {"firstBatch": [], "id": 0i64, "ns": "test.nope"}}),
        (
            "negative limit",
            vec![],
            doc! {"find": "c", "limit": -1},
            err(51024, "Location51024", "BSON field 'limit' value must be >= 0, actual value '-1'"),
        ),
        (
            "filter must be an object",
            vec![],
            doc! {"find": "c", "filter": 1},
            err(14, "TypeMismatch", "BSON field 'find.filter' is the wrong type 'int', expected type 'object'"),
        ),
        (
            "projection excludes _id",
            setup(),
            doc! {"find": "c", "filter": {"_id": 1}, "projection": {"_id": 0}},
            batch(vec![doc! {}]),
        ),
        (
            "$db selects the database",
            vec![doc! {"insert": "c", "documents": [{"_id": 1}], "$db": "other"}],
            doc! {"find": "c", "$db": "other"},
            doc! {"cursor": {"firstBatch": [{"_id": 1}], "id": 0i64, "ns": "other.c"}},
        ),
    ]);
}

#[test]
fn unknown_and_server_commands() {
    check_all(vec![
        ("unknown command", vec![], doc! {"foo": 1}, err(59, "CommandNotFound", "no such command: 'foo'")),
        ("ping", vec![], doc! {"ping": 1}, doc! {"ok": 1.0}),
        ("buildInfo", vec![], doc! {"buildInfo": 1}, doc! {"version": "8.0.0", "versionArray": [8, 0, 0, 0], "ok": 1.0}),
        ("hello", vec![], doc! {"hello": 1}, doc! {"isWritablePrimary": true, "maxBsonObjectSize": 16_777_216, "maxWireVersion": 25}),
        ("isMaster", vec![], doc! {"isMaster": 1}, doc! {"ismaster": true}),
        ("getMore", vec![], doc! {"getMore": 5i64, "collection": "c"}, err(43, "CursorNotFound", "cursor id 5 not found")),
    ]);
}

#[test]
fn replacement_updates_and_deletes() {
    let setup = || vec![ins(vec![doc! {"_id": 1, "a": 1}, doc! {"_id": 2, "a": 2}])];
    check_all(vec![
        (
            "replacement keeps _id",
            setup(),
            doc! {"update": "c", "updates": [{"q": {"_id": 2}, "u": {"b": 1}}]},
            doc! {"n": 1, "nModified": 1, "ok": 1.0},
        ),
        (
            "no-op replacement is not counted as modified",
            setup(),
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"_id": 1, "a": 1}}]},
            doc! {"n": 1, "nModified": 0},
        ),
        (
            "replacement may not change _id",
            setup(),
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"_id": 5}}]},
            doc! {"n": 0, "nModified": 0, "writeErrors": [{"index": 0, "code": 66, "errmsg": "Plan executor error during update :: caused by :: After applying the update, the (immutable) field '_id' was found to have been altered to _id: 5"}]},
        ),
        (
            "replacement may not have top-level $ fields",
            setup(),
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"x": 1, "$y": 1}}]},
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 52, "errmsg": "Plan executor error during update :: caused by :: The dollar ($) prefixed field '$y' in '$y' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith."}]},
        ),
        (
            "multi replacement",
            setup(),
            doc! {"update": "c", "updates": [{"q": {}, "u": {"x": 1}, "multi": true}]},
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 9, "errmsg": "multi update is not supported for replacement-style update"}]},
        ),
        (
            "replacement upsert keeps the filter's _id",
            setup(),
            doc! {"update": "c", "updates": [{"q": {"_id": 7}, "u": {"x": 1}, "upsert": true}]},
            doc! {"n": 1, "upserted": [{"index": 0, "_id": 7}], "nModified": 0},
        ),
        (
            "replacement upsert with a conflicting _id",
            setup(),
            doc! {"update": "c", "updates": [{"q": {"_id": 7}, "u": {"_id": 8}, "upsert": true}]},
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 66, "errmsg": "Plan executor error during update :: caused by :: After applying the update, the (immutable) field '_id' was found to have been altered to _id: 8"}]},
        ),
        ("delete all", setup(), doc! {"delete": "c", "deletes": [{"q": {}, "limit": 0}]}, doc! {"n": 2}),
        ("delete one", setup(), doc! {"delete": "c", "deletes": [{"q": {}, "limit": 1}]}, doc! {"n": 1}),
        (
            "delete limit must be 0 or 1",
            setup(),
            doc! {"delete": "c", "deletes": [{"q": {}, "limit": 2}]},
            err(9, "FailedToParse", "The limit field in delete objects must be 0 or 1. Got 2"),
        ),
        (
            "update statements need q",
            setup(),
            doc! {"update": "c", "updates": [{"u": {}}]},
            err(40414, "Location40414", "BSON field 'update.updates.q' is missing but a required field"),
        ),
    ]);
}

#[test]
fn replacement_result_contents() {
    let mut db = new_db();
    db.run_command(&ins(vec![doc! {"_id": 1, "a": 1}, doc! {"_id": 2, "a": 2}]));
    db.run_command(&doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"b": 1}}, {"q": {"_id": 9}, "u": {"c": 1}, "upsert": true}]});
    let reply = db.run_command(&find_all());
    contains(&reply, &batch(vec![doc! {"_id": 1, "b": 1}, doc! {"_id": 2, "a": 2}, doc! {"_id": 9, "c": 1}])).unwrap();
    let report = db.last_write_report();
    assert!(report.is_empty(), "a read reports no writes");
}

#[test]
fn find_and_modify() {
    let setup = || vec![ins(vec![doc! {"_id": 1, "a": 1}, doc! {"_id": 2, "a": 2}])];
    check_all(vec![
        (
            "remove returns the removed document",
            setup(),
            doc! {"findAndModify": "c", "query": {"_id": 2}, "remove": true},
            doc! {"lastErrorObject": {"n": 1}, "value": {"_id": 2, "a": 2}, "ok": 1.0},
        ),
        (
            "remove nothing",
            setup(),
            doc! {"findAndModify": "c", "query": {"_id": 5}, "remove": true},
            doc! {"lastErrorObject": {"n": 0}, "value": null},
        ),
        (
            "replacement returning the new document",
            setup(),
            doc! {"findAndModify": "c", "query": {"_id": 1}, "update": {"z": 1}, "new": true},
            doc! {"lastErrorObject": {"n": 1, "updatedExisting": true}, "value": {"_id": 1, "z": 1}},
        ),
        (
            "replacement returning the old document",
            setup(),
            doc! {"findAndModify": "c", "query": {"_id": 1}, "update": {"z": 1}},
            doc! {"lastErrorObject": {"n": 1, "updatedExisting": true}, "value": {"_id": 1, "a": 1}},
        ),
        (
            "upsert",
            setup(),
            doc! {"findAndModify": "c", "query": {"_id": 3}, "update": {"z": 1}, "upsert": true, "new": true},
            doc! {"lastErrorObject": {"n": 1, "updatedExisting": false, "upserted": 3}, "value": {"_id": 3, "z": 1}},
        ),
        (
            "upsert returning the old (no) document",
            setup(),
            doc! {"findAndModify": "c", "query": {"_id": 3}, "update": {"z": 1}, "upsert": true},
            doc! {"lastErrorObject": {"n": 1, "updatedExisting": false, "upserted": 3}, "value": null},
        ),
        (
            "no match",
            setup(),
            doc! {"findAndModify": "c", "query": {"_id": 3}, "update": {"z": 1}},
            doc! {"lastErrorObject": {"n": 0, "updatedExisting": false}, "value": null},
        ),
        (
            "remove and update",
            setup(),
            doc! {"findAndModify": "c", "remove": true, "update": {"a": 1}},
            err(9, "FailedToParse", "Cannot specify both an update and remove=true"),
        ),
        (
            "neither remove nor update",
            setup(),
            doc! {"findAndModify": "c", "query": {}},
            err(9, "FailedToParse", "Either an update or remove=true must be specified"),
        ),
        (
            "remove with new",
            setup(),
            doc! {"findAndModify": "c", "remove": true, "new": true},
            err(9, "FailedToParse", "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document"),
        ),
        (
            "duplicate key is a command error",
            setup(),
            doc! {"findAndModify": "c", "query": {"_id": 1}, "update": {"_id": 2}},
            err(66, "ImmutableField", "Plan executor error during findAndModify :: caused by :: After applying the update, the (immutable) field '_id' was found to have been altered to _id: 2"),
        ),
    ]);
}

#[test]
fn indexes() {
    let setup = || vec![ins(vec![doc! {"_id": 1, "a": 1}, doc! {"_id": 2, "a": 2}])];
    let unique_a = || doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "unique": true}]};
    check_all(vec![
        ("create", setup(), unique_a(), doc! {"numIndexesBefore": 1, "numIndexesAfter": 2, "createdCollectionAutomatically": false, "ok": 1.0}),
        (
            "create on a new collection",
            vec![],
            unique_a(),
            doc! {"numIndexesBefore": 1, "numIndexesAfter": 2, "createdCollectionAutomatically": true},
        ),
        ("again", vec![ins(vec![doc! {}]), unique_a()], unique_a(), doc! {"numIndexesBefore": 2, "numIndexesAfter": 2, "note": "all indexes already exist"}),
        (
            "unique index rejects a duplicate",
            {
                let mut s = setup();
                s.push(unique_a());
                s
            },
            ins(vec![doc! {"_id": 3, "a": 1}]),
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 11000, "keyPattern": {"a": 1}, "keyValue": {"a": 1}, "errmsg": "E11000 duplicate key error collection: test.c index: a_1 dup key: { a: 1 }"}]},
        ),
        (
            "unique index build fails on duplicates",
            vec![ins(vec![doc! {"_id": 1, "a": 1}, doc! {"_id": 2, "a": 1}])],
            unique_a(),
            doc! {"ok": 0.0, "code": 11000, "codeName": "DuplicateKey", "keyValue": {"a": 1}},
        ),
        (
            "listIndexes",
            vec![ins(vec![doc! {}]), unique_a()],
            doc! {"listIndexes": "c"},
            batch(vec![doc! {"v": 2, "key": {"_id": 1}, "name": "_id_"}, doc! {"v": 2, "key": {"a": 1}, "name": "a_1", "unique": true}]),
        ),
        ("listIndexes of a missing collection", vec![], doc! {"listIndexes": "c"}, err(26, "NamespaceNotFound", "ns does not exist: test.c")),
        ("dropIndexes", vec![ins(vec![doc! {}]), unique_a()], doc! {"dropIndexes": "c", "index": "a_1"}, doc! {"nIndexesWas": 2, "ok": 1.0}),
        (
            "dropIndexes of the _id index",
            vec![ins(vec![doc! {}])],
            doc! {"dropIndexes": "c", "index": "_id_"},
            err(72, "InvalidOptions", "cannot drop _id index"),
        ),
        (
            "dropIndexes of a missing index",
            vec![ins(vec![doc! {}])],
            doc! {"dropIndexes": "c", "index": "b_1"},
            err(27, "IndexNotFound", "index not found with name [b_1]"),
        ),
        (
            "same name, other key",
            vec![ins(vec![doc! {}]), unique_a()],
            doc! {"createIndexes": "c", "indexes": [{"key": {"b": 1}, "name": "a_1"}]},
            doc! {"ok": 0.0, "code": 86, "codeName": "IndexKeySpecsConflict"},
        ),
        (
            "same key, other name",
            vec![ins(vec![doc! {}]), unique_a()],
            doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "other", "unique": true}]},
            err(85, "IndexOptionsConflict", "Index already exists with a different name: a_1"),
        ),
        (
            "zero in a key pattern",
            vec![],
            doc! {"createIndexes": "c", "indexes": [{"key": {"a": 0}, "name": "a_0"}]},
            err(67, "CannotCreateIndex", "Error in specification { key: { a: 0 }, name: \"a_0\" } :: caused by :: Values in the index key pattern can't be 0."),
        ),
    ]);
}

#[test]
fn collections_and_stats() {
    check_all(vec![
        (
            "create and list",
            vec![doc! {"create": "b"}, doc! {"create": "a"}],
            doc! {"listCollections": 1, "nameOnly": true},
            doc! {"cursor": {"firstBatch": [{"name": "a", "type": "collection"}, {"name": "b", "type": "collection"}], "id": 0i64, "ns": "test.$cmd.listCollections"}},
        ),
        ("create twice with the same options", vec![doc! {"create": "a"}], doc! {"create": "a"}, doc! {"ok": 1.0}),
        (
            "create twice with other options",
            vec![doc! {"create": "a"}],
            doc! {"create": "a", "capped": true, "size": 1000},
            err(48, "NamespaceExists", "Collection already exists. NS: test.a"),
        ),
        (
            "time series options get their defaults",
            vec![doc! {"create": "ts", "timeseries": {"timeField": "t", "metaField": "m"}}],
            doc! {"listCollections": 1},
            doc! {"cursor": {"firstBatch": [{"name": "ts", "type": "timeseries", "options": {"timeseries": {"timeField": "t", "metaField": "m", "granularity": "seconds", "bucketMaxSpanSeconds": 3600}}, "info": {"readOnly": false}}], "id": 0i64, "ns": "test.$cmd.listCollections"}},
        ),
        (
            "time series measurements need the time field",
            vec![doc! {"create": "ts", "timeseries": {"timeField": "t"}}],
            doc! {"insert": "ts", "documents": [{"x": 1}]},
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 2, "errmsg": "'t' must be present and contain a valid BSON UTC datetime value"}]},
        ),
        ("drop", vec![ins(vec![doc! {}])], doc! {"drop": "c"}, doc! {"nIndexesWas": 1, "ns": "test.c", "ok": 1.0}),
        ("drop a missing collection", vec![], doc! {"drop": "c"}, doc! {"ok": 1.0}),
        ("dropDatabase", vec![ins(vec![doc! {}])], doc! {"dropDatabase": 1}, doc! {"dropped": "test", "ok": 1.0}),
        (
            "collStats",
            vec![ins(vec![doc! {"_id": 1, "a": "xx"}, doc! {"_id": 2}])],
            doc! {"collStats": "c"},
            doc! {"ns": "test.c", "count": 2, "size": 38, "avgObjSize": 19, "nindexes": 1},
        ),
        ("collStats of a missing collection", vec![], doc! {"collStats": "c"}, err(26, "NamespaceNotFound", "Collection [test.c] not found.")),
        (
            "dbStats",
            vec![ins(vec![doc! {"_id": 1, "a": "xx"}, doc! {"_id": 2}]), doc! {"create": "d"}],
            doc! {"dbStats": 1},
            doc! {"db": "test", "collections": 2i64, "objects": 2i64, "dataSize": 38.0, "indexes": 2i64},
        ),
        (
            "count with skip and limit",
            vec![ins(vec![doc! {}, doc! {}, doc! {}, doc! {}])],
            doc! {"count": "c", "skip": 1, "limit": 2},
            doc! {"n": 2, "ok": 1.0},
        ),
        ("count of a missing collection", vec![], doc! {"count": "c"}, doc! {"n": 0}),
        (
            "renameCollection",
            vec![ins(vec![doc! {"_id": 1}])],
            doc! {"renameCollection": "test.c", "to": "test.d"},
            doc! {"ok": 1.0},
        ),
        (
            "renameCollection of a missing collection",
            vec![],
            doc! {"renameCollection": "test.c", "to": "test.d"},
            err(26, "NamespaceNotFound", "Source collection test.c does not exist"),
        ),
    ]);
}

#[test]
fn write_reports_record_sizes_and_paths() {
    let mut db = new_db();
    db.run_command(&ins(vec![doc! {"_id": 1, "a": 1}]));
    let r = db.last_write_report().to_vec();
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].op, r[0].before_size, r[0].after_size), (WriteOp::Insert, None, Some(21)));
    assert_eq!(r[0].changed_paths, vec!["_id", "a"]);
    db.run_command(&doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"a": 1, "b": "x"}}]});
    let r = db.last_write_report().to_vec();
    assert_eq!((r[0].op, r[0].before_size, r[0].after_size), (WriteOp::Replace, Some(21), Some(30)));
    assert_eq!(r[0].changed_paths, vec!["b"]);
    assert_eq!(r[0].collection, "c");
    assert_eq!(r[0].id, Bson::Int32(1));
    db.run_command(&doc! {"delete": "c", "deletes": [{"q": {}, "limit": 0}]});
    let r = db.last_write_report().to_vec();
    assert_eq!((r[0].op, r[0].before_size, r[0].after_size), (WriteOp::Delete, Some(30), None));
    assert_eq!((&r[0].id, &r[0].changed_paths), (&Bson::Int32(1), &vec!["_id".to_string(), "a".into(), "b".into()]));
    // A deleteMany's reports: each document's `_id` and top-level field names, in match order.
    db.run_command(&ins(vec![doc! {"_id": "x", "n": {"m": 1}, "t": [1, 2]}, doc! {"k": 2, "_id": 2.5}, doc! {"_id": 3}]));
    db.run_command(&doc! {"delete": "c", "deletes": [{"q": {"_id": {"$ne": 3}}, "limit": 0}]});
    let r = db.last_write_report().to_vec();
    let got: Vec<(Bson, Vec<String>, Option<usize>)> = r.iter().map(|w| (w.id.clone(), w.changed_paths.clone(), w.before_size)).collect();
    assert_eq!(
        got,
        vec![
            (Bson::String("x".into()), vec!["_id".to_string(), "n".into(), "t".into()], Some(53)),
            // stored with `_id` first, as the server stores it
            (Bson::Double(2.5), vec!["_id".to_string(), "k".into()], Some(25)),
        ]
    );
}

#[test]
fn preview_update_leaves_data_unchanged() {
    let mut db = new_db();
    db.run_command(&ins(vec![doc! {"_id": 1, "a": 1}, doc! {"_id": 2, "a": 2}]));
    let before = db.snapshot();
    let reply = db.run_command(&doc! {"ppPreviewUpdate": "c", "q": {"_id": 2}, "u": {"a": 2, "b": true}});
    contains(
        &reply,
        &doc! {"ok": 1.0, "matchedCount": 1i64, "modifiedCount": 1i64, "docs": [{
            "before": {"_id": 2, "a": 2},
            "after": {"_id": 2, "a": 2, "b": true},
            "changedPaths": ["b"],
            "sizeBefore": 21i64,
            "sizeAfter": 25i64,
        }]},
    )
    .unwrap();
    assert_eq!(db.snapshot(), before);
    let reply = db.run_command(&doc! {"ppPreviewUpdate": "c", "q": {"_id": 9}, "u": {"z": 1}, "upsert": true});
    contains(&reply, &doc! {"matchedCount": 0i64, "modifiedCount": 0i64, "upsertedId": 9}).unwrap();
    assert_eq!(db.snapshot(), before);
}

#[test]
fn snapshot_round_trips_byte_for_byte() {
    let mut db = new_db();
    db.run_command(&ins(vec![doc! {"_id": 3, "a": [1, {"b": 2.5}]}, doc! {"_id": 1, "s": "x"}]));
    db.run_command(&doc! {"createIndexes": "c", "indexes": [{"key": {"s": 1}, "name": "s_1", "unique": true, "sparse": true}]});
    db.run_command(&doc! {"create": "ts", "timeseries": {"timeField": "t"}});
    db.run_command(&doc! {"insert": "c", "documents": [{"_id": 2}], "$db": "other"});
    let bytes = db.snapshot();
    let mut restored = Database::restore(&bytes).expect("restores");
    assert_eq!(restored.snapshot(), bytes);
    // Order, indexes and uniqueness survive.
    let reply = restored.run_command(&find_all());
    contains(&reply, &batch(vec![doc! {"_id": 3, "a": [1, {"b": 2.5}]}, doc! {"_id": 1, "s": "x"}])).unwrap();
    let reply = restored.run_command(&ins(vec![doc! {"_id": 4, "s": "x"}]));
    assert_eq!(reply.get_array("writeErrors").unwrap()[0].as_document().unwrap().get_i32("code").ok(), Some(11000));
    assert!(Database::restore(b"not a snapshot").is_err());
    // The snapshot is the BSON the bson crate writes for the same document.
    assert_eq!(Document::from_reader(bytes.as_slice()).unwrap().to_vec().unwrap(), bytes);
}

#[test]
fn restored_indexes_are_the_ones_inserts_built() {
    // The restore builds each index but `_id` from its sorted keys after the documents: the same
    // keys in the same order as the indexes the documents were inserted into.
    let mut db = new_db();
    db.run_command(&doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"b": -1}, "name": "b_sparse", "sparse": true}]});
    let docs: Vec<Document> = (0..300)
        .map(|i| match i % 4 {
            0 => doc! {"_id": i, "a": [i % 7, {"x": i % 3}], "b": i % 5},
            1 => doc! {"_id": i, "a": (i % 11) as f64 / 2.0},
            2 => doc! {"_id": i, "b": format!("s{}", i % 13)},
            _ => doc! {"_id": i, "a": null, "b": [i % 2]},
        })
        .collect();
    db.run_command(&ins(docs));
    let mut restored = Database::restore(&db.snapshot()).expect("restores");
    for hint in ["a_1", "b_sparse"] {
        let find = doc! {"find": "c", "filter": {}, "hint": hint, "batchSize": 1000, "projection": {"_id": 1}};
        let reply = db.run_command(&find);
        assert_eq!(reply.get_document("cursor").unwrap().get_array("firstBatch").unwrap().len(), if hint == "a_1" { 300 } else { 225 }, "{hint}");
        assert_eq!(restored.run_command(&find), reply, "{hint}");
    }
    let v = restored.run_command(&doc! {"validate": "c"});
    assert_eq!(v.get("valid"), Some(&Bson::Boolean(true)), "{v}");
}

#[test]
fn snapshot_with_documents_that_are_not_stored_as_they_are_round_trips() {
    // A binary value is one the bytes-as-they-are path leaves to the decoding path.
    let mut db = new_db();
    let bin = bson::Binary { subtype: bson::spec::BinarySubtype::Generic, bytes: vec![1, 2, 3] };
    db.run_command(&ins(vec![doc! {"_id": 1, "b": bin.clone()}, doc! {"_id": 2, "s": "x"}]));
    let bytes = db.snapshot();
    let mut restored = Database::restore(&bytes).expect("restores");
    assert_eq!(restored.snapshot(), bytes);
    let reply = restored.run_command(&find_all());
    contains(&reply, &batch(vec![doc! {"_id": 1, "b": bin}, doc! {"_id": 2, "s": "x"}])).unwrap();
    // A hand-made snapshot holding the same `_id` twice is refused, as a duplicate insert.
    let mut snap = Document::from_reader(bytes.as_slice()).unwrap();
    let dbs = snap.get_array_mut("databases").unwrap();
    let colls = dbs[0].as_document_mut().unwrap().get_array_mut("collections").unwrap();
    let docs = colls[0].as_document_mut().unwrap().get_array_mut("documents").unwrap();
    docs.push(Bson::Document(doc! {"_id": 2, "s": "y"}));
    let err = Database::restore(&snap.to_vec().unwrap()).unwrap_err();
    assert_eq!(err.code_num(), 11000, "{err:?}");
}

#[test]
fn many_upserts_and_reads_of_a_large_document_by_id() {
    let mut db = new_db();
    let n = if cfg!(debug_assertions) { 2_000 } else { 20_000 };
    for i in 0..n {
        let r = db.run_command(&doc! {"update": "c", "updates": [{"q": {"_id": i}, "u": {"v": i}, "upsert": true}]});
        assert_eq!(r.get_i32("n").ok(), Some(1));
    }
    let big: Vec<Bson> = (0..20_000).map(|i| Bson::String(format!("{i:0>90}"))).collect();
    db.run_command(&ins(vec![doc! {"_id": "big", "items": big}]));
    for _ in 0..if cfg!(debug_assertions) { 50 } else { 1_000 } {
        let r = db.run_command(&doc! {"find": "c", "filter": {"_id": "big"}});
        assert_eq!(r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().len(), 1);
        // Found through the _id index: one key and one document examined.
        assert_eq!((db.last_cost().keys_examined, db.last_cost().docs_examined), (1, 1));
    }
    let r = db.run_command(&doc! {"count": "c"});
    assert_eq!(r.get_i32("n").ok(), Some(n + 1));
}

#[test]
fn operator_updates_and_upserts() {
    let setup = || vec![ins(vec![doc! {"_id": 1, "a": 1, "tags": ["x", "y"]}, doc! {"_id": 2, "a": 2}, doc! {"_id": 3, "a": "s"}])];
    let upd = |q: Document, u: Bson, extra: Document| {
        let mut st = doc! {"q": q, "u": u};
        st.extend(extra);
        doc! {"update": "c", "updates": [st]}
    };
    check_all(vec![
        ("$inc one", setup(), upd(doc! {"_id": 1}, Bson::Document(doc! {"$inc": {"a": 1}}), doc! {}), doc! {"n": 1, "nModified": 1}),
        (
            "no-op $set is matched but not modified",
            setup(),
            upd(doc! {"a": {"$in": [1, 2]}}, Bson::Document(doc! {"$set": {"a": 2}}), doc! {"multi": true}),
            doc! {"n": 2, "nModified": 1},
        ),
        (
            "multi update stops at the failing document",
            setup(),
            upd(doc! {}, Bson::Document(doc! {"$inc": {"a": 1}}), doc! {"multi": true}),
            doc! {"n": 0, "nModified": 0, "writeErrors": [{"index": 0, "code": 14, "errmsg": "Plan executor error during update :: caused by :: Cannot apply $inc to a value of non-numeric type. {_id: 3} has the field 'a' of non-numeric type string"}]},
        ),
        (
            "upsert seeds from $and equalities and applies $setOnInsert",
            setup(),
            upd(doc! {"$and": [{"k": 5}, {"m.n": "v"}, {"z": {"$gt": 1}}]}, Bson::Document(doc! {"$setOnInsert": {"s": true}, "$set": {"t": 1}}), doc! {"upsert": true}),
            doc! {"n": 1, "nModified": 0},
        ),
        (
            "upsert with the positional operator in a seed-less query",
            setup(),
            upd(doc! {"_id": 9}, Bson::Document(doc! {"$push": {"tags": "z"}}), doc! {"upsert": true}),
            doc! {"n": 1, "upserted": [{"index": 0, "_id": 9}], "nModified": 0},
        ),
        (
            "arrayFilters",
            setup(),
            upd(doc! {"_id": 1}, Bson::Document(doc! {"$set": {"tags.$[t]": "Y"}}), doc! {"arrayFilters": [{"t": "y"}]}),
            doc! {"n": 1, "nModified": 1},
        ),
        (
            "pipeline update",
            setup(),
            upd(doc! {"_id": 2}, Bson::Array(vec![Bson::Document(doc! {"$set": {"b": {"$add": ["$a", 1]}}})]), doc! {}),
            doc! {"n": 1, "nModified": 1},
        ),
        (
            "unknown modifier is a write error",
            setup(),
            upd(doc! {"_id": 1}, Bson::Document(doc! {"$foo": {"a": 1}}), doc! {}),
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 9, "errmsg": "Unknown modifier: $foo. Expected a valid update modifier or pipeline-style update specified as an array"}]},
        ),
        (
            "unique index violated by an update",
            {
                let mut s = setup();
                s.push(doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "unique": true}]});
                s
            },
            upd(doc! {"_id": 2}, Bson::Document(doc! {"$set": {"a": 1}}), doc! {}),
            doc! {"n": 0, "nModified": 0, "writeErrors": [{"index": 0, "code": 11000, "keyPattern": {"a": 1}, "keyValue": {"a": 1}, "errmsg": "Plan executor error during update :: caused by :: E11000 duplicate key error collection: test.c index: a_1 dup key: { a: 1 }"}]},
        ),
        (
            "unknown query operator is a write error",
            setup(),
            upd(doc! {"a": {"$foo": 1}}, Bson::Document(doc! {"$set": {"a": 1}}), doc! {}),
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 2, "errmsg": "unknown operator: $foo"}]},
        ),
        (
            "updateOne with sort picks the first in sort order",
            setup(),
            upd(doc! {"a": {"$type": "number"}}, Bson::Document(doc! {"$set": {"picked": true}}), doc! {"sort": {"a": -1}}),
            doc! {"n": 1, "nModified": 1},
        ),
    ]);
}

/// The documents of collection `c` after `setup` and `cmd`.
fn contents_after(setup: Vec<Document>, cmd: Document) -> Vec<Document> {
    let mut db = new_db();
    run_setup(&mut db, &setup);
    db.run_command(&cmd);
    let r = db.run_command(&find_all());
    r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().iter().map(|d| d.as_document().unwrap().clone()).collect()
}

/// Errors raised while the server's executor runs a command carry its context ("Plan executor
/// error during update :: caused by :: ", "Executor error during find command: <ns> :: caused
/// by :: "); parse and planning errors do not. A command's `let`
/// reaches pipeline updates; an empty `arrayFilters` is allowed with a pipeline.
#[test]
fn write_errors_from_the_executor_and_let_in_pipeline_updates() {
    let setup = || vec![ins(vec![doc! {"_id": 1, "a": 1}, doc! {"_id": 2, "a": "x"}])];
    let pu = "Plan executor error during update :: caused by :: ";
    check_all(vec![
        (
            "let reaches a pipeline update",
            setup(),
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": [{"$set": {"v": "$$cv"}}]}], "let": {"cv": 5}},
            doc! {"n": 1, "nModified": 1},
        ),
        (
            "an expression failing on the let value is an executor error",
            setup(),
            doc! {"update": "c", "updates": [{"q": {}, "u": [{"$set": {"v": {"$abs": "$$cv"}}}], "multi": true}], "let": {"cv": "x"}},
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 28765, "errmsg": format!("{pu}$abs only supports numeric types, not string")}]},
        ),
        (
            "an undefined variable is a parse error",
            setup(),
            doc! {"update": "c", "updates": [{"q": {}, "u": [{"$set": {"v": "$$zz"}}]}]},
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 17276, "errmsg": "Invalid $set :: caused by :: Use of undefined variable: zz"}]},
        ),
        (
            "an empty arrayFilters is allowed with a pipeline",
            setup(),
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": [{"$set": {"v": 1}}], "arrayFilters": []}]},
            doc! {"n": 1, "nModified": 1},
        ),
        (
            "a non-empty arrayFilters is not",
            setup(),
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": [{"$set": {"v": 1}}], "arrayFilters": [{"t": 1}]}]},
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 9, "errmsg": "arrayFilters may not be specified for pipeline-style updates"}]},
        ),
        (
            "a filter failing while it runs",
            setup(),
            doc! {"update": "c", "updates": [{"q": {"$expr": {"$abs": "$a"}}, "u": {"$set": {"v": 1}}, "multi": true}]},
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 28765, "errmsg": format!("{pu}$abs only supports numeric types, not string")}]},
        ),
        (
            "a delete whose filter fails while it runs",
            setup(),
            doc! {"delete": "c", "deletes": [{"q": {"$expr": {"$abs": "$a"}}, "limit": 0}]},
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 28765, "errmsg": "Plan executor error during delete :: caused by :: $abs only supports numeric types, not string"}]},
        ),
        (
            "findAndModify names itself",
            setup(),
            doc! {"findAndModify": "c", "query": {"_id": 2}, "update": {"$inc": {"a": 1}}},
            err(14, "TypeMismatch", "Plan executor error during findAndModify :: caused by :: Cannot apply $inc to a value of non-numeric type. {_id: 2} has the field 'a' of non-numeric type string"),
        ),
        (
            "findAndModify with let in a pipeline update",
            setup(),
            doc! {"findAndModify": "c", "query": {"_id": 1}, "update": [{"$set": {"v": {"$abs": "$$cv"}}}], "let": {"cv": "x"}},
            err(28765, "Location28765", "Plan executor error during findAndModify :: caused by :: $abs only supports numeric types, not string"),
        ),
        (
            "a find whose filter fails while it runs",
            setup(),
            doc! {"find": "c", "filter": {"$expr": {"$abs": "$a"}}},
            err(28765, "Location28765", "Executor error during find command: test.c :: caused by :: $abs only supports numeric types, not string"),
        ),
        (
            "a find with an unknown hint is refused while planning",
            setup(),
            doc! {"find": "c", "filter": {"$expr": {"$abs": "$a"}}, "hint": "nope"},
            err(2, "BadValue", "hint provided does not correspond to an existing index"),
        ),
        (
            "an aggregation failing while it runs",
            setup(),
            doc! {"aggregate": "c", "pipeline": [{"$project": {"v": {"$abs": "$a"}}}], "cursor": {}},
            err(28765, "Location28765", "Executor error during aggregate command on namespace: test.c :: caused by :: $abs only supports numeric types, not string"),
        ),
        (
            "an aggregation's pushed-down $match failing while it runs",
            setup(),
            doc! {"aggregate": "c", "pipeline": [{"$match": {"$expr": {"$abs": "$a"}}}], "cursor": {}},
            err(28765, "Location28765", "Executor error during aggregate command on namespace: test.c :: caused by :: $abs only supports numeric types, not string"),
        ),
        (
            "findAndModify positional projection of a field the query does not name (allowed since 5.0)",
            setup(),
            doc! {"findAndModify": "c", "query": {"_id": 1}, "update": {"$set": {"b": [1]}}, "fields": {"b.$": 1}},
            doc! {"value": {"_id": 1}, "ok": 1.0},
        ),
    ]);
}

#[test]
fn update_results_in_the_collection() {
    let setup = || vec![ins(vec![doc! {"_id": 1, "a": 1}, doc! {"_id": 2, "a": "x"}, doc! {"_id": 3, "a": 3}])];
    // The multi update failed at _id 2: _id 1 stays updated, _id 3 was not reached.
    assert_eq!(
        contents_after(setup(), doc! {"update": "c", "updates": [{"q": {}, "u": {"$inc": {"a": 10}}, "multi": true}]}),
        vec![doc! {"_id": 1, "a": 11}, doc! {"_id": 2, "a": "x"}, doc! {"_id": 3, "a": 3}]
    );
    // The upsert document: equality fields of the filter, then $set and $setOnInsert.
    assert_eq!(
        contents_after(
            vec![],
            doc! {"update": "c", "updates": [{"q": {"$and": [{"k": 5}, {"m.n": "v"}, {"z": {"$gt": 1}}]}, "u": {"$setOnInsert": {"s": true}, "$set": {"t": 1}}, "upsert": true}]}
        )
        .into_iter()
        .map(|mut d| {
            d.remove("_id");
            d
        })
        .collect::<Vec<_>>(),
        vec![doc! {"k": 5, "m": {"n": "v"}, "s": true, "t": 1}]
    );
    // updateOne with sort updates the largest.
    assert_eq!(
        contents_after(setup(), doc! {"update": "c", "updates": [{"q": {"a": {"$type": "number"}}, "u": {"$set": {"p": 1}}, "sort": {"a": -1}}]}),
        vec![doc! {"_id": 1, "a": 1}, doc! {"_id": 2, "a": "x"}, doc! {"_id": 3, "a": 3, "p": 1}]
    );
}

#[test]
fn update_write_reports_list_changed_paths() {
    let mut db = new_db();
    db.run_command(&ins(vec![doc! {"_id": 1, "a": {"b": 1}, "n": 1}]));
    db.run_command(&doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a.b": 2}, "$inc": {"n": 1}}}]});
    let r = db.last_write_report().to_vec();
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].op, WriteOp::Update);
    assert_eq!(r[0].changed_paths, vec!["a.b", "n"]);
    db.run_command(&doc! {"update": "c", "updates": [{"q": {"_id": 5}, "u": {"$set": {"x": 1}}, "upsert": true}]});
    let r = db.last_write_report().to_vec();
    assert_eq!((r[0].op, r[0].id.clone(), r[0].before_size), (WriteOp::Upsert, Bson::Int32(5), None));
}

#[test]
fn reads_count_distinct_aggregate_explain() {
    let setup = || vec![ins(vec![doc! {"_id": 1, "a": [2, 1, [3]], "g": "x"}, doc! {"_id": 2, "a": 1.0, "g": "y"}, doc! {"_id": 3, "a": {"b": 1}, "g": "x"}, doc! {"_id": 4, "g": "x"}])];
    check_all(vec![
        ("count with a query", setup(), doc! {"count": "c", "query": {"g": "x"}}, doc! {"n": 3}),
        (
            "distinct flattens arrays and sorts in BSON order",
            setup(),
            doc! {"distinct": "c", "key": "a"},
            doc! {"values": [1, 2, {"b": 1}, [3]], "ok": 1.0},
        ),
        ("distinct of a dotted key", setup(), doc! {"distinct": "c", "key": "a.b"}, doc! {"values": [1]}),
        (
            "aggregate group",
            setup(),
            doc! {"aggregate": "c", "pipeline": [{"$group": {"_id": "$g", "n": {"$sum": 1}}}, {"$sort": {"_id": 1}}], "cursor": {}},
            batch(vec![doc! {"_id": "x", "n": 3}, doc! {"_id": "y", "n": 1}]),
        ),
        (
            "aggregate needs a cursor",
            setup(),
            doc! {"aggregate": "c", "pipeline": []},
            err(9, "FailedToParse", "The 'cursor' option is required, except for aggregate with the explain argument"),
        ),
        (
            "aggregate: 1 with $documents",
            vec![],
            doc! {"aggregate": 1, "pipeline": [{"$documents": [{"x": 1}]}], "cursor": {}},
            doc! {"cursor": {"firstBatch": [{"x": 1}], "id": 0i64, "ns": "test.$cmd.aggregate"}},
        ),
        (
            "aggregate: 1 needs a collection-less first stage",
            vec![],
            doc! {"aggregate": 1, "pipeline": [{"$match": {}}], "cursor": {}},
            err(73, "InvalidNamespace", "{aggregate: 1} is not valid for '$match'; a collection is required."),
        ),
        (
            "find with let",
            setup(),
            doc! {"find": "c", "filter": {"$expr": {"$eq": ["$_id", "$$want"]}}, "let": {"want": 2}},
            batch(vec![doc! {"_id": 2, "a": 1.0, "g": "y"}]),
        ),
        (
            "explain of an _id lookup",
            setup(),
            doc! {"explain": {"find": "c", "filter": {"_id": 2}}, "verbosity": "executionStats"},
            doc! {"queryPlanner": {"namespace": "test.c", "parsedQuery": {"_id": 2}, "indexFilterSet": false, "winningPlan": {"stage": "EXPRESS_IDHACK", "keyPattern": {"_id": 1}, "indexName": "_id_"}, "rejectedPlans": []}},
        ),
        (
            "explain of a collection scan",
            setup(),
            doc! {"explain": {"count": "c", "query": {"g": "x"}}, "verbosity": "queryPlanner"},
            doc! {"queryPlanner": {"namespace": "test.c", "parsedQuery": {"g": "x"}, "indexFilterSet": false, "winningPlan": {"stage": "COLLSCAN", "filter": {"g": "x"}, "direction": "forward"}, "rejectedPlans": []}},
        ),
        (
            "explain of an unknown command",
            vec![],
            doc! {"explain": {"foo": "c"}},
            err(59, "CommandNotFound", "Explain failed due to unknown command: foo"),
        ),
    ]);
}

#[test]
fn explain_execution_stats_count_examined_documents() {
    let mut db = new_db();
    db.run_command(&ins(vec![doc! {"_id": 1, "g": "x"}, doc! {"_id": 2, "g": "y"}, doc! {"_id": 3, "g": "x"}]));
    let before = db.snapshot();
    let r = db.run_command(&doc! {"explain": {"delete": "c", "deletes": [{"q": {"g": "x"}, "limit": 0}]}, "verbosity": "executionStats"});
    let stats = r.get_document("executionStats").unwrap();
    contains(stats, &doc! {"nReturned": 2, "totalDocsExamined": 3, "totalKeysExamined": 0}).unwrap();
    assert_eq!(db.snapshot(), before, "explain does not write");
}

#[test]
fn aggregate_out_and_merge() {
    let setup = || vec![ins(vec![doc! {"_id": 1, "x": 1}, doc! {"_id": 2, "x": 2}]), doc! {"insert": "t", "documents": [{"_id": 2, "x": 20, "keep": true}]}];
    let target = |db: &mut Database| -> Vec<Document> {
        let r = db.run_command(&doc! {"find": "t"});
        r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().iter().map(|d| d.as_document().unwrap().clone()).collect()
    };
    let mut db = new_db();
    run_setup(&mut db, &setup());
    let r = db.run_command(&doc! {"aggregate": "c", "pipeline": [{"$match": {"x": {"$gt": 0}}}, {"$out": "t"}], "cursor": {}});
    contains(&r, &doc! {"cursor": {"firstBatch": [], "id": 0i64, "ns": "test.c"}}).unwrap();
    assert_eq!(target(&mut db), vec![doc! {"_id": 1, "x": 1}, doc! {"_id": 2, "x": 2}]);

    let mut db = new_db();
    run_setup(&mut db, &setup());
    db.run_command(&doc! {"aggregate": "c", "pipeline": [{"$merge": {"into": "t"}}], "cursor": {}});
    assert_eq!(target(&mut db), vec![doc! {"_id": 2, "x": 2, "keep": true}, doc! {"_id": 1, "x": 1}]);

    let mut db = new_db();
    run_setup(&mut db, &setup());
    let r = db.run_command(&doc! {"aggregate": "c", "pipeline": [{"$merge": {"into": "t", "whenMatched": "fail"}}], "cursor": {}});
    contains(&r, &doc! {"ok": 0.0, "code": 11000, "keyPattern": {"_id": 1}, "keyValue": {"_id": 2}}).unwrap();

    let mut db = new_db();
    run_setup(&mut db, &setup());
    db.run_command(&doc! {"aggregate": "c", "pipeline": [{"$merge": {"into": "t", "whenMatched": [{"$set": {"x": {"$add": ["$x", "$$new.x"]}}}], "whenNotMatched": "discard"}}], "cursor": {}});
    assert_eq!(target(&mut db), vec![doc! {"_id": 2, "x": 22, "keep": true}]);
}

#[test]
fn document_validation() {
    let create = || doc! {"create": "c", "validator": {"$jsonSchema": {"required": ["name"]}, "qty": {"$gte": 0}}};
    // `details` says which clause failed (tests/engine/doc_validation_error.rs has the rest).
    let no_name = doc! {"operatorName": "$and", "clausesNotSatisfied": [{"index": 0, "details": {"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [{"operatorName": "required", "specifiedAs": {"required": ["name"]}, "missingProperties": ["name"]}]}}]};
    let negative = doc! {"operatorName": "$and", "clausesNotSatisfied": [{"index": 1, "details": {"operatorName": "$gte", "specifiedAs": {"qty": {"$gte": 0}}, "reason": "comparison failed", "consideredValue": -4}}]};
    let failed = |id: Bson, details: &Document| doc! {"index": 0, "code": 121, "errInfo": {"failingDocumentId": id, "details": details.clone()}, "errmsg": "Document failed validation"};
    // Updates meet the validator while the server's executor runs them.
    let failed_update = |id: Bson, details: &Document| doc! {"index": 0, "code": 121, "errInfo": {"failingDocumentId": id, "details": details.clone()}, "errmsg": "Plan executor error during update :: caused by :: Document failed validation"};
    check_all(vec![
        ("a valid insert", vec![create()], ins(vec![doc! {"_id": 1, "name": "a", "qty": 1}]), doc! {"n": 1}),
        ("an invalid insert", vec![create()], ins(vec![doc! {"_id": 1, "qty": 1}]), doc! {"n": 0, "writeErrors": [failed(Bson::Int32(1), &no_name)]}),
        (
            "bypassDocumentValidation",
            vec![create()],
            doc! {"insert": "c", "documents": [{"_id": 1}], "bypassDocumentValidation": true},
            doc! {"n": 1},
        ),
        (
            "an update that breaks the rule",
            vec![create(), ins(vec![doc! {"_id": 1, "name": "a", "qty": 1}])],
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$inc": {"qty": -5}}}]},
            doc! {"n": 0, "nModified": 0, "writeErrors": [failed_update(Bson::Int32(1), &negative)]},
        ),
        (
            "an upsert that breaks the rule",
            vec![create()],
            doc! {"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"qty": 1}}, "upsert": true}]},
            doc! {"n": 0, "writeErrors": [failed_update(Bson::Int32(2), &no_name)]},
        ),
        (
            "moderate level leaves invalid documents updatable",
            vec![
                doc! {"insert": "c", "documents": [{"_id": 1, "qty": -1}]},
                doc! {"collMod": "c", "validator": {"qty": {"$gte": 0}}, "validationLevel": "moderate"},
            ],
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$inc": {"qty": -1}}}]},
            doc! {"n": 1, "nModified": 1},
        ),
        (
            "warn accepts",
            vec![doc! {"create": "c", "validator": {"qty": {"$gte": 0}}, "validationAction": "warn"}],
            ins(vec![doc! {"_id": 1, "qty": -1}]),
            doc! {"n": 1},
        ),
        (
            "findAndModify reports the failure as a command error",
            vec![create(), ins(vec![doc! {"_id": 1, "name": "a", "qty": 1}])],
            doc! {"findAndModify": "c", "query": {"_id": 1}, "update": {"$unset": {"name": 1}}},
            doc! {"ok": 0.0, "code": 121, "codeName": "DocumentValidationFailure", "errmsg": "Plan executor error during findAndModify :: caused by :: Document failed validation", "errInfo": {"failingDocumentId": 1, "details": no_name.clone()}},
        ),
        (
            "a bad validation level",
            vec![],
            doc! {"create": "c", "validationLevel": "some"},
            err(2, "BadValue", "Enumeration value 'some' for field 'create.validationLevel' is not a valid value."),
        ),
        (
            "collMod of a missing collection",
            vec![],
            doc! {"collMod": "c", "validator": {}},
            err(26, "NamespaceNotFound", "ns does not exist: test.c"),
        ),
    ]);
}

/// A positional projection returns the document as the query matched it (removed, or before
/// the update); the updated document may no longer match, so the server refuses `new: true`
/// with one (jstests/core/write/find_and_modify/find_and_modify_server6865.js).
#[test]
fn find_and_modify_positional_projection() {
    let mut db = new_db();
    db.run_command(&ins(vec![doc! {"_id": 1, "a": [1, 5, 9]}]));
    let r = db.run_command(&doc! {"findAndModify": "c", "query": {"a": {"$gt": 4}}, "update": {"$set": {"b": 1}}, "fields": {"a.$": 1}});
    contains(&r, &doc! {"value": {"_id": 1, "a": [5]}}).unwrap();
    let r = db.run_command(&doc! {"findAndModify": "c", "query": {"a": {"$gt": 4}}, "update": {"$set": {"b": 1}}, "fields": {"a.$": 1}, "new": true});
    contains(&r, &err(2, "BadValue", "cannot use a positional projection and return the new document")).unwrap();
    let r = db.run_command(&doc! {"findAndModify": "c", "query": {"a": {"$gt": 4}}, "fields": {"a.$": 1}, "remove": true});
    contains(&r, &doc! {"value": {"_id": 1, "a": [5]}}).unwrap();
}

// Engine gaps found by the lessons (tools/run-lessons.mjs). Ignored until the engine catches up,
// so that main stays green; `cargo test --test engine -- --ignored lesson_gap` runs them.

/// The server appends explain counters with `appendNumber`: an int32 when the value fits, so
/// mongosh shows `nReturned: 2`, not `Long('2')` (and `docs += totalDocsExamined` adds numbers).
/// (`explain_execution_stats_count_examined_documents` above expects Int64 and must change too.)
#[test]
fn lesson_gap_explain_counters_are_int32() {
    let mut db = new_db();
    run_setup(&mut db, &[ins(vec![doc! {"_id": 1, "g": "x"}, doc! {"_id": 2, "g": "y"}, doc! {"_id": 3, "g": "x"}])]);
    let r = db.run_command(&doc! {"explain": {"find": "c", "filter": {"g": "x"}}, "verbosity": "executionStats"});
    let stats = r.get_document("executionStats").unwrap();
    contains(stats, &doc! {"nReturned": 2, "totalDocsExamined": 3, "totalKeysExamined": 0}).unwrap();
}

/// A find whose filter has an equality (or range) on the leading field of an index is planned as
/// IXSCAN + FETCH: it examines only the matching keys and documents.
#[test]
fn lesson_gap_find_on_an_indexed_field_uses_the_index() {
    let mut db = new_db();
    let docs: Vec<Document> = (0..100).map(|i| doc! {"_id": i, "a": i % 10}).collect();
    run_setup(&mut db, &[ins(docs), doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}]);
    let r = db.run_command(&doc! {"explain": {"find": "c", "filter": {"a": 3}}, "verbosity": "executionStats"});
    let plan = r.get_document("queryPlanner").unwrap().get_document("winningPlan").unwrap();
    assert_eq!(plan.get_str("stage").ok(), Some("FETCH"), "{plan}");
    assert_eq!(plan.get_document("inputStage").and_then(|s| s.get_str("stage")).ok(), Some("IXSCAN"), "{plan}");
    let stats = r.get_document("executionStats").unwrap();
    contains(stats, &doc! {"nReturned": 10, "totalKeysExamined": 10, "totalDocsExamined": 10}).unwrap();
}

/// `attrs.k` and `attrs.v` traverse the same array: a compound index on them is the Attribute
/// pattern's index, and the server builds it. "Parallel arrays" means two different arrays.
#[test]
fn lesson_gap_compound_index_on_two_fields_of_one_array() {
    let mut db = new_db();
    run_setup(&mut db, &[ins(vec![doc! {"_id": 1, "attrs": [{"k": "color", "v": "red"}, {"k": "watts", "v": 2200}]}])]);
    let r = db.run_command(&doc! {"createIndexes": "c", "indexes": [{"key": {"attrs.k": 1, "attrs.v": 1}, "name": "attrs.k_1_attrs.v_1"}]});
    contains(&r, &doc! {"numIndexesAfter": 2, "ok": 1.0}).unwrap();
    let r = db.run_command(&doc! {"insert": "c", "documents": [{"_id": 2, "attrs": [{"k": "color", "v": "teal"}]}]});
    contains(&r, &doc! {"n": 1, "ok": 1.0}).unwrap();
}

/// For a time series collection, `collStats` (which the runtime's `stats()` reads) carries
/// `timeseries: { bucketCount, ... }`. 2 880 minute readings of one station over two days make 3
/// buckets with granularity "minutes" by the server's bucket catalog: a bucket holds at most
/// 1 000 measurements and spans 86 400 s from its first measurement's time rounded down to the
/// hour. Minutes 0-999 fill the first bucket (from 00:00); the second opens at 16:40, rounded to
/// 16:00, and fills with minutes 1 000-1 999 before 16:00 the next day; the third takes the rest.
/// (`$collStats` reports the same section under `storageStats`.)
#[test]
fn lesson_gap_collstats_of_a_time_series_collection_counts_buckets() {
    let mut db = new_db();
    run_setup(&mut db, &[doc! {"create": "ts", "timeseries": {"timeField": "t", "metaField": "m", "granularity": "minutes"}}]);
    let start = 1_709_251_200_000i64; // 2024-03-01T00:00:00Z
    let docs: Vec<Document> = (0..2 * 1440).map(|i| doc! {"m": "s1", "t": bson::DateTime::from_millis(start + i * 60_000), "v": i}).collect();
    run_setup(&mut db, &[doc! {"insert": "ts", "documents": docs}]);
    let r = db.run_command(&doc! {"collStats": "ts"});
    let ts = r.get_document("timeseries").unwrap_or_else(|_| panic!("no timeseries in {r}"));
    contains(ts, &doc! {"bucketsNs": "test.system.buckets.ts", "bucketCount": 3, "numBucketsClosedDueToCount": 2, "numMeasurementsCommitted": 2880}).unwrap();
    let r = db.run_command(&doc! {"aggregate": "ts", "pipeline": [{"$collStats": {"storageStats": {}}}], "cursor": {}});
    let first = r.get_document("cursor").unwrap().get_array("firstBatch").unwrap()[0].as_document().unwrap().clone();
    contains(&first, &doc! {"ns": "test.ts"}).unwrap();
    let ts = first.get_document("storageStats").unwrap().get_document("timeseries").unwrap();
    contains(ts, &doc! {"bucketCount": 3}).unwrap();
    // Three stations over the same two days: three buckets each.
    let docs: Vec<Document> = (0..2 * 1440)
        .flat_map(|i| ["s2", "s3"].map(|m| doc! {"m": m, "t": bson::DateTime::from_millis(start + i * 60_000), "v": i}))
        .collect();
    run_setup(&mut db, &[doc! {"insert": "ts", "documents": docs}]);
    let r = db.run_command(&doc! {"collStats": "ts"});
    contains(r.get_document("timeseries").unwrap(), &doc! {"bucketCount": 9}).unwrap();
}

/// Updates of a time series collection follow the 8.0 server's rules (arbitrary time series
/// updates are behind a feature flag that is off): multi only, no upsert, a filter and an update
/// on the metaField alone, operators only; each refusal InvalidOptions (72), in that order. An
/// allowed update applies to whole buckets, and the counts are of buckets.
#[test]
fn time_series_updates_follow_the_servers_rules() {
    let mut db = new_db();
    run_setup(&mut db, &[doc! {"create": "ts", "timeseries": {"timeField": "t", "metaField": "m", "granularity": "minutes"}}]);
    let start = 1_709_251_200_000i64; // 2024-03-01T00:00:00Z
    let docs: Vec<Document> = (0..2 * 1440)
        .flat_map(|i| ["s1", "s2"].map(|m| doc! {"m": m, "t": bson::DateTime::from_millis(start + i * 60_000), "v": i}))
        .collect();
    run_setup(&mut db, &[doc! {"insert": "ts", "documents": docs}]);
    let refused = |q: Document, u: Bson, multi: bool, upsert: bool, msg: &str| {
        (doc! {"update": "ts", "updates": [{"q": q, "u": u, "multi": multi, "upsert": upsert}]}, doc! {"n": 0, "nModified": 0, "writeErrors": [{"index": 0, "code": 72, "errmsg": msg}]})
    };
    let not_meta_query = "Cannot perform an update or delete on a time-series collection when querying on a field that is not the metaField 'm'";
    let not_meta_update = "Cannot perform an update on a time-series collection which updates a field that is not the metaField 'm'";
    for (cmd, expected) in [
        refused(doc! {"m": "s1"}, Bson::Document(doc! {"$set": {"m": "x"}}), false, false, "Cannot perform a non-multi update on a time-series collection"),
        refused(doc! {"m": "s1"}, Bson::Document(doc! {"$set": {"m": "x"}}), true, true, "Cannot perform an upsert on a time-series collection"),
        refused(doc! {"v": {"$gt": 5}}, Bson::Document(doc! {"$set": {"m": "x"}}), true, false, not_meta_query),
        refused(doc! {"$or": [{"m": "s1"}, {"v": 1}]}, Bson::Document(doc! {"$set": {"m": "x"}}), true, false, not_meta_query),
        refused(doc! {"$expr": {"$eq": ["$m", "s1"]}}, Bson::Document(doc! {"$set": {"m": "x"}}), true, false, "Cannot use $expr when performing an update or delete on a time-series collection"),
        refused(doc! {"m": "s1"}, Bson::Document(doc! {"$set": {"v": 0}}), true, false, not_meta_update),
        refused(doc! {"m": "s1"}, Bson::Document(doc! {"$rename": {"m": "v"}}), true, false, not_meta_update),
        refused(doc! {"m": "s1"}, Bson::Array(vec![Bson::Document(doc! {"$set": {"m": "x"}})]), true, false, "Cannot perform an update on a time-series collection using a pipeline update"),
    ] {
        let r = db.run_command(&cmd);
        contains(&r, &expected).unwrap_or_else(|e| panic!("{cmd}: {e}"));
    }
    assert_eq!(db.run_command(&doc! {"count": "ts", "query": {"m": "x"}}).get_i32("n").unwrap(), 0);
    // The allowed kind: a rename of the metadata, counted in buckets (each station's 2 880
    // minutes make three).
    let r = db.run_command(&doc! {"update": "ts", "updates": [{"q": {"m": "s2"}, "u": {"$set": {"m": "s2b"}}, "multi": true}]});
    contains(&r, &doc! {"n": 3, "nModified": 3, "ok": 1.0}).unwrap();
    assert_eq!(db.run_command(&doc! {"count": "ts", "query": {"m": "s2b"}}).get_i32("n").unwrap(), 2880);
    // Deletes may filter on any field (7.0 and later).
    let r = db.run_command(&doc! {"delete": "ts", "deletes": [{"q": {"v": {"$gte": 2870}}, "limit": 0}]});
    contains(&r, &doc! {"n": 20, "ok": 1.0}).unwrap();
    // A time series collection without a metaField cannot be updated at all.
    run_setup(&mut db, &[doc! {"create": "plain", "timeseries": {"timeField": "t"}}, doc! {"insert": "plain", "documents": [{"t": bson::DateTime::from_millis(start)}]}]);
    let r = db.run_command(&doc! {"update": "plain", "updates": [{"q": {}, "u": {"$set": {"x": 1}}, "multi": true}]});
    contains(&r, &doc! {"writeErrors": [{"index": 0, "code": 72, "errmsg": "Cannot perform an update on a time-series collection that does not have a metaField"}]}).unwrap();
}

#[test]
fn collstats_stage() {
    let mut db = new_db();
    run_setup(&mut db, &[ins(vec![doc! {"_id": 1, "a": "xx"}, doc! {"_id": 2}])]);
    let r = db.run_command(&doc! {"aggregate": "c", "pipeline": [{"$collStats": {"storageStats": {"scale": 1}, "count": {}}}, {"$project": {"storageStats.count": 1, "storageStats.size": 1, "count": 1, "_id": 0}}], "cursor": {}});
    contains(&r, &batch(vec![doc! {"storageStats": {"size": 38, "count": 2}, "count": 2}])).unwrap();
    let r = db.run_command(&doc! {"aggregate": "nope", "pipeline": [{"$collStats": {"storageStats": {}}}], "cursor": {}});
    contains(&r, &err(26, "NamespaceNotFound", "Unable to retrieve storageStats in $collStats stage :: caused by :: Collection [test.nope] not found.")).unwrap();
}

#[test]
fn views() {
    let setup = || {
        vec![
            ins(vec![doc! {"_id": 1, "g": "a", "n": 1}, doc! {"_id": 2, "g": "b", "n": 2}, doc! {"_id": 3, "g": "a", "n": 3}]),
            doc! {"create": "va", "viewOn": "c", "pipeline": [{"$match": {"g": "a"}}, {"$project": {"g": 0}}]},
            doc! {"create": "vva", "viewOn": "va", "pipeline": [{"$set": {"double": {"$multiply": ["$n", 2]}}}]},
        ]
    };
    let view_batch = |ns: &str, docs: Vec<Document>| doc! {"cursor": {"firstBatch": docs, "id": 0i64, "ns": ns}};
    check_all(vec![
        ("find on a view", setup(), doc! {"find": "va"}, view_batch("test.va", vec![doc! {"_id": 1, "n": 1}, doc! {"_id": 3, "n": 3}])),
        (
            "find with filter, sort and projection on a view of a view",
            setup(),
            doc! {"find": "vva", "filter": {"n": {"$gt": 0}}, "sort": {"n": -1}, "projection": {"double": 1}},
            view_batch("test.vva", vec![doc! {"_id": 3, "double": 6}, doc! {"_id": 1, "double": 2}]),
        ),
        ("count on a view", setup(), doc! {"count": "va", "query": {"n": 3}}, doc! {"n": 1}),
        ("distinct on a view", setup(), doc! {"distinct": "vva", "key": "double"}, doc! {"values": [2, 6]}),
        (
            "aggregate on a view",
            setup(),
            doc! {"aggregate": "va", "pipeline": [{"$group": {"_id": null, "t": {"$sum": "$n"}}}], "cursor": {}},
            view_batch("test.va", vec![doc! {"_id": null, "t": 4}]),
        ),
        (
            "$lookup reads a view",
            setup(),
            doc! {"aggregate": "c", "pipeline": [{"$match": {"_id": 2}}, {"$lookup": {"from": "va", "pipeline": [], "as": "as"}}, {"$project": {"k": {"$size": "$as"}}}], "cursor": {}},
            batch(vec![doc! {"_id": 2, "k": 2}]),
        ),
        (
            "no writes to a view",
            setup(),
            doc! {"insert": "va", "documents": [{"_id": 9}]},
            doc! {"n": 0, "writeErrors": [{"index": 0, "code": 166, "errmsg": "Namespace test.va is a view, not a collection"}]},
        ),
        (
            "no index on a view",
            setup(),
            doc! {"createIndexes": "va", "indexes": [{"key": {"n": 1}, "name": "n_1"}]},
            err(166, "CommandNotSupportedOnView", "Namespace test.va is a view, not a collection"),
        ),
        (
            "listCollections shows views",
            setup(),
            doc! {"listCollections": 1, "filter": {"type": "view"}, "nameOnly": true},
            doc! {"cursor": {"firstBatch": [{"name": "va", "type": "view"}, {"name": "vva", "type": "view"}], "id": 0i64, "ns": "test.$cmd.listCollections"}},
        ),
        (
            "a view needs a valid pipeline",
            vec![],
            doc! {"create": "v", "viewOn": "c", "pipeline": [{"$nope": 1}]},
            doc! {"ok": 0.0, "code": 40324},
        ),
    ]);
}

/// The winning plan and the counters of an explained command.
fn explain(db: &mut Database, cmd: Document) -> (Document, Document) {
    let r = db.run_command(&doc! {"explain": cmd, "verbosity": "executionStats"});
    let plan = r.get_document("queryPlanner").and_then(|q| q.get_document("winningPlan")).cloned().unwrap_or_else(|_| panic!("no plan: {r}"));
    let stats = r.get_document("executionStats").cloned().unwrap_or_default();
    (plan, stats)
}

fn stage(plan: &Document) -> Vec<String> {
    let mut out = vec![plan.get_str("stage").unwrap_or("?").to_string()];
    if let Ok(input) = plan.get_document("inputStage") {
        out.extend(stage(input));
    }
    if let Ok(inputs) = plan.get_array("inputStages") {
        for i in inputs {
            if let Some(d) = i.as_document() {
                out.extend(stage(d));
            }
        }
    }
    out
}

fn indexed_db() -> Database {
    let mut db = new_db();
    let docs: Vec<Document> = (0..60)
        .map(|i| doc! {"_id": i, "status": if i % 3 == 0 { "open" } else { "closed" }, "at": 100 - i, "tags": [format!("t{}", i % 4), "all"], "attrs": [{"k": "color", "v": i % 5}, {"k": "size", "v": i % 7}]})
        .collect();
    run_setup(
        &mut db,
        &[
            ins(docs),
            doc! {"createIndexes": "c", "indexes": [
                {"key": {"status": 1, "at": -1}, "name": "status_1_at_-1"},
                {"key": {"tags": 1}, "name": "tags_1"},
                {"key": {"attrs.k": 1, "attrs.v": 1}, "name": "attrs"},
                {"key": {"at": 1}, "name": "at_1"},
            ]},
        ],
    );
    db
}

fn ids(r: &Document) -> Vec<i32> {
    r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().iter().map(|d| d.as_document().unwrap().get_i32("_id").unwrap()).collect()
}

#[test]
fn planner_uses_indexes() {
    let mut db = indexed_db();
    // Equality on the prefix, sort on the next field, limit: the index gives the order and the
    // scan stops after the limit.
    let q = doc! {"find": "c", "filter": {"status": "open"}, "sort": {"at": -1}, "limit": 5};
    let (plan, stats) = explain(&mut db, q.clone());
    assert_eq!(stage(&plan), ["FETCH", "IXSCAN"], "{plan}");
    assert_eq!(plan.get_document("inputStage").unwrap().get_str("indexName").ok(), Some("status_1_at_-1"));
    contains(&stats, &doc! {"nReturned": 5, "totalKeysExamined": 5, "totalDocsExamined": 5}).unwrap();
    assert_eq!(ids(&db.run_command(&q)), [0, 3, 6, 9, 12]);
    // The same sort reversed: the scan runs backward.
    let (plan, _) = explain(&mut db, doc! {"find": "c", "filter": {"status": "open"}, "sort": {"at": 1}, "limit": 2});
    assert_eq!(plan.get_document("inputStage").unwrap().get_str("direction").ok(), Some("backward"), "{plan}");
    // A range: bounds in the type bracket, results in index order.
    let q = doc! {"find": "c", "filter": {"at": {"$gt": 95}}};
    let (plan, stats) = explain(&mut db, q.clone());
    let ix = plan.get_document("inputStage").unwrap();
    assert_eq!(ix.get_str("indexName").ok(), Some("at_1"));
    assert_eq!(ix.get_document("indexBounds").unwrap(), &doc! {"at": ["(95, inf.0]"]});
    contains(&stats, &doc! {"nReturned": 5, "totalKeysExamined": 5, "totalDocsExamined": 5}).unwrap();
    assert_eq!(ids(&db.run_command(&q)), [4, 3, 2, 1, 0]);
    // A multikey index returns each document once.
    let q = doc! {"find": "c", "filter": {"tags": {"$in": ["t1", "all"]}}};
    let (plan, stats) = explain(&mut db, q.clone());
    assert_eq!(plan.get_document("inputStage").unwrap().get_bool("isMultiKey").ok(), Some(true));
    contains(&stats, &doc! {"nReturned": 60, "totalKeysExamined": 75, "totalDocsExamined": 60}).unwrap();
    // $elemMatch bounds both fields of the attribute index.
    let (plan, stats) = explain(&mut db, doc! {"find": "c", "filter": {"attrs": {"$elemMatch": {"k": "color", "v": 3}}}});
    assert_eq!(plan.get_document("inputStage").unwrap().get_str("indexName").ok(), Some("attrs"), "{plan}");
    contains(&stats, &doc! {"nReturned": 12, "totalDocsExamined": 12}).unwrap();
    // $or of indexed branches.
    let (plan, stats) = explain(&mut db, doc! {"find": "c", "filter": {"$or": [{"at": 41}, {"tags": "t3", "status": "open"}]}});
    assert_eq!(stage(&plan), ["FETCH", "OR", "IXSCAN", "IXSCAN"], "{plan}");
    contains(&stats, &doc! {"nReturned": 6}).unwrap();
    // No usable index: a collection scan (and a blocking sort).
    let (plan, stats) = explain(&mut db, doc! {"find": "c", "filter": {"nope": 1}, "sort": {"nope": 1}});
    assert_eq!(stage(&plan), ["SORT", "COLLSCAN"], "{plan}");
    contains(&stats, &doc! {"totalDocsExamined": 60, "totalKeysExamined": 0}).unwrap();
    // _id ranges use the _id index.
    let (plan, _) = explain(&mut db, doc! {"find": "c", "filter": {"_id": {"$gte": 58}}});
    assert_eq!(plan.get_document("inputStage").unwrap().get_str("indexName").ok(), Some("_id_"), "{plan}");
}

#[test]
fn planner_serves_writes_counts_and_pipelines() {
    let mut db = indexed_db();
    let (_, stats) = explain(&mut db, doc! {"update": "c", "updates": [{"q": {"status": "open", "at": 100}, "u": {"$set": {"x": 1}}}]});
    contains(&stats, &doc! {"totalKeysExamined": 1, "totalDocsExamined": 1}).unwrap();
    let (_, stats) = explain(&mut db, doc! {"count": "c", "query": {"at": {"$lte": 42}}});
    contains(&stats, &doc! {"nReturned": 2, "totalKeysExamined": 2, "totalDocsExamined": 2}).unwrap();
    let r = db.run_command(&doc! {"aggregate": "c", "pipeline": [{"$match": {"status": "open"}}, {"$sort": {"at": -1}}, {"$limit": 3}, {"$project": {"_id": 1}}], "cursor": {}});
    assert_eq!(ids(&r), [0, 3, 6]);
    assert_eq!((db.last_cost().keys_examined, db.last_cost().docs_examined), (3, 3));
    let r = db.run_command(&doc! {"delete": "c", "deletes": [{"q": {"tags": "t2"}, "limit": 0}]});
    assert_eq!(r.get_i32("n").ok(), Some(15));
    assert_eq!(db.last_cost().docs_examined, 15);
}

#[test]
fn regression_index_bounds_on_fields_of_one_array_need_elem_match() {
    let mut db = new_db();
    run_setup(
        &mut db,
        &[
            ins(vec![doc! {"_id": 0, "c": [{"d": 1, "e": 0}, {"d": 2, "e": 3}]}, doc! {"_id": 1, "arr": [0, 3]}]),
            doc! {"createIndexes": "c", "indexes": [{"key": {"c.d": 1, "c.e": 1}, "name": "ce"}, {"key": {"arr": 1}, "name": "arr"}]},
        ],
    );
    // The conditions hold for different elements: the document matches.
    let r = db.run_command(&doc! {"find": "c", "filter": {"c.d": 1, "c.e": 3}});
    assert_eq!(ids(&r), [0]);
    let r = db.run_command(&doc! {"find": "c", "filter": {"arr": {"$gt": 2, "$lt": 1}}});
    assert_eq!(ids(&r), [1]);
    // Under $elemMatch they must hold for one element: no match, and the bounds combine.
    let r = db.run_command(&doc! {"find": "c", "filter": {"c": {"$elemMatch": {"d": 1, "e": 3}}}});
    assert_eq!(ids(&r), Vec::<i32>::new());
    let (plan, _) = explain(&mut db, doc! {"find": "c", "filter": {"c": {"$elemMatch": {"d": 1, "e": 3}}}});
    assert_eq!(plan.get_document("inputStage").unwrap().get_document("indexBounds").unwrap(), &doc! {"c.d": ["[1, 1]"], "c.e": ["[3, 3]"]});
    let (plan, _) = explain(&mut db, doc! {"find": "c", "filter": {"c.d": 1, "c.e": 3}});
    assert_eq!(plan.get_document("inputStage").unwrap().get_document("indexBounds").unwrap(), &doc! {"c.d": ["[1, 1]"], "c.e": ["[MinKey, MaxKey]"]});
}

#[test]
fn time_series_buckets_are_compressed() {
    let mut db = new_db();
    run_setup(&mut db, &[doc! {"create": "ts", "timeseries": {"timeField": "t", "metaField": "station", "granularity": "minutes"}}]);
    let start = 1_709_251_200_000i64;
    let readings: Vec<Document> = (0..2 * 1440i64)
        .flat_map(|m| {
            ["st-north", "st-harbour", "st-hill"].map(|s| doc! {"station": s, "t": bson::DateTime::from_millis(start + m * 60_000), "temp": 8.0 + (m % 50) as f64 / 10.0, "humidity": 60 + (m * 7 % 30) as i32})
        })
        .collect();
    run_setup(&mut db, &[doc! {"insert": "ts", "documents": readings.clone()}, doc! {"insert": "plain", "documents": readings}]);
    let size = |db: &mut Database, c: &str| -> i64 {
        let r = db.run_command(&doc! {"collStats": c});
        match r.get("size") {
            Some(Bson::Int32(n)) => *n as i64,
            Some(Bson::Int64(n)) => *n,
            other => panic!("size {other:?} in {r}"),
        }
    };
    let (ts, plain) = (size(&mut db, "ts"), size(&mut db, "plain"));
    // Regular times, one-decimal temperatures and small integers compress to a few bytes each.
    assert!(ts * 5 < plain, "time series {ts} bytes vs plain {plain} bytes");
    assert!(ts > 8640, "a reading still costs a few bytes: {ts}");
}

#[test]
fn hints_force_the_plan() {
    let mut db = indexed_db();
    let (plan, stats) = explain(&mut db, doc! {"find": "c", "filter": {"status": "open"}, "hint": "at_1"});
    assert_eq!(plan.get_document("inputStage").unwrap().get_str("indexName").ok(), Some("at_1"), "{plan}");
    contains(&stats, &doc! {"nReturned": 20, "totalKeysExamined": 60, "totalDocsExamined": 60}).unwrap();
    let (plan, _) = explain(&mut db, doc! {"find": "c", "filter": {"at": 50}, "hint": {"$natural": 1}});
    assert_eq!(stage(&plan), ["COLLSCAN"]);
    let (plan, _) = explain(&mut db, doc! {"find": "c", "filter": {"_id": 5}, "hint": {"_id": 1}});
    assert_eq!(stage(&plan), ["FETCH", "IXSCAN"]);
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "hint": "nope"});
    contains(&r, &err(2, "BadValue", "hint provided does not correspond to an existing index")).unwrap();
    let r = db.run_command(&doc! {"update": "c", "updates": [{"q": {}, "u": {"$set": {"x": 1}}, "hint": {"zz": 1}}]});
    contains(&r, &doc! {"n": 0, "writeErrors": [{"index": 0, "code": 2, "errmsg": "hint provided does not correspond to an existing index"}]}).unwrap();
    let r = db.run_command(&doc! {"count": "c", "query": {}, "hint": "tags_1"});
    assert_eq!(r.get_i32("n").ok(), Some(60));
}

/// Updates change stored documents in place (no copy): a statement that fails part-way — after
/// `$push` changed the array, `$inc` meets a string — or whose result breaks a unique index leaves
/// the document exactly as it was, small or large (only the fields the update touches are kept
/// aside; an array it appends to, by its length), and the indexes still find it.
#[test]
fn failed_in_place_update_restores_the_document() {
    let big: Vec<Bson> = (0..300).map(|i| Bson::Document(doc! {"i": i, "pad": "x".repeat(10)})).collect();
    for arr in [vec![Bson::Int32(1)], big] {
        let mut db = new_db();
        run_setup(&mut db, &[
            ins(vec![doc! {"_id": 1, "arr": arr.clone(), "s": "text", "u": 1}, doc! {"_id": 2, "arr": [], "s": 0, "u": 2}]),
            doc! {"createIndexes": "c", "indexes": [{"key": {"u": 1}, "name": "u_1", "unique": true}]},
        ]);
        let before = db.run_command(&find_all());
        let failing = [
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$push": {"arr": 99}, "$inc": {"s": 1}}}]},
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$push": {"arr": 99}, "$set": {"u": 2}}}]},
            doc! {"update": "c", "updates": [{"q": {}, "u": {"$push": {"arr": 7}, "$inc": {"s": 1}}, "multi": true}], "ordered": false},
            // Removed, renamed and created top-level fields come back in their place (or go).
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$unset": {"s": ""}, "$set": {"u": 2}}}]},
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$rename": {"s": "z"}, "$set": {"u": 2}}}]},
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"new": 1, "u": 2, "arr.0": "x"}}}]},
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$push": {"arr": {"$each": [5], "$position": 0}}, "$inc": {"s": 1}}}]},
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$addToSet": {"arr": 5}, "$inc": {"s": 1}}}]},
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": [{"$set": {"u": 2, "arr": 0}}]}]},
            doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"_id": 1, "u": 2}}]},
        ];
        for cmd in failing {
            let r = db.run_command(&cmd);
            assert!(r.get_array("writeErrors").is_ok_and(|e| !e.is_empty()), "{cmd} should fail: {r}");
            let r = db.run_command(&find_all());
            // Bytes, not `Document` equality (which ignores field order).
            assert_eq!(r.to_vec().unwrap(), before.to_vec().unwrap(), "after {cmd}: {r}");
        }
        let by_index = db.run_command(&doc! {"find": "c", "filter": {"u": 1}});
        let ids: Vec<Bson> = by_index.get_document("cursor").unwrap().get_array("firstBatch").unwrap().iter()
            .map(|d| d.as_document().unwrap().get("_id").unwrap().clone()).collect();
        assert_eq!(ids, vec![Bson::Int32(1)]);
    }
}

/// Regression: a command nested thousands of levels deep overflowed the stack (the filter
/// parser recurses; the WebAssembly worker has a 1 MiB stack). The server refuses messages
/// nested deeper than 200 levels before running them, and so does the engine now, both on a
/// decoded command and on BSON bytes before they are decoded.
#[test]
fn deeply_nested_commands_are_refused_not_a_stack_overflow() {
    let refused = doc! {"ok": 0.0, "code": 15, "codeName": "Overflow", "errmsg": "BSONObj exceeded maximum nested object depth: 200"};
    // The command is built and dropped on a roomy stack (dropping a deep `Document` recurses,
    // which is the caller's business); the engine runs it on a 1 MiB stack, as in the worker.
    let run_deep = |depth: usize| {
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || {
                let mut filter = doc! {"a": 1};
                for _ in 0..depth {
                    filter = doc! {"$and": [filter]};
                }
                let cmd = doc! {"find": "c", "filter": filter};
                let mut db = new_db();
                db.run_command(&ins(vec![doc! {"_id": 1, "a": 1}]));
                std::thread::scope(|s| {
                    std::thread::Builder::new().stack_size(1 << 20).spawn_scoped(s, || db.run_command(&cmd)).expect("thread").join().expect("no stack overflow")
                })
            })
            .expect("thread")
            .join()
            .expect("no stack overflow")
    };
    contains(&run_deep(1000), &refused).unwrap();
    // 99 `$and` levels: 199 nested objects below the command, within the limit.
    contains(&run_deep(99), &doc! {"ok": 1.0, "cursor": {"firstBatch": [{"_id": 1, "a": 1}], "id": 0i64, "ns": "test.c"}}).unwrap();
    // BSON bytes nested `depth` levels (`{a: {a: ...}}`), checked without decoding them.
    let nested = |depth: usize| {
        let mut bytes = Vec::new();
        for k in (1..=depth).rev() {
            bytes.extend_from_slice(&(5 + 8 * k as i32).to_le_bytes());
            bytes.extend_from_slice(&[0x03, b'a', 0]);
        }
        bytes.extend_from_slice(&[5, 0, 0, 0, 0]);
        bytes.extend(std::iter::repeat_n(0u8, depth));
        bytes
    };
    let max = pattern_playground::value::MAX_NESTING;
    for (depth, deeper) in [(10_000, true), (max + 1, true), (max, false), (3, false)] {
        let bytes = nested(depth);
        let raw = bson::RawDocument::from_bytes(&bytes).expect("well-formed BSON");
        assert_eq!(pattern_playground::value::raw_nests_deeper_than(raw, max), deeper, "depth {depth}");
    }
    // The bytes entry (the WebAssembly bindings') refuses them without decoding them.
    let reply = Document::from_reader(new_db().run_command_raw(&nested(10_000)).as_slice()).expect("a BSON reply");
    contains(&reply, &refused).unwrap();
}

/// Commands given as bytes (the bindings' entry) are decoded as `run_command` takes them, and
/// bytes that are not BSON are refused with the bson crate's reason.
#[test]
fn commands_as_bytes_decode_as_documents_and_bad_bytes_are_refused() {
    let cmd = doc! {"insert": "c", "documents": [{"_id": 1, "s": "é", "a": [1.5, {"b": null}], "d": bson::DateTime::from_millis(3)}]};
    let mut db = new_db();
    let reply = Document::from_reader(db.run_command_raw(&cmd.to_vec().unwrap()).as_slice()).unwrap();
    assert_eq!(reply, doc! {"n": 1, "ok": 1.0});
    let found = db.run_command(&doc! {"find": "c", "filter": {}});
    assert_eq!(found.get_document("cursor").unwrap().get_array("firstBatch").unwrap()[0], cmd.get_array("documents").unwrap()[0]);
    // A string that is not UTF-8, then a truncated document.
    let mut bad = doc! {"ping": "x"}.to_vec().unwrap();
    let at = bad.iter().position(|b| *b == b'x').unwrap();
    bad[at] = 0xff;
    let truncated = {
        let mut b = doc! {"ping": 1}.to_vec().unwrap();
        b.truncate(b.len() - 1);
        b
    };
    for bytes in [bad, truncated] {
        let reply = Document::from_reader(db.run_command_raw(&bytes).as_slice()).unwrap();
        let why = Document::from_reader(bytes.as_slice()).unwrap_err();
        assert_eq!(reply.get_str("errmsg").unwrap(), format!("invalid BSON command: {why}"));
        assert_eq!(reply.get_i32("code").unwrap(), 22);
    }
}

/// The storage nesting limit (100 levels) applies to what an update writes: a new field, or the
/// elements `$push` appends to a stored array (the stored elements are not walked again).
#[test]
fn updates_check_the_nesting_limit_of_what_they_write() {
    let nested = |levels: usize| (0..levels).fold(Bson::Int32(1), |inner, _| Bson::Document(doc! {"x": inner}));
    let deep = err(15, "Overflow", "Document exceeds maximum nesting depth of 100");
    let update = |u: Document| doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": u}]};
    let cases = [
        (doc! {"$set": {"a": nested(99)}}, None),
        (doc! {"$set": {"a": nested(100)}}, Some(&deep)),
        (doc! {"$push": {"arr": nested(98)}}, None),
        (doc! {"$push": {"arr": nested(99)}}, Some(&deep)),
        (doc! {"$push": {"arr": {"$each": [1, nested(99)]}}}, Some(&deep)),
    ];
    for (u, expected) in cases {
        let mut db = new_db();
        run_setup(&mut db, &[ins(vec![doc! {"_id": 1, "arr": [1, 2]}])]);
        let before = db.run_command(&find_all());
        let r = db.run_command(&update(u.clone()));
        match expected {
            None => contains(&r, &doc! {"ok": 1.0, "nModified": 1}).unwrap(),
            Some(e) => {
                let errors = r.get_array("writeErrors").unwrap_or_else(|_| panic!("{u} should fail: {r}"));
                let first = errors[0].as_document().unwrap();
                assert_eq!(first.get_i32("code").ok(), e.get_i32("code").ok(), "{u}: {r}");
                assert!(first.get_str("errmsg").unwrap().ends_with(e.get_str("errmsg").unwrap()), "{u}: {r}");
                assert_eq!(db.run_command(&find_all()), before);
            }
        }
    }
}

/// The positional `$` takes the position from the last array predicate in the server's canonical
/// order of the filter (match type, then path), not the filter's order: the 8.0 manual's example
/// on the `$` update operator (`grades` sorts after `deans_list`).
#[test]
fn positional_position_comes_from_the_last_array_in_canonical_order() {
    let mut db = new_db();
    let student = doc! {"_id": 8, "activity_ids": [1, 2], "grades": [90, 95], "deans_list": [2021, 2020]};
    run_setup(&mut db, &[ins(vec![student])]);
    let r = db.run_command(&doc! {"update": "c", "updates": [{"q": {"activity_ids": 1, "grades": 95, "deans_list": 2021}, "u": {"$set": {"deans_list.$": 2022}}}]});
    assert_eq!(r.get("nModified"), Some(&Bson::Int32(1)), "{r}");
    let r = db.run_command(&doc! {"find": "c", "filter": {}});
    assert_eq!(format!("{:?}", r.get_document("cursor").unwrap().get_array("firstBatch").unwrap()[0]), format!("{:?}", Bson::Document(doc! {"_id": 8, "activity_ids": [1, 2], "grades": [90, 95], "deans_list": [2021, 2022]})));
    // The same order picks the position of a positional projection; a $gt sorts after an
    // equality whatever the paths.
    let r = db.run_command(&doc! {"find": "c", "filter": {"grades": {"$gt": 91}, "activity_ids": 1}, "projection": {"deans_list.$": 1}});
    assert_eq!(r.get_document("cursor").unwrap().get_array("firstBatch").unwrap()[0], Bson::Document(doc! {"_id": 8, "deans_list": [2022]}), "{r}");
    let r = db.run_command(&doc! {"find": "c", "filter": {"grades": 95, "activity_ids": 1}, "projection": {"deans_list.$": 1}});
    assert_eq!(r.get_document("cursor").unwrap().get_array("firstBatch").unwrap()[0], Bson::Document(doc! {"_id": 8, "deans_list": [2022]}), "{r}");
    let r = db.run_command(&doc! {"find": "c", "filter": {"activity_ids": 1, "$and": [{"grades": 90}]}, "projection": {"deans_list.$": 1}});
    assert_eq!(r.get_document("cursor").unwrap().get_array("firstBatch").unwrap()[0], Bson::Document(doc! {"_id": 8, "deans_list": [2021]}), "{r}");
}

/// `validate` checks the documents and every index against them, with the server's reply shape.
#[test]
fn validate_checks_documents_and_indexes() {
    let mut db = new_db();
    run_setup(
        &mut db,
        &[
            ins(vec![doc! {"_id": 1, "a": [1, 2], "b": {"c": 1}}, doc! {"_id": 2, "a": 3}, doc! {"_id": 3}]),
            doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"b.c": 1}, "name": "bc", "sparse": true}]},
            doc! {"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"a": [4, 5, 6]}}}]},
            doc! {"delete": "c", "deletes": [{"q": {"_id": 3}, "limit": 1}]},
        ],
    );
    let r = db.run_command(&doc! {"validate": "c"});
    let keys: Vec<&str> = r.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["ns", "uuid", "nInvalidDocuments", "nNonCompliantDocuments", "nrecords", "nIndexes", "keysPerIndex", "indexDetails", "valid", "repaired", "warnings", "errors", "extraIndexEntries", "missingIndexEntries", "corruptRecords", "ok"]
    );
    contains(
        &r,
        &doc! {
            "ns": "test.c", "nInvalidDocuments": 0, "nrecords": 2, "nIndexes": 3,
            "keysPerIndex": {"_id_": 2, "a_1": 5, "bc": 1},
            "indexDetails": {"_id_": {"valid": true}, "a_1": {"valid": true}, "bc": {"valid": true}},
            "valid": true, "warnings": [], "errors": [], "ok": 1.0,
        },
    )
    .unwrap();
    assert_eq!(db.run_command(&doc! {"validate": "nothere"}).get("code"), Some(&Bson::Int32(26)));
    assert_eq!(db.run_command(&doc! {"validate": "c", "full": "yes"}).get("code"), Some(&Bson::Int32(14)));
}

/// `{$meta: "sortKey"}` in a find projection: the sort key, one element per sort field (the
/// value the sort used: the smallest of an array ascending); BadValue without a sort.
#[test]
fn meta_sort_key_in_find_projections() {
    let mut db = new_db();
    run_setup(&mut db, &[ins(vec![doc! {"_id": 1, "a": 2, "b": [5, 1]}, doc! {"_id": 2, "a": 1, "b": 3}])]);
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "sort": {"a": 1}, "projection": {"k": {"$meta": "sortKey"}, "a": 1}});
    contains(&r, &batch(vec![doc! {"_id": 2, "a": 1, "k": [1]}, doc! {"_id": 1, "a": 2, "k": [2]}])).unwrap();
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "sort": {"b": 1, "a": -1}, "projection": {"_id": 0, "k": {"$meta": "sortKey"}}});
    // With only `_id: 0` beside it, the projection is an exclusion: the other fields stay.
    contains(&r, &batch(vec![doc! {"a": 2, "b": [5, 1], "k": [1, 2]}, doc! {"a": 1, "b": 3, "k": [3, 1]}])).unwrap();
    let r = db.run_command(&doc! {"find": "c", "filter": {}, "projection": {"k": {"$meta": "sortKey"}}});
    contains(&r, &err(2, "BadValue", "cannot use sortKey $meta projection without a sort")).unwrap();
}

/// findAndModify plans its query as a find does: `{$meta: "sortKey"}` in `fields` is the sort
/// key of the document the sort chose (for `new: true` too: the server keeps the pre-image's
/// sort key through the update); BadValue without a sort.
#[test]
fn meta_sort_key_in_find_and_modify() {
    let mut db = new_db();
    run_setup(&mut db, &[ins(vec![doc! {"_id": 1, "a": 2}, doc! {"_id": 2, "a": 1}])]);
    let r = db.run_command(&doc! {"findAndModify": "c", "query": {}, "sort": {"a": 1}, "fields": {"k": {"$meta": "sortKey"}, "a": 1}, "update": {"$set": {"a": 7}}, "new": true});
    assert_eq!(r.get("value"), Some(&Bson::Document(doc! {"_id": 2, "a": 7, "k": [1]})), "{r}");
    let r = db.run_command(&doc! {"findAndModify": "c", "query": {}, "sort": {"a": -1}, "fields": {"k": {"$meta": "sortKey"}}, "remove": true});
    assert_eq!(r.get("value"), Some(&Bson::Document(doc! {"_id": 2, "a": 7, "k": [7]})), "{r}");
    let r = db.run_command(&doc! {"findAndModify": "c", "query": {}, "fields": {"k": {"$meta": "sortKey"}}, "update": {"$set": {"b": 1}}});
    contains(&r, &err(2, "BadValue", "cannot use sortKey $meta projection without a sort")).unwrap();
    // Nothing was written by the refused command.
    let r = db.run_command(&doc! {"count": "c", "query": {"b": 1}});
    assert_eq!(r.get("n"), Some(&Bson::Int32(0)));
}

#[test]
fn an_anchored_regex_scans_its_prefix_of_an_ordinary_index() {
    let mut db = crate::common::db_after(
        5,
        &[
            doc! {"insert": "t", "documents": [
                {"_id": 1, "path": ",0,1,"}, {"_id": 2, "path": ",0,1,7,"}, {"_id": 3, "path": ",0,1,7,9,"},
                {"_id": 4, "path": ",0,2,"}, {"_id": 5, "path": ",0,12,"}, {"_id": 6, "path": 5},
            ]},
            doc! {"createIndexes": "t", "indexes": [{"key": {"path": 1}, "name": "path_1"}]},
        ],
    );
    // The descendants of 1: the keys from ",0,1," up to ",0,1-" and the regex values.
    let q = doc! {"find": "t", "filter": {"path": {"$regex": "^,0,1,"}}};
    let (plan, stats) = explain(&mut db, q.clone());
    let ix = plan.get_document("inputStage").unwrap();
    assert_eq!(ix.get_str("indexName").ok(), Some("path_1"), "{plan}");
    assert_eq!(ix.get_document("indexBounds").unwrap(), &doc! {"path": ["[\",0,1,\", \",0,1-\")", "[/^,0,1,/, /^,0,1,/]"]});
    contains(&stats, &doc! {"nReturned": 3, "totalKeysExamined": 3, "totalDocsExamined": 3}).unwrap();
    assert_eq!(ids(&db.run_command(&q)), [1, 2, 3]);
    // Unanchored, or case-insensitive: every string key is read, the filter decides. (The
    // server tests the regex on each key before fetching, so it examines 2 documents; the
    // engine fetches the 5 and filters them.)
    let (plan, stats) = explain(&mut db, doc! {"find": "t", "filter": {"path": {"$regex": "1,7", "$options": "i"}}});
    assert_eq!(plan.get_document("inputStage").unwrap().get_document("indexBounds").unwrap(), &doc! {"path": ["[\"\", {})", "[/1,7/i, /1,7/i]"]});
    contains(&stats, &doc! {"nReturned": 2, "totalKeysExamined": 5}).unwrap();
}
