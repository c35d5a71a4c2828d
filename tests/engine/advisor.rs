//! `ppAdvise` (crate::advisor): each detector on a fixture built to contain its anti-pattern,
//! with the evidence it reports, and nothing on a clean collection.

use bson::{doc, Bson, Document};
use pattern_playground::db::Database;

fn new_db() -> Database {
    crate::common::fixed_db(5)
}

fn ok(db: &mut Database, cmd: Document) -> Document {
    crate::common::ok(db, &cmd)
}

fn findings(r: &Document) -> Vec<Document> {
    r.get_array("findings").unwrap().iter().map(|f| f.as_document().unwrap().clone()).collect()
}

fn kinds(r: &Document) -> Vec<String> {
    findings(r).iter().map(|f| f.get_str("kind").unwrap().to_string()).collect()
}

#[test]
fn large_arrays_and_bloated_documents() {
    let mut db = new_db();
    let mut docs: Vec<Document> = (0..20).map(|i| doc! {"_id": i, "title": "post", "comments": [{"by": "a"}]}).collect();
    let many: Vec<Bson> = (0..1500).map(|i| Bson::Document(doc! {"by": format!("user{i}"), "likes": [1, 2]})).collect();
    let many_copy = many.clone();
    docs.push(doc! {"_id": 100, "title": "viral", "comments": many});
    ok(&mut db, doc! {"insert": "posts", "documents": docs});
    let r = ok(&mut db, doc! {"ppAdvise": "posts"});
    assert_eq!(kinds(&r), vec!["largeArray", "bloatedDocument"]);
    let f = &findings(&r)[0];
    assert_eq!(f.get_str("lesson").unwrap(), "subset");
    let ev = f.get_document("evidence").unwrap();
    assert_eq!(ev.get_str("path").unwrap(), "comments");
    assert_eq!(ev.get_i32("maxLength").unwrap(), 1500);
    assert_eq!(ev.get("maxLengthId"), Some(&Bson::Int32(100)));
    assert_eq!(ev.get_array("ids").unwrap(), &vec![Bson::Int32(100)]);
    // The viral post is far above the median size: the Outlier pattern.
    let b = &findings(&r)[1];
    assert_eq!(b.get_str("lesson").unwrap(), "outlier");
    let ev = b.get_document("evidence").unwrap();
    let size = db.collection("test", "posts").unwrap().iter().last().unwrap().1.size() as i32;
    assert_eq!(ev.get_array("examples").unwrap(), &vec![Bson::Document(doc! {"_id": 100, "bytes": size})]);
    // What makes it heavy, for the migration draft: the comments array, key and all.
    let comments_bytes = doc! {"comments": many_copy}.to_vec().unwrap().len() as i32 - 5;
    assert_eq!(ev.get_document("heaviestField").unwrap(), &doc! {"path": "comments", "bytes": comments_bytes, "array": true});
    // Thresholds are the caller's: a lower array length flags the short arrays too.
    let r = ok(&mut db, doc! {"ppAdvise": "posts", "arrayLength": 1, "medianFactor": 1000});
    let arrays: Vec<String> = findings(&r).iter().filter(|f| f.get_str("kind").unwrap() == "largeArray").map(|f| f.get_document("evidence").unwrap().get_str("path").unwrap().to_string()).collect();
    assert_eq!(arrays, vec!["comments", "comments.likes"]);
    // Near the 16 MiB limit.
    let big = "x".repeat(9 * 1024 * 1024);
    ok(&mut db, doc! {"insert": "files", "documents": [{"_id": 1, "blob": big}, {"_id": 2, "blob": "small"}]});
    let r = ok(&mut db, doc! {"ppAdvise": "files"});
    let f = &findings(&r)[0];
    assert_eq!(f.get_str("kind").unwrap(), "bloatedDocument");
    assert!(f.get_str("message").unwrap().contains("near the 16 MiB document limit"), "{f}");
}

