//! Wildcard indexes (`{ "specs.$**": 1 }`, `{ "$**": 1 }`): the keys they hold, the queries
//! the planner answers with them (one expanded index per queried path, as the server's
//! `planner_wildcard_helpers.cpp`) and the ones it must not, and explain's view of the scan.

use bson::{doc, Bson, Document};
use pattern_playground::db::Database;

use crate::common::int;

/// Runs `cmd`, which must succeed (`common::ok`, taking the command by value).
fn run(db: &mut Database, cmd: Document) -> Document {
    crate::common::ok(db, &cmd)
}

/// 600 products whose `specs` hold some of five specifications (a seeded generator), and
/// every fifth product a `tags` array.
fn products() -> Vec<Document> {
    let mut x: u32 = 17;
    let mut rnd = move || {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (x >> 8) as f64 / (1u32 << 24) as f64
    };
    let colors = ["red", "black", "white", "steel"];
    (0..600)
        .map(|i| {
            let mut specs = Document::new();
            if rnd() < 0.5 {
                specs.insert("color", colors[(rnd() * 4.0) as usize]);
            }
            if rnd() < 0.4 {
                specs.insert("watts", 100 * (1 + (rnd() * 30.0) as i32));
            }
            if rnd() < 0.3 {
                specs.insert("wifi", rnd() < 0.5);
            }
            if rnd() < 0.2 {
                specs.insert("size", doc! {"w": (rnd() * 90.0) as i32, "h": (rnd() * 90.0) as i32});
            }
            if i % 5 == 0 {
                specs.insert("tags", vec![Bson::String("eco".into()), Bson::String(format!("t{}", i % 3))]);
            }
            doc! {"_id": i, "name": format!("Product {i}"), "specs": specs}
        })
        .collect()
}

fn db_with(index: Document) -> (Database, Vec<Document>) {
    let mut db = Database::new();
    let docs = products();
    run(&mut db, doc! {"insert": "p", "documents": docs.clone()});
    run(&mut db, doc! {"createIndexes": "p", "indexes": [index]});
    (db, docs)
}

fn explain(db: &mut Database, find: Document) -> (Document, Document) {
    let mut find = find;
    if !find.contains_key("find") {
        let f = find.clone();
        find = doc! {"find": "p"};
        find.extend(f);
    }
    let r = run(db, doc! {"explain": find, "verbosity": "executionStats"});
    let win = r.get_document("queryPlanner").unwrap().get_document("winningPlan").unwrap().clone();
    let st = r.get_document("executionStats").unwrap().clone();
    (win, st)
}

/// The IXSCAN under a winning plan (under FETCH, or SORT then FETCH).
fn ixscan(win: &Document) -> Option<Document> {
    let mut d = win.clone();
    loop {
        if d.get_str("stage").ok() == Some("IXSCAN") {
            return Some(d);
        }
        d = d.get_document("inputStage").ok()?.clone();
    }
}

fn strs(v: &[&str]) -> Bson {
    Bson::Array(v.iter().map(|s| Bson::String(s.to_string())).collect())
}

/// The values `path` (no arrays on it) has in `docs`.
fn values<'a>(docs: &'a [Document], path: &str) -> Vec<&'a Bson> {
    docs.iter()
        .filter_map(|d| {
            let mut v: &Bson = d.get(path.split('.').next().unwrap())?;
            for p in path.split('.').skip(1) {
                v = v.as_document()?.get(p)?;
            }
            Some(v)
        })
        .collect()
}

#[test]
fn an_equality_scans_the_keys_of_one_path_and_value() {
    let (mut db, docs) = db_with(doc! {"key": {"specs.$**": 1}, "name": "specs.$**_1"});
    let red = values(&docs, "specs.color").into_iter().filter(|v| v.as_str() == Some("red")).count() as i64;
    assert!(red > 20, "{red}");
    let (win, st) = explain(&mut db, doc! {"filter": {"specs.color": "red"}});
    assert_eq!(win.get_str("stage").unwrap(), "FETCH", "{win}");
    let ix = ixscan(&win).expect("an index scan");
    assert_eq!(ix.get_document("keyPattern").unwrap(), &doc! {"$_path": 1, "specs.color": 1});
    assert_eq!(ix.get_str("indexName").unwrap(), "specs.$**_1");
    assert_eq!(ix.get_bool("isMultiKey").unwrap(), false);
    assert_eq!(ix.get_document("multiKeyPaths").unwrap(), &doc! {"$_path": [], "specs.color": []});
    assert_eq!(ix.get_bool("isSparse").unwrap(), false);
    assert_eq!(
        ix.get_document("indexBounds").unwrap(),
        &doc! {"$_path": strs(&["[\"specs.color\", \"specs.color\"]"]), "specs.color": strs(&["[\"red\", \"red\"]"])}
    );
    assert_eq!((int(&st, "nReturned"), int(&st, "totalKeysExamined"), int(&st, "totalDocsExamined")), (red, red, red));
    // The same query without the index reads every product.
    let (win, st) = explain(&mut db, doc! {"filter": {"specs.color": "red"}, "hint": {"$natural": 1}});
    assert_eq!(win.get_str("stage").unwrap(), "COLLSCAN");
    assert_eq!((int(&st, "nReturned"), int(&st, "totalDocsExamined")), (red, 600));
}

