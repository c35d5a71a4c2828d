//! Aggregation pipelines: data-driven `(pipeline, input, expected documents or error)` tables per
//! stage and accumulator, with MongoDB 8's results, types and error codes/messages.

use std::collections::HashMap;

use bson::{bson, doc, Bson, DateTime, Document};
use pattern_playground::aggregate::{Catalog, OutTarget, Pipeline};
use pattern_playground::env::Env;
use pattern_playground::Error;

/// Collections for `$lookup`, `$graphLookup` and `$unionWith`.
#[derive(Default)]
struct Cat(HashMap<String, Vec<Document>>);

impl Catalog for Cat {
    fn documents(&self, collection: &str) -> Vec<Document> {
        self.0.get(collection).cloned().unwrap_or_default()
    }
}

fn catalog() -> Cat {
    let mut c = Cat::default();
    c.0.insert(
        "inventory".into(),
        docs(bson!([
            { "_id": 1, "sku": "almonds", "description": "product 1", "instock": 120 },
            { "_id": 2, "sku": "bread", "description": "product 2", "instock": 80 },
            { "_id": 3, "sku": "cashews", "description": "product 3", "instock": 60 },
            { "_id": 4, "sku": "pecans", "description": "product 4", "instock": 70 },
            { "_id": 5, "sku": null, "description": "Incomplete" },
            { "_id": 6 }
        ])),
    );
    c.0.insert(
        "employees".into(),
        docs(bson!([
            { "_id": 1, "name": "Dev" },
            { "_id": 2, "name": "Eliot", "reportsTo": "Dev" },
            { "_id": 3, "name": "Ron", "reportsTo": "Eliot" },
            { "_id": 4, "name": "Andrew", "reportsTo": "Eliot" },
            { "_id": 5, "name": "Asya", "reportsTo": "Ron" },
            { "_id": 6, "name": "Dan", "reportsTo": "Andrew" }
        ])),
    );
    c.0.insert(
        "airports".into(),
        docs(bson!([
            { "_id": 0, "airport": "JFK", "connects": ["BOS", "ORD"] },
            { "_id": 1, "airport": "BOS", "connects": ["JFK", "PWM"] },
            { "_id": 2, "airport": "ORD", "connects": ["JFK"] },
            { "_id": 3, "airport": "PWM", "connects": ["BOS", "LHR"] },
            { "_id": 4, "airport": "LHR", "connects": ["PWM"] }
        ])),
    );
    c.0.insert("warehouses".into(), docs(bson!([{ "_id": 1, "stock_item": "almonds", "qty": 5 }, { "_id": 2, "stock_item": "almonds", "qty": 50 }, { "_id": 3, "stock_item": "bread", "qty": 10 }])));
    c.0.insert("other".into(), docs(bson!([{ "_id": 10, "x": 1 }, { "_id": 11, "x": 2 }])));
    c
}

fn docs(v: Bson) -> Vec<Document> {
    match v {
        Bson::Array(a) => a
            .into_iter()
            .map(|d| match d {
                Bson::Document(d) => d,
                other => panic!("not a document: {other}"),
            })
            .collect(),
        other => panic!("not an array: {other}"),
    }
}

fn env() -> Env {
    Env::new(DateTime::from_millis(1_700_000_000_000)).with_seed(7)
}

fn run(pipeline: &Bson, input: &Bson) -> Result<Vec<Document>, Error> {
    let stages = match pipeline {
        Bson::Array(a) => a.clone(),
        other => panic!("pipeline must be an array: {other}"),
    };
    let p = Pipeline::parse(&stages)?;
    Ok(p.run(docs(input.clone()), &catalog(), &env())?.docs)
}

