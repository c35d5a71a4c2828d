//! The `errInfo` of a write a collection's validator refuses (121 DocumentValidationFailure):
//! `failingDocumentId` and `details`, which explain which rule failed. Expected documents are
//! the server's own expectations (mongo `src/mongo/db/matcher/doc_validation_error_test.cpp` and
//! `doc_validation_error_json_schema_test.cpp`), with the document given `_id: 1` first as an
//! insert stores it (the server's unit tests append `_id` last, which only shows in
//! `additionalProperties`).

use bson::{doc, Bson, Document};

fn insert_error(validator: Document, document: Document) -> Document {
    let mut db = crate::common::db_after(3, &[doc! {"create": "c", "validator": validator.clone()}]);
    let mut d = doc! {"_id": 1};
    for (k, v) in document {
        d.insert(k, v);
    }
    let r = db.run_command(&doc! {"insert": "c", "documents": [d.clone()]});
    let we = r.get_array("writeErrors").unwrap_or_else(|_| panic!("{validator} accepted {d}: {r}"));
    let e = we[0].as_document().unwrap().clone();
    assert_eq!(e.get_i32("code").unwrap(), 121, "{e}");
    e.get_document("errInfo").unwrap().clone()
}

/// (name, validator, document, expected details)
fn check(cases: Vec<(&str, Document, Document, Document)>) {
    let mut failures = Vec::new();
    for (name, validator, document, details) in cases {
        let got = insert_error(validator, document);
        let want = doc! {"failingDocumentId": 1, "details": details};
        if got != want {
            failures.push(format!("{name}:\n  got  {got}\n  want {want}"));
        }
    }
    assert!(failures.is_empty(), "{} failing case(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn comparison_operators() {
    check(vec![
        ("$eq", doc! {"a": {"$eq": 2}}, doc! {"a": 1}, doc! {"operatorName": "$eq", "specifiedAs": {"a": {"$eq": 2}}, "reason": "comparison failed", "consideredValue": 1}),
        ("$eq missing path", doc! {"a": {"$eq": 2}}, doc! {"b": 1}, doc! {"operatorName": "$eq", "specifiedAs": {"a": {"$eq": 2}}, "reason": "field was missing"}),
        ("$eq array", doc! {"a": {"$eq": 2}}, doc! {"a": [3, 4, 5]}, doc! {"operatorName": "$eq", "specifiedAs": {"a": {"$eq": 2}}, "reason": "comparison failed", "consideredValues": [3, 4, 5]}),
        (
            "$eq nested arrays",
            doc! {"a.b": {"$eq": 0}},
            doc! {"a": [{"b": [1, 2]}, {"b": [3, 4]}]},
            doc! {"operatorName": "$eq", "specifiedAs": {"a.b": {"$eq": 0}}, "reason": "comparison failed", "consideredValues": [1, 2, 3, 4]},
        ),
        ("$eq empty array", doc! {"a": {"$eq": [1, 2]}}, doc! {"a": []}, doc! {"operatorName": "$eq", "specifiedAs": {"a": {"$eq": [1, 2]}}, "reason": "comparison failed", "consideredValues": []}),
        ("implicit $eq", doc! {"a": 2}, doc! {"a": 1}, doc! {"operatorName": "$eq", "specifiedAs": {"a": 2}, "reason": "comparison failed", "consideredValue": 1}),
        ("$ne", doc! {"a": {"$ne": 2}}, doc! {"a": [1, 2, 3]}, doc! {"operatorName": "$ne", "specifiedAs": {"a": {"$ne": 2}}, "reason": "comparison succeeded", "consideredValues": [1, 2, 3]}),
        ("$lt", doc! {"a": {"$lt": 0}}, doc! {"a": 1}, doc! {"operatorName": "$lt", "specifiedAs": {"a": {"$lt": 0}}, "reason": "comparison failed", "consideredValue": 1}),
        ("$lte missing", doc! {"a": {"$lte": 0}}, doc! {"b": 1}, doc! {"operatorName": "$lte", "specifiedAs": {"a": {"$lte": 0}}, "reason": "field was missing"}),
        ("$gt", doc! {"a": {"$gt": 3}}, doc! {"a": [0, 1, 2]}, doc! {"operatorName": "$gt", "specifiedAs": {"a": {"$gt": 3}}, "reason": "comparison failed", "consideredValues": [0, 1, 2]}),
        ("$gte empty array", doc! {"a": {"$gte": 3}}, doc! {"a": []}, doc! {"operatorName": "$gte", "specifiedAs": {"a": {"$gte": 3}}, "reason": "comparison failed", "consideredValues": []}),
        ("$in", doc! {"a": {"$in": [1, 2, 3]}}, doc! {"a": 4}, doc! {"operatorName": "$in", "specifiedAs": {"a": {"$in": [1, 2, 3]}}, "reason": "no matching value found in array", "consideredValue": 4}),
        (
            "$in nested",
            doc! {"a.b": {"$in": [5, 6, 7, [2, 3, 4]]}},
            doc! {"a": [{"b": [1, 2]}, {"b": [3, 4]}]},
            doc! {"operatorName": "$in", "specifiedAs": {"a.b": {"$in": [5, 6, 7, [2, 3, 4]]}}, "reason": "no matching value found in array", "consideredValues": [1, 2, 3, 4]},
        ),
        ("$nin", doc! {"a": {"$nin": [1, 2, 3]}}, doc! {"a": 3}, doc! {"operatorName": "$nin", "specifiedAs": {"a": {"$nin": [1, 2, 3]}}, "reason": "matching value found in array", "consideredValue": 3}),
    ]);
}

#[test]
fn logical_operators() {
    check(vec![
        (
            "$and",
            doc! {"$and": [{"b": {"$gt": 0}}, {"a": {"$lt": 10}}]},
            doc! {"a": 11, "b": 2},
            doc! {"operatorName": "$and", "clausesNotSatisfied": [{"index": 1, "details": {"operatorName": "$lt", "specifiedAs": {"a": {"$lt": 10}}, "reason": "comparison failed", "consideredValue": 11}}]},
        ),
        (
            "implicit $and",
            doc! {"a": {"$gt": 0, "$lt": 10}},
            doc! {"a": 11},
            doc! {"operatorName": "$and", "clausesNotSatisfied": [{"index": 1, "details": {"operatorName": "$lt", "specifiedAs": {"a": {"$lt": 10}}, "reason": "comparison failed", "consideredValue": 11}}]},
        ),
        (
            "nested $and reports only failing clauses",
            doc! {"$and": [{"$and": [{"a": 1}]}, {"$and": [{"b": 1}]}]},
            doc! {"a": 1, "b": 2},
            doc! {"operatorName": "$and", "clausesNotSatisfied": [{"index": 1, "details": {
                "operatorName": "$and", "clausesNotSatisfied": [{"index": 0, "details": {"operatorName": "$eq", "specifiedAs": {"b": 1}, "reason": "comparison failed", "consideredValue": 2}}]}}]},
        ),
        (
            "$or",
            doc! {"$or": [{"a": {"$lt": 10}}, {"a": {"$gt": 20}}]},
            doc! {"a": 15},
            doc! {"operatorName": "$or", "clausesNotSatisfied": [
                {"index": 0, "details": {"operatorName": "$lt", "specifiedAs": {"a": {"$lt": 10}}, "reason": "comparison failed", "consideredValue": 15}},
                {"index": 1, "details": {"operatorName": "$gt", "specifiedAs": {"a": {"$gt": 20}}, "reason": "comparison failed", "consideredValue": 15}}]},
        ),
        (
            "$nor",
            doc! {"$nor": [{"a": {"$gt": 10}}, {"b": {"$lt": 10}}]},
            doc! {"a": 9, "b": 9},
            doc! {"operatorName": "$nor", "clausesSatisfied": [{"index": 1, "details": {"operatorName": "$lt", "specifiedAs": {"b": {"$lt": 10}}, "reason": "comparison succeeded", "consideredValue": 9}}]},
        ),
        (
            "$not",
            doc! {"a": {"$not": {"$lt": 10}}},
            doc! {"a": 9},
            doc! {"operatorName": "$not", "details": {"operatorName": "$lt", "specifiedAs": {"a": {"$lt": 10}}, "reason": "comparison succeeded", "consideredValue": 9}},
        ),
        (
            "$not over an implicit $and",
            doc! {"a": {"$not": {"$lt": 20, "$gt": 5}}},
            doc! {"a": 10},
            doc! {"operatorName": "$not", "details": {"operatorName": "$and", "clausesSatisfied": [
                {"index": 0, "details": {"operatorName": "$lt", "specifiedAs": {"a": {"$lt": 20}}, "reason": "comparison succeeded", "consideredValue": 10}},
                {"index": 1, "details": {"operatorName": "$gt", "specifiedAs": {"a": {"$gt": 5}}, "reason": "comparison succeeded", "consideredValue": 10}}]}},
        ),
        (
            "$not of $not",
            doc! {"a": {"$not": {"$not": {"$lt": 10}}}},
            doc! {"a": 11},
            doc! {"operatorName": "$not", "details": {"operatorName": "$not", "details": {"operatorName": "$lt", "specifiedAs": {"a": {"$lt": 10}}, "reason": "comparison failed", "consideredValue": 11}}},
        ),
        (
            "$and, $or, $nor, $not",
            doc! {"$and": [{"$or": [{"price": {"$lt": 20}}]}, {"$nor": [{"qty": {"$gt": 30}}, {"qty": {"$not": {"$lt": 20}}}]}]},
            doc! {"price": 10, "qty": 25},
            doc! {"operatorName": "$and", "clausesNotSatisfied": [{"index": 1, "details": {"operatorName": "$nor", "clausesSatisfied": [
                {"index": 1, "details": {"operatorName": "$not", "details": {"operatorName": "$lt", "specifiedAs": {"qty": {"$lt": 20}}, "reason": "comparison failed", "consideredValue": 25}}}]}}]},
        ),
    ]);
}

#[test]
fn element_and_evaluation_operators() {
    check(vec![
        ("$exists", doc! {"a": {"$exists": true}}, doc! {"b": 1}, doc! {"operatorName": "$exists", "specifiedAs": {"a": {"$exists": true}}, "reason": "path does not exist"}),
        ("$exists false", doc! {"a": {"$exists": false}}, doc! {"a": 1}, doc! {"operatorName": "$exists", "specifiedAs": {"a": {"$exists": false}}, "reason": "path does exist"}),
        ("$type", doc! {"a": {"$type": "int"}}, doc! {"a": "one"}, doc! {"operatorName": "$type", "specifiedAs": {"a": {"$type": "int"}}, "reason": "type did not match", "consideredValue": "one", "consideredType": "string"}),
        (
            "$not $type",
            doc! {"a": {"$not": {"$type": "string"}}},
            doc! {"a": "words"},
            doc! {"operatorName": "$not", "details": {"operatorName": "$type", "specifiedAs": {"a": {"$type": "string"}}, "reason": "type did match", "consideredValue": "words", "consideredType": "string"}},
        ),
        ("$type missing", doc! {"a": {"$type": "double"}}, doc! {"b": 1}, doc! {"operatorName": "$type", "specifiedAs": {"a": {"$type": "double"}}, "reason": "field was missing"}),
        (
            "$type array",
            doc! {"a": {"$type": "double"}},
            doc! {"a": ["x", "y", "z"]},
            doc! {"operatorName": "$type", "specifiedAs": {"a": {"$type": "double"}}, "reason": "type did not match", "consideredValues": ["x", "y", "z"], "consideredType": "string"},
        ),
        ("$type empty array", doc! {"a": {"$type": "double"}}, doc! {"a": []}, doc! {"operatorName": "$type", "specifiedAs": {"a": {"$type": "double"}}, "reason": "type did not match", "consideredValues": []}),
        ("$expr", doc! {"$expr": {"$eq": ["$a", "$b"]}}, doc! {"a": 1, "b": 2}, doc! {"operatorName": "$expr", "specifiedAs": {"$expr": {"$eq": ["$a", "$b"]}}, "reason": "expression did not match", "expressionResult": false}),
        (
            "$nor $expr",
            doc! {"$nor": [{"$expr": {"$eq": ["$a", "$b"]}}]},
            doc! {"a": 1, "b": 1},
            doc! {"operatorName": "$nor", "clausesSatisfied": [{"index": 0, "details": {"operatorName": "$expr", "specifiedAs": {"$expr": {"$eq": ["$a", "$b"]}}, "reason": "expression did match", "expressionResult": true}}]},
        ),
        ("$expr numeric", doc! {"$expr": 0}, doc! {"a": 1}, doc! {"operatorName": "$expr", "specifiedAs": {"$expr": 0}, "reason": "expression did not match", "expressionResult": 0}),
        (
            // The server's unit test throws with `$divide` by zero, whose code 8.0 changed to
            // BadValue; `$concat` of a number kept its code.
            "$expr that throws",
            doc! {"$expr": {"$concat": ["$a", "$b"]}},
            doc! {"a": "field b is not a string", "b": 1},
            doc! {"operatorName": "$expr", "specifiedAs": {"$expr": {"$concat": ["$a", "$b"]}}, "reason": "failed to evaluate aggregation expression", "details": {"code": 16702, "codeName": "Location16702", "errmsg": "$concat only supports strings, not int"}},
        ),
        ("$mod", doc! {"a": {"$mod": [2, 1]}}, doc! {"a": 2}, doc! {"operatorName": "$mod", "specifiedAs": {"a": {"$mod": [2, 1]}}, "reason": "$mod did not evaluate to expected remainder", "consideredValue": 2}),
        (
            "$mod non-numeric",
            doc! {"a": {"$mod": [2, 1]}},
            doc! {"a": "two"},
            doc! {"operatorName": "$mod", "specifiedAs": {"a": {"$mod": [2, 1]}}, "reason": "type did not match", "consideredType": "string", "expectedTypes": ["decimal", "double", "int", "long"], "consideredValue": "two"},
        ),
        (
            "$regex",
            doc! {"a": {"$regex": "myRegex", "$options": ""}},
            doc! {"a": "one"},
            doc! {"operatorName": "$regex", "specifiedAs": {"a": {"$regex": "myRegex", "$options": ""}}, "reason": "regular expression did not match", "consideredValue": "one"},
        ),
        (
            "$regex non-string",
            doc! {"a": {"$regex": "myRegex", "$options": ""}},
            doc! {"a": [0, 1, 2]},
            doc! {"operatorName": "$regex", "specifiedAs": {"a": {"$regex": "myRegex", "$options": ""}}, "reason": "type did not match", "consideredType": "int", "expectedTypes": ["regex", "string", "symbol"], "consideredValues": [0, 1, 2]},
        ),
        (
            "regex value",
            doc! {"a": re("^S")},
            doc! {"a": "so sorry; not capitalized"},
            doc! {"operatorName": "$regex", "specifiedAs": {"a": re("^S")}, "reason": "regular expression did not match", "consideredValue": "so sorry; not capitalized"},
        ),
    ]);
}

fn re(p: &str) -> Bson {
    Bson::RegularExpression(bson::Regex { pattern: p.to_string().try_into().unwrap(), options: String::new().try_into().unwrap() })
}

fn schema_rules(rules: Vec<Document>) -> Document {
    doc! {"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": rules}
}

fn property(name: &str, details: Vec<Document>) -> Document {
    doc! {"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": name, "details": details}]}
}