#[test]
fn ranges_in_lists_exists_and_regex_prefixes_have_bounds_on_the_path() {
    let (mut db, docs) = db_with(doc! {"key": {"specs.$**": 1}, "name": "w"});
    let watts: Vec<i64> = values(&docs, "specs.watts").into_iter().map(|v| v.as_i32().unwrap() as i64).collect();
    let big = watts.iter().filter(|w| **w >= 2500).count() as i64;
    let (win, st) = explain(&mut db, doc! {"filter": {"specs.watts": {"$gte": 2500}}});
    let ix = ixscan(&win).unwrap();
    assert_eq!(ix.get_document("indexBounds").unwrap().get("specs.watts").unwrap(), &strs(&["[2500, inf.0]"]));
    assert_eq!((int(&st, "nReturned"), int(&st, "totalKeysExamined"), int(&st, "totalDocsExamined")), (big, big, big));

    let colors = values(&docs, "specs.color");
    let some = colors.iter().filter(|v| matches!(v.as_str(), Some("red" | "steel"))).count() as i64;
    let (win, st) = explain(&mut db, doc! {"filter": {"specs.color": {"$in": ["steel", "red"]}}});
    let ix = ixscan(&win).unwrap();
    assert_eq!(ix.get_document("indexBounds").unwrap().get("specs.color").unwrap(), &strs(&["[\"red\", \"red\"]", "[\"steel\", \"steel\"]"]));
    assert_eq!((int(&st, "nReturned"), int(&st, "totalKeysExamined")), (some, some));

    // `$exists: true` scans the path and every path under it (an object there is indexed as
    // its leaves), each document once.
    let sized = values(&docs, "specs.size").len() as i64;
    let (win, st) = explain(&mut db, doc! {"filter": {"specs.size": {"$exists": true}}});
    let ix = ixscan(&win).unwrap();
    assert_eq!(
        ix.get_document("indexBounds").unwrap(),
        &doc! {"$_path": strs(&["[\"specs.size\", \"specs.size\"]", "[\"specs.size.\", \"specs.size/\")"]), "specs.size": strs(&["[MinKey, MaxKey]"])}
    );
    assert_eq!((int(&st, "nReturned"), int(&st, "totalKeysExamined"), int(&st, "totalDocsExamined")), (sized, 2 * sized, sized));

    // `$type` scans its types' ranges; `$ne: null` every value (and the subpaths) of a path
    // without arrays.
    let numbers = watts.len() as i64;
    let (win, st) = explain(&mut db, doc! {"filter": {"specs.watts": {"$type": "number"}}});
    assert_eq!(ixscan(&win).unwrap().get_document("indexBounds").unwrap().get("specs.watts").unwrap(), &strs(&["[nan.0, inf.0]"]));
    assert_eq!((int(&st, "nReturned"), int(&st, "totalKeysExamined")), (numbers, numbers));
    let (win, _) = explain(&mut db, doc! {"filter": {"specs.color": {"$type": ["string", "bool"]}}});
    assert_eq!(ixscan(&win).unwrap().get_document("indexBounds").unwrap().get("specs.color").unwrap(), &strs(&["[\"\", {}]", "[false, true]"]));
    let (win, st) = explain(&mut db, doc! {"filter": {"specs.watts": {"$ne": null}}});
    assert_eq!(
        ixscan(&win).unwrap().get_document("indexBounds").unwrap(),
        &doc! {"$_path": strs(&["[\"specs.watts\", \"specs.watts\"]", "[\"specs.watts.\", \"specs.watts/\")"]), "specs.watts": strs(&["[MinKey, MaxKey]"])}
    );
    assert_eq!((int(&st, "nReturned"), int(&st, "totalDocsExamined")), (numbers, numbers));
    let (win, _) = explain(&mut db, doc! {"filter": {"specs.tags": {"$ne": null}}});
    assert_eq!(win.get_str("stage").unwrap(), "COLLSCAN", "tags holds arrays: {win}");

    // An anchored regex scans the strings with its prefix.
    let st_count = colors.iter().filter(|v| v.as_str().is_some_and(|s| s.starts_with("st"))).count() as i64;
    let (win, st) = explain(&mut db, doc! {"filter": {"specs.color": {"$regex": "^st"}}});
    let ix = ixscan(&win).unwrap();
    assert_eq!(ix.get_document("indexBounds").unwrap().get("specs.color").unwrap(), &strs(&["[\"st\", \"su\")", "[/^st/, /^st/]"]));
    assert_eq!((int(&st, "nReturned"), int(&st, "totalKeysExamined")), (st_count, st_count));
    // An alternation has no prefix: every string is scanned.
    let (win, st) = explain(&mut db, doc! {"filter": {"specs.color": {"$regex": "^x|st"}}});
    assert_eq!(ixscan(&win).unwrap().get_document("indexBounds").unwrap().get("specs.color").unwrap(), &strs(&["[\"\", {})", "[/^x|st/, /^x|st/]"]));
    assert_eq!((int(&st, "nReturned"), int(&st, "totalKeysExamined")), (st_count, colors.len() as i64));
}

