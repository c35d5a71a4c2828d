//! Query filters, projections, sort and the upsert helpers: data-driven tables of
//! `(filter, expected _ids)` over shared document sets, and `(input, code, message)` for errors.

use bson::spec::BinarySubtype;
use bson::{doc, Binary, Bson, DateTime, Document, Regex};
use pattern_playground::env::Env;
use pattern_playground::query::projection::Projection;
use pattern_playground::query::sort::SortSpec;
use pattern_playground::query::{equality_fields, upsert_seed, MatchDetails, Matcher};

fn env() -> Env {
    Env::new(DateTime::from_millis(0))
}

fn re(p: &str, o: &str) -> Bson {
    Bson::RegularExpression(Regex { pattern: p.try_into().unwrap(), options: o.try_into().unwrap() })
}

fn dec(s: &str) -> Bson {
    Bson::Decimal128(s.parse().unwrap())
}

fn bin(bytes: &[u8]) -> Bson {
    Bson::Binary(Binary { subtype: BinarySubtype::Generic, bytes: bytes.to_vec() })
}

/// Documents `_id: 1..` with the given bodies.
fn numbered(bodies: Vec<Document>) -> Vec<Document> {
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, b)| {
            let mut d = doc! {"_id": (i + 1) as i32};
            d.extend(b);
            d
        })
        .collect()
}

fn matching_ids(filter: &Document, docs: &[Document]) -> Vec<i32> {
    let m = Matcher::parse(filter).unwrap_or_else(|e| panic!("{filter}: {e}"));
    let env = env();
    docs.iter().filter(|d| m.matches(d, &env).unwrap()).map(|d| d.get_i32("_id").unwrap()).collect()
}