#[test]
fn json_schema_scalar_keywords() {
    check(vec![
        (
            "minimum",
            doc! {"$jsonSchema": {"properties": {"a": {"minimum": 1}}}},
            doc! {"a": 0},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "minimum", "specifiedAs": {"minimum": 1}, "reason": "comparison failed", "consideredValue": 0}])]),
        ),
        (
            "exclusiveMinimum",
            doc! {"$jsonSchema": {"properties": {"a": {"minimum": 1, "exclusiveMinimum": true}}}},
            doc! {"a": 1},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "minimum", "specifiedAs": {"minimum": 1, "exclusiveMinimum": true}, "reason": "comparison failed", "consideredValue": 1}])]),
        ),
        (
            "maximum before minimum",
            doc! {"$jsonSchema": {"properties": {"a": {"properties": {"b": {"minimum": 10, "maximum": -10}}}}}},
            doc! {"a": {"b": 5}},
            schema_rules(vec![property(
                "a",
                vec![property(
                    "b",
                    vec![
                        doc! {"operatorName": "maximum", "specifiedAs": {"maximum": -10}, "reason": "comparison failed", "consideredValue": 5},
                        doc! {"operatorName": "minimum", "specifiedAs": {"minimum": 10}, "reason": "comparison failed", "consideredValue": 5},
                    ],
                )],
            )]),
        ),
        (
            "type contradicts the restriction",
            doc! {"$jsonSchema": {"type": "object", "properties": {"a": {"type": "string", "minimum": 5}}}},
            doc! {"a": 6},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "type", "specifiedAs": {"type": "string"}, "reason": "type did not match", "consideredValue": 6, "consideredType": "int"}])]),
        ),
        (
            "bsonType",
            doc! {"$jsonSchema": {"properties": {"a": {"bsonType": "double"}}}},
            doc! {"a": {"b": 1}},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "bsonType", "specifiedAs": {"bsonType": "double"}, "reason": "type did not match", "consideredValue": {"b": 1}, "consideredType": "object"}])]),
        ),
        (
            "no implicit array traversal",
            doc! {"$jsonSchema": {"properties": {"a": {"bsonType": "string"}}}},
            doc! {"a": ["Mihai", "was", "here"]},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "bsonType", "specifiedAs": {"bsonType": "string"}, "reason": "type did not match", "consideredValue": ["Mihai", "was", "here"], "consideredType": "array"}])]),
        ),
        (
            "minLength",
            doc! {"$jsonSchema": {"properties": {"a": {"type": "string", "minLength": 4}}}},
            doc! {"a": "foo"},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "minLength", "specifiedAs": {"minLength": 4}, "reason": "specified string length was not satisfied", "consideredValue": "foo"}])]),
        ),
        (
            "minLength on a non-string reports the type only",
            doc! {"$jsonSchema": {"properties": {"a": {"type": "string", "minLength": 4}}}},
            doc! {"a": 1},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "type", "specifiedAs": {"type": "string"}, "reason": "type did not match", "consideredValue": 1, "consideredType": "int"}])]),
        ),
        (
            "maxLength",
            doc! {"$jsonSchema": {"properties": {"a": {"maxLength": 4}}}},
            doc! {"a": "foo, bar, baz"},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "maxLength", "specifiedAs": {"maxLength": 4}, "reason": "specified string length was not satisfied", "consideredValue": "foo, bar, baz"}])]),
        ),
        (
            "pattern",
            doc! {"$jsonSchema": {"properties": {"a": {"pattern": "^S"}}}},
            doc! {"a": "slow"},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "pattern", "specifiedAs": {"pattern": "^S"}, "reason": "regular expression did not match", "consideredValue": "slow"}])]),
        ),
        (
            "multipleOf",
            doc! {"$jsonSchema": {"properties": {"a": {"multipleOf": 2}}}},
            doc! {"a": 3},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "multipleOf", "specifiedAs": {"multipleOf": 2}, "reason": "considered value is not a multiple of the specified value", "consideredValue": 3}])]),
        ),
        (
            "a top-level type other than object",
            doc! {"$jsonSchema": {"type": "number", "properties": {"a": {"properties": {"b": {"minimum": 1}}}}}},
            doc! {"a": {"b": 1}},
            doc! {"operatorName": "$jsonSchema", "specifiedAs": {"$jsonSchema": {"type": "number", "properties": {"a": {"properties": {"b": {"minimum": 1}}}}}}, "reason": "expression always evaluates to false"},
        ),
        (
            "$nor over a schema that matched",
            doc! {"$nor": [{"$jsonSchema": {"minimum": 1}}]},
            doc! {"a": 2},
            doc! {"operatorName": "$nor", "clausesSatisfied": [{"index": 0, "details": {"operatorName": "$jsonSchema", "reason": "schema matched"}}]},
        ),
    ]);
}