#[test]
fn what_a_wildcard_index_cannot_answer_is_a_collection_scan() {
    let (mut db, _) = db_with(doc! {"key": {"specs.$**": 1}, "name": "w"});
    for filter in [
        doc! {"specs.color": null},
        doc! {"specs.color": {"$exists": false}},
        doc! {"specs.color": {"$ne": "red"}},
        doc! {"specs.color": {"$nin": ["red"]}},
        doc! {"specs.size": {"w": 3, "h": 4}},
        doc! {"specs.tags": ["eco", "t0"]},
        // A position in an array (`tags` is an array in some products).
        doc! {"specs.tags.0": "eco"},
        // Not under the index's path.
        doc! {"name": "Product 3"},
    ] {
        let (win, _) = explain(&mut db, doc! {"filter": filter.clone()});
        assert_eq!(win.get_str("stage").unwrap(), "COLLSCAN", "{filter}: {win}");
    }
    // A hinted wildcard index with nothing to scan is refused, as the server does.
    let r = db.run_command(&doc! {"find": "p", "filter": {"specs.color": null}, "hint": "w"});
    assert_eq!((r.get_i32("code").unwrap(), r.get_str("codeName").unwrap()), (291, "NoQueryExecutionPlans"), "{r}");
}

#[test]
fn arrays_make_the_path_multikey_and_take_away_the_sort() {
    let (mut db, docs) = db_with(doc! {"key": {"specs.$**": 1}, "name": "w"});
    let eco = docs.iter().filter(|d| d.get_document("specs").unwrap().contains_key("tags")).count() as i64;
    let (win, st) = explain(&mut db, doc! {"filter": {"specs.tags": "eco"}, "sort": {"specs.tags": 1}});
    assert_eq!(win.get_str("stage").unwrap(), "SORT", "{win}");
    let ix = ixscan(&win).unwrap();
    assert_eq!(ix.get_bool("isMultiKey").unwrap(), true);
    assert_eq!(ix.get_document("multiKeyPaths").unwrap(), &doc! {"$_path": [], "specs.tags": ["specs.tags"]});
    assert_eq!((int(&st, "nReturned"), int(&st, "totalKeysExamined")), (eco, eco));
    // On a path without arrays the index gives the sort (descending: a backward scan).
    let (win, _) = explain(&mut db, doc! {"filter": {"specs.watts": {"$gt": 1000}}, "sort": {"specs.watts": -1}});
    assert_eq!(win.get_str("stage").unwrap(), "FETCH", "{win}");
    assert_eq!(ixscan(&win).unwrap().get_str("direction").unwrap(), "backward");
    let r = run(&mut db, doc! {"find": "p", "filter": {"specs.watts": {"$gt": 1000}}, "sort": {"specs.watts": -1}, "batchSize": 1000});
    let got: Vec<i32> = r.get_document("cursor").unwrap().get_array("firstBatch").unwrap().iter().map(|d| d.as_document().unwrap().get_document("specs").unwrap().get_i32("watts").unwrap()).collect();
    let mut want: Vec<i32> = values(&docs, "specs.watts").into_iter().map(|v| v.as_i32().unwrap()).filter(|w| *w > 1000).collect();
    want.sort_by(|a, b| b.cmp(a));
    assert_eq!(got, want);
}