/// Array paths through embedded documents and through arrays of documents; an array's own
/// array elements are not paths of their own; the longest array's document, evidence in order.
#[test]
fn array_paths_at_every_depth() {
    let mut db = new_db();
    ok(&mut db, doc! {"insert": "nested", "documents": [
        {"_id": 1, "meta": {"tags": [1, 2, 3], "n": 1}, "grid": [[1, 2], [3]], "list": [{"inner": {"deep": [1]}}, 5]},
        {"_id": "two", "meta": {"tags": [1, 2, 3, 4]}, "list": [{"inner": {"deep": [1, 2]}}, {"inner": {"deep": []}}]},
        {"meta": {"tags": []}},
    ]});
    let r = ok(&mut db, doc! {"ppAdvise": "nested", "arrayLength": 2});
    let arrays: Vec<Document> = findings(&r).iter().filter(|f| f.get_str("kind").unwrap() == "largeArray").map(|f| f.get_document("evidence").unwrap().clone()).collect();
    let summary: Vec<(String, i32, Bson, i32, Vec<Bson>)> = arrays
        .iter()
        .map(|e| (e.get_str("path").unwrap().to_string(), e.get_i32("maxLength").unwrap(), e.get("maxLengthId").unwrap().clone(), e.get_i32("documents").unwrap(), e.get_array("ids").unwrap().clone()))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("grid".to_string(), 2, Bson::Int32(1), 1, vec![Bson::Int32(1)]),
            ("list".to_string(), 2, Bson::Int32(1), 2, vec![Bson::Int32(1), Bson::String("two".into())]),
            ("list.inner.deep".to_string(), 2, Bson::String("two".into()), 1, vec![Bson::String("two".into())]),
            ("meta.tags".to_string(), 4, Bson::String("two".into()), 2, vec![Bson::Int32(1), Bson::String("two".into())]),
        ]
    );
}

#[test]
fn redundant_unused_indexes_and_case_insensitive_regexes() {
    let mut db = new_db();
    ok(&mut db, doc! {"insert": "users", "documents": [{"_id": 1, "email": "A@x", "name": "Ann", "age": 30, "city": "P"}]});
    ok(&mut db, doc! {"createIndexes": "users", "indexes": [
        {"key": {"name": 1}, "name": "name_1"},
        {"key": {"name": 1, "age": 1}, "name": "name_1_age_1"},
        {"key": {"email": 1}, "name": "email_1", "unique": true},
        {"key": {"city": 1}, "name": "city_1"},
        {"key": {"age": -1}, "name": "age_-1"},
        {"key": {"age": -1, "city": 1}, "name": "age_-1_city_1", "partialFilterExpression": {"age": {"$gt": 5}}},
    ]});
    let ci = |p: &str| Bson::RegularExpression(bson::Regex { pattern: p.to_string().try_into().unwrap(), options: "i".to_string().try_into().unwrap() });
    let queries = vec![
        Bson::Document(doc! {"filter": {"city": "P"}}),
        Bson::Document(doc! {"filter": {"email": "A@x"}}),
        Bson::Document(doc! {"filter": {"email": {"$regex": "^a@", "$options": "i"}}}),
        Bson::Document(doc! {"filter": {"$or": [{"nick": ci("an")}, {"_id": 3}]}}),
        Bson::Document(doc! {"filter": {"_id": 1}}),
    ];
    let r = ok(&mut db, doc! {"ppAdvise": "users", "queries": queries});
    let got: Vec<(String, String)> = findings(&r)
        .iter()
        .map(|f| {
            let ev = f.get_document("evidence").unwrap();
            (f.get_str("kind").unwrap().to_string(), ev.get_str("index").or_else(|_| ev.get_str("field")).unwrap().to_string())
        })
        .collect();
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        got,
        vec![
            // name_1 is a prefix of name_1_age_1; email_1 is unique, age_-1's longer index is partial.
            pair("redundantIndex", "name_1"),
            pair("unusedIndex", "name_1"),
            pair("unusedIndex", "name_1_age_1"),
            pair("unusedIndex", "age_-1"),
            pair("unusedIndex", "age_-1_city_1"),
            pair("caseInsensitiveRegex", "email"),
            pair("caseInsensitiveRegex", "nick"),
        ]
    );
    let regex = findings(&r).into_iter().find(|f| f.get_str("kind").unwrap() == "caseInsensitiveRegex").unwrap();
    assert_eq!(regex.get_document("evidence").unwrap().get_array("regexes").unwrap(), &vec![Bson::String("/^a@/i".into())]);
    // Without queries, no index is called unused.
    let r = ok(&mut db, doc! {"ppAdvise": "users"});
    assert_eq!(kinds(&r), vec!["redundantIndex"]);
}

#[test]
fn a_clean_collection_has_no_findings() {
    let mut db = new_db();
    let docs: Vec<Document> = (0..50).map(|i| doc! {"_id": i, "tags": ["a", "b"], "n": i}).collect();
    ok(&mut db, doc! {"insert": "c", "documents": docs});
    ok(&mut db, doc! {"createIndexes": "c", "indexes": [{"key": {"n": 1}, "name": "n_1"}]});
    let r = ok(&mut db, doc! {"ppAdvise": "c", "queries": [{"filter": {"n": {"$gt": 3}}, "sort": {"n": 1}}]});
    assert_eq!(kinds(&r), Vec::<String>::new());
    let r = db.run_command(&doc! {"ppAdvise": "nope"});
    assert_eq!(r.get_str("codeName").unwrap(), "NamespaceNotFound");
}