#[test]
fn json_schema_object_keywords() {
    let required = |names: Vec<&str>, missing: Vec<&str>| doc! {"operatorName": "required", "specifiedAs": {"required": names}, "missingProperties": missing};
    check(vec![
        (
            "required",
            doc! {"$jsonSchema": {"required": ["a", "b", "c"]}},
            doc! {"c": 1},
            schema_rules(vec![required(vec!["a", "b", "c"], vec!["a", "b"])]),
        ),
        (
            "required and properties of a missing field",
            doc! {"$jsonSchema": {"required": ["a"], "properties": {"a": {"enum": [1, 2, 3]}}}},
            doc! {},
            schema_rules(vec![required(vec!["a"], vec!["a"])]),
        ),
        (
            "properties and required together",
            doc! {"$jsonSchema": {"bsonType": "object", "required": ["title", "rev"], "properties": {"rev": {"bsonType": "int", "description": "revision number"}}}},
            doc! {"rev": "x"},
            schema_rules(vec![
                doc! {"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "rev", "description": "revision number", "details": [
                    {"operatorName": "bsonType", "specifiedAs": {"bsonType": "int"}, "reason": "type did not match", "consideredValue": "x", "consideredType": "string"}]}]},
                required(vec!["title", "rev"], vec!["title"]),
            ]),
        ),
        (
            "additionalProperties false",
            doc! {"$jsonSchema": {"properties": {"b": {"type": "number"}}, "additionalProperties": false}},
            doc! {"a": 1, "b": 2},
            schema_rules(vec![doc! {"operatorName": "additionalProperties", "specifiedAs": {"additionalProperties": false}, "additionalProperties": ["_id", "a"]}]),
        ),
        (
            "additionalProperties schema",
            doc! {"$jsonSchema": {"properties": {"_id": {}, "a": {"type": "number"}}, "additionalProperties": {"type": "string"}}},
            doc! {"a": 1, "b": "not this one", "c": "nor this one", "d": 1},
            schema_rules(vec![doc! {"operatorName": "additionalProperties", "reason": "at least one additional property did not match the subschema", "failingProperty": "d", "details": [
                {"operatorName": "type", "specifiedAs": {"type": "string"}, "reason": "type did not match", "consideredValue": 1, "consideredType": "int"}]}]),
        ),
        (
            "patternProperties",
            doc! {"$jsonSchema": {"patternProperties": {"^S": {"type": "number"}}}},
            doc! {"Super": 1, "Slow": "67"},
            schema_rules(vec![doc! {"operatorName": "patternProperties", "details": [{"propertyName": "Slow", "regexMatched": "^S", "details": [
                {"operatorName": "type", "specifiedAs": {"type": "number"}, "reason": "type did not match", "consideredValue": "67", "consideredType": "string"}]}]}]),
        ),
        (
            "minProperties",
            doc! {"$jsonSchema": {"minProperties": 10}},
            doc! {"a": 1, "b": 2, "c": 3},
            schema_rules(vec![doc! {"operatorName": "minProperties", "specifiedAs": {"minProperties": 10}, "reason": "specified number of properties was not satisfied", "numberOfProperties": 4}]),
        ),
        (
            "nested maxProperties",
            doc! {"$jsonSchema": {"properties": {"a": {"maxProperties": 1}}}},
            doc! {"a": {"b": 1, "c": 2}},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "maxProperties", "specifiedAs": {"maxProperties": 1}, "reason": "specified number of properties was not satisfied", "numberOfProperties": 2}])]),
        ),
        (
            "property dependency with a title",
            doc! {"$jsonSchema": {"dependencies": {"a": ["b", "c"], "title": "a needs b and c"}}},
            doc! {"a": 1, "b": 2},
            schema_rules(vec![doc! {"operatorName": "dependencies", "title": "a needs b and c", "failingDependencies": [{"conditionalProperty": "a", "missingProperties": ["c"]}]}]),
        ),
        (
            "schema dependency",
            doc! {"$jsonSchema": {"dependencies": {"a": {"properties": {"b": {"type": "number"}}}, "title": "a needs b"}}},
            doc! {"a": 1, "b": "foo"},
            schema_rules(vec![doc! {"operatorName": "dependencies", "title": "a needs b", "failingDependencies": [{"conditionalProperty": "a", "details": [
                property("b", vec![doc! {"operatorName": "type", "specifiedAs": {"type": "number"}, "reason": "type did not match", "consideredValue": "foo", "consideredType": "string"}])]}]}]),
        ),
        (
            "property dependencies",
            doc! {"$jsonSchema": {"dependencies": {"a": ["b", "c", "d"], "b": ["c", "d"], "e": ["c", "d"]}}},
            doc! {"a": 1, "b": 2, "e": 3},
            schema_rules(vec![doc! {"operatorName": "dependencies", "failingDependencies": [
                {"conditionalProperty": "a", "missingProperties": ["c", "d"]},
                {"conditionalProperty": "b", "missingProperties": ["c", "d"]},
                {"conditionalProperty": "e", "missingProperties": ["c", "d"]}]}]),
        ),
    ]);
}