/// What a case expects: documents (compared exactly, types and field order included) or an error.
enum Want {
    Docs(Bson),
    Err(i32, &'static str),
}

fn ok(v: Bson) -> Want {
    Want::Docs(v)
}

fn fail(code: i32, msg: &'static str) -> Want {
    Want::Err(code, msg)
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

/// Runs every case and reports all failures at once.
fn table(cases: Vec<(&str, Bson, Bson, Want)>) {
    let mut failures = Vec::new();
    for (name, pipeline, input, want) in cases {
        let got = run(&pipeline, &input);
        match (&want, &got) {
            (Want::Docs(expected), Ok(docs)) => {
                let got = Bson::Array(docs.iter().cloned().map(Bson::Document).collect());
                if !same_in_order(&got, expected) {
                    failures.push(format!("{name}: expected {expected}\n   got {got}"));
                }
            }
            (Want::Err(code, msg), Err(e)) => {
                if e.code_num() != *code || e.message != *msg {
                    failures.push(format!("{name}: expected error {code} {msg:?}\n   got {} {:?}", e.code_num(), e.message));
                }
            }
            (Want::Docs(expected), Err(e)) => failures.push(format!("{name}: expected {expected}\n   got error {e}")),
            (Want::Err(code, msg), Ok(docs)) => failures.push(format!("{name}: expected error {code} {msg:?}\n   got {docs:?}")),
        }
    }
    assert!(failures.is_empty(), "{} failing case(s):\n{}", failures.len(), failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Pipeline shape
// ---------------------------------------------------------------------------------------------

#[test]
fn pipeline_shape_errors() {
    let input = bson!([{ "_id": 1 }]);
    table(vec![
        ("empty pipeline returns the input", bson!([]), input.clone(), ok(bson!([{ "_id": 1 }]))),
        ("unknown stage", bson!([{ "$foo": 1 }]), input.clone(), fail(40324, "Unrecognized pipeline stage name: '$foo'")),
        ("a stage the engine does not implement", bson!([{ "$setWindowFields": {} }]), input.clone(), fail(238, "$setWindowFields is not supported by this engine")),
        ("stage name without $", bson!([{ "match": {} }]), input.clone(), fail(40324, "Unrecognized pipeline stage name: 'match'")),
        (
            "two fields in a stage",
            bson!([{ "$match": {}, "$limit": 1 }]),
            input.clone(),
            fail(40323, "A pipeline stage specification object must contain exactly one field."),
        ),
        ("empty stage", bson!([{}]), input.clone(), fail(40323, "A pipeline stage specification object must contain exactly one field.")),
        ("stage not an object", bson!([1]), input.clone(), fail(14, "Each element of the 'pipeline' array must be an object")),
        (
            "unknown stage is reported before an earlier stage's error",
            bson!([{ "$group": {} }, { "$foo": 1 }]),
            input.clone(),
            fail(40324, "Unrecognized pipeline stage name: '$foo'"),
        ),
        ("$out not last", bson!([{ "$out": "x" }, { "$limit": 1 }]), input.clone(), fail(40601, "$out can only be the final stage in the pipeline")),
        (
            "$merge not last",
            bson!([{ "$merge": { "into": "x" } }, { "$limit": 1 }]),
            input.clone(),
            fail(40601, "$merge can only be the final stage in the pipeline"),
        ),
    ]);
}

#[test]
fn out_and_merge_return_their_target() {
    let p = Pipeline::parse(&[bson!({ "$limit": 5 }), bson!({ "$out": "archive" })]).unwrap();
    let out = p.run(docs(bson!([{ "_id": 1 }, { "_id": 2 }])), &catalog(), &env()).unwrap();
    assert_eq!(out.docs.len(), 2);
    assert_eq!(out.out, Some(OutTarget::Out { db: None, collection: "archive".into() }));

    let p = Pipeline::parse(&[bson!({ "$out": { "db": "other", "coll": "c2" } })]).unwrap();
    let out = p.run(vec![], &catalog(), &env()).unwrap();
    assert_eq!(out.out, Some(OutTarget::Out { db: Some("other".into()), collection: "c2".into() }));

    let p = Pipeline::parse(&[bson!({ "$merge": "totals" })]).unwrap();
    let out = p.run(vec![], &catalog(), &env()).unwrap();
    assert_eq!(out.out, Some(OutTarget::Merge { spec: doc! { "into": "totals" } }));

    let spec = doc! { "into": "totals", "on": "_id", "whenMatched": "merge", "whenNotMatched": "insert" };
    let p = Pipeline::parse(&[Bson::Document(doc! { "$merge": spec.clone() })]).unwrap();
    assert_eq!(p.run(vec![], &catalog(), &env()).unwrap().out, Some(OutTarget::Merge { spec }));

    let p = Pipeline::parse(&[bson!({ "$limit": 1 })]).unwrap();
    assert_eq!(p.run(vec![], &catalog(), &env()).unwrap().out, None);
}

#[test]
fn out_and_merge_errors() {
    let input = bson!([]);
    table(vec![
        ("$out number", bson!([{ "$out": 1 }]), input.clone(), fail(16990, "$out only supports a string or object argument, but found int")),
        ("$out unknown field", bson!([{ "$out": { "coll": "a", "x": 1 } }]), input.clone(), fail(40415, "BSON field '$out.x' is an unknown field.")),
        ("$merge without into", bson!([{ "$merge": { "on": "_id" } }]), input.clone(), fail(40414, "BSON field '$merge.into' is missing but a required field")),
        (
            "$merge bad whenMatched",
            bson!([{ "$merge": { "into": "a", "whenMatched": "nope" } }]),
            input.clone(),
            fail(2, "Enumeration value 'nope' for field '$merge.whenMatched' is not a valid value."),
        ),
        ("$merge unknown field", bson!([{ "$merge": { "into": "a", "x": 1 } }]), input.clone(), fail(40415, "BSON field '$merge.x' is an unknown field.")),
        (
            "$out inside $facet",
            bson!([{ "$facet": { "a": [{ "$out": "x" }] } }]),
            input.clone(),
            fail(40600, "$out is not allowed to be used within a $facet stage"),
        ),
        (
            "$merge inside $lookup",
            bson!([{ "$lookup": { "from": "other", "pipeline": [{ "$merge": "x" }], "as": "a" } }]),
            input.clone(),
            fail(51047, "$merge is not allowed within a $lookup's sub-pipeline"),
        ),
        (
            "$out inside $unionWith",
            bson!([{ "$unionWith": { "coll": "other", "pipeline": [{ "$out": "x" }] } }]),
            input.clone(),
            fail(31441, "$out is not allowed within a $unionWith's sub-pipeline"),
        ),
    ]);
}

// ---------------------------------------------------------------------------------------------
// $limit, $skip, $count
// ---------------------------------------------------------------------------------------------

#[test]
fn limit_skip_count() {
    let input = bson!([{ "_id": 1 }, { "_id": 2 }, { "_id": 3 }]);
    table(vec![
        ("$limit", bson!([{ "$limit": 2 }]), input.clone(), ok(bson!([{ "_id": 1 }, { "_id": 2 }]))),
        ("$limit long", bson!([{ "$limit": 10i64 }]), input.clone(), ok(input.clone())),
        ("$limit integral double", bson!([{ "$limit": 1.0 }]), input.clone(), ok(bson!([{ "_id": 1 }]))),
        ("$limit 0", bson!([{ "$limit": 0 }]), input.clone(), fail(15958, "the limit must be positive")),
        (
            "$limit negative",
            bson!([{ "$limit": -1 }]),
            input.clone(),
            fail(5107201, "invalid argument to $limit stage: Expected a non-negative number in: $limit: -1"),
        ),
        ("$limit fraction", bson!([{ "$limit": 1.5 }]), input.clone(), fail(5107201, "invalid argument to $limit stage: Expected an integer: $limit: 1.5")),
        (
            "$limit string",
            bson!([{ "$limit": "$n" }]),
            input.clone(),
            fail(5107201, "invalid argument to $limit stage: Expected a number in: $limit: \"$n\""),
        ),
        ("$skip", bson!([{ "$skip": 1 }]), input.clone(), ok(bson!([{ "_id": 2 }, { "_id": 3 }]))),
        ("$skip 0", bson!([{ "$skip": 0 }]), input.clone(), ok(input.clone())),
        ("$skip past the end", bson!([{ "$skip": 5 }]), input.clone(), ok(bson!([]))),
        ("$skip then $limit", bson!([{ "$skip": 1 }, { "$limit": 1 }]), input.clone(), ok(bson!([{ "_id": 2 }]))),
        (
            "$skip negative",
            bson!([{ "$skip": -1 }]),
            input.clone(),
            fail(5107200, "invalid argument to $skip stage: Expected a non-negative number in: $skip: -1"),
        ),
        ("$skip fraction", bson!([{ "$skip": 0.5 }]), input.clone(), fail(5107200, "invalid argument to $skip stage: Expected an integer: $skip: 0.5")),
        ("$skip string", bson!([{ "$skip": "1" }]), input.clone(), fail(5107200, "invalid argument to $skip stage: Expected a number in: $skip: \"1\"")),
        ("$count", bson!([{ "$count": "n" }]), input.clone(), ok(bson!([{ "n": 3 }]))),
        ("$count of nothing", bson!([{ "$count": "n" }]), bson!([]), ok(bson!([]))),
        ("$count after $skip", bson!([{ "$skip": 2 }, { "$count": "left" }]), input.clone(), ok(bson!([{ "left": 1 }]))),
        ("$count empty name", bson!([{ "$count": "" }]), input.clone(), fail(40156, "the count field must be a non-empty string")),
        ("$count not a string", bson!([{ "$count": 1 }]), input.clone(), fail(40156, "the count field must be a non-empty string")),
        ("$count $ name", bson!([{ "$count": "$n" }]), input.clone(), fail(40158, "the count field cannot be a $-prefixed path")),
        ("$count dotted name", bson!([{ "$count": "a.b" }]), input.clone(), fail(40160, "the count field cannot contain '.'")),
    ]);
}

/// Stage arguments in messages print as the server's `BSONElement::toString` (doubles with a
/// fraction, decimals bare); evaluated values as its `Value` printing (`MISSING`, bare ObjectIds).
#[test]
fn messages_print_values_as_the_server() {
    let input = bson!([{ "_id": 1, "o": bson::oid::ObjectId::from_bytes([0xab; 12]) }]);
    let dec = Bson::Decimal128("1.5".parse().expect("decimal"));
    table(vec![
        (
            "$limit decimal fraction",
            bson!([{ "$limit": dec }]),
            input.clone(),
            fail(5107201, "invalid argument to $limit stage: Cannot represent as a 64-bit integer: $limit: 1.5"),
        ),
        (
            "$bucket groupBy double",
            bson!([{ "$bucket": { "groupBy": 3.0, "boundaries": [0, 1] } }]),
            input.clone(),
            fail(40202, "The $bucket 'groupBy' field must be defined as a $-prefixed path or an expression, but found: 3.0."),
        ),
        (
            "$firstN n missing",
            bson!([{ "$group": { "_id": null, "r": { "$firstN": { "input": "$o", "n": "$nothing" } } } }]),
            input.clone(),
            fail(5787902, "Value for 'n' must be of integral type, but found MISSING"),
        ),
        (
            "$mergeObjects of an ObjectId",
            bson!([{ "$group": { "_id": null, "r": { "$mergeObjects": "$o" } } }]),
            input.clone(),
            fail(40400, "$mergeObjects requires object inputs, but input abababababababababababab is of type objectId"),
        ),
    ]);
}

#[test]
fn count_is_int32() {
    let out = run(&bson!([{ "$count": "n" }]), &bson!([{}, {}])).unwrap();
    assert_eq!(out[0].get("n"), Some(&Bson::Int32(2)));
}

#[test]
fn limit_stops_reading_the_input() {
    // A $limit after an erroring stage: documents past the limit are never transformed.
    let input = bson!([{ "a": { "x": 1 } }, { "a": 5 }]);
    let out = run(&bson!([{ "$limit": 1 }, { "$replaceWith": "$a" }]), &input).unwrap();
    assert_eq!(out, vec![doc! { "x": 1 }]);
}

// ---------------------------------------------------------------------------------------------
// $unwind
// ---------------------------------------------------------------------------------------------

#[test]
fn unwind() {
    let input = bson!([
        { "_id": 1, "item": "A", "sizes": ["S", "M"] },
        { "_id": 2, "item": "B", "sizes": [] },
        { "_id": 3, "item": "C", "sizes": "M" },
        { "_id": 4, "item": "D" },
        { "_id": 5, "item": "E", "sizes": null }
    ]);
    table(vec![
        (
            "string form",
            bson!([{ "$unwind": "$sizes" }]),
            input.clone(),
            ok(bson!([
                { "_id": 1, "item": "A", "sizes": "S" },
                { "_id": 1, "item": "A", "sizes": "M" },
                { "_id": 3, "item": "C", "sizes": "M" }
            ])),
        ),
        (
            "preserveNullAndEmptyArrays",
            bson!([{ "$unwind": { "path": "$sizes", "preserveNullAndEmptyArrays": true } }]),
            input.clone(),
            ok(bson!([
                { "_id": 1, "item": "A", "sizes": "S" },
                { "_id": 1, "item": "A", "sizes": "M" },
                { "_id": 2, "item": "B" },
                { "_id": 3, "item": "C", "sizes": "M" },
                { "_id": 4, "item": "D" },
                { "_id": 5, "item": "E", "sizes": null }
            ])),
        ),
        (
            "includeArrayIndex is a long, null for non-arrays",
            bson!([{ "$unwind": { "path": "$sizes", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true } }]),
            input.clone(),
            ok(bson!([
                { "_id": 1, "item": "A", "sizes": "S", "i": 0i64 },
                { "_id": 1, "item": "A", "sizes": "M", "i": 1i64 },
                { "_id": 2, "item": "B", "i": null },
                { "_id": 3, "item": "C", "sizes": "M", "i": null },
                { "_id": 4, "item": "D", "i": null },
                { "_id": 5, "item": "E", "sizes": null, "i": null }
            ])),
        ),
        (
            "nested path through documents",
            bson!([{ "$unwind": "$a.b" }]),
            bson!([{ "_id": 1, "a": { "b": [1, 2], "c": 3 } }]),
            ok(bson!([{ "_id": 1, "a": { "b": 1, "c": 3 } }, { "_id": 1, "a": { "b": 2, "c": 3 } }])),
        ),
        (
            "path through an array is missing",
            bson!([{ "$unwind": "$a.b" }]),
            bson!([{ "_id": 1, "a": [{ "b": [1, 2] }] }]),
            ok(bson!([])),
        ),
        (
            "nested arrays unwind one level",
            bson!([{ "$unwind": "$a" }]),
            bson!([{ "_id": 1, "a": [[1, 2], 3] }]),
            ok(bson!([{ "_id": 1, "a": [1, 2] }, { "_id": 1, "a": 3 }])),
        ),
        (
            "index into an existing field keeps its place",
            bson!([{ "$unwind": { "path": "$a", "includeArrayIndex": "_id" } }]),
            bson!([{ "_id": "x", "a": [7] }]),
            ok(bson!([{ "_id": 0i64, "a": 7 }])),
        ),
        ("path without $", bson!([{ "$unwind": "sizes" }]), input.clone(), fail(28818, "path option to $unwind stage should be prefixed with a '$': sizes")),
        ("empty path", bson!([{ "$unwind": "" }]), input.clone(), fail(28812, "no path specified to $unwind stage")),
        ("no path", bson!([{ "$unwind": { "includeArrayIndex": "i" } }]), input.clone(), fail(28812, "no path specified to $unwind stage")),
        (
            "spec a number",
            bson!([{ "$unwind": 1 }]),
            input.clone(),
            fail(15981, "expected either a string or an object as specification for $unwind stage, got int"),
        ),
        ("path not a string", bson!([{ "$unwind": { "path": 1 } }]), input.clone(), fail(28808, "expected a string as the path for $unwind stage, got int")),
        (
            "preserve not a bool",
            bson!([{ "$unwind": { "path": "$a", "preserveNullAndEmptyArrays": 1 } }]),
            input.clone(),
            fail(28809, "expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage, got int"),
        ),
        (
            "index empty",
            bson!([{ "$unwind": { "path": "$a", "includeArrayIndex": "" } }]),
            input.clone(),
            fail(28810, "expected a non-empty string for the includeArrayIndex  option to $unwind stage, got string"),
        ),
        (
            "index with $",
            bson!([{ "$unwind": { "path": "$a", "includeArrayIndex": "$i" } }]),
            input.clone(),
            fail(28822, "includeArrayIndex option to $unwind stage should not be prefixed with a '$': $i"),
        ),
        ("unknown option", bson!([{ "$unwind": { "path": "$a", "x": 1 } }]), input.clone(), fail(28811, "unrecognized option to $unwind stage: x")),
        ("path $ alone", bson!([{ "$unwind": "$" }]), input.clone(), fail(40352, "FieldPath cannot be constructed with empty string")),
    ]);
}

// ---------------------------------------------------------------------------------------------
// $project, $addFields / $set, $unset
// ---------------------------------------------------------------------------------------------

#[test]
fn project_inclusion_and_exclusion() {
    let input = bson!([{ "_id": 1, "a": 1, "b": 2, "c": { "d": 3, "e": 4 } }]);
    let arrays = bson!([{ "_id": 1, "a": [{ "b": 1, "c": 2 }, 3, [{ "b": 4, "d": 5 }], { "c": 6 }] }]);
    table(vec![
        ("include", bson!([{ "$project": { "a": 1 } }]), input.clone(), ok(bson!([{ "_id": 1, "a": 1 }]))),
        ("include with true", bson!([{ "$project": { "a": true } }]), input.clone(), ok(bson!([{ "_id": 1, "a": 1 }]))),
        ("include without _id", bson!([{ "$project": { "a": 1, "_id": 0 } }]), input.clone(), ok(bson!([{ "a": 1 }]))),
        ("inclusion keeps the input's order", bson!([{ "$project": { "b": 1, "a": 1 } }]), input.clone(), ok(bson!([{ "_id": 1, "a": 1, "b": 2 }]))),
        ("include a missing field", bson!([{ "$project": { "zz": 1 } }]), input.clone(), ok(bson!([{ "_id": 1 }]))),
        ("only _id", bson!([{ "$project": { "_id": 1 } }]), input.clone(), ok(bson!([{ "_id": 1 }]))),
        ("only _id: 0 excludes", bson!([{ "$project": { "_id": 0 } }]), input.clone(), ok(bson!([{ "a": 1, "b": 2, "c": { "d": 3, "e": 4 } }]))),
        ("exclude", bson!([{ "$project": { "b": 0, "c": false } }]), input.clone(), ok(bson!([{ "_id": 1, "a": 1 }]))),
        ("exclude with _id: 1", bson!([{ "$project": { "b": 0, "_id": 1 } }]), input.clone(), ok(bson!([{ "_id": 1, "a": 1, "c": { "d": 3, "e": 4 } }]))),
        ("dotted inclusion", bson!([{ "$project": { "c.d": 1 } }]), input.clone(), ok(bson!([{ "_id": 1, "c": { "d": 3 } }]))),
        ("nested inclusion", bson!([{ "$project": { "c": { "e": 1 } } }]), input.clone(), ok(bson!([{ "_id": 1, "c": { "e": 4 } }]))),
        ("dotted exclusion", bson!([{ "$project": { "c.d": 0 } }]), input.clone(), ok(bson!([{ "_id": 1, "a": 1, "b": 2, "c": { "e": 4 } }]))),
        (
            "inclusion through arrays drops scalars, recurses nested arrays",
            bson!([{ "$project": { "a.b": 1 } }]),
            arrays.clone(),
            ok(bson!([{ "_id": 1, "a": [{ "b": 1 }, [{ "b": 4 }], {}] }])),
        ),
        (
            "exclusion through arrays keeps scalars",
            bson!([{ "$project": { "a.b": 0 } }]),
            arrays.clone(),
            ok(bson!([{ "_id": 1, "a": [{ "c": 2 }, 3, [{ "d": 5 }], { "c": 6 }] }])),
        ),
        ("dotted inclusion of a scalar drops it", bson!([{ "$project": { "a.x": 1 } }]), input.clone(), ok(bson!([{ "_id": 1 }]))),
        ("dotted _id inclusion", bson!([{ "$project": { "_id.x": 1, "a": 1 } }]), bson!([{ "_id": { "x": 1, "y": 2 }, "a": 1 }]), ok(bson!([{ "_id": { "x": 1 }, "a": 1 }]))),
    ]);
}

#[test]
fn project_errors() {
    let input = bson!([{ "_id": 1 }]);
    table(vec![
        ("not an object", bson!([{ "$project": 1 }]), input.clone(), fail(15969, "$project specification must be an object, got int")),
        ("empty", bson!([{ "$project": {} }]), input.clone(), fail(51272, "Invalid $project :: caused by :: projection specification must have at least one field")),
        (
            "exclusion in inclusion",
            bson!([{ "$project": { "a": 1, "b": 0 } }]),
            input.clone(),
            fail(31254, "Invalid $project :: caused by :: Cannot do exclusion on field b in inclusion projection"),
        ),
        (
            "inclusion in exclusion",
            bson!([{ "$project": { "a": 0, "b": 1 } }]),
            input.clone(),
            fail(31253, "Invalid $project :: caused by :: Cannot do inclusion on field b in exclusion projection"),
        ),
        (
            "literal in exclusion",
            bson!([{ "$project": { "a": 0, "b": "$c" } }]),
            input.clone(),
            fail(31310, "Invalid $project :: caused by :: Cannot use an expression b: \"$c\" in an exclusion projection"),
        ),
        (
            "expression in exclusion",
            bson!([{ "$project": { "a": 0, "b": { "$literal": 1 } } }]),
            input.clone(),
            fail(31252, "Invalid $project :: caused by :: Cannot use expression other than $meta in exclusion projection"),
        ),
        (
            "path collision, parent first",
            bson!([{ "$project": { "a": 1, "a.b": 1 } }]),
            input.clone(),
            fail(31249, "Invalid $project :: caused by :: Path collision at a.b remaining portion b"),
        ),
        ("path collision, child first", bson!([{ "$project": { "a.b": 1, "a": 1 } }]), input.clone(), fail(31250, "Invalid $project :: caused by :: Path collision at a")),
        (
            "$ field name",
            bson!([{ "$project": { "$a": 1 } }]),
            input.clone(),
            fail(16410, "Invalid $project :: caused by :: FieldPath field names may not start with '$'. Consider using $getField or $setField."),
        ),
        ("empty field name", bson!([{ "$project": { "a..b": 1 } }]), input.clone(), fail(15998, "Invalid $project :: caused by :: FieldPath field names may not be empty strings.")),
        (
            "positional",
            bson!([{ "$project": { "a.$": 1 } }]),
            input.clone(),
            fail(31324, "Invalid $project :: caused by :: Cannot use positional projection in aggregation projection"),
        ),
        (
            "exclusion of a nested field after inclusion",
            bson!([{ "$project": { "a": 1, "c": { "d": 0 } } }]),
            input.clone(),
            fail(31254, "Invalid $project :: caused by :: Cannot do exclusion on field d in inclusion projection"),
        ),
    ]);
}

#[test]
fn project_computed_fields() {
    let input = bson!([{ "_id": 1, "a": 1, "b": { "c": 2 } }]);
    table(vec![
        ("computed appended after included", bson!([{ "$project": { "x": "$a", "a": 1 } }]), input.clone(), ok(bson!([{ "_id": 1, "a": 1, "x": 1 }]))),
        ("string literal", bson!([{ "$project": { "s": "lit" } }]), input.clone(), ok(bson!([{ "_id": 1, "s": "lit" }]))),
        ("$literal", bson!([{ "$project": { "n": { "$literal": 1 } } }]), input.clone(), ok(bson!([{ "_id": 1, "n": 1 }]))),
        ("computed _id replaces in place", bson!([{ "$project": { "_id": "$a", "b": 1 } }]), input.clone(), ok(bson!([{ "_id": 1, "b": { "c": 2 } }]))),
        ("computed _id comes first wherever it is given", bson!([{ "$project": { "b": 1, "_id": "$a" } }]), input.clone(), ok(bson!([{ "_id": 1, "b": { "c": 2 } }]))),
        ("$$REMOVE", bson!([{ "$project": { "a": 1, "z": "$$REMOVE" } }]), input.clone(), ok(bson!([{ "_id": 1, "a": 1 }]))),
        ("missing field path", bson!([{ "$project": { "z": "$nope" } }]), input.clone(), ok(bson!([{ "_id": 1 }]))),
        ("computed into a sub-document", bson!([{ "$project": { "b.d": "$a" } }]), input.clone(), ok(bson!([{ "_id": 1, "b": { "d": 1 } }]))),
        ("computed over a scalar", bson!([{ "$project": { "a.d": "x" } }]), input.clone(), ok(bson!([{ "_id": 1, "a": { "d": "x" } }]))),
        (
            "computed through an array",
            bson!([{ "$project": { "l.k": "$a" } }]),
            bson!([{ "_id": 1, "a": 9, "l": [{ "x": 1 }, 2] }]),
            ok(bson!([{ "_id": 1, "l": [{ "k": 9 }] }])),
        ),
        ("_id: 0 with expression", bson!([{ "$project": { "_id": 0, "v": { "$add": ["$a", 1] } } }]), input.clone(), ok(bson!([{ "v": 2 }]))),
        (
            "unknown expression",
            bson!([{ "$project": { "a": { "$foo": 1 } } }]),
            input.clone(),
            fail(31325, "Invalid $project :: caused by :: Unknown expression $foo"),
        ),
    ]);
}

#[test]
fn add_fields_and_set() {
    let input = bson!([{ "_id": 1, "a": 1, "b": { "c": 2 }, "l": [{ "x": 1 }, 2] }]);
    table(vec![
        ("append", bson!([{ "$addFields": { "z": 5 } }]), input.clone(), ok(bson!([{ "_id": 1, "a": 1, "b": { "c": 2 }, "l": [{ "x": 1 }, 2], "z": 5 }]))),
        ("replace in place", bson!([{ "$set": { "a": "$b.c" } }]), input.clone(), ok(bson!([{ "_id": 1, "a": 2, "b": { "c": 2 }, "l": [{ "x": 1 }, 2] }]))),
        ("nested object merges", bson!([{ "$set": { "b": { "d": 3 } } }]), input.clone(), ok(bson!([{ "_id": 1, "a": 1, "b": { "c": 2, "d": 3 }, "l": [{ "x": 1 }, 2] }]))),
        ("dotted path", bson!([{ "$set": { "b.d": 3 } }]), input.clone(), ok(bson!([{ "_id": 1, "a": 1, "b": { "c": 2, "d": 3 }, "l": [{ "x": 1 }, 2] }]))),
        (
            "through an array every element",
            bson!([{ "$set": { "l.y": 0 } }]),
            input.clone(),
            ok(bson!([{ "_id": 1, "a": 1, "b": { "c": 2 }, "l": [{ "x": 1, "y": 0 }, { "y": 0 }] }])),
        ),
        ("empty object is a value", bson!([{ "$set": { "a": {} } }]), input.clone(), ok(bson!([{ "_id": 1, "a": {}, "b": { "c": 2 }, "l": [{ "x": 1 }, 2] }]))),
        ("$$REMOVE removes", bson!([{ "$set": { "a": "$$REMOVE" } }]), input.clone(), ok(bson!([{ "_id": 1, "b": { "c": 2 }, "l": [{ "x": 1 }, 2] }]))),
        (
            "expressions see the input document",
            bson!([{ "$set": { "a": 10, "z": "$a" } }]),
            bson!([{ "_id": 1, "a": 1 }]),
            ok(bson!([{ "_id": 1, "a": 10, "z": 1 }])),
        ),
        ("new nested path", bson!([{ "$addFields": { "n.m": true } }]), bson!([{ "_id": 1 }]), ok(bson!([{ "_id": 1, "n": { "m": true } }]))),
    ]);
}

#[test]
fn add_fields_errors() {
    let input = bson!([{ "_id": 1 }]);
    table(vec![
        ("not an object", bson!([{ "$addFields": 1 }]), input.clone(), fail(40272, "$addFields specification stage must be an object, got int")),
        ("$set not an object", bson!([{ "$set": [] }]), input.clone(), fail(40272, "$set specification stage must be an object, got array")),
        (
            "conflicting paths",
            bson!([{ "$addFields": { "a": 1, "a.b": 2 } }]),
            input.clone(),
            fail(40176, "Invalid $addFields :: caused by :: specification contains two conflicting paths. Cannot specify both 'a.b' and 'a': { a: 1, a.b: 2 }"),
        ),
        (
            "dotted name in a sub-object",
            bson!([{ "$set": { "a": { "b.c": 1 } } }]),
            input.clone(),
            fail(40183, "Invalid $set :: caused by :: cannot use dotted field name 'b.c' in a sub object: { a: { b.c: 1 } }"),
        ),
        (
            "expression object with two fields",
            bson!([{ "$set": { "a": { "$add": [1], "b": 1 } } }]),
            input.clone(),
            fail(
                40181,
                "Invalid $set :: caused by :: an expression specification must contain exactly one field, the name of the expression. Found 2 fields in { $add: [ 1 ], b: 1 }, while parsing object { a: { $add: [ 1 ], b: 1 } }",
            ),
        ),
        (
            "$ field name",
            bson!([{ "$set": { "$a": 1 } }]),
            input.clone(),
            fail(16410, "Invalid $set :: caused by :: FieldPath field names may not start with '$'. Consider using $getField or $setField."),
        ),
    ]);
}

#[test]
fn unset() {
    let input = bson!([{ "_id": 1, "a": 1, "b": { "c": 2, "d": 3 }, "e": [{ "c": 1, "f": 2 }] }]);
    table(vec![
        ("one field", bson!([{ "$unset": "a" }]), input.clone(), ok(bson!([{ "_id": 1, "b": { "c": 2, "d": 3 }, "e": [{ "c": 1, "f": 2 }] }]))),
        ("several fields", bson!([{ "$unset": ["a", "b.c", "e.c"] }]), input.clone(), ok(bson!([{ "_id": 1, "b": { "d": 3 }, "e": [{ "f": 2 }] }]))),
        ("_id", bson!([{ "$unset": "_id" }]), bson!([{ "_id": 1, "a": 1 }]), ok(bson!([{ "a": 1 }]))),
        ("not a string or array", bson!([{ "$unset": 1 }]), input.clone(), fail(31002, "$unset specification must be a string or an array")),
        ("empty array", bson!([{ "$unset": [] }]), input.clone(), fail(31119, "$unset specification must be a string or an array with at least one field")),
        ("non-string element", bson!([{ "$unset": ["a", 1] }]), input.clone(), fail(31120, "$unset specification must be a string or an array containing only string values")),
        ("same field twice", bson!([{ "$unset": ["a", "a"] }]), input.clone(), fail(31250, "Invalid $unset :: caused by :: Path collision at a")),
    ]);
}

/// A removed field keeps its place when a later stage sets it again (the server's documents
/// mark a removed field missing where it stands; issue 13's `$project {c: 0}` then `$addFields`).
#[test]
fn removed_fields_keep_their_place() {
    let input = bson!([{ "_id": 1, "a": 1, "c": 2, "b": { "p": 1, "q": 2 }, "e": [{ "p": 1, "q": 2 }] }]);
    table(vec![
        (
            "exclusion then $addFields",
            bson!([{ "$project": { "c": 0 } }, { "$addFields": { "x": 3, "c": 6 } }]),
            input.clone(),
            ok(bson!([{ "_id": 1, "a": 1, "c": 6, "b": { "p": 1, "q": 2 }, "e": [{ "p": 1, "q": 2 }], "x": 3 }])),
        ),
        (
            "$unset then $set, over several stages",
            bson!([{ "$unset": ["a", "c"] }, { "$set": { "x": 1 } }, { "$set": { "c": 7, "a": 8 } }]),
            input.clone(),
            ok(bson!([{ "_id": 1, "a": 8, "c": 7, "b": { "p": 1, "q": 2 }, "e": [{ "p": 1, "q": 2 }], "x": 1 }])),
        ),
        (
            "$$REMOVE then set again",
            bson!([{ "$set": { "a": "$$REMOVE" } }, { "$set": { "z": 0, "a": 5 } }]),
            input.clone(),
            ok(bson!([{ "_id": 1, "a": 5, "c": 2, "b": { "p": 1, "q": 2 }, "e": [{ "p": 1, "q": 2 }], "z": 0 }])),
        ),
        (
            "nested, and through an array",
            bson!([{ "$unset": ["b.p", "e.p"] }, { "$set": { "b.r": 0, "b.p": 9, "e.p": 9 } }]),
            input.clone(),
            ok(bson!([{ "_id": 1, "a": 1, "c": 2, "b": { "p": 9, "q": 2, "r": 0 }, "e": [{ "p": 9, "q": 2 }] }])),
        ),
        (
            // An object in $set's specification sets its fields into b in place.
            "fields set into a sub-document",
            bson!([{ "$unset": "b.p" }, { "$set": { "b": { "q": 0, "p": 1 } } }]),
            input.clone(),
            ok(bson!([{ "_id": 1, "a": 1, "c": 2, "b": { "p": 1, "q": 0 }, "e": [{ "p": 1, "q": 2 }] }])),
        ),
        (
            "a field replaced whole starts afresh",
            bson!([{ "$unset": "b.p" }, { "$set": { "b": { "$literal": { "q": 0, "p": 1 } } } }]),
            input.clone(),
            ok(bson!([{ "_id": 1, "a": 1, "c": 2, "b": { "q": 0, "p": 1 }, "e": [{ "p": 1, "q": 2 }] }])),
        ),
        (
            "an inclusion projection in between rebuilds the document",
            bson!([{ "$project": { "c": 0 } }, { "$project": { "a": 1 } }, { "$addFields": { "c": 1 } }]),
            input.clone(),
            ok(bson!([{ "_id": 1, "a": 1, "c": 1 }])),
        ),
        (
            "$addFields alone appends",
            bson!([{ "$addFields": { "x": 3, "c": 6 } }]),
            input.clone(),
            ok(bson!([{ "_id": 1, "a": 1, "c": 6, "b": { "p": 1, "q": 2 }, "e": [{ "p": 1, "q": 2 }], "x": 3 }])),
        ),
    ]);
}

// ---------------------------------------------------------------------------------------------
// $group and accumulators
// ---------------------------------------------------------------------------------------------

fn sales() -> Bson {
    bson!([
        { "_id": 1, "item": "abc", "price": 10, "qty": 2, "tags": ["a"] },
        { "_id": 2, "item": "jkl", "price": 20, "qty": 1 },
        { "_id": 3, "item": "xyz", "price": 5, "qty": 10, "tags": ["b", "a"] },
        { "_id": 4, "item": "xyz", "price": 5, "qty": 20 },
        { "_id": 5, "item": "abc", "price": 10, "qty": 10 }
    ])
}

#[test]
fn group_keys() {
    table(vec![
        (
            "first-seen order",
            bson!([{ "$group": { "_id": "$item" } }]),
            sales(),
            ok(bson!([{ "_id": "abc" }, { "_id": "jkl" }, { "_id": "xyz" }])),
        ),
        ("null key: one group", bson!([{ "$group": { "_id": null, "n": { "$sum": 1 } } }]), sales(), ok(bson!([{ "_id": null, "n": 5 }]))),
        ("constant key", bson!([{ "$group": { "_id": "x", "n": { "$sum": 1 } } }]), sales(), ok(bson!([{ "_id": "x", "n": 5 }]))),
        ("empty object key", bson!([{ "$group": { "_id": {}, "n": { "$sum": 1 } } }]), sales(), ok(bson!([{ "_id": {}, "n": 5 }]))),
        ("no input, no group", bson!([{ "$group": { "_id": null, "n": { "$sum": 1 } } }]), bson!([]), ok(bson!([]))),
        (
            "missing key groups with null",
            bson!([{ "$group": { "_id": "$k", "n": { "$sum": 1 } } }]),
            bson!([{ "k": null }, {}, { "k": 1 }]),
            ok(bson!([{ "_id": null, "n": 2 }, { "_id": 1, "n": 1 }])),
        ),
        (
            "numbers equal across types share a group (first value kept)",
            bson!([{ "$group": { "_id": "$k", "n": { "$sum": 1 } } }]),
            bson!([{ "k": 1i64 }, { "k": 1.0 }, { "k": 1 }, { "k": 2 }]),
            ok(bson!([{ "_id": 1i64, "n": 3 }, { "_id": 2, "n": 1 }])),
        ),
        (
            "document key",
            bson!([{ "$group": { "_id": { "i": "$item", "p": "$price" }, "q": { "$sum": "$qty" } } }]),
            sales(),
            ok(bson!([
                { "_id": { "i": "abc", "p": 10 }, "q": 12 },
                { "_id": { "i": "jkl", "p": 20 }, "q": 1 },
                { "_id": { "i": "xyz", "p": 5 }, "q": 30 }
            ])),
        ),
        (
            "document key with a missing field differs from null",
            bson!([{ "$group": { "_id": { "k": "$k" }, "n": { "$sum": 1 } } }]),
            bson!([{ "k": null }, {}, {}]),
            ok(bson!([{ "_id": { "k": null }, "n": 1 }, { "_id": {}, "n": 2 }])),
        ),
        (
            "expression key",
            bson!([{ "$group": { "_id": { "$gt": ["$price", 8] }, "n": { "$sum": 1 } } }]),
            sales(),
            ok(bson!([{ "_id": true, "n": 3 }, { "_id": false, "n": 2 }])),
        ),
        (
            "array key",
            bson!([{ "$group": { "_id": "$tags", "n": { "$sum": 1 } } }]),
            sales(),
            ok(bson!([{ "_id": ["a"], "n": 1 }, { "_id": null, "n": 3 }, { "_id": ["b", "a"], "n": 1 }])),
        ),
    ]);
}

#[test]
fn group_errors() {
    let input = bson!([{ "a": 1 }]);
    table(vec![
        ("no _id", bson!([{ "$group": { "n": { "$sum": 1 } } }]), input.clone(), fail(15955, "a group specification must include an _id")),
        ("empty", bson!([{ "$group": {} }]), input.clone(), fail(15955, "a group specification must include an _id")),
        ("not an object", bson!([{ "$group": 1 }]), input.clone(), fail(15947, "a group's fields must be specified in an object")),
        ("unknown accumulator", bson!([{ "$group": { "_id": null, "n": { "$foo": 1 } } }]), input.clone(), fail(15952, "unknown group operator '$foo'")),
        (
            "an accumulator the engine does not implement",
            bson!([{ "$group": { "_id": null, "n": { "$median": { "input": "$a", "method": "approximate" } } } }]),
            input.clone(),
            fail(238, "$median is not supported by this engine"),
        ),
        (
            "unknown accumulator before missing _id",
            bson!([{ "$group": { "n": { "$foo": 1 } } }]),
            input.clone(),
            fail(15952, "unknown group operator '$foo'"),
        ),
        ("field not an accumulator", bson!([{ "$group": { "_id": null, "n": 1 } }]), input.clone(), fail(40234, "The field 'n' must be an accumulator object")),
        (
            "field an object without operator",
            bson!([{ "$group": { "_id": null, "n": { "a": 1 } } }]),
            input.clone(),
            fail(40234, "The field 'n' must be an accumulator object"),
        ),
        ("empty accumulator object", bson!([{ "$group": { "_id": null, "n": {} } }]), input.clone(), fail(40234, "The field 'n' must be an accumulator object")),
        ("dotted field", bson!([{ "$group": { "_id": null, "a.b": { "$sum": 1 } } }]), input.clone(), fail(40235, "The field name 'a.b' cannot contain '.'")),
        ("$ field", bson!([{ "$group": { "_id": null, "$a": { "$sum": 1 } } }]), input.clone(), fail(40236, "The field name '$a' cannot be an operator name")),
        (
            "two accumulators",
            bson!([{ "$group": { "_id": null, "n": { "$sum": 1, "$avg": 1 } } }]),
            input.clone(),
            fail(40238, "The field 'n' must specify one accumulator"),
        ),
        ("array argument", bson!([{ "$group": { "_id": null, "n": { "$sum": [1, 2] } } }]), input.clone(), fail(40237, "The $sum accumulator is a unary operator")),
        (
            "inclusion-style _id",
            bson!([{ "$group": { "_id": { "a": 1 } } }]),
            input.clone(),
            fail(17390, "$group does not support inclusion-style expressions"),
        ),
        ("$count with an argument", bson!([{ "$group": { "_id": null, "n": { "$count": 1 } } }]), input.clone(), fail(14, "$count takes no arguments, i.e. $count:{}")),
        (
            "$mergeObjects of a number",
            bson!([{ "$group": { "_id": null, "m": { "$mergeObjects": "$a" } } }]),
            input.clone(),
            fail(40400, "$mergeObjects requires object inputs, but input 1 is of type int"),
        ),
    ]);
}

#[test]
fn sum_types() {
    let big = i32::MAX;
    table(vec![
        ("ints stay int", bson!([{ "$group": { "_id": null, "s": { "$sum": "$v" } } }]), bson!([{ "v": 1 }, { "v": 2 }]), ok(bson!([{ "_id": null, "s": 3 }]))),
        (
            "int past 2^31 becomes long",
            bson!([{ "$group": { "_id": null, "s": { "$sum": "$v" } } }]),
            bson!([{ "v": big }, { "v": 1 }]),
            ok(bson!([{ "_id": null, "s": 2_147_483_648i64 }])),
        ),
        (
            "a long makes a long",
            bson!([{ "$group": { "_id": null, "s": { "$sum": "$v" } } }]),
            bson!([{ "v": 1 }, { "v": 2i64 }]),
            ok(bson!([{ "_id": null, "s": 3i64 }])),
        ),
        (
            "long past 2^63 becomes double",
            bson!([{ "$group": { "_id": null, "s": { "$sum": "$v" } } }]),
            bson!([{ "v": i64::MAX }, { "v": 1i64 }]),
            ok(bson!([{ "_id": null, "s": 9.223_372_036_854_776e18 }])),
        ),
        (
            "a double makes a double",
            bson!([{ "$group": { "_id": null, "s": { "$sum": "$v" } } }]),
            bson!([{ "v": 1 }, { "v": 2.5 }]),
            ok(bson!([{ "_id": null, "s": 3.5 }])),
        ),
        (
            "doubles are summed precisely",
            bson!([{ "$group": { "_id": null, "s": { "$sum": "$v" } } }]),
            Bson::Array((0..10).map(|_| bson!({ "v": 0.1 })).collect()),
            ok(bson!([{ "_id": null, "s": 1.0 }])),
        ),
        (
            "a decimal makes a decimal",
            bson!([{ "$group": { "_id": null, "s": { "$sum": "$v" } } }]),
            bson!([{ "v": 1 }, { "v": Bson::Decimal128("2.5".parse().unwrap()) }]),
            ok(bson!([{ "_id": null, "s": Bson::Decimal128("3.5".parse().unwrap()) }])),
        ),
        (
            "non-numbers ignored, none gives int 0",
            bson!([{ "$group": { "_id": null, "s": { "$sum": "$v" } } }]),
            bson!([{ "v": "a" }, { "v": null }, {}, { "v": [1, 2] }]),
            ok(bson!([{ "_id": null, "s": 0 }])),
        ),
        (
            "$sum: 1 counts",
            bson!([{ "$group": { "_id": "$item", "n": { "$sum": 1 } } }]),
            sales(),
            ok(bson!([{ "_id": "abc", "n": 2 }, { "_id": "jkl", "n": 1 }, { "_id": "xyz", "n": 2 }])),
        ),
        (
            "$sum of an expression",
            bson!([{ "$group": { "_id": "$item", "total": { "$sum": { "$multiply": ["$price", "$qty"] } } } }]),
            sales(),
            ok(bson!([{ "_id": "abc", "total": 120 }, { "_id": "jkl", "total": 20 }, { "_id": "xyz", "total": 150 }])),
        ),
        ("$count is int", bson!([{ "$group": { "_id": null, "n": { "$count": {} } } }]), sales(), ok(bson!([{ "_id": null, "n": 5 }]))),
    ]);
}

#[test]
fn avg_min_max_first_last() {
    let g = |acc: Bson| bson!([{ "$group": { "_id": null, "r": acc } }]);
    let mixed = bson!([{ "v": 3 }, { "v": "a" }, { "v": null }, {}, { "v": 1 }]);
    table(vec![
        ("$avg is double", g(bson!({ "$avg": "$v" })), bson!([{ "v": 2 }, { "v": 4 }]), ok(bson!([{ "_id": null, "r": 3.0 }]))),
        ("$avg ignores non-numbers", g(bson!({ "$avg": "$v" })), mixed.clone(), ok(bson!([{ "_id": null, "r": 2.0 }]))),
        ("$avg of nothing is null", g(bson!({ "$avg": "$v" })), bson!([{ "v": "x" }, {}]), ok(bson!([{ "_id": null, "r": null }]))),
        (
            "$avg with a decimal is decimal",
            g(bson!({ "$avg": "$v" })),
            bson!([{ "v": 1 }, { "v": Bson::Decimal128("2".parse().unwrap()) }]),
            ok(bson!([{ "_id": null, "r": Bson::Decimal128("1.5".parse().unwrap()) }])),
        ),
        ("$min across types, nulls ignored", g(bson!({ "$min": "$v" })), mixed.clone(), ok(bson!([{ "_id": null, "r": 1 }]))),
        ("$max across types", g(bson!({ "$max": "$v" })), mixed.clone(), ok(bson!([{ "_id": null, "r": "a" }]))),
        ("$min of nothing is null", g(bson!({ "$min": "$v" })), bson!([{ "v": null }, {}]), ok(bson!([{ "_id": null, "r": null }]))),
        ("$max of arrays compares arrays", g(bson!({ "$max": "$v" })), bson!([{ "v": [1, 5] }, { "v": [2] }]), ok(bson!([{ "_id": null, "r": [2] }]))),
        ("$first", g(bson!({ "$first": "$v" })), mixed.clone(), ok(bson!([{ "_id": null, "r": 3 }]))),
        ("$first missing is null", g(bson!({ "$first": "$v" })), bson!([{}, { "v": 1 }]), ok(bson!([{ "_id": null, "r": null }]))),
        ("$last", g(bson!({ "$last": "$v" })), mixed.clone(), ok(bson!([{ "_id": null, "r": 1 }]))),
        ("$last missing is null", g(bson!({ "$last": "$v" })), bson!([{ "v": 1 }, {}]), ok(bson!([{ "_id": null, "r": null }]))),
    ]);
}

#[test]
fn push_add_to_set_merge_objects_std_dev() {
    let g = |acc: Bson| bson!([{ "$group": { "_id": null, "r": acc } }]);
    table(vec![
        ("$push keeps order, skips missing", g(bson!({ "$push": "$v" })), bson!([{ "v": 2 }, {}, { "v": null }, { "v": 1 }]), ok(bson!([{ "_id": null, "r": [2, null, 1] }]))),
        (
            "$push of an object expression",
            g(bson!({ "$push": { "i": "$item", "q": "$qty" } })),
            bson!([{ "item": "a", "qty": 1 }, { "item": "b" }]),
            ok(bson!([{ "_id": null, "r": [{ "i": "a", "q": 1 }, { "i": "b" }] }])),
        ),
        (
            "$addToSet dedupes equal values",
            g(bson!({ "$addToSet": "$v" })),
            bson!([{ "v": 1 }, { "v": 1.0 }, { "v": "a" }, {}, { "v": [1] }, { "v": [1] }, { "v": 1i64 }]),
            ok(bson!([{ "_id": null, "r": [1, "a", [1]] }])),
        ),
        (
            "$mergeObjects",
            g(bson!({ "$mergeObjects": "$v" })),
            bson!([{ "v": { "a": 1, "b": 1 } }, { "v": null }, {}, { "v": { "c": 3, "a": 2 } }]),
            ok(bson!([{ "_id": null, "r": { "a": 2, "b": 1, "c": 3 } }])),
        ),
        ("$mergeObjects of nothing", g(bson!({ "$mergeObjects": "$v" })), bson!([{}]), ok(bson!([{ "_id": null, "r": {} }]))),
        (
            "$stdDevPop",
            g(bson!({ "$stdDevPop": "$v" })),
            bson!([{ "v": 1 }, { "v": 2 }, { "v": 3 }, { "v": 4 }, { "v": "x" }]),
            ok(bson!([{ "_id": null, "r": 1.118_033_988_749_895 }])),
        ),
        (
            "$stdDevSamp",
            g(bson!({ "$stdDevSamp": "$v" })),
            bson!([{ "v": 1 }, { "v": 2 }, { "v": 3 }, { "v": 4 }]),
            ok(bson!([{ "_id": null, "r": 1.290_994_448_735_805_6 }])),
        ),
        ("$stdDevPop of one is 0", g(bson!({ "$stdDevPop": "$v" })), bson!([{ "v": 5 }]), ok(bson!([{ "_id": null, "r": 0.0 }]))),
        ("$stdDevSamp of one is null", g(bson!({ "$stdDevSamp": "$v" })), bson!([{ "v": 5 }]), ok(bson!([{ "_id": null, "r": null }]))),
        ("$stdDevPop of nothing is null", g(bson!({ "$stdDevPop": "$v" })), bson!([{ "v": "a" }]), ok(bson!([{ "_id": null, "r": null }]))),
    ]);
}

#[test]
fn n_accumulators() {
    let g = |acc: Bson| bson!([{ "$group": { "_id": null, "r": acc } }]);
    let input = bson!([{ "v": 3 }, { "v": 1 }, {}, { "v": null }, { "v": 4 }, { "v": 1.0 }, { "v": 5 }]);
    table(vec![
        ("$firstN", g(bson!({ "$firstN": { "input": "$v", "n": 3 } })), input.clone(), ok(bson!([{ "_id": null, "r": [3, 1, null] }]))),
        ("$lastN", g(bson!({ "$lastN": { "input": "$v", "n": 3 } })), input.clone(), ok(bson!([{ "_id": null, "r": [4, 1.0, 5] }]))),
        ("$firstN more than there are", g(bson!({ "$firstN": { "input": "$v", "n": 10 } })), bson!([{ "v": 1 }]), ok(bson!([{ "_id": null, "r": [1] }]))),
        ("$maxN descending, nulls ignored", g(bson!({ "$maxN": { "input": "$v", "n": 2 } })), input.clone(), ok(bson!([{ "_id": null, "r": [5, 4] }]))),
        ("$minN ascending", g(bson!({ "$minN": { "input": "$v", "n": 3 } })), input.clone(), ok(bson!([{ "_id": null, "r": [1, 1.0, 3] }]))),
        // Issue 13: `n` is evaluated against the group key when it is a document (the server's
        // group processor: `idDoc`), as in the manual's "computed n" example.
        (
            "n from the group key's fields",
            bson!([{ "$group": { "_id": { "k": "$k" }, "r": { "$firstN": { "input": "$v", "n": { "$cond": { "if": { "$eq": ["$k", 2] }, "then": 1, "else": 3 } } } } } }]),
            bson!([{ "k": 1, "v": "a" }, { "k": 2, "v": "b" }, { "k": 1, "v": "c" }, { "k": 2, "v": "d" }, { "k": 1, "v": "e" }, { "k": 1, "v": "f" }]),
            ok(bson!([{ "_id": { "k": 1 }, "r": ["a", "c", "e"] }, { "_id": { "k": 2 }, "r": ["b"] }])),
        ),
        (
            "$maxN n from a document-valued key",
            bson!([{ "$group": { "_id": "$o", "r": { "$maxN": { "input": "$v", "n": "$n" } } } }]),
            bson!([{ "o": { "n": 1 }, "v": 5 }, { "o": { "n": 1 }, "v": 7 }, { "o": { "n": 2 }, "v": 1 }, { "o": { "n": 2 }, "v": 3 }]),
            ok(bson!([{ "_id": { "n": 1 }, "r": [7] }, { "_id": { "n": 2 }, "r": [3, 1] }])),
        ),
        (
            "a scalar key is not a document n can read",
            bson!([{ "$group": { "_id": "$k", "r": { "$firstN": { "input": "$v", "n": "$_id" } } } }]),
            bson!([{ "k": 1, "v": "a" }]),
            fail(5787902, "Value for 'n' must be of integral type, but found MISSING"),
        ),
        ("n zero", g(bson!({ "$firstN": { "input": "$v", "n": 0 } })), input.clone(), fail(5787908, "'n' must be greater than 0, found 0")),
        (
            "n fraction",
            g(bson!({ "$lastN": { "input": "$v", "n": 1.5 } })),
            input.clone(),
            fail(5787903, "Value for 'n' must be of integral type, but found 1.5"),
        ),
        (
            "n string",
            g(bson!({ "$maxN": { "input": "$v", "n": "a" } })),
            input.clone(),
            fail(5787902, "Value for 'n' must be of integral type, but found \"a\""),
        ),
        ("missing n", g(bson!({ "$firstN": { "input": "$v" } })), input.clone(), fail(5787906, "Missing value for 'n'")),
        ("missing input", g(bson!({ "$minN": { "n": 1 } })), input.clone(), fail(5787907, "Missing value for 'input'")),
        ("unknown argument", g(bson!({ "$firstN": { "n": 1, "input": "$v", "x": 1 } })), input.clone(), fail(5787901, "Unknown argument for 'n' operator: x")),
        ("not an object", g(bson!({ "$firstN": 1 })), input.clone(), fail(5787801, "specification must be an object; found $firstN: 1")),
        ("$maxN not an object", g(bson!({ "$maxN": "x" })), input.clone(), fail(5787900, "specification must be an object; found $maxN: \"x\"")),
    ]);
}

#[test]
fn top_bottom() {
    let g = |acc: Bson| bson!([{ "$group": { "_id": "$game", "r": acc } }]);
    let scores = bson!([
        { "game": "G1", "player": "A", "score": 31 },
        { "game": "G1", "player": "B", "score": 33 },
        { "game": "G1", "player": "C", "score": 99 },
        { "game": "G1", "player": "D", "score": 1 },
        { "game": "G2", "player": "A", "score": 10 },
        { "game": "G2", "player": "B", "score": 14 },
        { "game": "G2", "player": "C" }
    ]);
    let ties = bson!([
        { "game": "G", "player": "A", "score": 5 },
        { "game": "G", "player": "B", "score": 5 },
        { "game": "G", "player": "C", "score": 5 }
    ]);
    table(vec![
        (
            "$topN with n from the group key's fields (issue 13)",
            bson!([
                { "$group": { "_id": { "game": "$game" }, "r": { "$topN": { "output": "$player", "sortBy": { "score": -1 }, "n": { "$cond": { "if": { "$eq": ["$game", "G2"] }, "then": 1, "else": 3 } } } } } },
                { "$sort": { "_id.game": 1 } }
            ]),
            scores.clone(),
            ok(bson!([{ "_id": { "game": "G1" }, "r": ["C", "B", "A"] }, { "_id": { "game": "G2" }, "r": ["B"] }])),
        ),
        (
            "$bottomN with n from the group key's fields (issue 13)",
            bson!([
                { "$group": { "_id": { "game": "$game" }, "r": { "$bottomN": { "output": "$player", "sortBy": { "score": -1 }, "n": { "$cond": { "if": { "$eq": ["$game", "G2"] }, "then": 1, "else": 2 } } } } } },
                { "$sort": { "_id.game": 1 } }
            ]),
            scores.clone(),
            ok(bson!([{ "_id": { "game": "G1" }, "r": ["A", "D"] }, { "_id": { "game": "G2" }, "r": ["C"] }])),
        ),
        (
            "$top",
            g(bson!({ "$top": { "output": ["$player", "$score"], "sortBy": { "score": -1 } } })),
            scores.clone(),
            ok(bson!([{ "_id": "G1", "r": ["C", 99] }, { "_id": "G2", "r": ["B", 14] }])),
        ),
        (
            "$bottom: missing sorts as null, first",
            g(bson!({ "$bottom": { "output": "$player", "sortBy": { "score": -1 } } })),
            scores.clone(),
            ok(bson!([{ "_id": "G1", "r": "D" }, { "_id": "G2", "r": "C" }])),
        ),
        (
            "$topN",
            g(bson!({ "$topN": { "n": 2, "output": "$player", "sortBy": { "score": 1 } } })),
            scores.clone(),
            ok(bson!([{ "_id": "G1", "r": ["D", "A"] }, { "_id": "G2", "r": ["C", "A"] }])),
        ),
        (
            "$bottomN is in sort order",
            g(bson!({ "$bottomN": { "n": 2, "output": "$player", "sortBy": { "score": 1 } } })),
            scores.clone(),
            ok(bson!([{ "_id": "G1", "r": ["B", "C"] }, { "_id": "G2", "r": ["A", "B"] }])),
        ),
        (
            "$topN ties keep the first seen",
            g(bson!({ "$topN": { "n": 2, "output": "$player", "sortBy": { "score": 1 } } })),
            ties.clone(),
            ok(bson!([{ "_id": "G", "r": ["A", "B"] }])),
        ),
        (
            "$bottomN ties keep the first seen",
            g(bson!({ "$bottomN": { "n": 2, "output": "$player", "sortBy": { "score": 1 } } })),
            ties.clone(),
            ok(bson!([{ "_id": "G", "r": ["A", "B"] }])),
        ),
        (
            "$top of a missing output is null",
            g(bson!({ "$top": { "output": "$nope", "sortBy": { "score": 1 } } })),
            ties.clone(),
            ok(bson!([{ "_id": "G", "r": null }])),
        ),
        (
            "$top unknown argument",
            g(bson!({ "$top": { "n": 1, "output": "$a", "sortBy": { "a": 1 } } })),
            scores.clone(),
            fail(5788002, "Unknown argument to $top 'n'"),
        ),
        ("$topN missing n", g(bson!({ "$topN": { "output": "$a", "sortBy": { "a": 1 } } })), scores.clone(), fail(5788003, "Missing value for 'n'")),
        ("$top missing output", g(bson!({ "$top": { "sortBy": { "a": 1 } } })), scores.clone(), fail(5788004, "Missing value for 'output'")),
        ("$bottom missing sortBy", g(bson!({ "$bottom": { "output": "$a" } })), scores.clone(), fail(5788005, "Missing value for 'sortBy'")),
        ("$top not an object", g(bson!({ "$top": 1 })), scores.clone(), fail(5788001, "specification must be an object; found $top: 1")),
    ]);
}

// ---------------------------------------------------------------------------------------------
// $sort and $match
// ---------------------------------------------------------------------------------------------

#[test]
fn sort() {
    let input = bson!([
        { "_id": 1, "a": 2 },
        { "_id": 2, "a": [1, 5] },
        { "_id": 3 },
        { "_id": 4, "a": null },
        { "_id": 5, "a": "x" },
        { "_id": 6, "a": [] }
    ]);
    let ids = |v: &[i32]| Bson::Array(v.iter().map(|i| bson!({ "_id": *i })).collect());
    table(vec![
        (
            "ascending: empty array, null/missing (stable), numbers by smallest element, strings",
            bson!([{ "$sort": { "a": 1 } }, { "$project": { "_id": 1 } }]),
            input.clone(),
            ok(ids(&[6, 3, 4, 2, 1, 5])),
        ),
        (
            "descending: arrays by their largest element",
            bson!([{ "$sort": { "a": -1 } }, { "$project": { "_id": 1 } }]),
            input.clone(),
            ok(ids(&[5, 2, 1, 3, 4, 6])),
        ),
        (
            "compound and stable",
            bson!([{ "$sort": { "k": 1, "v": -1 } }, { "$project": { "_id": 1 } }]),
            bson!([{ "_id": 1, "k": 2, "v": 1 }, { "_id": 2, "k": 1, "v": 1 }, { "_id": 3, "k": 1, "v": 2 }, { "_id": 4, "k": 2, "v": 1 }]),
            ok(ids(&[3, 2, 1, 4])),
        ),
        (
            "numbers compare across types",
            bson!([{ "$sort": { "v": 1 } }, { "$project": { "_id": 1 } }]),
            bson!([{ "_id": 1, "v": 2.5 }, { "_id": 2, "v": 2i64 }, { "_id": 3, "v": Bson::Decimal128("3".parse().unwrap()) }, { "_id": 4, "v": 1 }]),
            ok(ids(&[4, 2, 1, 3])),
        ),
        ("not an object", bson!([{ "$sort": 1 }]), input.clone(), fail(15973, "the $sort key specification must be an object")),
        ("no keys", bson!([{ "$sort": {} }]), input.clone(), fail(15976, "$sort stage must have at least one sort key")),
        ("bad direction", bson!([{ "$sort": { "a": 2 } }]), input.clone(), fail(15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)")),
    ]);
}

#[test]
fn match_stage() {
    let input = bson!([{ "_id": 1, "a": 1, "b": 2 }, { "_id": 2, "a": 5, "b": 2 }, { "_id": 3, "a": [0, 9] }]);
    table(vec![
        ("filter", bson!([{ "$match": { "a": { "$gt": 2 } } }]), input.clone(), ok(bson!([{ "_id": 2, "a": 5, "b": 2 }, { "_id": 3, "a": [0, 9] }]))),
        ("empty filter", bson!([{ "$match": {} }]), input.clone(), ok(input.clone())),
        ("$expr", bson!([{ "$match": { "$expr": { "$gt": ["$a", "$b"] } } }]), input.clone(), ok(bson!([{ "_id": 2, "a": 5, "b": 2 }, { "_id": 3, "a": [0, 9] }]))),
        (
            "$match then $group",
            bson!([{ "$match": { "b": 2 } }, { "$group": { "_id": "$b", "s": { "$sum": "$a" } } }]),
            input.clone(),
            ok(bson!([{ "_id": 2, "s": 6 }])),
        ),
        ("not an object", bson!([{ "$match": 1 }]), input.clone(), fail(15959, "the match filter must be an expression in an object")),
    ]);
}

// ---------------------------------------------------------------------------------------------
// $lookup, $graphLookup, $unionWith
// ---------------------------------------------------------------------------------------------

fn orders() -> Bson {
    bson!([
        { "_id": 1, "item": "almonds", "price": 12, "ordered": 2 },
        { "_id": 2, "item": "pecans", "price": 20, "ordered": 80 },
        { "_id": 3 }
    ])
}

#[test]
fn lookup_equality() {
    table(vec![
        (
            "localField / foreignField; missing matches null and missing",
            bson!([{ "$lookup": { "from": "inventory", "localField": "item", "foreignField": "sku", "as": "inv" } }, { "$project": { "inv._id": 1 } }]),
            orders(),
            ok(bson!([{ "_id": 1, "inv": [{ "_id": 1 }] }, { "_id": 2, "inv": [{ "_id": 4 }] }, { "_id": 3, "inv": [{ "_id": 5 }, { "_id": 6 }] }])),
        ),
        (
            "local array matches each element, natural order",
            bson!([{ "$lookup": { "from": "inventory", "localField": "items", "foreignField": "sku", "as": "inv" } }, { "$project": { "inv._id": 1 } }]),
            bson!([{ "_id": 1, "items": ["cashews", "bread", "nope", "bread"] }]),
            ok(bson!([{ "_id": 1, "inv": [{ "_id": 2 }, { "_id": 3 }] }])),
        ),
        (
            "empty local array matches null and missing",
            bson!([{ "$lookup": { "from": "inventory", "localField": "items", "foreignField": "sku", "as": "inv" } }, { "$project": { "inv._id": 1 } }]),
            bson!([{ "_id": 1, "items": [] }]),
            ok(bson!([{ "_id": 1, "inv": [{ "_id": 5 }, { "_id": 6 }] }])),
        ),
        (
            "foreign array field",
            bson!([{ "$lookup": { "from": "airports", "localField": "code", "foreignField": "connects", "as": "from" } }, { "$project": { "from.airport": 1 } }]),
            bson!([{ "_id": 1, "code": "JFK" }]),
            ok(bson!([{ "_id": 1, "from": [{ "airport": "BOS" }, { "airport": "ORD" }] }])),
        ),
        (
            "numbers match across types",
            bson!([{ "$lookup": { "from": "inventory", "localField": "k", "foreignField": "_id", "as": "inv" } }, { "$project": { "inv.sku": 1 } }]),
            bson!([{ "_id": 1, "k": 2.0 }]),
            ok(bson!([{ "_id": 1, "inv": [{ "sku": "bread" }] }])),
        ),
        (
            "as replaces a field in place; dotted as",
            bson!([{ "$lookup": { "from": "other", "localField": "x", "foreignField": "x", "as": "x" } }, { "$lookup": { "from": "other", "localField": "y", "foreignField": "x", "as": "n.m" } }]),
            bson!([{ "_id": 1, "x": 2, "y": 1 }]),
            ok(bson!([{ "_id": 1, "x": [{ "_id": 11, "x": 2 }], "y": 1, "n": { "m": [{ "_id": 10, "x": 1 }] } }])),
        ),
        (
            "unknown collection gives empty arrays",
            bson!([{ "$lookup": { "from": "nope", "localField": "item", "foreignField": "sku", "as": "inv" } }]),
            bson!([{ "_id": 1, "item": "a" }]),
            ok(bson!([{ "_id": 1, "item": "a", "inv": [] }])),
        ),
    ]);
}

#[test]
fn lookup_then_group_reads_the_joined_fields_it_names() {
    // The join copies only the fields of the joined documents that the stages after it name
    // (`deps::joined_fields_read`); what they compute is the same as with whole documents.
    let join = bson!({ "$lookup": { "from": "inventory", "localField": "item", "foreignField": "sku", "as": "inv" } });
    table(vec![
        (
            "paths into the joined documents",
            bson!([join.clone(), { "$match": { "inv.instock": { "$gte": 70 } } }, { "$group": { "_id": { "$first": "$inv.sku" }, "n": { "$sum": { "$first": "$inv.instock" } } } }, { "$sort": { "_id": 1 } }]),
            orders(),
            ok(bson!([{ "_id": "almonds", "n": 120 }, { "_id": "pecans", "n": 70 }])),
        ),
        (
            "an element by its index",
            bson!([join.clone(), { "$match": { "inv.1.description": "product 3" } }, { "$group": { "_id": { "$first": "$inv.sku" } } }]),
            bson!([{ "_id": 1, "item": ["almonds", "cashews"] }, { "_id": 2, "item": ["almonds"] }]),
            ok(bson!([{ "_id": "almonds" }])),
        ),
        (
            "the whole array",
            bson!([join.clone(), { "$group": { "_id": "$_id", "inv": { "$first": "$inv" }, "k": { "$first": { "$size": "$inv" } } } }, { "$sort": { "_id": 1 } }]),
            bson!([{ "_id": 1, "item": "bread" }, { "_id": 2 }]),
            ok(bson!([
                { "_id": 1, "inv": [{ "_id": 2, "sku": "bread", "description": "product 2", "instock": 80 }], "k": 1 },
                { "_id": 2, "inv": [{ "_id": 5, "sku": null, "description": "Incomplete" }, { "_id": 6 }], "k": 2 }
            ])),
        ),
        (
            "no $group: the documents are the output",
            bson!([join, { "$match": { "inv.sku": "bread" } }]),
            bson!([{ "_id": 1, "item": "bread" }]),
            ok(bson!([{ "_id": 1, "item": "bread", "inv": [{ "_id": 2, "sku": "bread", "description": "product 2", "instock": 80 }] }])),
        ),
    ]);
}

#[test]
fn lookup_pipeline() {
    table(vec![
        (
            "uncorrelated pipeline",
            bson!([{ "$lookup": { "from": "warehouses", "pipeline": [{ "$count": "n" }], "as": "w" } }]),
            bson!([{ "_id": 1 }, { "_id": 2 }]),
            ok(bson!([{ "_id": 1, "w": [{ "n": 3 }] }, { "_id": 2, "w": [{ "n": 3 }] }])),
        ),
        (
            "let variables",
            bson!([{ "$lookup": {
                "from": "other",
                "let": { "it": "$item", "q": { "$multiply": ["$ordered", 2] } },
                "pipeline": [{ "$limit": 1 }, { "$project": { "_id": 0, "it": "$$it", "q": "$$q" } }],
                "as": "o"
            } }, { "$project": { "o": 1 } }]),
            orders(),
            ok(bson!([{ "_id": 1, "o": [{ "it": "almonds", "q": 4 }] }, { "_id": 2, "o": [{ "it": "pecans", "q": 160 }] }, { "_id": 3, "o": [{ "it": null, "q": null }] }])),
        ),
        (
            "localField / foreignField with a pipeline",
            bson!([{ "$lookup": {
                "from": "warehouses",
                "localField": "item",
                "foreignField": "stock_item",
                "pipeline": [{ "$project": { "_id": 0, "qty": 1 } }],
                "as": "w"
            } }, { "$project": { "w": 1 } }]),
            orders(),
            ok(bson!([{ "_id": 1, "w": [{ "qty": 5 }, { "qty": 50 }] }, { "_id": 2, "w": [] }, { "_id": 3, "w": [] }])),
        ),
        (
            "without from: $documents",
            bson!([{ "$lookup": { "pipeline": [{ "$documents": [{ "a": 1 }, { "a": 2 }] }, { "$skip": 1 }], "as": "d" } }]),
            bson!([{ "_id": 1 }]),
            ok(bson!([{ "_id": 1, "d": [{ "a": 2 }] }])),
        ),
        (
            "undefined variable in the sub-pipeline",
            bson!([{ "$lookup": { "from": "other", "pipeline": [{ "$set": { "a": "$$nope" } }], "as": "o" } }]),
            bson!([]),
            fail(17276, "Invalid $set :: caused by :: Use of undefined variable: nope"),
        ),
    ]);
}

#[test]
fn lookup_pipeline_with_match() {
    table(vec![
        (
            "$expr on a let variable",
            bson!([{ "$lookup": {
                "from": "warehouses",
                "let": { "it": "$item", "need": "$ordered" },
                "pipeline": [
                    { "$match": { "$expr": { "$and": [{ "$eq": ["$stock_item", "$$it"] }, { "$gte": ["$qty", "$$need"] }] } } },
                    { "$project": { "_id": 0, "qty": 1 } }
                ],
                "as": "w"
            } }, { "$project": { "w": 1 } }]),
            orders(),
            ok(bson!([{ "_id": 1, "w": [{ "qty": 5 }, { "qty": 50 }] }, { "_id": 2, "w": [] }, { "_id": 3, "w": [] }])),
        ),
    ]);
}

#[test]
fn lookup_errors() {
    let input = bson!([]);
    table(vec![
        ("not an object", bson!([{ "$lookup": 1 }]), input.clone(), fail(9, "the $lookup stage specification must be an object, but found int")),
        ("no as", bson!([{ "$lookup": { "from": "x", "localField": "a", "foreignField": "b" } }]), input.clone(), fail(9, "must specify 'as' field for a $lookup")),
        (
            "no foreignField",
            bson!([{ "$lookup": { "from": "x", "localField": "a", "as": "b" } }]),
            input.clone(),
            fail(9, "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified"),
        ),
        (
            "let without pipeline",
            bson!([{ "$lookup": { "from": "x", "localField": "a", "foreignField": "b", "as": "c", "let": {} } }]),
            input.clone(),
            fail(9, "$lookup with a 'let' argument must also specify 'pipeline'"),
        ),
        (
            "pipeline with only localField",
            bson!([{ "$lookup": { "from": "x", "localField": "a", "pipeline": [], "as": "c" } }]),
            input.clone(),
            fail(9, "$lookup requires both or neither of 'localField' and 'foreignField' to be specified"),
        ),
        ("from not a string", bson!([{ "$lookup": { "from": 1, "as": "c", "pipeline": [] } }]), input.clone(), fail(9, "$lookup 'from' field must be a string, but found int")),
        ("as not a string", bson!([{ "$lookup": { "from": "x", "as": 1, "pipeline": [] } }]), input.clone(), fail(9, "$lookup argument 'as' must be a string, found as: 1: int")),
        ("unknown argument", bson!([{ "$lookup": { "from": "x", "foo": "y", "as": "c" } }]), input.clone(), fail(9, "unknown argument to $lookup: foo")),
        (
            "neither from nor pipeline",
            bson!([{ "$lookup": { "localField": "a", "foreignField": "b", "as": "c" } }]),
            input.clone(),
            fail(9, "must specify 'pipeline' when 'from' is empty"),
        ),
        (
            "no from, pipeline without $documents",
            bson!([{ "$lookup": { "pipeline": [{ "$limit": 1 }], "as": "c" } }]),
            input.clone(),
            fail(9, "$lookup stage without explicit collection must have a pipeline with $documents as first stage"),
        ),
        ("pipeline not an array", bson!([{ "$lookup": { "from": "x", "pipeline": 1, "as": "c" } }]), input.clone(), fail(14, "'pipeline' option must be specified as an array")),
        (
            "bad let name",
            bson!([{ "$lookup": { "from": "x", "let": { "Bad": 1 }, "pipeline": [], "as": "c" } }]),
            input.clone(),
            fail(9, "'Bad' starts with an invalid character for a user variable name"),
        ),
        (
            "as with $",
            bson!([{ "$lookup": { "from": "x", "localField": "a", "foreignField": "b", "as": "$c" } }]),
            input.clone(),
            fail(16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField."),
        ),
        ("unknown stage inside", bson!([{ "$lookup": { "from": "x", "pipeline": [{ "$nope": 1 }], "as": "c" } }]), input.clone(), fail(40324, "Unrecognized pipeline stage name: '$nope'")),
    ]);
}

#[test]
fn graph_lookup() {
    let employees = bson!([{ "_id": 5, "name": "Asya", "reportsTo": "Ron" }, { "_id": 1, "name": "Dev" }]);
    table(vec![
        (
            "chain",
            bson!([
                { "$graphLookup": { "from": "employees", "startWith": "$reportsTo", "connectFromField": "reportsTo", "connectToField": "name", "as": "h" } },
                { "$project": { "h.name": 1 } }
            ]),
            employees.clone(),
            ok(bson!([{ "_id": 5, "h": [{ "name": "Ron" }, { "name": "Eliot" }, { "name": "Dev" }] }, { "_id": 1, "h": [] }])),
        ),
        (
            "maxDepth and depthField (long)",
            bson!([
                { "$graphLookup": {
                    "from": "employees", "startWith": "$reportsTo", "connectFromField": "reportsTo", "connectToField": "name",
                    "as": "h", "maxDepth": 1, "depthField": "d"
                } },
                { "$project": { "h.name": 1, "h.d": 1 } }
            ]),
            employees.clone(),
            ok(bson!([{ "_id": 5, "h": [{ "name": "Ron", "d": 0i64 }, { "name": "Eliot", "d": 1i64 }] }, { "_id": 1, "h": [] }])),
        ),
        (
            "arrays and cycles",
            bson!([
                { "$graphLookup": {
                    "from": "airports", "startWith": "$nearestAirport", "connectFromField": "connects", "connectToField": "airport",
                    "maxDepth": 2, "depthField": "hops", "as": "dest"
                } },
                { "$project": { "dest.airport": 1, "dest.hops": 1 } }
            ]),
            bson!([{ "_id": 1, "nearestAirport": "JFK" }]),
            ok(bson!([{ "_id": 1, "dest": [
                { "airport": "JFK", "hops": 0i64 },
                { "airport": "BOS", "hops": 1i64 },
                { "airport": "ORD", "hops": 1i64 },
                { "airport": "PWM", "hops": 2i64 }
            ] }])),
        ),
        (
            "startWith array",
            bson!([
                { "$graphLookup": { "from": "airports", "startWith": ["LHR", "ORD"], "connectFromField": "x", "connectToField": "airport", "as": "a" } },
                { "$project": { "a._id": 1 } }
            ]),
            bson!([{ "_id": 1 }]),
            ok(bson!([{ "_id": 1, "a": [{ "_id": 2 }, { "_id": 4 }] }])),
        ),
    ]);
}

#[test]
fn graph_lookup_restrict_search_with_match() {
    table(vec![
        (
            "restrictSearchWithMatch",
            bson!([
                { "$graphLookup": {
                    "from": "airports", "startWith": "$nearestAirport", "connectFromField": "connects", "connectToField": "airport",
                    "as": "dest", "restrictSearchWithMatch": { "airport": { "$ne": "BOS" } }
                } },
                { "$project": { "dest.airport": 1 } }
            ]),
            bson!([{ "_id": 1, "nearestAirport": "JFK" }]),
            ok(bson!([{ "_id": 1, "dest": [{ "airport": "JFK" }, { "airport": "ORD" }] }])),
        ),
    ]);
}

#[test]
fn graph_lookup_errors() {
    let input = bson!([]);
    let base = |extra: Bson| {
        let mut d = doc! { "from": "airports", "startWith": "$a", "connectFromField": "b", "connectToField": "c", "as": "d" };
        if let Bson::Document(e) = extra {
            for (k, v) in e {
                d.insert(k, v);
            }
        }
        Bson::Array(vec![Bson::Document(doc! { "$graphLookup": d })])
    };
    table(vec![
        (
            "missing fields",
            bson!([{ "$graphLookup": { "from": "x", "as": "y" } }]),
            input.clone(),
            fail(40105, "$graphLookup requires 'from', 'as', 'startWith', 'connectFromField', and 'connectToField' to be specified."),
        ),
        ("unknown argument", base(bson!({ "x": 1 })), input.clone(), fail(40104, "Unknown argument to $graphLookup: x")),
        // Issue 13: the server's lite parse (FailedToParse) comes before the full parse.
        ("from not a string", base(bson!({ "from": 1 })), input.clone(), fail(9, "$graphLookup 'from' field must be a string, but found int")),
        ("not an object", bson!([{ "$graphLookup": 1 }]), input.clone(), fail(9, "the $graphLookup stage specification must be an object, but found int")),
        (
            "missing from",
            bson!([{ "$graphLookup": { "as": "y", "startWith": "$a" } }]),
            input.clone(),
            fail(9, "missing 'from' option to $graphLookup stage specification: { as: \"y\", startWith: \"$a\" }"),
        ),
        ("as not a string", base(bson!({ "as": 1 })), input.clone(), fail(40103, "expected string as argument for as, found: 1")),
        ("maxDepth not a number", base(bson!({ "maxDepth": "1" })), input.clone(), fail(40100, "maxDepth must be numeric, found type: string")),
        ("maxDepth negative", base(bson!({ "maxDepth": -1 })), input.clone(), fail(40101, "maxDepth requires a nonnegative argument, found: -1")),
        ("maxDepth fraction", base(bson!({ "maxDepth": 1.5 })), input.clone(), fail(40102, "maxDepth could not be represented as a long long: 1.5")),
        ("restrict not an object", base(bson!({ "restrictSearchWithMatch": 1 })), input.clone(), fail(40185, "restrictSearchWithMatch must be an object, found int")),
    ]);
}

#[test]
fn union_with() {
    let input = bson!([{ "_id": 1 }]);
    table(vec![
        ("collection name", bson!([{ "$unionWith": "other" }]), input.clone(), ok(bson!([{ "_id": 1 }, { "_id": 10, "x": 1 }, { "_id": 11, "x": 2 }]))),
        (
            "with a pipeline",
            bson!([{ "$unionWith": { "coll": "other", "pipeline": [{ "$project": { "_id": 0 } }] } }]),
            input.clone(),
            ok(bson!([{ "_id": 1 }, { "x": 1 }, { "x": 2 }])),
        ),
        ("with $documents", bson!([{ "$unionWith": { "pipeline": [{ "$documents": [{ "z": 1 }] }] } }]), input.clone(), ok(bson!([{ "_id": 1 }, { "z": 1 }]))),
        ("then more stages", bson!([{ "$unionWith": "other" }, { "$count": "n" }]), input.clone(), ok(bson!([{ "n": 3 }]))),
        ("not a string or object", bson!([{ "$unionWith": 1 }]), input.clone(), fail(9, "the $unionWith stage specification must be an object or string, but found int")),
        ("unknown field", bson!([{ "$unionWith": { "coll": "a", "x": 1 } }]), input.clone(), fail(40415, "BSON field '$unionWith.x' is an unknown field.")),
    ]);
}

// ---------------------------------------------------------------------------------------------
// $bucket, $bucketAuto, $sortByCount
// ---------------------------------------------------------------------------------------------

fn artists() -> Bson {
    bson!([
        { "_id": 1, "year": 1926, "price": 199.99 },
        { "_id": 2, "year": 1902 },
        { "_id": 3, "year": 1925 },
        { "_id": 4, "year": 1911 },
        { "_id": 5, "year": 1976 },
        { "_id": 6 }
    ])
}

#[test]
fn bucket() {
    table(vec![
        (
            "default bucket and output",
            bson!([{ "$bucket": {
                "groupBy": "$year", "boundaries": [1900, 1920, 1940], "default": "Other",
                "output": { "count": { "$sum": 1 }, "ids": { "$push": "$_id" } }
            } }]),
            artists(),
            ok(bson!([
                { "_id": 1900, "count": 2, "ids": [2, 4] },
                { "_id": 1920, "count": 2, "ids": [1, 3] },
                { "_id": "Other", "count": 2, "ids": [5, 6] }
            ])),
        ),
        (
            "count by default, sorted by boundary, empty buckets left out",
            bson!([{ "$bucket": { "groupBy": "$year", "boundaries": [1900, 1910, 1920, 1930, 2000], "default": 0 } }]),
            artists(),
            ok(bson!([{ "_id": 0, "count": 1 }, { "_id": 1900, "count": 1 }, { "_id": 1910, "count": 1 }, { "_id": 1920, "count": 2 }, { "_id": 1930, "count": 1 }])),
        ),
        (
            "a value outside the boundaries without default",
            bson!([{ "$bucket": { "groupBy": "$year", "boundaries": [1900, 1940] } }]),
            artists(),
            fail(40066, "$switch could not find a matching branch for an input, and no default was specified."),
        ),
        (
            "expression groupBy",
            bson!([{ "$bucket": { "groupBy": { "$ifNull": ["$price", 0] }, "boundaries": [0, 100, 1000] } }]),
            artists(),
            ok(bson!([{ "_id": 0, "count": 5 }, { "_id": 100, "count": 1 }])),
        ),
    ]);
}

#[test]
fn bucket_errors() {
    let input = bson!([]);
    let b = |spec: Bson| Bson::Array(vec![bson!({ "$bucket": spec })]);
    table(vec![
        ("not an object", b(bson!(1)), input.clone(), fail(40201, "Argument to $bucket stage must be an object, but found type: int.")),
        ("missing boundaries", b(bson!({ "groupBy": "$a" })), input.clone(), fail(40198, "$bucket requires 'groupBy' and 'boundaries' to be specified.")),
        (
            "groupBy not a path",
            b(bson!({ "groupBy": "a", "boundaries": [0, 1] })),
            input.clone(),
            fail(40202, "The $bucket 'groupBy' field must be defined as a $-prefixed path or an expression, but found: \"a\"."),
        ),
        ("boundaries not an array", b(bson!({ "groupBy": "$a", "boundaries": 1 })), input.clone(), fail(40200, "The $bucket 'boundaries' field must be an array, but found type: int.")),
        (
            "one boundary",
            b(bson!({ "groupBy": "$a", "boundaries": [1] })),
            input.clone(),
            fail(40192, "The $bucket 'boundaries' field must have at least 2 values, but found 1 value(s)."),
        ),
        (
            "mixed types",
            b(bson!({ "groupBy": "$a", "boundaries": [1, "a"] })),
            input.clone(),
            fail(40193, "All values in the the 'boundaries' option to $bucket must have the same type. Found conflicting types int and string."),
        ),
        (
            "not sorted",
            b(bson!({ "groupBy": "$a", "boundaries": [0, 5, 2] })),
            input.clone(),
            fail(40194, "The 'boundaries' option to $bucket must be sorted, but elements 1 and 2 are not in ascending order (5 is not less than 2)."),
        ),
        (
            "boundary not constant",
            b(bson!({ "groupBy": "$a", "boundaries": [0, "$x"] })),
            input.clone(),
            fail(40191, "The $bucket 'boundaries' field must be an array of constant values, but found value: \"$x\"."),
        ),
        (
            "default inside the range",
            b(bson!({ "groupBy": "$a", "boundaries": [0, 10], "default": 5 })),
            input.clone(),
            fail(40199, "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary."),
        ),
        (
            "default not constant",
            b(bson!({ "groupBy": "$a", "boundaries": [0, 10], "default": "$x" })),
            input.clone(),
            fail(40195, "The $bucket 'default' field must be a constant expression, but found: \"$x\"."),
        ),
        ("output not an object", b(bson!({ "groupBy": "$a", "boundaries": [0, 10], "output": 1 })), input.clone(), fail(40196, "The $bucket 'output' field must be an object, but found type: int.")),
        ("unknown option", b(bson!({ "groupBy": "$a", "boundaries": [0, 10], "x": 1 })), input.clone(), fail(40197, "Unrecognized option to $bucket: x.")),
        (
            "bad output accumulator",
            b(bson!({ "groupBy": "$a", "boundaries": [0, 10], "output": { "n": 1 } })),
            input.clone(),
            fail(40234, "The field 'n' must be an accumulator object"),
        ),
    ]);
}

#[test]
fn bucket_auto() {
    let nums = |v: &[i32]| Bson::Array(v.iter().map(|i| bson!({ "v": *i })).collect());
    table(vec![
        (
            "even split, last bucket takes the rest",
            bson!([{ "$bucketAuto": { "groupBy": "$v", "buckets": 3 } }]),
            nums(&[10, 9, 8, 7, 6, 5, 4, 3, 2, 1]),
            ok(bson!([
                { "_id": { "min": 1, "max": 4 }, "count": 3 },
                { "_id": { "min": 4, "max": 7 }, "count": 3 },
                { "_id": { "min": 7, "max": 10 }, "count": 4 }
            ])),
        ),
        (
            "equal values stay in one bucket",
            bson!([{ "$bucketAuto": { "groupBy": "$v", "buckets": 2 } }]),
            nums(&[1, 1, 1, 2, 3]),
            ok(bson!([{ "_id": { "min": 1, "max": 2 }, "count": 3 }, { "_id": { "min": 2, "max": 3 }, "count": 2 }])),
        ),
        (
            "fewer documents than buckets",
            bson!([{ "$bucketAuto": { "groupBy": "$v", "buckets": 5 } }]),
            nums(&[2, 1]),
            ok(bson!([{ "_id": { "min": 1, "max": 2 }, "count": 1 }, { "_id": { "min": 2, "max": 2 }, "count": 1 }])),
        ),
        (
            "output accumulators",
            bson!([{ "$bucketAuto": { "groupBy": "$v", "buckets": 1, "output": { "s": { "$sum": "$v" }, "n": { "$count": {} } } } }]),
            nums(&[1, 2, 3]),
            ok(bson!([{ "_id": { "min": 1, "max": 3 }, "s": 6, "n": 3 }])),
        ),
        ("no documents", bson!([{ "$bucketAuto": { "groupBy": "$v", "buckets": 2 } }]), bson!([]), ok(bson!([]))),
        (
            "missing values group as null, first",
            bson!([{ "$bucketAuto": { "groupBy": "$v", "buckets": 2 } }]),
            bson!([{ "v": 5 }, {}]),
            ok(bson!([{ "_id": { "min": null, "max": 5 }, "count": 1 }, { "_id": { "min": 5, "max": 5 }, "count": 1 }])),
        ),
    ]);
}

#[test]
fn bucket_auto_errors() {
    let input = bson!([]);
    let b = |spec: Bson| Bson::Array(vec![bson!({ "$bucketAuto": spec })]);
    table(vec![
        ("not an object", b(bson!(1)), input.clone(), fail(40240, "The argument to $bucketAuto must be an object, but found type: int")),
        ("missing buckets", b(bson!({ "groupBy": "$a" })), input.clone(), fail(40246, "$bucketAuto requires 'groupBy' and 'buckets' to be specified")),
        (
            "groupBy not a path",
            b(bson!({ "groupBy": 1, "buckets": 2 })),
            input.clone(),
            fail(40239, "The $bucketAuto 'groupBy' field must be defined as a $-prefixed path or an expression object, but found: 1"),
        ),
        ("buckets not a number", b(bson!({ "groupBy": "$a", "buckets": "2" })), input.clone(), fail(40241, "The $bucketAuto 'buckets' field must be a numeric value, but found type: string")),
        ("buckets zero", b(bson!({ "groupBy": "$a", "buckets": 0 })), input.clone(), fail(40243, "The $bucketAuto 'buckets' field must be greater than 0, but found: 0")),
        (
            "buckets fraction",
            b(bson!({ "groupBy": "$a", "buckets": 1.5 })),
            input.clone(),
            fail(40242, "The $bucketAuto 'buckets' field must be representable as a 32-bit integer, but found 1.5"),
        ),
        ("unknown option", b(bson!({ "groupBy": "$a", "buckets": 2, "x": 1 })), input.clone(), fail(40245, "Unrecognized option to $bucketAuto: x")),
        ("output not an object", b(bson!({ "groupBy": "$a", "buckets": 2, "output": [] })), input.clone(), fail(40244, "The $bucketAuto 'output' field must be an object, but found type: array")),
        ("unknown granularity", b(bson!({ "groupBy": "$a", "buckets": 2, "granularity": "R3" })), input.clone(), fail(40257, "Unknown rounding granularity 'R3'")),
        (
            "granularity not a string",
            b(bson!({ "groupBy": "$a", "buckets": 2, "granularity": 1 })),
            input.clone(),
            fail(40261, "The $bucketAuto 'granularity' field must be a string, but found type: int"),
        ),
    ]);
}

#[test]
fn sort_by_count() {
    table(vec![
        (
            "count descending, ties in first-seen order",
            bson!([{ "$sortByCount": "$item" }]),
            sales(),
            ok(bson!([{ "_id": "abc", "count": 2 }, { "_id": "xyz", "count": 2 }, { "_id": "jkl", "count": 1 }])),
        ),
        (
            "expression",
            bson!([{ "$sortByCount": { "$gt": ["$qty", 5] } }]),
            sales(),
            ok(bson!([{ "_id": true, "count": 3 }, { "_id": false, "count": 2 }])),
        ),
        (
            "after $unwind",
            bson!([{ "$unwind": "$tags" }, { "$sortByCount": "$tags" }]),
            sales(),
            ok(bson!([{ "_id": "a", "count": 2 }, { "_id": "b", "count": 1 }])),
        ),
        (
            "not a path",
            bson!([{ "$sortByCount": "item" }]),
            sales(),
            fail(40148, "the sortByCount field must be defined as a $-prefixed path or an expression inside an object"),
        ),
        (
            "object without operator",
            bson!([{ "$sortByCount": { "a": "$item" } }]),
            sales(),
            fail(40147, "the sortByCount field must be defined as a $-prefixed path or an expression inside an object"),
        ),
        ("number", bson!([{ "$sortByCount": 1 }]), sales(), fail(40149, "the sortByCount field must be specified as a string or as an object")),
    ]);
}

// ---------------------------------------------------------------------------------------------
// $facet, $replaceRoot / $replaceWith, $documents, $sample, $redact
// ---------------------------------------------------------------------------------------------

#[test]
fn facet() {
    let input = bson!([{ "a": 1 }, { "a": 2 }, { "a": 3 }]);
    table(vec![
        (
            "several facets over the same input",
            bson!([{ "$facet": { "first": [{ "$limit": 1 }], "n": [{ "$count": "c" }], "none": [{ "$skip": 10 }] } }]),
            input.clone(),
            ok(bson!([{ "first": [{ "a": 1 }], "n": [{ "c": 3 }], "none": [] }])),
        ),
        (
            "one document even without input",
            bson!([{ "$facet": { "first": [{ "$limit": 1 }], "n": [{ "$count": "c" }] } }]),
            bson!([]),
            ok(bson!([{ "first": [], "n": [] }])),
        ),
        (
            "then unwind",
            bson!([{ "$facet": { "x": [{ "$skip": 1 }] } }, { "$unwind": "$x" }, { "$replaceWith": "$x" }]),
            input.clone(),
            ok(bson!([{ "a": 2 }, { "a": 3 }])),
        ),
        ("empty spec", bson!([{ "$facet": {} }]), input.clone(), fail(40169, "the $facet specification must be a non-empty object, but found: $facet: {}")),
        ("not an array", bson!([{ "$facet": { "a": 1 } }]), input.clone(), fail(40170, "arguments to $facet must be arrays, a is type int")),
        (
            "element not an object",
            bson!([{ "$facet": { "a": [1] } }]),
            input.clone(),
            fail(40171, "elements of arrays in $facet spec must be non-empty objects, a argument contained an element of type int: 0: 1"),
        ),
        ("empty sub-pipeline", bson!([{ "$facet": { "a": [] } }]), input.clone(), fail(2, "sub-pipeline in $facet stage cannot be empty")),
        (
            "nested $facet",
            bson!([{ "$facet": { "a": [{ "$facet": { "b": [{ "$limit": 1 }] } }] } }]),
            input.clone(),
            fail(40600, "$facet is not allowed to be used within a $facet stage"),
        ),
        (
            "$ facet name",
            bson!([{ "$facet": { "$a": [{ "$limit": 1 }] } }]),
            input.clone(),
            fail(16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField."),
        ),
    ]);
}

#[test]
fn replace_root() {
    let input = bson!([{ "_id": 1, "a": { "x": 1 }, "n": 5 }]);
    table(vec![
        ("$replaceRoot", bson!([{ "$replaceRoot": { "newRoot": "$a" } }]), input.clone(), ok(bson!([{ "x": 1 }]))),
        ("$replaceWith", bson!([{ "$replaceWith": "$a" }]), input.clone(), ok(bson!([{ "x": 1 }]))),
        (
            "$replaceWith an expression",
            bson!([{ "$replaceWith": { "$mergeObjects": [{ "x": 0, "y": 0 }, "$a", { "n": "$n" }] } }]),
            input.clone(),
            ok(bson!([{ "x": 1, "y": 0, "n": 5 }])),
        ),
        (
            "not a document",
            bson!([{ "$replaceRoot": { "newRoot": "$n" } }]),
            input.clone(),
            fail(
                40228,
                "'newRoot' expression must evaluate to an object, but resulting value was: 5. Type of resulting value: 'int'. Input document: {_id: 1, a: {x: 1}, n: 5}",
            ),
        ),
        (
            "missing",
            bson!([{ "$replaceWith": "$zz" }]),
            bson!([{ "_id": 1 }]),
            fail(40228, "'replacement document' must evaluate to an object, but resulting value was: MISSING. Type of resulting value: 'missing'. Input document: {_id: 1}"),
        ),
        ("spec not an object", bson!([{ "$replaceRoot": 1 }]), input.clone(), fail(40229, "expected an object as specification for $replaceRoot stage, got int")),
        ("no newRoot", bson!([{ "$replaceRoot": {} }]), input.clone(), fail(40414, "BSON field '$replaceRoot.newRoot' is missing but a required field")),
        ("unknown field", bson!([{ "$replaceRoot": { "newRoot": "$a", "x": 1 } }]), input.clone(), fail(40415, "BSON field '$replaceRoot.x' is an unknown field.")),
    ]);
}

#[test]
fn documents_stage() {
    table(vec![
        ("replaces the input", bson!([{ "$documents": [{ "a": 1 }, { "a": 2 }] }]), bson!([{ "z": 1 }]), ok(bson!([{ "a": 1 }, { "a": 2 }]))),
        ("then stages", bson!([{ "$documents": [{ "a": 1 }, { "a": 2 }] }, { "$group": { "_id": null, "s": { "$sum": "$a" } } }]), bson!([]), ok(bson!([{ "_id": null, "s": 3 }]))),
        ("not first", bson!([{ "$limit": 1 }, { "$documents": [] }]), bson!([]), fail(40602, "$documents is only valid as the first stage in a pipeline")),
        ("not an array", bson!([{ "$documents": 1 }]), bson!([]), fail(14, "$documents must be an array of objects, got int")),
    ]);
}

#[test]
fn sample() {
    let input: Bson = Bson::Array((0..20).map(|i| bson!({ "_id": i })).collect());
    let out = run(&bson!([{ "$sample": { "size": 5 } }]), &input).unwrap();
    assert_eq!(out.len(), 5);
    let mut ids: Vec<i32> = out.iter().map(|d| d.get_i32("_id").unwrap()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 5, "distinct documents");
    // Seeded: the same seed gives the same sample.
    assert_eq!(out, run(&bson!([{ "$sample": { "size": 5 } }]), &input).unwrap());
    // Asking for more than there are gives all of them.
    let all = run(&bson!([{ "$sample": { "size": 50 } }]), &input).unwrap();
    assert_eq!(all.len(), 20);
    table(vec![
        ("size 0", bson!([{ "$sample": { "size": 0 } }]), input.clone(), ok(bson!([]))),
        ("not an object", bson!([{ "$sample": 1 }]), input.clone(), fail(28745, "the $sample stage specification must be an object")),
        ("size not a number", bson!([{ "$sample": { "size": "1" } }]), input.clone(), fail(28746, "size argument to $sample must be a number")),
        ("negative size", bson!([{ "$sample": { "size": -1 } }]), input.clone(), fail(28747, "size argument to $sample must not be negative")),
        ("unknown option", bson!([{ "$sample": { "size": 1, "x": 1 } }]), input.clone(), fail(28748, "unrecognized option to $sample: x")),
        ("no size", bson!([{ "$sample": {} }]), input.clone(), fail(28749, "$sample stage must specify a size")),
    ]);
}

#[test]
fn redact() {
    let input = bson!([{ "_id": 1, "level": 1, "sub": { "level": 5, "x": 1 }, "arr": [{ "level": 1, "y": 1 }, { "level": 5, "y": 2 }, 7] }]);
    table(vec![
        (
            "descend and prune",
            bson!([{ "$redact": { "$cond": { "if": { "$lte": ["$level", 3] }, "then": "$$DESCEND", "else": "$$PRUNE" } } }]),
            input.clone(),
            ok(bson!([{ "_id": 1, "level": 1, "arr": [{ "level": 1, "y": 1 }, 7] }])),
        ),
        ("keep", bson!([{ "$redact": "$$KEEP" }]), input.clone(), ok(input.clone())),
        ("prune the document", bson!([{ "$redact": "$$PRUNE" }]), input.clone(), ok(bson!([]))),
        (
            "bad result",
            bson!([{ "$redact": "x" }]),
            input.clone(),
            fail(17053, "$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned \"x\""),
        ),
    ]);
}

/// `{$meta: "sortKey"}` after a `$sort`: the document's sort key (an array, null for a missing
/// value), through the stages that keep the document; missing where there is none.
#[test]
fn meta_sort_key_in_pipelines() {
    let input = bson!([{ "_id": 1, "a": 2, "b": [5, 1] }, { "_id": 2, "a": 1 }]);
    table(vec![
        (
            "after $sort",
            bson!([{ "$sort": { "a": 1 } }, { "$project": { "k": { "$meta": "sortKey" } } }]),
            input.clone(),
            ok(bson!([{ "_id": 2, "k": [1] }, { "_id": 1, "k": [2] }])),
        ),
        (
            "two keys, a missing one null, through $match and $set",
            bson!([{ "$sort": { "b": -1, "a": 1 } }, { "$match": { "a": { "$gt": 0 } } }, { "$set": { "k": { "$meta": "sortKey" } } }, { "$project": { "k": 1 } }]),
            input.clone(),
            ok(bson!([{ "_id": 1, "k": [5, 2] }, { "_id": 2, "k": [null, 1] }])),
        ),
        (
            "the key of the sort, not of the changed document",
            bson!([{ "$sort": { "a": 1 } }, { "$set": { "a": 0 } }, { "$project": { "a": 1, "k": { "$meta": "sortKey" } } }]),
            input.clone(),
            ok(bson!([{ "_id": 2, "a": 0, "k": [1] }, { "_id": 1, "a": 0, "k": [2] }])),
        ),
        (
            "no sort: missing",
            bson!([{ "$project": { "k": { "$meta": "sortKey" } } }]),
            input.clone(),
            ok(bson!([{ "_id": 1 }, { "_id": 2 }])),
        ),
        (
            "a new document from $group has none",
            bson!([{ "$sort": { "a": 1 } }, { "$group": { "_id": "$a" } }, { "$project": { "k": { "$meta": "sortKey" } } }]),
            bson!([{ "_id": 1, "a": 1 }]),
            ok(bson!([{ "_id": 1 }])),
        ),
        ("not a string", bson!([{ "$project": { "k": { "$meta": 1 } } }]), input.clone(), fail(17307, "Invalid $project :: caused by :: $meta only supports string arguments")),
        ("unknown", bson!([{ "$project": { "k": { "$meta": "x" } } }]), input.clone(), fail(17308, "Invalid $project :: caused by :: Unsupported argument to $meta: x")),
    ]);
}