#[test]
fn the_planner_picks_the_path_with_fewer_keys() {
    let (mut db, docs) = db_with(doc! {"key": {"$**": 1}, "name": "all"});
    run(&mut db, doc! {"createIndexes": "p", "indexes": [{"key": {"name": 1}, "name": "name_1"}]});
    let red = values(&docs, "specs.color").into_iter().filter(|v| v.as_str() == Some("red")).count() as i64;
    let wifi = values(&docs, "specs.wifi").into_iter().filter(|v| v.as_bool() == Some(true)).count() as i64;
    assert!(red < wifi, "{red} {wifi}");
    let both = docs.iter().filter(|d| d.get_document("specs").is_ok_and(|s| s.get_str("color").ok() == Some("red") && s.get_bool("wifi").ok() == Some(true))).count() as i64;
    for filter in [doc! {"specs.color": "red", "specs.wifi": true}, doc! {"specs.wifi": true, "specs.color": "red"}] {
        let (win, st) = explain(&mut db, doc! {"filter": filter});
        let ix = ixscan(&win).unwrap();
        assert_eq!(ix.get_document("keyPattern").unwrap(), &doc! {"$_path": 1, "specs.color": 1}, "{win}");
        assert_eq!((int(&st, "totalKeysExamined"), int(&st, "totalDocsExamined"), int(&st, "nReturned")), (red, red, both));
    }
    // A top-level field is a path of `$**` too; a unique name beats it.
    let (win, _) = explain(&mut db, doc! {"filter": {"name": "Product 7", "specs.wifi": true}});
    assert_eq!(ixscan(&win).unwrap().get_str("indexName").unwrap(), "name_1");
    // `_id` is left out of `$**` unless projected.
    let r = run(&mut db, doc! {"validate": "p"});
    assert_eq!(r.get_bool("valid").unwrap(), true, "{r}");
}

#[test]
fn keys_follow_writes_and_projections() {
    let mut db = Database::new();
    run(&mut db, doc! {"createIndexes": "c", "indexes": [{"key": {"$**": 1}, "name": "all", "wildcardProjection": {"a": 1, "_id": 1}}]});
    run(&mut db, doc! {"insert": "c", "documents": [{"_id": 1, "a": {"b": 1}, "z": 1}, {"_id": 2, "a": [{"b": 2}, [3]], "z": 2}]});
    run(&mut db, doc! {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a.b": 5}}}]});
    run(&mut db, doc! {"delete": "c", "deletes": [{"q": {"_id": 2}, "limit": 1}]});
    let (win, st) = explain(&mut db, doc! {"find": "c", "filter": {"a.b": 5}});
    assert_eq!(ixscan(&win).unwrap().get_document("multiKeyPaths").unwrap(), &doc! {"$_path": [], "a.b": ["a"]}, "{win}");
    assert_eq!((int(&st, "nReturned"), int(&st, "totalKeysExamined")), (1, 1));
    let (win, _) = explain(&mut db, doc! {"find": "c", "filter": {"z": 1}});
    assert_eq!(win.get_str("stage").unwrap(), "COLLSCAN", "z is not projected: {win}");
    let v = run(&mut db, doc! {"validate": "c"});
    assert_eq!(v.get_bool("valid").unwrap(), true, "{v}");
    // `_id` projected: two keys for the one document (`_id` and `a.b`).
    assert_eq!(int(v.get_document("keysPerIndex").unwrap(), "all"), 2, "{v}");
}

#[test]
fn a_wildcard_index_is_never_sparse_unique_or_ttl() {
    let mut db = Database::new();
    for (option, value, msg) in [
        ("sparse", Bson::Boolean(true), "Index type 'wildcard' does not support the sparse option"),
        ("unique", Bson::Boolean(true), "Index type 'wildcard' does not support the unique option"),
        ("expireAfterSeconds", Bson::Int32(60), "Index type 'wildcard' cannot be a TTL index"),
    ] {
        let mut spec = doc! {"key": {"specs.$**": 1}, "name": "w"};
        spec.insert(option, value);
        let r = db.run_command(&doc! {"createIndexes": "c", "indexes": [spec]});
        assert_eq!((r.get_i32("code").ok(), r.get_str("errmsg").ok()), (Some(67), Some(msg)), "{r}");
    }
    for (key, projection, code, msg) in [
        (doc! {"a": 1}, Bson::Document(doc! {"a": 1}), 2, "The field 'wildcardProjection' is only allowed in 'wildcard' indexes"),
        (doc! {"$**": 1}, Bson::Int32(1), 14, "The field 'wildcardProjection' must be a non-empty object, but got int"),
        (doc! {"a.$**": 1}, Bson::Document(doc! {"a": 1}), 9, "The field 'wildcardProjection' is only allowed when 'key' is {\"$**\": ±1}"),
        (doc! {"$**": 1}, Bson::Document(doc! {}), 9, "The 'wildcardProjection' field can't be an empty object"),
    ] {
        let r = db.run_command(&doc! {"createIndexes": "c", "indexes": [{"key": key, "name": "w", "wildcardProjection": projection}]});
        assert_eq!((r.get_i32("code").ok(), r.get_str("errmsg").ok()), (Some(code), Some(msg)), "{r}");
    }
}