#[test]
fn json_schema_array_keywords() {
    check(vec![
        (
            "minItems",
            doc! {"$jsonSchema": {"properties": {"a": {"type": "array", "minItems": 2}}}},
            doc! {"a": [1]},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "minItems", "specifiedAs": {"minItems": 2}, "reason": "array did not match specified length", "consideredValue": [1], "numberOfItems": 1}])]),
        ),
        (
            "maxItems",
            doc! {"$jsonSchema": {"properties": {"a": {"maxItems": 2}}}},
            doc! {"a": [1, 2, 3]},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "maxItems", "specifiedAs": {"maxItems": 2}, "reason": "array did not match specified length", "consideredValue": [1, 2, 3], "numberOfItems": 3}])]),
        ),
        (
            "uniqueItems",
            doc! {"$jsonSchema": {"properties": {"a": {"uniqueItems": true}}}},
            doc! {"a": [1, 2, 3, 3, 4, 4]},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "uniqueItems", "specifiedAs": {"uniqueItems": true}, "reason": "found a duplicate item", "consideredValue": [1, 2, 3, 3, 4, 4], "duplicatedValue": 3}])]),
        ),
        (
            "items",
            doc! {"$jsonSchema": {"properties": {"a": {"items": {"type": "string", "description": "elements must be of string type"}}}}},
            doc! {"a": [1, "A", {}]},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "items", "description": "elements must be of string type", "reason": "At least one item did not match the sub-schema", "itemIndex": 0, "details": [
                {"operatorName": "type", "specifiedAs": {"type": "string"}, "reason": "type did not match", "consideredValue": 1, "consideredType": "int"}]}])]),
        ),
        (
            "items of a 2d array",
            doc! {"$jsonSchema": {"properties": {"a": {"items": {"items": {"minimum": 0}}}}}},
            doc! {"a": [[1], [], [2, 4], [-1]]},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "items", "reason": "At least one item did not match the sub-schema", "itemIndex": 3, "details": [
                {"operatorName": "items", "reason": "At least one item did not match the sub-schema", "itemIndex": 0, "details": [
                    {"operatorName": "minimum", "specifiedAs": {"minimum": 0}, "reason": "comparison failed", "consideredValue": -1}]}]}])]),
        ),
        (
            "items array and additionalItems schema",
            doc! {"$jsonSchema": {"properties": {"a": {"type": "array", "items": [{"type": "number"}, {"type": "string"}], "additionalItems": {"type": "object"}}}}},
            doc! {"a": ["1", 2, {}, {"b": 1}, "Fail"]},
            schema_rules(vec![property("a", vec![
                doc! {"operatorName": "items", "details": [
                    {"itemIndex": 0i64, "details": [{"operatorName": "type", "specifiedAs": {"type": "number"}, "reason": "type did not match", "consideredValue": "1", "consideredType": "string"}]},
                    {"itemIndex": 1i64, "details": [{"operatorName": "type", "specifiedAs": {"type": "string"}, "reason": "type did not match", "consideredValue": 2, "consideredType": "int"}]}]},
                doc! {"operatorName": "additionalItems", "reason": "At least one additional item did not match the sub-schema", "itemIndex": 4, "details": [
                    {"operatorName": "type", "specifiedAs": {"type": "object"}, "reason": "type did not match", "consideredValue": "Fail", "consideredType": "string"}]},
            ])]),
        ),
        (
            "additionalItems false",
            doc! {"$jsonSchema": {"properties": {"a": {"items": [{"type": "number"}, {"type": "string"}], "additionalItems": false}}}},
            doc! {"a": [1, "First", "Extra element"]},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "additionalItems", "specifiedAs": {"additionalItems": false}, "reason": "found additional items", "additionalItems": ["Extra element"]}])]),
        ),
    ]);
}