/// Runs a table of `(filter, expected _ids)` over `docs`.
fn check(docs: &[Document], cases: Vec<(Document, Vec<i32>)>) {
    let mut failures = Vec::new();
    for (filter, expected) in cases {
        let got = matching_ids(&filter, docs);
        if got != expected {
            failures.push(format!("{filter}: expected {expected:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn all_except(n: i32, except: &[i32]) -> Vec<i32> {
    (1..=n).filter(|i| !except.contains(i)).collect()
}

/// Null, missing and undefined through arrays (MongoDB 8: null no longer matches undefined).
#[test]
fn null_missing_and_arrays() {
    let docs = numbered(vec![
        doc! {"a": null},                                     // 1
        doc! {"a": 4},                                        // 2
        doc! {"a": {}},                                       // 3
        doc! {"a": {"b": "hi"}},                              // 4
        doc! {"a": {"b": null}},                              // 5
        doc! {"a": Bson::Undefined},                          // 6
        doc! {},                                              // 7
        doc! {"a": [null, null]},                             // 8
        doc! {"a": [1, "string", 4]},                         // 9
        doc! {"a": [1, "string", null, 4]},                   // 10
        doc! {"a": []},                                       // 11
        doc! {"a": [[]]},                                     // 12
        doc! {"a": [{"b": null}, {"b": 3}]},                  // 13
        doc! {"a": [{"b": 1}, {"b": 3}]},                     // 14
        doc! {"a": [{"b": 3}, {}]},                           // 15
        doc! {"a": [1, "string", Bson::Undefined]},           // 16
        doc! {"a": {"b": Bson::Undefined}},                   // 17
    ]);
    check(
        &docs,
        vec![
            (doc! {"a": null}, vec![1, 7, 8, 10]),
            (doc! {"a": {"$eq": null}}, vec![1, 7, 8, 10]),
            (doc! {"a": {"$ne": null}}, all_except(17, &[1, 7, 8, 10])),
            (doc! {"a": {"$in": [null]}}, vec![1, 7, 8, 10]),
            (doc! {"a": {"$in": [null, 4]}}, vec![1, 2, 7, 8, 9, 10]),
            (doc! {"a": {"$nin": [null]}}, all_except(17, &[1, 7, 8, 10])),
            (doc! {"a": {"$gte": null}}, vec![1, 7, 8, 10]),
            (doc! {"a": {"$lte": null}}, vec![1, 7, 8, 10]),
            (doc! {"a": {"$lt": null}}, vec![]),
            (doc! {"a": {"$gt": null}}, vec![]),
            (doc! {"a": {"$exists": false}}, vec![7]),
            (doc! {"a": {"$exists": true}}, all_except(17, &[7])),
            (doc! {"a": {"$exists": 0}}, vec![7]),
            (doc! {"a": {"$type": "null"}}, vec![1, 8, 10]),
            (doc! {"a": {"$type": "undefined"}}, vec![6, 16]),
            (doc! {"a": {"$type": "array"}}, vec![8, 9, 10, 11, 12, 13, 14, 15, 16]),
            (doc! {"a": {"$elemMatch": {"$eq": null}}}, vec![8, 10]),
            (doc! {"a": {"$elemMatch": {"$ne": null}}}, vec![9, 10, 12, 13, 14, 15, 16]),
            (doc! {"a": {"$size": 0}}, vec![11]),
            (doc! {"a": {"$size": 2}}, vec![8, 13, 14, 15]),
            (doc! {"a": []}, vec![11, 12]),
            (doc! {"a": [null, null]}, vec![8]),
            (doc! {"a": {}}, vec![3, 15]),
            // Dotted paths: a scalar in the middle is missing; scalars inside an array yield nothing.
            (doc! {"a.b": null}, vec![1, 2, 3, 5, 6, 7, 13, 15]),
            (doc! {"a.b": {"$ne": null}}, vec![4, 8, 9, 10, 11, 12, 14, 16, 17]),
            (doc! {"a.b": {"$exists": false}}, vec![1, 2, 3, 6, 7, 8, 9, 10, 11, 12, 16]),
            (doc! {"a.b": {"$exists": true}}, vec![4, 5, 13, 14, 15, 17]),
            (doc! {"a.b": 3}, vec![13, 14, 15]),
            (doc! {"a.b": {"$in": [null, 1]}}, vec![1, 2, 3, 5, 6, 7, 13, 14, 15]),
            // A numeric component indexes the array and is also a field name of its documents.
            (doc! {"a.0": null}, vec![1, 2, 3, 4, 5, 6, 7, 8, 13, 14, 15, 17]),
            (doc! {"a.0": 1}, vec![9, 10, 16]),
            (doc! {"a.1.b": 3}, vec![13, 14]),
            // MinKey and MaxKey bound everything, missing fields included.
            (doc! {"a": {"$gt": Bson::MinKey}}, (1..=17).collect()),
            (doc! {"a": {"$lt": Bson::MaxKey}}, (1..=17).collect()),
            (doc! {"a": {"$lte": Bson::MinKey}}, vec![]),
        ],
    );
}

/// Comparison operators stay within a canonical type bracket; numbers compare across types.
#[test]
fn comparison_operators() {
    let docs = numbered(vec![
        doc! {"x": 5},                           // 1
        doc! {"x": 5.5},                         // 2
        doc! {"x": "5"},                         // 3
        doc! {"x": [1, 10]},                     // 4
        doc! {"x": 7i64},                        // 5
        doc! {"x": dec("6")},                    // 6
        doc! {"x": f64::NAN},                    // 7
        doc! {"x": null},                        // 8
        doc! {},                                 // 9
        doc! {"x": true},                        // 10
        doc! {"x": [[5]]},                       // 11
        doc! {"x": {"y": 5}},                    // 12
        doc! {"x": Bson::MinKey},                // 13
        doc! {"x": Bson::MaxKey},                // 14
        doc! {"x": DateTime::from_millis(0)},    // 15
    ]);
    check(
        &docs,
        vec![
            (doc! {"x": 5}, vec![1]),
            (doc! {"x": 5.0}, vec![1]),
            (doc! {"x": dec("5.00")}, vec![1]),
            (doc! {"x": [5]}, vec![11]),
            (doc! {"x": {"$gt": 5}}, vec![2, 4, 5, 6]),
            (doc! {"x": {"$gte": 5}}, vec![1, 2, 4, 5, 6]),
            (doc! {"x": {"$lt": 5}}, vec![4]),
            (doc! {"x": {"$lte": 5}}, vec![1, 4]),
            (doc! {"x": {"$gt": 4, "$lt": 6}}, vec![1, 2, 4]),
            (doc! {"x": {"$ne": 5}}, all_except(15, &[1])),
            (doc! {"x": {"$gt": "4"}}, vec![3]),
            (doc! {"x": {"$gt": false}}, vec![10]),
            (doc! {"x": {"$eq": f64::NAN}}, vec![7]),
            (doc! {"x": {"$gte": f64::NAN}}, vec![7]),
            (doc! {"x": {"$gt": f64::NAN}}, vec![]),
            (doc! {"x": {"$lt": 100}}, vec![1, 2, 4, 5, 6]),
            (doc! {"x": {"$in": [5, "5"]}}, vec![1, 3]),
            (doc! {"x": {"$in": [7, 6]}}, vec![5, 6]),
            (doc! {"x": {"$in": []}}, vec![]),
            (doc! {"x": {"$nin": [5, "5"]}}, all_except(15, &[1, 3])),
            (doc! {"x": {"$in": [re("^5", "")]}}, vec![3]),
            (doc! {"x": {"$in": [[5]]}}, vec![11]),
            (doc! {"x": {"$gt": Bson::MinKey}}, all_except(15, &[13])),
            (doc! {"x": {"$lt": Bson::MaxKey}}, all_except(15, &[14])),
            (doc! {"x": Bson::MinKey}, vec![13]),
            (doc! {"x": {"$gt": DateTime::from_millis(-1)}}, vec![15]),
            (doc! {"x": {"y": 5}}, vec![12]),
            (doc! {"x": {"y": 5.0}}, vec![12]),
            (doc! {"x.y": 5}, vec![12]),
            (doc! {"x": {"$gte": {"y": 4}}}, vec![12]),
            (doc! {"x": {"$gt": []}}, vec![4, 11]),
            (doc! {"x": {"$exists": true}}, all_except(15, &[9])),
        ],
    );
}

#[test]
fn logical_operators() {
    let docs = numbered(vec![
        doc! {"x": 5, "y": 1},      // 1
        doc! {"x": "5", "y": 2},    // 2
        doc! {"x": [1, 10]},        // 3
        doc! {"x": 6, "y": 1},      // 4
        doc! {"y": 1},              // 5
    ]);
    check(
        &docs,
        vec![
            (doc! {"$and": [{"x": {"$gte": 5}}, {"x": {"$lte": 6}}]}, vec![1, 3, 4]),
            (doc! {"$and": [{"x": 5}, {"y": 1}]}, vec![1]),
            (doc! {"$or": [{"x": 5}, {"x": "5"}]}, vec![1, 2]),
            (doc! {"$or": [{"x": 5}, {"y": 1}], "x": {"$type": "number"}}, vec![1, 4]),
            (doc! {"$nor": [{"x": 5}, {"x": "5"}]}, vec![3, 4, 5]),
            (doc! {"x": {"$not": {"$gt": 5}}}, vec![1, 2, 5]),
            (doc! {"x": {"$not": {"$gt": 5, "$lt": 7}}}, vec![1, 2, 5]),
            (doc! {"x": {"$not": re("^5", "")}}, vec![1, 3, 4, 5]),
            (doc! {"x": {"$not": {"$regex": "^5"}}}, vec![1, 3, 4, 5]),
            (doc! {"$comment": "just a note", "y": 1}, vec![1, 4, 5]),
            (doc! {}, vec![1, 2, 3, 4, 5]),
            (doc! {"$alwaysFalse": 1}, vec![]),
            (doc! {"$alwaysTrue": 1, "y": 2}, vec![2]),
            (doc! {"$and": [{"$or": [{"x": 5}, {"x": 6}]}, {"$nor": [{"y": 2}]}]}, vec![1, 4]),
        ],
    );
}

#[test]
fn array_operators() {
    let docs = numbered(vec![
        doc! {"tags": ["a", "b", "c"]},                                      // 1
        doc! {"tags": ["a"]},                                                // 2
        doc! {"tags": "a"},                                                  // 3
        doc! {"tags": [["a", "b"]]},                                         // 4
        doc! {"tags": []},                                                   // 5
        doc! {"items": [{"p": "x", "q": 1}, {"p": "y", "q": 5}]},            // 6
        doc! {"items": [{"p": "x", "q": 5}, {"p": "y", "q": 1}]},            // 7
        doc! {"items": {"p": "x", "q": 5}},                                  // 8
        doc! {"items": [[{"p": "x"}]]},                                      // 9
    ]);
    check(
        &docs,
        vec![
            (doc! {"tags": "a"}, vec![1, 2, 3]),
            (doc! {"tags": ["a"]}, vec![2]),
            (doc! {"tags": ["a", "b"]}, vec![4]),
            (doc! {"tags": {"$all": ["a", "b"]}}, vec![1]),
            (doc! {"tags": {"$all": ["a"]}}, vec![1, 2, 3]),
            (doc! {"tags": {"$all": [["a", "b"]]}}, vec![4]),
            (doc! {"tags": {"$all": [re("^b", "")]}}, vec![1]),
            (doc! {"tags": {"$all": []}}, vec![]),
            (doc! {"tags": {"$all": [{"$elemMatch": {"$eq": "a"}}, {"$elemMatch": {"$eq": "c"}}]}}, vec![1]),
            (doc! {"tags": {"$size": 1}}, vec![2, 4]),
            (doc! {"tags": {"$size": 0}}, vec![5]),
            (doc! {"tags": {"$size": 3.0}}, vec![1]),
            (doc! {"tags": {"$elemMatch": {"$eq": "a"}}}, vec![1, 2]),
            (doc! {"tags": {"$elemMatch": {"$gt": "a", "$lt": "c"}}}, vec![1]),
            (doc! {"tags": {"$elemMatch": {"$size": 2}}}, vec![4]),
            (doc! {"items": {"$elemMatch": {"p": "x", "q": {"$gt": 3}}}}, vec![7]),
            (doc! {"items": {"$elemMatch": {"p": "x"}}}, vec![6, 7]),
            (doc! {"items": {"$elemMatch": {"$or": [{"q": 5}, {"p": "z"}]}}}, vec![6, 7]),
            (doc! {"items": {"$elemMatch": {"0.p": "x"}}}, vec![9]),
            (doc! {"items.p": "x", "items.q": {"$gt": 3}}, vec![6, 7, 8]),
            (doc! {"items.q": 5}, vec![6, 7, 8]),
            (doc! {"items.1.q": 1}, vec![7]),
            (doc! {"items.p": "x"}, vec![6, 7, 8]),
            (doc! {"tags.0": "a"}, vec![1, 2]),
            (doc! {"tags.1": {"$exists": true}}, vec![1]),
            (doc! {"tags.0.1": "b"}, vec![4]),
        ],
    );
}

#[test]
fn regex_operators() {
    let docs = numbered(vec![
        doc! {"s": "apple"},                          // 1
        doc! {"s": "Apple pie"},                      // 2
        doc! {"s": ["banana", "cherry"]},             // 3
        doc! {"s": 5},                                // 4
        doc! {"s": re("^a", "")},                     // 5
        doc! {"s": "line1\nline2\n"},                 // 6
        doc! {"s": Bson::Symbol("apricot".into())},   // 7
        doc! {"s": "١٢"},                             // 8 (Arabic-Indic digits)
    ]);
    check(
        &docs,
        vec![
            (doc! {"s": re("^a", "")}, vec![1, 5, 7]),
            (doc! {"s": re("^a", "i")}, vec![1, 2, 7]),
            (doc! {"s": {"$regex": "^a", "$options": "i"}}, vec![1, 2, 7]),
            (doc! {"s": {"$options": "i", "$regex": "^a"}}, vec![1, 2, 7]),
            (doc! {"s": {"$regex": re("^a", "i")}}, vec![1, 2, 7]),
            (doc! {"s": {"$regex": "an"}}, vec![3]),
            (doc! {"s": {"$regex": "^line2", "$options": "m"}}, vec![6]),
            (doc! {"s": {"$regex": "^line2"}}, vec![]),
            (doc! {"s": {"$regex": "line1.line2", "$options": "s"}}, vec![6]),
            (doc! {"s": {"$regex": "line1.line2"}}, vec![]),
            (doc! {"s": {"$regex": "a p p # comment", "$options": "x"}}, vec![1]),
            (doc! {"s": {"$regex": "\\d"}}, vec![6]),
            (doc! {"s": {"$regex": "^[\\d]+$"}}, vec![]),
            (doc! {"s": {"$regex": "^\\D+$"}}, vec![1, 2, 3, 7, 8]),
            (doc! {"s": {"$in": [re("^b", ""), "apple"]}}, vec![1, 3]),
            (doc! {"s": {"$nin": [re("^b", ""), "apple"]}}, vec![2, 4, 5, 6, 7, 8]),
            (doc! {"s": {"$not": re("^a", "")}}, vec![2, 3, 4, 6, 8]),
            (doc! {"s": {"$regex": "(?<=app)le"}}, vec![1]),
            (doc! {"s": {"$regex": "(p)\\1"}}, vec![1, 2]),
            // PCRE's `$` also matches before a final newline.
            (doc! {"s": {"$regex": "line2$"}}, vec![6]),
            (doc! {"s": {"$regex": "line1$"}}, vec![]),
            (doc! {"s": {"$regex": "line1$", "$options": "m"}}, vec![6]),
            (doc! {"s": {"$regex": "[$]"}}, vec![]),
            // Issue 13: PCRE2 start-of-pattern options the server accepts. `(*UCP)` makes `\d`
            // Unicode; `(*UTF)` and limits change nothing here; `(*CR)` makes `.` match `\n`
            // and `$` no longer match before a final `\n`.
            (doc! {"s": {"$regex": "(*UTF)^a"}}, vec![1, 7]),
            (doc! {"s": {"$regex": "(*UCP)^\\d+$"}}, vec![8]),
            (doc! {"s": {"$regex": "(*UTF)(*UCP)^\\w+$"}}, vec![1, 3, 7, 8]),
            (doc! {"s": {"$regex": "(*LIMIT_MATCH=1000)(*NO_JIT)pie"}}, vec![2]),
            (doc! {"s": {"$regex": "(*CR)line1.line2"}}, vec![6]),
            (doc! {"s": {"$regex": "(*CR)line2$"}}, vec![]),
            (doc! {"s": {"$regex": "(*ANYCRLF)line2$"}}, vec![6]),
            (doc! {"s": {"$regex": "(*LF)line1.line2"}}, vec![]),
        ],
    );
}

#[test]
fn mod_and_bitwise_operators() {
    let docs = numbered(vec![
        doc! {"n": 10},          // 1
        doc! {"n": 11},          // 2
        doc! {"n": -11},         // 3
        doc! {"n": 10.9},        // 4
        doc! {"n": "10"},        // 5
        doc! {"n": f64::NAN},    // 6
        doc! {"n": dec("12.5")}, // 7
        doc! {"n": [3, 7]},      // 8
        doc! {"n": i64::MIN},    // 9
    ]);
    check(
        &docs,
        vec![
            (doc! {"n": {"$mod": [2, 0]}}, vec![1, 4, 7, 9]),
            (doc! {"n": {"$mod": [2, 1]}}, vec![2, 8]),
            (doc! {"n": {"$mod": [2, -1]}}, vec![3]),
            (doc! {"n": {"$mod": [2.5, 1]}}, vec![2, 8]),
            (doc! {"n": {"$mod": [-2, 1]}}, vec![2, 8]),
            (doc! {"n": {"$mod": [-1, 0]}}, vec![1, 2, 3, 4, 7, 8, 9]),
            (doc! {"n": {"$mod": [4, 3.9]}}, vec![2, 8]),
        ],
    );
    let docs = numbered(vec![
        doc! {"b": 54},          // 1: 0b110110
        doc! {"b": 20},          // 2: 0b010100
        doc! {"b": -1},          // 3
        doc! {"b": bin(&[54])},  // 4
        doc! {"b": 2.5},         // 5
        doc! {"b": "x"},         // 6
        doc! {"b": 54.0},        // 7
        doc! {"b": [20, 1]},     // 8
    ]);
    check(
        &docs,
        vec![
            (doc! {"b": {"$bitsAllSet": [1, 2]}}, vec![1, 3, 4, 7]),
            (doc! {"b": {"$bitsAllSet": 6}}, vec![1, 3, 4, 7]),
            (doc! {"b": {"$bitsAllSet": bin(&[6])}}, vec![1, 3, 4, 7]),
            (doc! {"b": {"$bitsAnySet": [0, 3]}}, vec![3, 8]),
            (doc! {"b": {"$bitsAllClear": [0, 3]}}, vec![1, 2, 4, 7, 8]),
            (doc! {"b": {"$bitsAnyClear": [1, 4]}}, vec![2, 8]),
            (doc! {"b": {"$bitsAllSet": [100]}}, vec![3]),
            (doc! {"b": {"$bitsAllSet": []}}, vec![1, 2, 3, 4, 7, 8]),
            (doc! {"b": {"$bitsAnySet": []}}, vec![]),
            (doc! {"b": {"$bitsAllClear": 0}}, vec![1, 2, 3, 4, 7, 8]),
        ],
    );
}

#[test]
fn type_operator() {
    let docs = numbered(vec![
        doc! {"v": 1},                              // 1
        doc! {"v": 1.5},                            // 2
        doc! {"v": 1i64},                           // 3
        doc! {"v": dec("1")},                       // 4
        doc! {"v": "s"},                            // 5
        doc! {"v": {"a": 1}},                       // 6
        doc! {"v": [1, "s"]},                       // 7
        doc! {"v": true},                           // 8
        doc! {"v": DateTime::from_millis(1)},       // 9
        doc! {"v": bson::oid::ObjectId::from_bytes([1; 12])}, // 10
        doc! {"v": Bson::MinKey},                   // 11
        doc! {"v": [[1]]},                          // 12
    ]);
    check(
        &docs,
        vec![
            (doc! {"v": {"$type": "number"}}, vec![1, 2, 3, 4, 7]),
            (doc! {"v": {"$type": "int"}}, vec![1, 7]),
            (doc! {"v": {"$type": 16}}, vec![1, 7]),
            (doc! {"v": {"$type": 1.0}}, vec![2]),
            (doc! {"v": {"$type": "long"}}, vec![3]),
            (doc! {"v": {"$type": "decimal"}}, vec![4]),
            (doc! {"v": {"$type": ["string", "bool"]}}, vec![5, 7, 8]),
            (doc! {"v": {"$type": "object"}}, vec![6]),
            (doc! {"v": {"$type": "array"}}, vec![7, 12]),
            (doc! {"v": {"$type": 4}}, vec![7, 12]),
            (doc! {"v": {"$type": "date"}}, vec![9]),
            (doc! {"v": {"$type": "objectId"}}, vec![10]),
            (doc! {"v": {"$type": "minKey"}}, vec![11]),
            (doc! {"v": {"$type": -1}}, vec![11]),
            (doc! {"w": {"$type": "null"}}, vec![]),
        ],
    );
}

#[test]
fn json_schema() {
    let docs = numbered(vec![
        doc! {"name": "Ann", "age": 30},                    // 1
        doc! {"name": "Bob"},                               // 2
        doc! {"name": 5, "age": 20},                        // 3
        doc! {"name": "Cy", "age": 200},                    // 4
        doc! {"name": "Di", "age": 30, "extra": true},      // 5
        doc! {"name": "Ed", "age": 30.5},                   // 6
        doc! {"name": "F", "tags": ["a", "b"]},             // 7
        doc! {"name": "G", "tags": ["a", "a"]},             // 8
    ]);
    check(
        &docs,
        vec![
            (doc! {"$jsonSchema": {"required": ["name", "age"]}}, vec![1, 3, 4, 5, 6]),
            (doc! {"$jsonSchema": {"properties": {"name": {"bsonType": "string"}}}}, all_except(8, &[3])),
            (doc! {"$jsonSchema": {"properties": {"age": {"bsonType": "int", "minimum": 0, "maximum": 150}}}}, vec![1, 2, 3, 5, 7, 8]),
            (doc! {"$jsonSchema": {"properties": {"age": {"type": "number", "maximum": 30, "exclusiveMaximum": true}}}}, vec![2, 3, 7, 8]),
            (doc! {"$jsonSchema": {"properties": {"age": {"minimum": 30, "exclusiveMinimum": true}}}}, vec![2, 4, 6, 7, 8]),
            (doc! {"$jsonSchema": {"properties": {"name": {"minLength": 2}}}}, vec![1, 2, 3, 4, 5, 6]),
            (doc! {"$jsonSchema": {"properties": {"name": {"maxLength": 1}}}}, vec![3, 7, 8]),
            (doc! {"$jsonSchema": {"properties": {"name": {"pattern": "^[A-C]"}}}}, vec![1, 2, 3, 4]),
            (doc! {"$jsonSchema": {"properties": {"name": {"enum": ["Ann", "Bob"]}}}}, vec![1, 2]),
            (doc! {"$jsonSchema": {"additionalProperties": false, "properties": {"_id": {}, "name": {}, "age": {}}}}, vec![1, 2, 3, 4, 6]),
            (doc! {"$jsonSchema": {"additionalProperties": false, "properties": {"name": {}, "age": {}}}}, vec![]),
            (doc! {"$jsonSchema": {"additionalProperties": {"bsonType": ["int", "string", "double"]}}}, vec![1, 2, 3, 4, 6]),
            (doc! {"$jsonSchema": {"properties": {"tags": {"bsonType": "array", "items": {"bsonType": "string"}, "uniqueItems": true, "minItems": 2}}}}, all_except(8, &[8])),
            (doc! {"$jsonSchema": {"properties": {"tags": {"maxItems": 1}}}}, all_except(8, &[7, 8])),
            (doc! {"$jsonSchema": {"properties": {"tags": {"items": [{"enum": ["a"]}], "additionalItems": false}}}}, all_except(8, &[7, 8])),
            (doc! {"$jsonSchema": {"bsonType": "object", "required": ["tags"]}}, vec![7, 8]),
            (doc! {"$jsonSchema": {"anyOf": [{"required": ["age"]}, {"required": ["tags"]}]}}, all_except(8, &[2])),
            (doc! {"$jsonSchema": {"oneOf": [{"required": ["age"]}, {"required": ["extra"]}]}}, vec![1, 3, 4, 6]),
            (doc! {"$jsonSchema": {"not": {"required": ["age"]}}}, vec![2, 7, 8]),
            (doc! {"$jsonSchema": {"properties": {"age": {"multipleOf": 10}}}}, vec![1, 2, 3, 4, 5, 7, 8]),
            (doc! {"$jsonSchema": {"dependencies": {"extra": ["age"], "tags": {"required": ["age"]}}}}, vec![1, 2, 3, 4, 5, 6]),
            (doc! {"$jsonSchema": {"minProperties": 4}}, vec![5]),
            (doc! {"$jsonSchema": {"bsonType": "array"}}, vec![]),
            (doc! {"$jsonSchema": {"title": "people", "description": "with ages", "required": ["age"]}, "age": {"$lt": 100}}, vec![1, 3, 5, 6]),
        ],
    );
}

fn details(filter: Document, d: Document) -> MatchDetails {
    Matcher::parse(&filter).unwrap().match_details(&d, &env()).unwrap()
}

/// The array position the positional `$` refers to (the server's `elemMatchKey`).
#[test]
fn match_details_elem_index() {
    let cases: Vec<(Document, Document, Option<usize>)> = vec![
        (doc! {"items.q": 5}, doc! {"items": [{"q": 1}, {"q": 5}]}, Some(1)),
        (doc! {"items": {"$elemMatch": {"q": {"$gt": 3}}}}, doc! {"items": [{"q": 1}, {"q": 5}]}, Some(1)),
        (doc! {"tags": "b"}, doc! {"tags": ["a", "b"]}, Some(1)),
        (doc! {"tags": ["a", "b"]}, doc! {"tags": ["a", "b"]}, None),
        (doc! {"a": 1}, doc! {"a": 1}, None),
        (doc! {"a.b": 2}, doc! {"a": [{"b": [1, 2]}, {"b": 3}]}, Some(0)),
        (doc! {"$or": [{"tags": "b"}, {"x": 1}]}, doc! {"tags": ["a", "b"]}, None),
        (doc! {"$or": [{"tags": "b"}]}, doc! {"tags": ["a", "b"]}, Some(1)),
        (doc! {"$and": [{"tags": "b"}]}, doc! {"tags": ["a", "b"]}, Some(1)),
        // The last array predicate in the canonical order (match type, then path) wins,
        // whatever the filter's order: "tags" sorts after "items.q"; a $gt after an equality.
        (doc! {"tags": "b", "items.q": 5}, doc! {"tags": ["b", "c"], "items": [{"q": 1}, {"q": 5}]}, Some(0)),
        (doc! {"items.q": 5, "tags": "b"}, doc! {"tags": ["b", "c"], "items": [{"q": 1}, {"q": 5}]}, Some(0)),
        (doc! {"tags": {"$gt": "a"}, "items.q": 5}, doc! {"tags": ["b", "c"], "items": [{"q": 1}, {"q": 5}]}, Some(0)),
        (doc! {"items.q": {"$gt": 2}, "tags": "c"}, doc! {"tags": ["b", "c"], "items": [{"q": 1}, {"q": 5}]}, Some(1)),
        (doc! {"tags": {"$ne": "z"}}, doc! {"tags": ["a", "b"]}, None),
        (doc! {"a.1": 5}, doc! {"a": [4, 5]}, None),
        (doc! {"a.b": {"$size": 2}}, doc! {"a": [{"b": [1]}, {"b": [1, 2]}]}, Some(1)),
        (doc! {"a": {"$elemMatch": {"$gt": 1}}}, doc! {"a": [0, 5, 7]}, Some(1)),
        (doc! {"a": {"$all": [5, 7]}}, doc! {"a": [0, 5, 7]}, Some(2)),
        (doc! {"a": {"$gt": 4}}, doc! {"a": [0, 5, 7]}, Some(1)),
        (doc! {"a": {"$in": [7, 0]}}, doc! {"a": [3, 7, 0]}, Some(1)),
        (doc! {"a": 9}, doc! {"a": [0, 5, 7]}, None),
    ];
    let mut failures = Vec::new();
    for (filter, d, expected) in cases {
        let got = details(filter.clone(), d.clone());
        if got.elem_index != expected {
            failures.push(format!("{filter} on {d}: expected {expected:?}, got {:?}", got.elem_index));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert!(!details(doc! {"a": 9}, doc! {"a": [1]}).matched);
}

/// Every parse error with the server's code and message.
#[test]
fn filter_errors() {
    let cases: Vec<(Document, i32, &str)> = vec![
        (doc! {"$foo": 1}, 2, "unknown top level operator: $foo. If you have a field name that starts with a '$' symbol, consider using $getField or $setField."),
        (doc! {"$not": {"a": 1}}, 2, "unknown top level operator: $not. If you are trying to negate an entire expression, use $nor."),
        (doc! {"a": {"$foo": 1}}, 2, "unknown operator: $foo"),
        (doc! {"a": {"$gt": 1, "b": 1}}, 2, "unknown operator: b"),
        (doc! {"a": {"$where": "x"}}, 2, "$where cannot be applied to a field"),
        (doc! {"$and": []}, 2, "$and/$or/$nor must be a nonempty array"),
        (doc! {"$or": {}}, 2, "$or must be an array"),
        (doc! {"$and": 1}, 2, "$and must be an array"),
        (doc! {"$nor": [1]}, 2, "$or/$and/$nor entries need to be full objects"),
        (doc! {"$or": [{"a": {"$bad": 1}}]}, 2, "unknown operator: $bad"),
        (doc! {"a": {"$in": 1}}, 2, "$in needs an array"),
        (doc! {"a": {"$nin": "x"}}, 2, "$nin needs an array"),
        (doc! {"a": {"$in": [{"$gt": 1}]}}, 2, "cannot nest $ under $in"),
        (doc! {"a": {"$size": "1"}}, 2, "Failed to parse $size. Expected a number in: $size: \"1\""),
        (doc! {"a": {"$size": -1}}, 2, "Failed to parse $size. Expected a positive number in: $size: -1"),
        (doc! {"a": {"$size": 1.5}}, 2, "Failed to parse $size. Expected an integer: $size: 1.5"),
        (doc! {"a": {"$size": {"$gte": 3.0}}}, 2, "Failed to parse $size. Expected a number in: $size: { $gte: 3.0 }"),
        (doc! {"a": {"$size": f64::NAN}}, 2, "Failed to parse $size. Expected an integer, but found NaN in: $size: nan.0"),
        (doc! {"a": {"$not": 5}}, 2, "$not needs a regex or a document"),
        (doc! {"a": {"$not": {}}}, 2, "$not cannot be empty"),
        (doc! {"a": {"$regex": 5}}, 2, "$regex has to be a string"),
        (doc! {"a": {"$options": "i"}}, 2, "$options needs a $regex"),
        (doc! {"a": {"$regex": "x", "$options": 5}}, 2, "$options has to be a string"),
        (doc! {"a": {"$regex": re("x", "i"), "$options": "m"}}, 51075, "options set in both $regex and $options"),
        (doc! {"a": {"$options": "m", "$regex": re("x", "i")}}, 51074, "options set in both $regex and $options"),
        (doc! {"a": {"$regex": "x", "$options": "g"}}, 51108, " invalid flag in regex options: g"),
        // Issue 13: `RegexMatchExpression::_init`'s checks come before the options' flags.
        (doc! {"a": {"$regex": "x".repeat(32765)}}, 2, "Regular expression is too long"),
        (doc! {"a": {"$regex": "x", "$options": "i\0"}}, 2, "Regular expression options string cannot contain an embedded null byte"),
        (doc! {"a": {"$elemMatch": 1}}, 2, "$elemMatch needs an Object"),
        (doc! {"a": {"$elemMatch": {"$bad": 1}}}, 2, "unknown operator: $bad"),
        (doc! {"a": {"$all": 1}}, 2, "$all needs an array"),
        (doc! {"a": {"$all": [{"$elemMatch": {"b": 1}}, 1]}}, 2, "$all/$elemMatch has to be consistent"),
        (doc! {"a": {"$all": [{"$gt": 1}]}}, 2, "no $ expressions in $all"),
        (doc! {"a": {"$type": "foo"}}, 2, "Unknown type name alias: foo"),
        (doc! {"a": {"$type": 100}}, 2, "Invalid numerical type code: 100"),
        (doc! {"a": {"$type": 0}}, 2, "Invalid numerical type code: 0. Instead use {$exists:false}."),
        (doc! {"a": {"$type": 1.5}}, 2, "Invalid numerical type code: 1.5"),
        (doc! {"a": {"$type": true}}, 14, "type must be represented as a number or a string"),
        (doc! {"a": {"$type": []}}, 9, "a must match at least one type"),
        (doc! {"a": {"$mod": 1}}, 2, "malformed mod, needs to be an array"),
        (doc! {"a": {"$mod": []}}, 2, "malformed mod, not enough elements"),
        (doc! {"a": {"$mod": [1]}}, 2, "malformed mod, not enough elements"),
        (doc! {"a": {"$mod": ["a", 1]}}, 2, "malformed mod, divisor not a number"),
        (doc! {"a": {"$mod": [1, "a"]}}, 2, "malformed mod, remainder not a number"),
        (doc! {"a": {"$mod": [1, 2, 3]}}, 2, "malformed mod, too many elements"),
        (doc! {"a": {"$mod": [0, 1]}}, 2, "divisor cannot be 0"),
        (doc! {"a": {"$mod": [0.5, 1]}}, 2, "divisor cannot be 0"),
        (doc! {"a": {"$mod": [f64::NAN, 1]}}, 2, "malformed mod, divisor value is invalid :: caused by :: Unable to coerce NaN/Inf to integral type"),
        (doc! {"a": {"$mod": [1, 1e30]}}, 2, "malformed mod, remainder value is invalid :: caused by :: Out of bounds coercing to integral value"),
        (doc! {"a": {"$gt": re("x", "")}}, 2, "Can't have RegEx as arg to predicate over field 'a'."),
        (doc! {"a": {"$ne": re("x", "")}}, 2, "Can't have regex as arg to $ne."),
        (doc! {"a": {"$eq": Bson::Undefined}}, 2, "cannot compare to undefined"),
        (doc! {"a": Bson::Undefined}, 2, "cannot compare to undefined"),
        (doc! {"a": {"$in": [Bson::Undefined]}}, 2, "InMatchExpression equality cannot be undefined"),
        (doc! {"a": {"$bitsAllSet": "x"}}, 2, "a takes an Array, a number, or a BinData but received: $bitsAllSet: \"x\""),
        (doc! {"a": {"$bitsAllSet": -1}}, 9, "Expected a positive number in: $bitsAllSet: -1"),
        (doc! {"a": {"$bitsAllSet": [-1]}}, 2, "Failed to parse bit position. Expected a positive number in: 0: -1"),
        (doc! {"a": {"$bitsAnySet": [1, 1.5]}}, 2, "Failed to parse bit position. Expected an integer: 1: 1.5"),
        (doc! {"a": {"$elemMatch": {"$where": "1"}}}, 2, "$where can only be applied to the top-level document"),
        (doc! {"a": {"$elemMatch": {"$lt": 1, "$where": "1"}}}, 2, "$where cannot be applied to a field"),
        (doc! {"a": {"$elemMatch": {"b": 1, "$where": "1"}}}, 2, "$where can only be applied to the top-level document"),
        (doc! {"a": {"$elemMatch": {"b": 1, "$expr": {"$eq": [1, 1]}}}}, 2, "$expr can only be applied to the top-level document"),
        (doc! {"$where": "1"}, 2, "$where is not allowed in this context"),
        (doc! {"$text": {"$search": "x"}}, 27, "text index required for $text query"),
        (doc! {"$jsonSchema": 1}, 14, "$jsonSchema must be an object"),
        (doc! {"$jsonSchema": {"foo": 1}}, 9, "Unknown $jsonSchema keyword: foo"),
        (doc! {"$jsonSchema": {"type": "object", "bsonType": "object"}}, 9, "Cannot specify both $jsonSchema keywords 'type' and 'bsonType'"),
        (doc! {"$jsonSchema": {"required": []}}, 9, "$jsonSchema keyword 'required' cannot be an empty array"),
        (doc! {"$jsonSchema": {"properties": {"a": 1}}}, 14, "Nested schema for $jsonSchema property 'a' must be an object"),
        (doc! {"$jsonSchema": {"type": "integer"}}, 9, "$jsonSchema type 'integer' is not currently supported."),
        (doc! {"$jsonSchema": {"exclusiveMaximum": true}}, 9, "$jsonSchema keyword 'maximum' must be a present if exclusiveMaximum is present"),
        (doc! {"$jsonSchema": {"format": "date"}}, 9, "$jsonSchema keyword 'format' is not currently supported"),
        (doc! {"$alwaysTrue": 2}, 9, "$alwaysTrue must be an integer value of 1"),
        (doc! {"$sampleRate": 2}, 2, "numeric argument to $sampleRate must be in [0, 1]"),
        (doc! {vec!["a"; 181].join("."): 1}, 5729100, "FieldPath is too long"),
    ];
    let mut failures = Vec::new();
    for (filter, code, msg) in cases {
        match Matcher::parse(&filter) {
            Ok(_) => failures.push(format!("{filter}: parsed, expected {code} {msg:?}")),
            Err(e) => {
                if e.code_num() != code || e.message != msg {
                    failures.push(format!("{filter}: expected {code} {msg:?}, got {} {:?}", e.code_num(), e.message));
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    let e = Matcher::parse(&doc! {"a": {"$regex": "("}}).unwrap_err();
    assert_eq!((e.code_num(), e.code_name()), (51091, "Location51091".to_string()));
    assert!(e.message.starts_with("Regular expression is invalid: "), "{}", e.message);
    assert!(Matcher::parse(&doc! {vec!["a"; 180].join("."): 1}).is_ok());
    let e = Matcher::parse(&doc! {"a": {"$near": [0, 0]}}).unwrap_err();
    assert_eq!(e.code_name(), "NotImplemented");
}

fn review_doc() -> Document {
    doc! {
        "_id": 1,
        "title": "T",
        "author": {"name": "A", "born": 1900},
        "reviews": [{"by": "x", "stars": 5}, {"by": "y", "stars": 3}, {"by": "z", "stars": 4}],
        "tags": ["a", "b", "c", "d"],
        "n": 5,
    }
}

fn project(spec: &Document, filter: &Document, d: &Document) -> pattern_playground::Result<Document> {
    let p = Projection::parse_with_query(spec, filter)?;
    let details = Matcher::parse(filter)?.match_details(d, &env())?;
    p.apply(d, &details, &env())
}

#[test]
fn projections() {
    let d = review_doc();
    let without = |fields: &[&str]| {
        let mut x = d.clone();
        for f in fields {
            x.remove(*f);
        }
        x
    };
    let cases: Vec<(Document, Document, Document)> = vec![
        (doc! {"title": 1}, doc! {}, doc! {"_id": 1, "title": "T"}),
        (doc! {"title": true, "_id": 0}, doc! {}, doc! {"title": "T"}),
        (doc! {"_id": 1}, doc! {}, doc! {"_id": 1}),
        (doc! {"title": 0}, doc! {}, without(&["title"])),
        (doc! {"_id": 0}, doc! {}, without(&["_id"])),
        (doc! {"_id": 0, "tags": 0, "reviews": 0, "author": 0}, doc! {}, doc! {"title": "T", "n": 5}),
        (doc! {}, doc! {}, d.clone()),
        (doc! {"author.name": 1}, doc! {}, doc! {"_id": 1, "author": {"name": "A"}}),
        (doc! {"author": {"name": 1}}, doc! {}, doc! {"_id": 1, "author": {"name": "A"}}),
        (doc! {"author.born": 0, "title": 0}, doc! {}, {
            let mut x = without(&["title"]);
            x.insert("author", doc! {"name": "A"});
            x
        }),
        (doc! {"reviews.by": 1}, doc! {}, doc! {"_id": 1, "reviews": [{"by": "x"}, {"by": "y"}, {"by": "z"}]}),
        (doc! {"reviews.stars": 0, "_id": 0, "tags": 0}, doc! {}, doc! {"title": "T", "author": {"name": "A", "born": 1900}, "reviews": [{"by": "x"}, {"by": "y"}, {"by": "z"}], "n": 5}),
        (doc! {"tags.x": 1, "_id": 0}, doc! {}, doc! {"tags": []}),
        (doc! {"n.x": 1, "_id": 0}, doc! {}, doc! {}),
        (doc! {"tags": {"$slice": 2}}, doc! {}, { let mut x = d.clone(); x.insert("tags", vec!["a", "b"]); x }),
        (doc! {"tags": {"$slice": -2}, "_id": 0, "reviews": 0, "author": 0}, doc! {}, doc! {"title": "T", "tags": ["c", "d"], "n": 5}),
        (doc! {"_id": 1, "tags": {"$slice": [1, 2]}}, doc! {}, doc! {"_id": 1, "tags": ["b", "c"]}),
        (doc! {"_id": 1, "tags": {"$slice": [-3, 2]}}, doc! {}, doc! {"_id": 1, "tags": ["b", "c"]}),
        (doc! {"_id": 1, "tags": {"$slice": [10, 2]}}, doc! {}, doc! {"_id": 1, "tags": []}),
        (doc! {"_id": 1, "tags": {"$slice": -10}}, doc! {}, doc! {"_id": 1, "tags": ["a", "b", "c", "d"]}),
        (doc! {"_id": 1, "title": {"$slice": 1}}, doc! {}, doc! {"_id": 1, "title": "T"}),
        (doc! {"title": 1, "reviews": {"$slice": -1}}, doc! {}, doc! {"_id": 1, "title": "T", "reviews": [{"by": "z", "stars": 4}]}),
        (doc! {"reviews": {"$slice": 1}, "title": 1}, doc! {}, doc! {"_id": 1, "title": "T", "reviews": [{"by": "x", "stars": 5}]}),
        (doc! {"reviews": {"$elemMatch": {"stars": {"$lt": 5}}}}, doc! {}, doc! {"_id": 1, "reviews": [{"by": "y", "stars": 3}]}),
        (doc! {"reviews": {"$elemMatch": {"stars": 1}}}, doc! {}, doc! {"_id": 1}),
        // $elemMatch comes after the included fields, whatever the document order.
        (doc! {"reviews": {"$elemMatch": {"by": "z"}}, "n": 1, "title": 1}, doc! {}, doc! {"_id": 1, "title": "T", "n": 5, "reviews": [{"by": "z", "stars": 4}]}),
        (doc! {"tags": {"$elemMatch": {"$gt": "b"}}, "_id": 0}, doc! {}, doc! {"tags": ["c"]}),
        // Positional: the element the filter matched.
        (doc! {"reviews.$": 1}, doc! {"reviews.stars": 3}, doc! {"_id": 1, "reviews": [{"by": "y", "stars": 3}]}),
        (doc! {"tags.$": 1, "title": 1}, doc! {"tags": {"$gte": "c"}}, doc! {"_id": 1, "title": "T", "tags": ["c"]}),
        (doc! {"reviews.by.$": 1}, doc! {"reviews.by": "z"}, doc! {"_id": 1, "reviews": [{"by": "z"}]}),
        (doc! {"title.$": 1}, doc! {"title": "T"}, doc! {"_id": 1, "title": "T"}),
        (doc! {"reviews": {"by.$": 1}}, doc! {"reviews.by": "y"}, doc! {"_id": 1, "reviews": [{"by": "y"}]}),
        // The position the query matched in one array applies to a "parallel" one (jstest
        // positional_projection_multiple_array_fields).
        (doc! {"reviews.$": 1}, doc! {"tags": "b"}, doc! {"_id": 1, "reviews": [{"by": "y", "stars": 3}]}),
        (doc! {"reviews.by.$": 1}, doc! {"tags": "c"}, doc! {"_id": 1, "reviews": [{"by": "z"}]}),
    ];
    let mut failures = Vec::new();
    for (spec, filter, expected) in cases {
        match project(&spec, &filter, &d) {
            Ok(got) if format!("{got:?}") == format!("{expected:?}") => {}
            Ok(got) => failures.push(format!("{spec}: expected {expected}, got {got}")),
            Err(e) => failures.push(format!("{spec}: error {e}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn projection_errors() {
    let cases: Vec<(Document, Document, i32, &str)> = vec![
        (doc! {"author.name": 1, "author.born": 0}, doc! {}, 31254, "Cannot do exclusion on field author.born in inclusion projection"),
        (doc! {"title": 0, "n": 1}, doc! {}, 31253, "Cannot do inclusion on field n in exclusion projection"),
        (doc! {"author": 1, "author.name": 1}, doc! {}, 31249, "Path collision at author.name remaining portion name"),
        (doc! {"author.name": 1, "author": 1}, doc! {}, 31250, "Path collision at author"),
        (doc! {"a.b.c": 1, "a.b": 1}, doc! {}, 31250, "Path collision at a.b"),
        (doc! {"title": 0, "x": "lit"}, doc! {}, 31310, "Cannot use an expression x: \"lit\" in an exclusion projection"),
        (doc! {"$x": 1}, doc! {}, 16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField."),
        (doc! {"a..b": 1}, doc! {}, 15998, "FieldPath field names may not be empty strings."),
        (doc! {"": 1}, doc! {}, 40352, "FieldPath cannot be constructed with empty string"),
        (doc! {"a": {}}, doc! {}, 51270, "An empty sub-projection is not a valid value. Found empty object at path"),
        (doc! {"reviews": {"$elemMatch": 1}}, doc! {}, 31274, "elemMatch: Invalid argument, object required, but got int"),
        (doc! {"author.x": {"$elemMatch": {"a": 1}}}, doc! {}, 31275, "Cannot use $elemMatch projection on a nested field."),
        (doc! {"author": {"x": {"$elemMatch": {"a": 1}}}}, doc! {}, 31275, "Cannot use $elemMatch projection on a nested field."),
        (doc! {"tags.$": 1, "reviews.$": 1}, doc! {"tags": "a", "reviews.by": "x"}, 31276, "Cannot specify more than one positional projection per query."),
        (doc! {"tags.$.$": 1}, doc! {"tags": "a"}, 31287, "Cannot use positional operator twice: tags.$.$"),
        (doc! {"tags.$": 1, "reviews": {"$elemMatch": {"by": "x"}}}, doc! {"tags": "a"}, 31255, "Cannot specify positional operator and $elemMatch."),
        (doc! {"reviews": {"$elemMatch": {"by": "x"}}, "tags.$": 1}, doc! {"tags": "a"}, 31256, "Cannot specify positional operator and $elemMatch."),
        (doc! {"tags.$": {"$slice": 1}}, doc! {"tags": "a"}, 31271, "positional projection cannot be used with an expression or sub object"),
        (doc! {"tags.$": "x"}, doc! {"tags": "a"}, 31308, "positional projection cannot be used with a literal"),
        (doc! {"tags.$": 0}, doc! {"tags": "a"}, 16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField."),
        (doc! {"tags.$": 1, "title": 0}, doc! {"tags": "a"}, 31254, "Cannot do exclusion on field title in inclusion projection"),
        (doc! {"title": 0, "tags.$": 1}, doc! {"tags": "a"}, 31253, "Cannot do inclusion on field tags.$ in exclusion projection"),
    ];
    let mut failures = Vec::new();
    for (spec, filter, code, msg) in cases {
        match Projection::parse_with_query(&spec, &filter) {
            Ok(_) => failures.push(format!("{spec}: parsed, expected {code} {msg:?}")),
            Err(e) if e.code_num() != code || e.message != msg => failures.push(format!("{spec}: expected {code} {msg:?}, got {} {:?}", e.code_num(), e.message)),
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    // A positional projection when the filter matched no array element.
    let e = project(&doc! {"tags.$": 1}, &doc! {"tags": {"$size": 4}}, &review_doc()).unwrap_err();
    assert_eq!((e.code_num(), e.message.as_str()), (51246, "positional operator '.$' couldn't find a matching element in the array"));
    // ... and when the parallel array is shorter than the position.
    let e = project(&doc! {"reviews.$": 1}, &doc! {"tags": "d"}, &review_doc()).unwrap_err();
    assert_eq!((e.code_num(), e.message.as_str()), (51247, "positional operator '.$' element mismatch"));
}

/// Regression: projecting a slice of a huge array must copy only the kept elements.
#[test]
fn projection_slice_of_large_document_keeps_only_the_slice() {
    let reviews: Vec<Bson> = (0..10_000).map(|i| Bson::Document(doc! {"i": i, "text": "x".repeat(150)})).collect();
    let d = doc! {"_id": 1, "title": "big", "reviews": reviews, "other": "y".repeat(100)};
    let p = Projection::parse(&doc! {"title": 1, "reviews": {"$slice": -5}}).unwrap();
    let out = p.apply(&d, &MatchDetails::default(), &env()).unwrap();
    let kept: Vec<i32> = out.get_array("reviews").unwrap().iter().map(|r| r.as_document().unwrap().get_i32("i").unwrap()).collect();
    assert_eq!(kept, vec![9995, 9996, 9997, 9998, 9999]);
    assert_eq!(out.keys().collect::<Vec<_>>(), vec!["_id", "title", "reviews"]);
}

#[test]
fn sort_order() {
    let docs = numbered(vec![
        doc! {"a": 3},          // 1
        doc! {"a": [1, 5]},     // 2
        doc! {"a": null},       // 3
        doc! {},                // 4
        doc! {"a": []},         // 5
        doc! {"a": "x"},        // 6
        doc! {"a": [2, 4]},     // 7
        doc! {"a": {"b": 1}},   // 8
    ]);
    let sorted = |spec: Document, docs: &[Document]| -> Vec<i32> {
        let s = SortSpec::parse(&spec).unwrap();
        let mut v = docs.to_vec();
        v.sort_by(|x, y| s.compare(x, y));
        v.iter().map(|d| d.get_i32("_id").unwrap()).collect()
    };
    assert_eq!(sorted(doc! {"a": 1}, &docs), vec![5, 3, 4, 2, 7, 1, 6, 8]);
    assert_eq!(sorted(doc! {"a": -1}, &docs), vec![8, 6, 2, 7, 1, 3, 4, 5]);
    assert_eq!(sorted(doc! {"a": 1.0}, &docs), vec![5, 3, 4, 2, 7, 1, 6, 8]);
    let nested = numbered(vec![
        doc! {"x": [{"y": 3}, {"y": 1}]},   // 1
        doc! {"x": {"y": 2}},               // 2
        doc! {"x": [{"y": 5}, {"z": 1}]},   // 3
        doc! {"x": [1]},                    // 4
        doc! {"x": [{"y": [0, 9]}]},        // 5
    ]);
    assert_eq!(sorted(doc! {"x.y": 1}, &nested), vec![3, 4, 5, 1, 2]);
    assert_eq!(sorted(doc! {"x.y": -1}, &nested), vec![5, 3, 1, 2, 4]);
    assert_eq!(sorted(doc! {"x.0.y": 1}, &nested), vec![2, 4, 5, 1, 3]);
    let compound = numbered(vec![
        doc! {"k": 1, "v": "b"},
        doc! {"k": 2, "v": "a"},
        doc! {"k": 1, "v": "c"},
        doc! {"k": 1i64, "v": "c"},
    ]);
    assert_eq!(sorted(doc! {"k": 1, "v": -1}, &compound), vec![3, 4, 1, 2]);
    assert_eq!(sorted(doc! {"k": -1}, &compound), vec![2, 1, 3, 4]);
}

#[test]
fn sort_errors() {
    let cases: Vec<(Document, i32, &str)> = vec![
        (doc! {}, 15976, "$sort stage must have at least one sort key"),
        (doc! {"a": 2}, 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"),
        (doc! {"a": 0}, 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"),
        (doc! {"a": "asc"}, 15974, "Illegal key in $sort specification: a: \"asc\""),
        (doc! {"a": {"b": 1}}, 17312, "$meta is the only expression supported by $sort right now"),
        (doc! {"$a": 1}, 16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField."),
        (doc! {"a.": 1}, 15998, "FieldPath field names may not be empty strings."),
    ];
    for (spec, code, msg) in cases {
        let e = SortSpec::parse(&spec).unwrap_err();
        assert_eq!((e.code_num(), e.message.as_str()), (code, msg), "{spec}");
    }
    assert!(SortSpec::parse_find(&doc! {}).unwrap().is_empty());
}

#[test]
fn upsert_seeds() {
    let cases: Vec<(Document, Document)> = vec![
        (doc! {"a": 1, "b": {"$gt": 2}}, doc! {"a": 1}),
        (doc! {"a.b": 1, "c": {"$eq": 2}}, doc! {"a": {"b": 1}, "c": 2}),
        (doc! {"a.b": 1, "a.c": 2}, doc! {"a": {"b": 1, "c": 2}}),
        (doc! {"$and": [{"a": 1}, {"b": 2}]}, doc! {"a": 1, "b": 2}),
        (doc! {"$or": [{"a": 1}]}, doc! {"a": 1}),
        (doc! {"$or": [{"a": 1}, {"b": 2}]}, doc! {}),
        (doc! {"_id": 5, "x": "y"}, doc! {"_id": 5, "x": "y"}),
        (doc! {"a": {"$in": [3]}}, doc! {"a": 3}),
        (doc! {"a": {"$in": [3, 4]}}, doc! {}),
        (doc! {"a": {"$all": [1]}}, doc! {"a": 1}),
        (doc! {"a": {"$elemMatch": {"b": 1}}, "c": {"$ne": 1}}, doc! {}),
        (doc! {"a": [1, 2], "b": {"x": 1}}, doc! {"a": [1, 2], "b": {"x": 1}}),
        (doc! {"a": null}, doc! {"a": null}),
        (doc! {"a": re("^x", "")}, doc! {}),
    ];
    for (filter, expected) in cases {
        assert_eq!(upsert_seed(&filter).unwrap(), expected, "{filter}");
    }
    let errors: Vec<(Document, &str)> = vec![
        (doc! {"a": 1, "$and": [{"a": 2}]}, "cannot infer query fields to set, path 'a' is matched twice"),
        (doc! {"a": {"$all": [1, 2]}}, "cannot infer query fields to set, path 'a' is matched twice"),
        (doc! {"a": 1, "a.b": 2}, "cannot infer query fields to set, both paths 'a.b' and 'a' are matched"),
    ];
    for (filter, msg) in errors {
        let e = upsert_seed(&filter).unwrap_err();
        assert_eq!((e.code_num(), e.code_name(), e.message.as_str()), (54, "NotSingleValueField".to_string(), msg), "{filter}");
    }
    assert_eq!(upsert_seed(&doc! {"a": {"$bad": 1}}).unwrap_err().code_num(), 2);
}

#[test]
fn index_equality_fields() {
    let f = doc! {"a": 1, "b": {"$gt": 1}, "c": null, "d": [1], "$and": [{"e": "x"}], "f": {"$eq": 2}, "$or": [{"g": 1}, {"h": 1}]};
    assert_eq!(equality_fields(&f), vec![("a".to_string(), Bson::Int32(1)), ("f".to_string(), Bson::Int32(2)), ("e".to_string(), Bson::String("x".into()))]);
    assert!(equality_fields(&doc! {"$or": [{"a": 1}, {"b": 1}]}).is_empty());
    assert_eq!(equality_fields(&doc! {"user.id": 7}), vec![("user.id".to_string(), Bson::Int32(7))]);
}

#[test]
fn expr_operator() {
    let docs = numbered(vec![
        doc! {"a": 1, "b": 2},      // 1
        doc! {"a": 3, "b": 2},      // 2
        doc! {"a": 0, "b": 0},      // 3
        doc! {"a": null, "b": 1},   // 4
        doc! {"a": "x", "b": "x"},  // 5
    ]);
    check(
        &docs,
        vec![
            (doc! {"$expr": {"$gt": ["$a", "$b"]}}, vec![2]),
            (doc! {"$expr": {"$eq": ["$a", "$b"]}}, vec![3, 5]),
            (doc! {"$expr": "$a"}, vec![1, 2, 5]),
            (doc! {"$expr": "$nope"}, vec![]),
            (doc! {"$expr": 0}, vec![]),
            (doc! {"$expr": []}, vec![1, 2, 3, 4, 5]),
            (doc! {"$expr": {"$eq": ["$a", "$b"]}, "a": {"$type": "number"}}, vec![3]),
            (doc! {"$or": [{"$expr": {"$lt": ["$a", "$b"]}}, {"a": "x"}]}, vec![1, 4, 5]),
        ],
    );
    // `let` variables: visible when the scope names them.
    let filter = doc! {"$expr": {"$lt": ["$a", "$$limit"]}};
    let e = Matcher::parse(&filter).unwrap_err();
    assert_eq!((e.code_num(), e.message.as_str()), (17276, "Use of undefined variable: limit"));
    let scope = pattern_playground::expr::VarScope::with_names(["limit"]);
    let m = Matcher::parse_with_scope(&filter, &scope).unwrap();
    let env = env().with_vars([("limit".to_string(), Bson::Int32(2))].into_iter().collect());
    let ids: Vec<i32> = docs.iter().filter(|d| m.matches(d, &env).unwrap()).map(|d| d.get_i32("_id").unwrap()).collect();
    assert_eq!(ids, vec![1, 3, 4]);
    let m = Matcher::parse_in_env(&filter, &env).unwrap();
    assert_eq!(docs.iter().filter(|d| m.matches(d, &env).unwrap()).count(), 3);
    // Evaluation errors surface from matching.
    let m = Matcher::parse(&doc! {"$expr": {"$add": ["$a", "$b"]}}).unwrap();
    assert!(m.matches(&docs[4], &pattern_playground::env::Env::new(DateTime::from_millis(0))).is_err());
}

#[test]
fn projection_expressions() {
    let d = review_doc();
    let cases: Vec<(Document, Document)> = vec![
        (doc! {"x": "$title"}, doc! {"_id": 1, "x": "T"}),
        (doc! {"title": 1, "x": {"$literal": "$lit"}}, doc! {"_id": 1, "title": "T", "x": "$lit"}),
        (doc! {"_id": 0, "t": {"$concat": ["$title", "!"]}}, doc! {"t": "T!"}),
        (doc! {"n": 1, "doubled": {"$multiply": ["$n", 2]}}, doc! {"_id": 1, "n": 5, "doubled": 10}),
        (doc! {"missing": "$nope"}, doc! {"_id": 1}),
        (doc! {"x": null}, doc! {"_id": 1, "x": null}),
        (doc! {"x": [1, "$n"]}, doc! {"_id": 1, "x": [1, 5]}),
        (doc! {"x": "plain"}, doc! {"_id": 1, "x": "plain"}),
        // Computed fields come after the included ones.
        (doc! {"x": "$n", "title": 1}, doc! {"_id": 1, "title": "T", "x": 5}),
        (doc! {"author.upper": {"$toUpper": "$author.name"}}, doc! {"_id": 1, "author": {"upper": "A"}}),
        (doc! {"author": {"name": 1, "upper": {"$toUpper": "$author.name"}}}, doc! {"_id": 1, "author": {"name": "A", "upper": "A"}}),
        (doc! {"reviews.first": {"$arrayElemAt": ["$tags", 0]}}, doc! {"_id": 1, "reviews": [{"first": "a"}, {"first": "a"}, {"first": "a"}]}),
        (doc! {"n.x": {"$literal": 1}}, doc! {"_id": 1, "n": {"x": 1}}),
        (doc! {"new.deep": "$n"}, doc! {"_id": 1, "new": {"deep": 5}}),
        // The expression form of $slice, when the find form does not fit.
        (doc! {"tags": {"$slice": ["$tags", 1, 2]}}, doc! {"_id": 1, "tags": ["b", "c"]}),
    ];
    let mut failures = Vec::new();
    for (spec, expected) in cases {
        match project(&spec, &doc! {}, &d) {
            Ok(got) if format!("{got:?}") == format!("{expected:?}") => {}
            Ok(got) => failures.push(format!("{spec}: expected {expected}, got {got}")),
            Err(e) => failures.push(format!("{spec}: error {e}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));

    let errors: Vec<(Document, i32, &str)> = vec![
        (doc! {"title": 0, "x": {"$toUpper": "$title"}}, 31252, "Cannot use expression other than $meta in exclusion projection"),
        (doc! {"x": {"$foo": 1}}, 31325, "Unknown expression $foo"),
        (doc! {"x": {"$add": [1], "y": 1}}, 16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField."),
        (doc! {"x": "$$nope"}, 17276, "Use of undefined variable: nope"),
    ];
    for (spec, code, msg) in errors {
        let e = Projection::parse(&spec).unwrap_err();
        assert_eq!((e.code_num(), e.message.as_str()), (code, msg), "{spec}");
    }
    let e = Projection::parse(&doc! {"tags": {"$slice": [1, 2, 3, 4]}}).unwrap_err();
    assert!(
        e.message.starts_with("Invalid $slice syntax. The given syntax { $slice: [ 1, 2, 3, 4 ] } did not match the find() syntax because :: Location31272: $slice array argument should be of form [skip, limit] :: The given syntax did not match the expression $slice syntax. :: caused by :: "),
        "{}",
        e.message
    );
}

#[test]
fn dbref_fields() {
    let docs = numbered(vec![
        doc! {"r": {"$ref": "c", "$id": 1}},             // 1
        doc! {"r": {"$ref": "c", "$id": 2}},             // 2
        doc! {"r": [{"$ref": "c", "$id": 1, "$db": "x"}]}, // 3
        doc! {"$id": 7},                                 // 4
    ]);
    check(
        &docs,
        vec![
            (doc! {"r": {"$ref": "c", "$id": 1}}, vec![1]),
            (doc! {"r.$id": 1}, vec![1, 3]),
            (doc! {"r": {"$elemMatch": {"$ref": "c", "$id": 1}}}, vec![3]),
            (doc! {"r": {"$elemMatch": {"$db": "x"}}}, vec![3]),
            (doc! {"$id": 7}, vec![4]),
        ],
    );
}

#[test]
fn projection_exclusion_with_elem_match_keeps_field_order() {
    let d = review_doc();
    let got = project(&doc! {"title": 0, "reviews": {"$elemMatch": {"by": "y"}}}, &doc! {}, &d).unwrap();
    assert_eq!(got.keys().collect::<Vec<_>>(), vec!["_id", "author", "reviews", "tags", "n"]);
    assert_eq!(got.get_array("reviews").unwrap(), &vec![Bson::Document(doc! {"by": "y", "stars": 3})]);
    let got = project(&doc! {"title": 0, "reviews": {"$elemMatch": {"by": "q"}}}, &doc! {}, &d).unwrap();
    assert_eq!(got.keys().collect::<Vec<_>>(), vec!["_id", "author", "tags", "n"]);
}