#[test]
fn reads_that_always_join_another_collection() {
    let mut db = new_db();
    ok(&mut db, doc! {"insert": "orders", "documents": [{"_id": 1, "customerId": 7, "total": 5}]});
    ok(&mut db, doc! {"insert": "customers", "documents": [{"_id": 7, "name": "Ann"}]});
    let join = doc! {"from": "customers", "localField": "customerId", "foreignField": "_id", "as": "customer"};
    let other = doc! {"from": "returns", "localField": "_id", "foreignField": "orderId", "as": "returns"};
    let read = |lookups: Vec<Document>| Bson::Document(doc! {"filter": {}, "lookups": lookups});
    // Two reads, both joining customers (one also joins returns): data read together, stored apart.
    let r = ok(&mut db, doc! {"ppAdvise": "orders", "queries": [read(vec![join.clone()]), read(vec![other.clone(), join.clone()])]});
    let f = findings(&r).into_iter().find(|f| f.get_str("kind").unwrap() == "lookupOnRead").unwrap();
    assert_eq!(f.get_str("lesson").unwrap(), "extended-reference");
    assert_eq!(f.get_document("evidence").unwrap(), &doc! {"from": "customers", "reads": 2, "lookup": join.clone()});
    assert!(f.get_str("message").unwrap().starts_with("every one of the session's 2 reads of 'orders' joins 'customers' with $lookup"), "{f}");
    let lookup_kinds = |r: &Document| kinds(r).into_iter().filter(|k| k == "lookupOnRead").count();
    // A read that does not join, or a single read, is not "every read".
    let r = ok(&mut db, doc! {"ppAdvise": "orders", "queries": [read(vec![join.clone()]), read(vec![]), read(vec![join.clone()])]});
    assert_eq!(lookup_kinds(&r), 0);
    let r = ok(&mut db, doc! {"ppAdvise": "orders", "queries": [read(vec![join.clone()])]});
    assert_eq!(lookup_kinds(&r), 0);
    let r = ok(&mut db, doc! {"ppAdvise": "orders", "lookupReads": 1, "queries": [read(vec![join.clone()])]});
    assert_eq!(lookup_kinds(&r), 1);
    let r = db.run_command(&doc! {"ppAdvise": "orders", "queries": [{"lookups": 1}]});
    assert_eq!(r.get_str("errmsg").unwrap(), "BSON field 'ppAdvise.queries.0.lookups' is the wrong type 'int', expected type 'array'");
}

#[test]
fn many_collections_of_one_shape() {
    let mut db = new_db();
    for month in ["2024_01", "2024_02"] {
        let docs: Vec<Document> = (0..3).map(|i| doc! {"_id": i, "day": i + 1, "celsius": 20.5}).collect();
        ok(&mut db, doc! {"insert": format!("temps_{month}"), "documents": docs});
    }
    ok(&mut db, doc! {"insert": "users", "documents": [{"_id": 1, "day": 1, "name": "Ann"}]});
    ok(&mut db, doc! {"insert": "ids", "documents": [{"_id": 1, "day": 1}]});
    let shape_kinds = |r: &Document| kinds(r).into_iter().filter(|k| k == "sameShapeCollections").count();
    // Two of a shape are not many (the default asks for three).
    assert_eq!(shape_kinds(&ok(&mut db, doc! {"ppAdvise": "temps_2024_01"})), 0);
    ok(&mut db, doc! {"insert": "temps_2024_03", "documents": [{"_id": 1, "celsius": 19, "day": 1}]});
    let r = ok(&mut db, doc! {"ppAdvise": "temps_2024_02"});
    let f = findings(&r).into_iter().find(|f| f.get_str("kind").unwrap() == "sameShapeCollections").unwrap();
    assert_eq!(f.get_str("lesson").unwrap(), "polymorphic");
    assert_eq!(
        f.get_document("evidence").unwrap(),
        &doc! {"collections": ["temps_2024_01", "temps_2024_02", "temps_2024_03"], "fields": ["celsius", "day"], "documents": 7}
    );
    // Other shapes are not counted, and a collection of a single field besides _id has no shape to share.
    assert_eq!(shape_kinds(&ok(&mut db, doc! {"ppAdvise": "users"})), 0);
    ok(&mut db, doc! {"insert": "ids2", "documents": [{"_id": 1, "day": 1}]});
    ok(&mut db, doc! {"insert": "ids3", "documents": [{"_id": 1, "day": 2}]});
    assert_eq!(shape_kinds(&ok(&mut db, doc! {"ppAdvise": "ids"})), 0);
    assert_eq!(shape_kinds(&ok(&mut db, doc! {"ppAdvise": "users", "sameShapeCollections": 2})), 0);
    assert_eq!(shape_kinds(&ok(&mut db, doc! {"ppAdvise": "temps_2024_01", "sameShapeCollections": 4})), 0);
}