#[test]
fn json_schema_logical_keywords() {
    check(vec![
        (
            "allOf",
            doc! {"$jsonSchema": {"allOf": [{"properties": {"a": {"minimum": 1}}}, {"properties": {"b": {"minimum": 2}}}]}},
            doc! {"a": 1, "b": 0},
            schema_rules(vec![doc! {"operatorName": "allOf", "schemasNotSatisfied": [{"index": 1, "details": [
                property("b", vec![doc! {"operatorName": "minimum", "specifiedAs": {"minimum": 2}, "reason": "comparison failed", "consideredValue": 0}])]}]}]),
        ),
        (
            "anyOf with descriptions",
            doc! {"$jsonSchema": {"properties": {"a": {"description": "property a", "anyOf": [{"bsonType": "number", "description": "number?"}, {"bsonType": "string"}]}}}},
            doc! {"a": {}},
            schema_rules(vec![doc! {"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "a", "description": "property a", "details": [
                {"operatorName": "anyOf", "schemasNotSatisfied": [
                    {"index": 0, "description": "number?", "details": [{"operatorName": "bsonType", "specifiedAs": {"bsonType": "number"}, "reason": "type did not match", "consideredValue": {}, "consideredType": "object"}]},
                    {"index": 1, "details": [{"operatorName": "bsonType", "specifiedAs": {"bsonType": "string"}, "reason": "type did not match", "consideredValue": {}, "consideredType": "object"}]}]}]}]}]),
        ),
        (
            "oneOf with more than one match",
            doc! {"$jsonSchema": {"properties": {"a": {"oneOf": [{"minimum": 1}, {"maximum": 3}], "description": "oneOf description"}}}},
            doc! {"a": 2},
            schema_rules(vec![doc! {"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "a", "description": "oneOf description", "details": [
                {"operatorName": "oneOf", "reason": "more than one subschema matched", "matchingSchemaIndexes": [0, 1]}]}]}]),
        ),
        (
            "oneOf with no match",
            doc! {"$jsonSchema": {"properties": {"a": {"oneOf": [{"minimum": 4}, {"maximum": 1}, {"bsonType": "int"}]}}}},
            doc! {"a": 2.1},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "oneOf", "schemasNotSatisfied": [
                {"index": 0, "details": [{"operatorName": "minimum", "specifiedAs": {"minimum": 4}, "reason": "comparison failed", "consideredValue": 2.1}]},
                {"index": 1, "details": [{"operatorName": "maximum", "specifiedAs": {"maximum": 1}, "reason": "comparison failed", "consideredValue": 2.1}]},
                {"index": 2, "details": [{"operatorName": "bsonType", "specifiedAs": {"bsonType": "int"}, "reason": "type did not match", "consideredValue": 2.1, "consideredType": "double"}]}]}])]),
        ),
        (
            "not with a title",
            doc! {"$jsonSchema": {"properties": {"a": {"not": {"type": "number", "title": "type title"}, "title": "not title"}}}},
            doc! {"a": 1},
            schema_rules(vec![doc! {"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "a", "title": "not title", "details": [
                {"operatorName": "not", "reason": "child expression matched"}]}]}]),
        ),
        (
            "enum",
            doc! {"$jsonSchema": {"properties": {"a": {"enum": [1, 2, 3]}}}},
            doc! {"a": 0},
            schema_rules(vec![property("a", vec![doc! {"operatorName": "enum", "specifiedAs": {"enum": [1, 2, 3]}, "reason": "value was not found in enum", "consideredValue": 0}])]),
        ),
        (
            "top-level enum",
            doc! {"$jsonSchema": {"enum": [{"a": 1, "b": 1}, {"a": 0, "b": {"c": [1, 2, 3]}}]}},
            doc! {"a": 0, "b": 1},
            schema_rules(vec![doc! {"operatorName": "enum", "specifiedAs": {"enum": [{"a": 1, "b": 1}, {"a": 0, "b": {"c": [1, 2, 3]}}]}, "reason": "value was not found in enum", "consideredValue": {"_id": 1, "a": 0, "b": 1}}]),
        ),
        (
            "title and description of the schema",
            doc! {"$jsonSchema": {"title": "orders", "description": "an order", "required": ["qty"]}},
            doc! {},
            doc! {"operatorName": "$jsonSchema", "title": "orders", "description": "an order", "schemaRulesNotSatisfied": [
                {"operatorName": "required", "specifiedAs": {"required": ["qty"]}, "missingProperties": ["qty"]}]},
        ),
        (
            "$jsonSchema beside query operators",
            doc! {"$jsonSchema": {"required": ["name"]}, "qty": {"$gte": 0}},
            doc! {"qty": -1},
            doc! {"operatorName": "$and", "clausesNotSatisfied": [
                {"index": 0, "details": {"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [{"operatorName": "required", "specifiedAs": {"required": ["name"]}, "missingProperties": ["name"]}]}},
                {"index": 1, "details": {"operatorName": "$gte", "specifiedAs": {"qty": {"$gte": 0}}, "reason": "comparison failed", "consideredValue": -1}}]},
        ),
    ]);
}

/// Updates report the id of the document they were updating, with the details of the updated
/// document; `bypassDocumentValidation` and `validationAction: "warn"` still accept.
#[test]
fn updates_bypass_and_warn() {
    let validator = doc! {"$jsonSchema": {"properties": {"qty": {"bsonType": "int", "minimum": 0}}}};
    let mut db = crate::common::db_after(3, &[doc! {"create": "c", "validator": validator.clone()}, doc! {"insert": "c", "documents": [{"_id": 7, "qty": 1}]}]);
    let r = db.run_command(&doc! {"update": "c", "updates": [{"q": {"_id": 7}, "u": {"$inc": {"qty": -5}}}]});
    let e = r.get_array("writeErrors").unwrap()[0].as_document().unwrap().clone();
    let want = doc! {"failingDocumentId": 7, "details": schema_rules(vec![property("qty", vec![
        doc! {"operatorName": "minimum", "specifiedAs": {"minimum": 0}, "reason": "comparison failed", "consideredValue": -4}])])};
    assert_eq!(e.get_document("errInfo").unwrap(), &want, "{r}");
    let r = db.run_command(&doc! {"insert": "c", "documents": [{"_id": 8, "qty": -1}], "bypassDocumentValidation": true});
    assert_eq!(r.get("n"), Some(&Bson::Int32(1)), "{r}");
    let mut warn = crate::common::db_after(3, &[doc! {"create": "c", "validator": validator, "validationAction": "warn"}]);
    let r = warn.run_command(&doc! {"insert": "c", "documents": [{"_id": 1, "qty": -1}]});
    assert_eq!(r.get("n"), Some(&Bson::Int32(1)), "{r}");
}

/// `details` is there exactly when the verdict is a failure: random documents against a set of
/// validators; every refused insert carries details whose rules all name an operator, every
/// accepted one matched the validator as a query does.
#[test]
fn details_present_exactly_on_failure() {
    // A small deterministic generator (xorshift): the same documents at every run.
    struct Gen(u64);
    impl Gen {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
        fn range(&mut self, lo: i64, hi: i64) -> i64 {
            lo + self.below((hi - lo) as u64) as i64
        }
    }
    let validators = vec![
        doc! {"$jsonSchema": {"bsonType": "object", "required": ["a"], "properties": {"a": {"bsonType": ["int", "long"], "minimum": 0, "maximum": 5}, "b": {"bsonType": "string", "maxLength": 2, "pattern": "^x"}, "c": {"bsonType": "array", "minItems": 1, "uniqueItems": true, "items": {"enum": [1, 2, "x"]}}}}},
        doc! {"$jsonSchema": {"anyOf": [{"required": ["a"]}, {"required": ["b"]}], "not": {"required": ["d"]}, "additionalProperties": {"bsonType": ["int", "string", "array"]}, "properties": {"_id": {}}}},
        doc! {"$or": [{"a": {"$gt": 2}}, {"b": {"$exists": true}}], "c": {"$not": {"$size": 2}}, "$expr": {"$lt": ["$a", 5]}},
        doc! {"$nor": [{"a": {"$in": [1, 3]}}, {"b": {"$regex": "^y"}}], "a": {"$type": "number", "$ne": 4}},
        doc! {"$jsonSchema": {"oneOf": [{"properties": {"a": {"maximum": 2}}}, {"properties": {"a": {"minimum": 1}}}], "dependencies": {"b": ["c"]}}},
    ];
    let mut rng = Gen(0x9e37_79b9_7f4a_7c15);
    let value = |rng: &mut Gen| -> Bson {
        match rng.below(6) {
            0 => Bson::Int32(rng.range(-2, 7) as i32),
            1 => Bson::Int64(rng.range(-2, 7)),
            2 => Bson::String(["x", "xy", "xyz", "y", ""][rng.below(5) as usize].to_string()),
            3 => Bson::Array((0..rng.below(3)).map(|_| Bson::Int32(rng.range(1, 4) as i32)).collect()),
            4 => Bson::Double(rng.below(40) as f64 / 8.0),
            _ => Bson::Null,
        }
    };
    let mut refused = 0;
    for (vi, validator) in validators.iter().enumerate() {
        let mut db = crate::common::db_after(3, &[doc! {"create": "c", "validator": validator.clone()}]);
        let matcher = pattern_playground::query::Matcher::parse(validator).unwrap();
        let env = pattern_playground::env::Env::new(bson::DateTime::from_millis(1_700_000_000_000));
        for i in 0..150 {
            let mut d = doc! {"_id": (vi * 1000 + i) as i32};
            for f in ["a", "b", "c", "d"] {
                if rng.below(5) < 3 {
                    d.insert(f, value(&mut rng));
                }
            }
            let r = db.run_command(&doc! {"insert": "c", "documents": [d.clone()]});
            let matched = matcher.matches(&d, &env).unwrap_or(false);
            match r.get_array("writeErrors") {
                Ok(we) => {
                    refused += 1;
                    assert!(!matched, "{validator} refused {d} which matches it: {r}");
                    let info = we[0].as_document().unwrap().get_document("errInfo").unwrap();
                    let details = info.get_document("details").unwrap_or_else(|_| panic!("no details for {d} against {validator}: {r}"));
                    assert!(details.get_str("operatorName").is_ok(), "{details}");
                    let rules = details.get_array("schemaRulesNotSatisfied").or_else(|_| details.get_array("clausesNotSatisfied"));
                    if let Ok(rules) = rules {
                        assert!(!rules.is_empty(), "{d} against {validator}: empty {details}");
                    }
                }
                Err(_) => assert!(matched, "{validator} accepted {d} which does not match it: {r}"),
            }
        }
    }
    assert!(refused > 100, "only {refused} refusals: the validators are too weak to test anything");
}

#[test]
fn array_and_bitwise_operators() {
    let many: Vec<i32> = (0..12).collect();
    check(vec![
        ("$size", doc! {"a": {"$not": {"$size": 2}}}, doc! {"a": [1, 2]}, doc! {"operatorName": "$not", "details": {"operatorName": "$size", "specifiedAs": {"a": {"$size": 2}}, "reason": "array length was equal to given size", "consideredValue": [1, 2]}}),
        ("$all", doc! {"a": {"$all": [1, 2, 3]}}, doc! {"a": [1, 2, 4]}, doc! {"operatorName": "$all", "specifiedAs": {"a": {"$all": [1, 2, 3]}}, "reason": "array did not contain all specified values", "consideredValue": [1, 2, 4]}),
        ("$all missing", doc! {"a": {"$all": [1, 2, 3]}}, doc! {"b": [1, 2, 3]}, doc! {"operatorName": "$all", "specifiedAs": {"a": {"$all": [1, 2, 3]}}, "reason": "field was missing"}),
        ("$all of nothing", doc! {"a": {"$all": []}}, doc! {"a": [1, 2, 3]}, doc! {"operatorName": "$all", "specifiedAs": {"a": {"$all": []}}, "reason": "expression always evaluates to false"}),
        (
            "$elemMatch",
            doc! {"a": {"$elemMatch": {"$gt": 0, "$lt": 10}}},
            doc! {"a": [10, 11, 12]},
            doc! {"operatorName": "$elemMatch", "specifiedAs": {"a": {"$elemMatch": {"$gt": 0, "$lt": 10}}}, "reason": "array did not satisfy the child predicate", "consideredValue": [10, 11, 12]},
        ),
        (
            "$elemMatch on a non-array",
            doc! {"a": {"$elemMatch": {"b": {"$gt": 0}, "c": {"$lt": 0}}}},
            doc! {"a": "foo"},
            doc! {"operatorName": "$elemMatch", "specifiedAs": {"a": {"$elemMatch": {"b": {"$gt": 0}, "c": {"$lt": 0}}}}, "reason": "type did not match", "consideredType": "string", "expectedType": "array", "consideredValue": "foo"},
        ),
        ("$bitsAllClear", doc! {"a": {"$bitsAllClear": 2}}, doc! {"a": [7, 3]}, doc! {"operatorName": "$bitsAllClear", "specifiedAs": {"a": {"$bitsAllClear": 2}}, "reason": "bitwise operator failed to match", "consideredValues": [7, 3]}),
        (
            "$bitsAnyClear on a string",
            doc! {"a": {"$bitsAnyClear": 3}},
            doc! {"a": "someString"},
            doc! {"operatorName": "$bitsAnyClear", "specifiedAs": {"a": {"$bitsAnyClear": 3}}, "reason": "type did not match", "consideredType": "string", "expectedTypes": ["binData", "decimal", "double", "int", "long"], "consideredValue": "someString"},
        ),
        (
            "$not of a regex",
            doc! {"a": {"$not": re("^S")}},
            doc! {"a": "S"},
            doc! {"operatorName": "$not", "details": {"operatorName": "$regex", "specifiedAs": {"a": re("^S")}, "reason": "regular expression did match", "consideredValue": "S"}},
        ),
        (
            "at most ten considered values",
            doc! {"a": {"$lt": 0}},
            doc! {"a": many},
            doc! {"operatorName": "$lt", "specifiedAs": {"a": {"$lt": 0}}, "reason": "comparison failed", "consideredValues": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], "consideredValuesTruncated": true},
        ),
    ]);
}
