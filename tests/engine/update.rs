//! Update operators, positional paths, pipeline updates and replacements: each case is a stored
//! document, an update, and the document the server leaves (or its error code and message). The
//! cases follow the behaviour notes and examples of the manual page of each operator.

use bson::{bson, doc, Bson, DateTime, Document, Timestamp};
use pattern_playground::env::Env;
use pattern_playground::update::{validate_replacement, Update};
use pattern_playground::value::display;

const NOW_MS: i64 = 1_700_000_000_123;

fn env() -> Env {
    Env::new(DateTime::from_millis(NOW_MS))
}

/// What a case expects.
enum Want {
    Doc(Document),
    /// The update applies and changes nothing.
    NoOp,
    Fail(i32, &'static str),
}

use Want::*;

/// How a case runs.
#[derive(Clone, Default)]
struct Opts {
    filters: Option<Vec<Document>>,
    positional: Option<usize>,
    inserting: bool,
}

fn shown(d: &Document) -> String {
    format!("{d:?}")
}

fn run_case(doc: &Document, update: &Bson, opts: &Opts, want: &Want) -> Option<String> {
    let parsed = Update::parse(update, opts.filters.as_deref());
    let result = parsed.and_then(|u| u.apply(doc, opts.positional, opts.inserting, &env()));
    let ctx = format!("doc {doc:?}\n  update {update:?}");
    match (want, result) {
        (Doc(expected), Ok(a)) => {
            if shown(&a.doc) != shown(expected) || !a.modified {
                return Some(format!("{ctx}\n  want {expected:?}\n  got  {:?} (modified: {})", a.doc, a.modified));
            }
        }
        (NoOp, Ok(a)) => {
            if a.modified || shown(&a.doc) != shown(doc) || !a.changed_paths.is_empty() {
                return Some(format!("{ctx}\n  want a no-op\n  got  {:?} (modified: {})", a.doc, a.modified));
            }
        }
        (Fail(code, msg), Err(e)) => {
            if e.code_num() != *code || e.message != *msg {
                return Some(format!("{ctx}\n  want error {code} {msg:?}\n  got  error {} {:?}", e.code_num(), e.message));
            }
        }
        (Fail(code, msg), Ok(a)) => return Some(format!("{ctx}\n  want error {code} {msg:?}\n  got  {:?}", a.doc)),
        (_, Err(e)) => return Some(format!("{ctx}\n  unexpected error {} {:?}", e.code_num(), e.message)),
    }
    None
}

/// Runs a table of `(document, update, expected)` cases and reports every failure at once.
fn check_all(cases: Vec<(Document, Bson, Want)>, opts: Opts) {
    let failures: Vec<String> = cases.iter().filter_map(|(d, u, w)| run_case(d, u, &opts, w)).collect();
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

fn check(cases: Vec<(Document, Bson, Want)>) {
    check_all(cases, Opts::default())
}

fn upsert(cases: Vec<(Document, Bson, Want)>) {
    check_all(cases, Opts { inserting: true, ..Opts::default() })
}

fn positional(at: usize, cases: Vec<(Document, Bson, Want)>) {
    check_all(cases, Opts { positional: Some(at), ..Opts::default() })
}

const UNKNOWN: &str = "Unknown modifier: $foo. Expected a valid update modifier or pipeline-style update specified as an array";

#[test]
fn parse_errors() {
    check(vec![
        (doc! {"_id": 1}, bson!({"$foo": {"a": 1}}), Fail(9, UNKNOWN)),
        (doc! {"_id": 1}, bson!({"$set": {"a": 1}, "b": 2}), Fail(9, "Unknown modifier: b. Expected a valid update modifier or pipeline-style update specified as an array")),
        (
            doc! {"_id": 1},
            bson!({"$set": 1}),
            Fail(9, "Modifiers operate on fields but we found type int instead. For example: {$mod: {<field>: ...}} not {$set: 1}"),
        ),
        (doc! {"_id": 1}, bson!(5), Fail(9, "Update argument must be either an object or an array")),
        // MongoDB 5.0+: an empty operand is a no-op, not an error.
        (doc! {"_id": 1, "a": 1}, bson!({"$set": {}}), NoOp),
        (doc! {"_id": 1, "a": 1}, bson!({"$unset": {}, "$inc": {}}), NoOp),
        (doc! {"_id": 1}, bson!({"$set": {"": 1}}), Fail(56, "An empty update path is not valid.")),
        (
            doc! {"_id": 1},
            bson!({"$set": {"a..b": 1}}),
            Fail(56, "The update path 'a..b' contains an empty field name, which is not allowed."),
        ),
        (doc! {"_id": 1}, bson!({"$set": {"a.": 1}}), Fail(56, "The update path 'a.' contains an empty field name, which is not allowed.")),
        (
            doc! {"_id": 1},
            bson!({"$set": {"a.b": 1}, "$inc": {"a": 1}}),
            Fail(40, "Updating the path 'a' would create a conflict at 'a'"),
        ),
        (
            doc! {"_id": 1},
            bson!({"$set": {"a": 1, "a.b": 1}}),
            Fail(40, "Updating the path 'a.b' would create a conflict at 'a'"),
        ),
        (
            doc! {"_id": 1},
            bson!({"$set": {"a": 2}, "$inc": {"a": 1}}),
            Fail(40, "Updating the path 'a' would create a conflict at 'a'"),
        ),
        (doc! {"_id": 1}, bson!({"$set": {"a.$.b.$": 1}}), Fail(2, "Too many positional (i.e. '$') elements found in path 'a.$.b.$'")),
        (
            doc! {"_id": 1},
            bson!({"$set": {"$.a": 1}}),
            Fail(2, "Cannot have positional (i.e. '$') element in the first position in path '$.a'"),
        ),
        (
            doc! {"_id": 1},
            bson!({"$set": {"$[].a": 1}}),
            Fail(2, "Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '$[].a'"),
        ),
        (doc! {"_id": 1}, bson!({"$set": {"a.$[x]": 1}}), Fail(2, "No array filter found for identifier 'x' in path 'a.$[x]'")),
        (doc! {"_id": 1}, bson!({"$inc": {"a": "x"}}), Fail(14, "Cannot increment with non-numeric argument: {a: \"x\"}")),
        (doc! {"_id": 1}, bson!({"$mul": {"a": null}}), Fail(14, "Cannot multiply with non-numeric argument: {a: null}")),
    ]);
}

#[test]
fn set() {
    check(vec![
        // Top-level fields: replaced in place, new ones appended.
        (
            doc! {"_id": 100, "quantity": 250, "instock": true, "tags": ["apparel", "clothing"]},
            bson!({"$set": {"quantity": 500, "details": {"model": "2600", "make": "Fashionaires"}, "tags": ["coats", "outerwear", "clothing"]}}),
            Doc(doc! {"_id": 100, "quantity": 500, "instock": true, "tags": ["coats", "outerwear", "clothing"], "details": {"model": "2600", "make": "Fashionaires"}}),
        ),
        // Fields in embedded documents, with dot notation; missing embedded documents are created.
        (
            doc! {"_id": 100, "details": {"model": "2600", "make": "Fashionaires"}},
            bson!({"$set": {"details.make": "Kustom Kidds"}}),
            Doc(doc! {"_id": 100, "details": {"model": "2600", "make": "Kustom Kidds"}}),
        ),
        (doc! {"_id": 1}, bson!({"$set": {"a.b.c": 1}}), Doc(doc! {"_id": 1, "a": {"b": {"c": 1}}})),
        (doc! {"_id": 1, "a": {}}, bson!({"$set": {"a.b": 1, "a.c": 2}}), Doc(doc! {"_id": 1, "a": {"b": 1, "c": 2}})),
        // Elements in arrays by index, and past the end (padding with nulls).
        (
            doc! {"_id": 100, "tags": ["coats", "outerwear", "clothing"], "ratings": [{"by": "Customer007", "rating": 4}]},
            bson!({"$set": {"tags.1": "rain gear", "ratings.0.rating": 2}}),
            Doc(doc! {"_id": 100, "tags": ["coats", "rain gear", "clothing"], "ratings": [{"by": "Customer007", "rating": 2}]}),
        ),
        (doc! {"_id": 1, "a": [1]}, bson!({"$set": {"a.3": 4}}), Doc(doc! {"_id": 1, "a": [1, null, null, 4]})),
        (doc! {"_id": 1, "a": [1, {"b": 1}]}, bson!({"$set": {"a.1.c": 2}}), Doc(doc! {"_id": 1, "a": [1, {"b": 1, "c": 2}]})),
        (doc! {"_id": 1, "a": []}, bson!({"$set": {"a.0.b": 2}}), Doc(doc! {"_id": 1, "a": [{"b": 2}]})),
        // Leading zeros still index an array.
        (doc! {"_id": 1, "a": [1, 2]}, bson!({"$set": {"a.01": 9}}), Doc(doc! {"_id": 1, "a": [1, 9]})),
        // A numeric component on a document is a field name.
        (doc! {"_id": 1, "a": {}}, bson!({"$set": {"a.0": 1}}), Doc(doc! {"_id": 1, "a": {"0": 1}})),
        // New fields are appended in lexicographic order of their names, numeric names in numeric
        // order (MongoDB 5.0+), whatever the order of the update.
        (doc! {"_id": 1}, bson!({"$set": {"z": 1, "b": 2, "a": 3}}), Doc(doc! {"_id": 1, "a": 3, "b": 2, "z": 1})),
        (doc! {"_id": 1, "m": 0}, bson!({"$set": {"y": 1}, "$inc": {"x": 1}}), Doc(doc! {"_id": 1, "m": 0, "x": 1, "y": 1})),
        (doc! {"_id": 1, "a": {}}, bson!({"$set": {"a.10": 1, "a.9": 2, "a.b": 3}}), Doc(doc! {"_id": 1, "a": {"9": 2, "10": 1, "b": 3}})),
        (doc! {"_id": 1, "a": []}, bson!({"$set": {"a.1": "b", "a.0": "a"}}), Doc(doc! {"_id": 1, "a": ["a", "b"]})),
        // No-ops: a binary-identical value. A value equal but of another type is a change.
        (doc! {"_id": 1, "a": 1}, bson!({"$set": {"a": 1}}), NoOp),
        (doc! {"_id": 1, "a": {"b": [1, 2]}}, bson!({"$set": {"a": {"b": [1, 2]}}}), NoOp),
        (doc! {"_id": 1, "a": 1}, bson!({"$set": {"a": 1.0}}), Doc(doc! {"_id": 1, "a": 1.0})),
        (doc! {"_id": 1, "a": {"x": 1, "y": 2}}, bson!({"$set": {"a": {"y": 2, "x": 1}}}), Doc(doc! {"_id": 1, "a": {"y": 2, "x": 1}})),
        // Paths through scalars and arrays cannot be created.
        (doc! {"_id": 1, "a": 1}, bson!({"$set": {"a.b": 1}}), Fail(28, "Cannot create field 'b' in element {a: 1}")),
        (doc! {"_id": 1, "a": null}, bson!({"$set": {"a.b": 1}}), Fail(28, "Cannot create field 'b' in element {a: null}")),
        (
            doc! {"_id": 1, "a": [{"b": 1}, {"b": 2.0}]},
            bson!({"$set": {"a.b": 1}}),
            Fail(28, "Cannot create field 'b' in element {a: [ { b: 1 }, { b: 2.0 } ]}"),
        ),
        (doc! {"_id": 1, "a": [0]}, bson!({"$set": {"a.0.b": 1}}), Fail(28, "Cannot create field 'b' in element {0: 0}")),
        (doc! {"_id": 1, "a": {"b": "x"}}, bson!({"$set": {"a.b.c.d": 1}}), Fail(28, "Cannot create field 'c' in element {b: \"x\"}")),
        // A failed update changes nothing, even when an earlier field was applied.
        (doc! {"_id": 1, "a": 1, "b": 1}, bson!({"$set": {"a": 2, "b.c": 1}}), Fail(28, "Cannot create field 'c' in element {b: 1}")),
        // `_id` is immutable.
        (
            doc! {"_id": 1},
            bson!({"$set": {"_id": 2}}),
            Fail(66, "Performing an update on the path '_id' would modify the immutable field '_id'"),
        ),
        (doc! {"_id": 1}, bson!({"$set": {"_id": 1}}), NoOp),
        (
            doc! {"_id": 1},
            bson!({"$set": {"_id": 1.0}}),
            Fail(66, "Performing an update on the path '_id' would modify the immutable field '_id'"),
        ),
        (
            doc! {"_id": {"a": 1}},
            bson!({"$set": {"_id.a": 2}}),
            Fail(66, "Performing an update on the path '_id.a' would modify the immutable field '_id'"),
        ),
        (
            doc! {"_id": {"a": 1}},
            bson!({"$set": {"_id.b": 2}}),
            Fail(66, "Updating the path '_id' to _id: { a: 1, b: 2 } would modify the immutable field '_id'"),
        ),
        // Field names: `$` at the top level is refused, nested `$` and dotted names inside values
        // are stored (MongoDB 5.0+).
        (
            doc! {"_id": 1},
            bson!({"$set": {"$a": 1}}),
            Fail(52, "The dollar ($) prefixed field '$a' in '$a' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith."),
        ),
        (doc! {"_id": 1}, bson!({"$set": {"a.$b": 1}}), Doc(doc! {"_id": 1, "a": {"$b": 1}})),
        (doc! {"_id": 1}, bson!({"$set": {"a": {"$b": 1, "c.d": 2}}}), Doc(doc! {"_id": 1, "a": {"$b": 1, "c.d": 2}})),
    ]);
}

#[test]
fn set_when_inserting_allows_dollar_fields_and_puts_id_first() {
    upsert(vec![
        (doc! {"date": "2021-07-07"}, bson!({"$set": {"phone": 25.17, "$hotel": 320.10}}), Doc(doc! {"date": "2021-07-07", "$hotel": 320.10, "phone": 25.17})),
        (doc! {"a": 1}, bson!({"$set": {"_id": 5}}), Doc(doc! {"_id": 5, "a": 1})),
        (doc! {"a": 1}, bson!({"$set": {"_id": [1]}}), Fail(53, "The '_id' value cannot be of type array")),
    ]);
}

#[test]
fn unset() {
    check(vec![
        (
            doc! {"_id": 1, "item": "chisel", "sku": "C001", "quantity": 4, "instock": true},
            bson!({"$unset": {"quantity": "", "instock": ""}}),
            Doc(doc! {"_id": 1, "item": "chisel", "sku": "C001"}),
        ),
        // A missing field, even through a scalar, is a no-op.
        (doc! {"_id": 1, "a": 1}, bson!({"$unset": {"b": 1}}), NoOp),
        (doc! {"_id": 1, "a": 1}, bson!({"$unset": {"a.b": 1}}), NoOp),
        (doc! {"_id": 1, "a": {"b": 1, "c": 2}}, bson!({"$unset": {"a.b": true}}), Doc(doc! {"_id": 1, "a": {"c": 2}})),
        // An array element becomes null; the array keeps its length.
        (doc! {"_id": 1, "a": [1, 2, 3]}, bson!({"$unset": {"a.1": ""}}), Doc(doc! {"_id": 1, "a": [1, null, 3]})),
        (doc! {"_id": 1, "a": [1]}, bson!({"$unset": {"a.5": ""}}), NoOp),
        (
            doc! {"_id": 1},
            bson!({"$unset": {"_id": ""}}),
            Fail(66, "Performing an update on the path '_id' would modify the immutable field '_id'"),
        ),
    ]);
    // With the positional operator the matched element becomes null.
    positional(1, vec![(doc! {"_id": 1, "grades": [80, 85, 90]}, bson!({"$unset": {"grades.$": ""}}), Doc(doc! {"_id": 1, "grades": [80, null, 90]}))]);
}

#[test]
fn inc() {
    check(vec![
        (
            doc! {"_id": 1, "sku": "abc123", "quantity": 10, "metrics": {"orders": 2, "ratings": 3.5}},
            bson!({"$inc": {"quantity": -2, "metrics.orders": 1}}),
            Doc(doc! {"_id": 1, "sku": "abc123", "quantity": 8, "metrics": {"orders": 3, "ratings": 3.5}}),
        ),
        // A missing field is created with the increment.
        (doc! {"_id": 1}, bson!({"$inc": {"a.b": 5}}), Doc(doc! {"_id": 1, "a": {"b": 5}})),
        (doc! {"_id": 1}, bson!({"$inc": {"a": 2.5}}), Doc(doc! {"_id": 1, "a": 2.5})),
        // Promotion: int32 overflow widens to int64; int with double gives double.
        (doc! {"_id": 1, "a": i32::MAX}, bson!({"$inc": {"a": 1}}), Doc(doc! {"_id": 1, "a": 2_147_483_648i64})),
        (doc! {"_id": 1, "a": 1}, bson!({"$inc": {"a": 0.5}}), Doc(doc! {"_id": 1, "a": 1.5})),
        (doc! {"_id": 1, "a": 1}, bson!({"$inc": {"a": 1i64}}), Doc(doc! {"_id": 1, "a": 2i64})),
        (
            doc! {"_id": 1, "a": Bson::Decimal128("1.5".parse().unwrap())},
            bson!({"$inc": {"a": 1}}),
            Doc(doc! {"_id": 1, "a": Bson::Decimal128("2.5".parse().unwrap())}),
        ),
        // Incrementing by zero of the same type changes nothing; of another type it does.
        (doc! {"_id": 1, "a": 5}, bson!({"$inc": {"a": 0}}), NoOp),
        (doc! {"_id": 1, "a": 5}, bson!({"$inc": {"a": 0.0}}), Doc(doc! {"_id": 1, "a": 5.0})),
        // int64 overflow is an error.
        (
            doc! {"_id": 1, "a": i64::MAX},
            bson!({"$inc": {"a": 1}}),
            Fail(2, "Failed to apply $inc operations to current value ((NumberLong)9223372036854775807) for document {_id: 1}"),
        ),
        // A null or non-numeric field is an error.
        (
            doc! {"_id": 1, "a": null},
            bson!({"$inc": {"a": 1}}),
            Fail(14, "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 'a' of non-numeric type null"),
        ),
        (
            doc! {"_id": "x", "a": {"b": "s"}},
            bson!({"$inc": {"a.b": 1}}),
            Fail(14, "Cannot apply $inc to a value of non-numeric type. {_id: \"x\"} has the field 'b' of non-numeric type string"),
        ),
        (doc! {"_id": 1, "a": 1}, bson!({"$inc": {"a.b": 1}}), Fail(28, "Cannot create field 'b' in element {a: 1}")),
        // int32 plus an int64 that overflows is an error too.
        (
            doc! {"_id": "int32", "v": 42},
            bson!({"$inc": {"v": i64::MAX}}),
            Fail(2, "Failed to apply $inc operations to current value ((NumberInt)42) for document {_id: \"int32\"}"),
        ),
        (
            doc! {"_id": "n", "v": [{"foo": [{"bar": "hello"}]}]},
            bson!({"$inc": {"v.foo": 1}}),
            Fail(28, "Cannot create field 'foo' in element {v: [ { foo: [ { bar: \"hello\" } ] } ]}"),
        ),
    ]);
}

#[test]
fn mul() {
    check(vec![
        (
            doc! {"_id": 1, "item": "Hats", "price": Bson::Decimal128("10.99".parse().unwrap()), "quantity": 25},
            bson!({"$mul": {"price": Bson::Decimal128("1.25".parse().unwrap()), "quantity": 2}}),
            Doc(doc! {"_id": 1, "item": "Hats", "price": Bson::Decimal128("13.7375".parse().unwrap()), "quantity": 50}),
        ),
        // A missing field becomes zero of the multiplier's type.
        (doc! {"_id": 2, "item": "Unknown"}, bson!({"$mul": {"price": 100i64}}), Doc(doc! {"_id": 2, "item": "Unknown", "price": 0i64})),
        (doc! {"_id": 1}, bson!({"$mul": {"a": 2.5}}), Doc(doc! {"_id": 1, "a": 0.0})),
        // Mixed types: int x long is long, int x double is double.
        (doc! {"_id": 3, "item": "Scarf", "price": 10}, bson!({"$mul": {"price": 5i64}}), Doc(doc! {"_id": 3, "item": "Scarf", "price": 50i64})),
        (doc! {"_id": 1, "a": 3}, bson!({"$mul": {"a": 0.5}}), Doc(doc! {"_id": 1, "a": 1.5})),
        (doc! {"_id": 1, "a": i32::MAX}, bson!({"$mul": {"a": 2}}), Doc(doc! {"_id": 1, "a": 4_294_967_294i64})),
        (doc! {"_id": 1, "a": 7}, bson!({"$mul": {"a": 1}}), NoOp),
        (
            doc! {"_id": 1, "a": i64::MAX},
            bson!({"$mul": {"a": 2}}),
            Fail(2, "Failed to apply $mul operations to current value ((NumberLong)9223372036854775807) for document {_id: 1}"),
        ),
        (
            doc! {"_id": 1, "a": "x"},
            bson!({"$mul": {"a": 2}}),
            Fail(14, "Cannot apply $mul to a value of non-numeric type. {_id: 1} has the field 'a' of non-numeric type string"),
        ),
    ]);
}

#[test]
fn min_max() {
    check(vec![
        (doc! {"_id": 1, "highScore": 800, "lowScore": 200}, bson!({"$min": {"lowScore": 150}}), Doc(doc! {"_id": 1, "highScore": 800, "lowScore": 150})),
        (doc! {"_id": 1, "highScore": 800, "lowScore": 150}, bson!({"$min": {"lowScore": 250}}), NoOp),
        (doc! {"_id": 1, "highScore": 800, "lowScore": 200}, bson!({"$max": {"highScore": 950}}), Doc(doc! {"_id": 1, "highScore": 950, "lowScore": 200})),
        (doc! {"_id": 1, "highScore": 950, "lowScore": 200}, bson!({"$max": {"highScore": 870}}), NoOp),
        // Missing fields are set.
        (doc! {"_id": 1}, bson!({"$min": {"a": 5}, "$max": {"b": 6}}), Doc(doc! {"_id": 1, "a": 5, "b": 6})),
        // Equal values of another numeric type are a no-op.
        (doc! {"_id": 1, "a": 1}, bson!({"$max": {"a": 1.0}}), NoOp),
        // Dates compare as dates.
        (
            doc! {"_id": 1, "dateEntered": DateTime::from_millis(2000), "dateExpired": DateTime::from_millis(5000)},
            bson!({"$min": {"dateEntered": DateTime::from_millis(1000)}, "$max": {"dateExpired": DateTime::from_millis(9000)}}),
            Doc(doc! {"_id": 1, "dateEntered": DateTime::from_millis(1000), "dateExpired": DateTime::from_millis(9000)}),
        ),
        // Values of different types compare in BSON order (numbers < strings < objects).
        (doc! {"_id": 1, "a": "x"}, bson!({"$min": {"a": 100}}), Doc(doc! {"_id": 1, "a": 100})),
        (doc! {"_id": 1, "a": "x"}, bson!({"$max": {"a": 100}}), NoOp),
        (doc! {"_id": 1, "a": null}, bson!({"$max": {"a": 0}}), Doc(doc! {"_id": 1, "a": 0})),
    ]);
}

#[test]
fn rename() {
    check(vec![
        // Onto an equal number of another type: the destination takes the source's type (the
        // server's jstest rename_operator: binary identity, not numeric equality, is a no-op).
        (
            doc! {"_id": 1, "to": Bson::Int64(100), "from": Bson::Int32(100)},
            bson!({"$rename": {"from": "to"}}),
            Doc(doc! {"_id": 1, "to": Bson::Int32(100)}),
        ),
        (
            doc! {"_id": 1, "to": 1.0, "from": Bson::Int32(1)},
            bson!({"$rename": {"from": "to"}}),
            Doc(doc! {"_id": 1, "to": Bson::Int32(1)}),
        ),
        (
            doc! {"_id": 1, "alias": ["The American Cincinnatus"], "mobile": "555-555-5555", "nmae": {"first": "george", "last": "washington"}},
            bson!({"$rename": {"nmae": "name"}}),
            Doc(doc! {"_id": 1, "alias": ["The American Cincinnatus"], "mobile": "555-555-5555", "name": {"first": "george", "last": "washington"}}),
        ),
        // Fields in embedded documents, also moved into another document.
        (
            doc! {"_id": 1, "name": {"first": "george", "last": "washington"}},
            bson!({"$rename": {"name.first": "name.fname"}}),
            Doc(doc! {"_id": 1, "name": {"last": "washington", "fname": "george"}}),
        ),
        (
            doc! {"_id": 1, "name": {"first": "george", "last": "washington"}},
            bson!({"$rename": {"name.last": "contact.lname"}}),
            Doc(doc! {"_id": 1, "name": {"first": "george"}, "contact": {"lname": "washington"}}),
        ),
        // A missing source is a no-op.
        (doc! {"_id": 1, "a": 1}, bson!({"$rename": {"age": "years"}}), NoOp),
        // An existing destination is overwritten.
        (doc! {"_id": 1, "a": 1, "b": 2, "c": 3}, bson!({"$rename": {"c": "a"}}), Doc(doc! {"_id": 1, "a": 3, "b": 2})),
        // Errors.
        (doc! {"_id": 1, "a": 1}, bson!({"$rename": {"a": "a"}}), Fail(2, "The source and target field for $rename must differ: a: \"a\"")),
        (
            doc! {"_id": 1, "a": 1},
            bson!({"$rename": {"a": "a.b"}}),
            Fail(2, "The source and target field for $rename must not be on the same path: a: \"a.b\""),
        ),
        (doc! {"_id": 1, "a": 1}, bson!({"$rename": {"a": 5}}), Fail(2, "The 'to' field for $rename must be a string: a: 5")),
        (doc! {"_id": 1, "a": 1}, bson!({"$rename": {"a.$": "b"}}), Fail(2, "The source field for $rename may not be dynamic: a.$")),
        (doc! {"_id": 1, "a": 1}, bson!({"$rename": {"a": "b.$[]"}}), Fail(2, "The destination field for $rename may not be dynamic: b.$[]")),
        (
            doc! {"_id": 1, "a": 1},
            bson!({"$rename": {"a": "b"}, "$set": {"a": 2}}),
            Fail(40, "Updating the path 'a' would create a conflict at 'a'"),
        ),
        (
            doc! {"_id": 1, "a": [{"b": 1}]},
            bson!({"$rename": {"a.0.b": "c"}}),
            Fail(2, "The source field cannot be an array element, 'a.0.b' in doc with _id: 1 has an array field called 'a'"),
        ),
        (
            doc! {"_id": 1, "a": 1, "b": [1]},
            bson!({"$rename": {"a": "b.5"}}),
            Fail(2, "The destination field cannot be an array element, 'b.5' in doc with _id: 1 has an array field called 'b'"),
        ),
        (doc! {"_id": 1, "a": 1}, bson!({"$rename": {"a.b": "c"}}), Fail(28, "cannot use the part (a of a.b) to traverse the element ({a: 1})")),
        // Paths through arrays (as mongod words them).
        (
            doc! {"_id": "n", "v": [{"foo": [{"bar": "hello"}, {"bar": "world"}]}]},
            bson!({"$rename": {"v.foo": "foo"}}),
            Fail(28, "cannot use the part (v of v.foo) to traverse the element ({v: [ { foo: [ { bar: \"hello\" }, { bar: \"world\" } ] } ]})"),
        ),
        (
            doc! {"_id": "n", "v": [{"foo": [{"bar": "hello"}, {"bar": "world"}]}]},
            bson!({"$rename": {"v.-1": "f"}}),
            Fail(28, "cannot use the part (v of v.-1) to traverse the element ({v: [ { foo: [ { bar: \"hello\" }, { bar: \"world\" } ] } ]})"),
        ),
        (
            doc! {"_id": "n", "v": [{"foo": [{"bar": "hello"}, {"bar": "world"}]}]},
            bson!({"$rename": {"v.0.foo.0.bar.z": "f"}}),
            Fail(28, "cannot use the part (bar of v.0.foo.0.bar.z) to traverse the element ({bar: \"hello\"})"),
        ),
        (doc! {"_id": 1, "a": 1}, bson!({"$rename": {"": "v"}}), Fail(56, "An empty update path is not valid.")),
        (doc! {"_id": 1, "a": 1, "b": 1}, bson!({"$rename": {"a": "b.c"}}), Fail(28, "Cannot create field 'c' in element {b: 1}")),
        (
            doc! {"_id": 1, "a": 1},
            bson!({"$rename": {"_id": "x"}}),
            Fail(66, "Unsetting the path '_id' using $rename would modify the immutable field '_id'"),
        ),
        (
            doc! {"_id": 1, "a": 2},
            bson!({"$rename": {"a": "_id"}}),
            Fail(66, "Performing an update on the path '_id' would modify the immutable field '_id'"),
        ),
    ]);
}

#[test]
fn current_date() {
    let now = DateTime::from_millis(NOW_MS);
    let ts = Timestamp { time: (NOW_MS / 1000) as u32, increment: 1 };
    check(vec![
        (
            doc! {"_id": 1, "status": "a", "lastModified": DateTime::from_millis(0)},
            bson!({"$currentDate": {"lastModified": true, "cancellation.date": {"$type": "timestamp"}}, "$set": {"cancellation.reason": "user request", "status": "D"}}),
            Doc(doc! {"_id": 1, "status": "D", "lastModified": now, "cancellation": {"date": ts, "reason": "user request"}}),
        ),
        (doc! {"_id": 1}, bson!({"$currentDate": {"d": {"$type": "date"}}}), Doc(doc! {"_id": 1, "d": now})),
        // Setting the same date again is still a modification.
        (doc! {"_id": 1, "d": now}, bson!({"$currentDate": {"d": false}}), Doc(doc! {"_id": 1, "d": now})),
        (
            doc! {"_id": 1},
            bson!({"$currentDate": {"d": 1}}),
            Fail(2, "int is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'})."),
        ),
        (
            doc! {"_id": 1},
            bson!({"$currentDate": {"d": {"$type": "string"}}}),
            Fail(2, "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}"),
        ),
        (doc! {"_id": 1}, bson!({"$currentDate": {"d": {"x": 1}}}), Fail(2, "Unrecognized $currentDate option: x")),
    ]);
}

#[test]
fn set_on_insert() {
    let update = bson!({"$set": {"item": "apple"}, "$setOnInsert": {"defaultQty": 100}});
    upsert(vec![(doc! {"_id": 1}, update.clone(), Doc(doc! {"_id": 1, "defaultQty": 100, "item": "apple"}))]);
    check(vec![
        (doc! {"_id": 1, "item": "pear"}, update, Doc(doc! {"_id": 1, "item": "apple"})),
        (doc! {"_id": 1}, bson!({"$setOnInsert": {"a": 1}}), NoOp),
        // Not inserting: it does nothing at all, even on a path that could not be created.
        (doc! {"_id": 1, "a": 1}, bson!({"$setOnInsert": {"a.b": 1}}), NoOp),
    ]);
}

#[test]
fn push_and_modifiers() {
    check(vec![
        (doc! {"_id": 1, "scores": [44, 78, 38, 80]}, bson!({"$push": {"scores": 89}}), Doc(doc! {"_id": 1, "scores": [44, 78, 38, 80, 89]})),
        // A missing field becomes an array; an array value is pushed as one element.
        (doc! {"_id": 1}, bson!({"$push": {"scores": 89}}), Doc(doc! {"_id": 1, "scores": [89]})),
        (doc! {"_id": 1, "a": [1]}, bson!({"$push": {"a": [2, 3]}}), Doc(doc! {"_id": 1, "a": [1, [2, 3]]})),
        // $each pushes each value.
        (doc! {"_id": 1, "scores": [1]}, bson!({"$push": {"scores": {"$each": [90, 92, 85]}}}), Doc(doc! {"_id": 1, "scores": [1, 90, 92, 85]})),
        (doc! {"_id": 1, "scores": [1]}, bson!({"$push": {"scores": {"$each": []}}}), NoOp),
        // $each, $sort by a field of the documents, $slice.
        (
            doc! {"_id": 5, "quizzes": [{"wk": 1, "score": 10}, {"wk": 2, "score": 8}, {"wk": 3, "score": 5}, {"wk": 4, "score": 6}]},
            bson!({"$push": {"quizzes": {"$each": [{"wk": 5, "score": 8}, {"wk": 6, "score": 7}, {"wk": 7, "score": 6}], "$sort": {"score": -1}, "$slice": 3}}}),
            Doc(doc! {"_id": 5, "quizzes": [{"wk": 1, "score": 10}, {"wk": 2, "score": 8}, {"wk": 5, "score": 8}]}),
        ),
        // $position: at the start, in the middle, counted from the end.
        (doc! {"_id": 1, "scores": [100]}, bson!({"$push": {"scores": {"$each": [50, 60, 70], "$position": 0}}}), Doc(doc! {"_id": 1, "scores": [50, 60, 70, 100]})),
        (doc! {"_id": 1, "scores": [50, 60, 70, 100]}, bson!({"$push": {"scores": {"$each": [20, 30], "$position": 2}}}), Doc(doc! {"_id": 1, "scores": [50, 60, 20, 30, 70, 100]})),
        (doc! {"_id": 1, "scores": [50, 60, 20, 30, 70, 100]}, bson!({"$push": {"scores": {"$each": [90, 80], "$position": -2}}}), Doc(doc! {"_id": 1, "scores": [50, 60, 20, 30, 90, 80, 70, 100]})),
        (doc! {"_id": 1, "a": [1, 2]}, bson!({"$push": {"a": {"$each": [3], "$position": 10}}}), Doc(doc! {"_id": 1, "a": [1, 2, 3]})),
        (doc! {"_id": 1, "a": [1, 2]}, bson!({"$push": {"a": {"$each": [3], "$position": -10}}}), Doc(doc! {"_id": 1, "a": [3, 1, 2]})),
        // $slice: from the end, from the front, zero, bigger than the array, $slice alone.
        (doc! {"_id": 1, "scores": [40, 50, 60]}, bson!({"$push": {"scores": {"$each": [80, 78, 86], "$slice": -5}}}), Doc(doc! {"_id": 1, "scores": [50, 60, 80, 78, 86]})),
        (doc! {"_id": 2, "scores": [89, 90]}, bson!({"$push": {"scores": {"$each": [100, 20], "$slice": 3}}}), Doc(doc! {"_id": 2, "scores": [89, 90, 100]})),
        (doc! {"_id": 3, "scores": [89, 70, 100, 20]}, bson!({"$push": {"scores": {"$each": [], "$slice": -3}}}), Doc(doc! {"_id": 3, "scores": [70, 100, 20]})),
        (doc! {"_id": 1, "a": [1, 2]}, bson!({"$push": {"a": {"$each": [3], "$slice": 0}}}), Doc(doc! {"_id": 1, "a": []})),
        (doc! {"_id": 1, "a": [1, 2]}, bson!({"$push": {"a": {"$each": [], "$slice": 5}}}), NoOp),
        // $sort: whole values, documents by a field, by an embedded field; modifier order does
        // not matter.
        (doc! {"_id": 2, "tests": [89, 70, 89, 50]}, bson!({"$push": {"tests": {"$each": [40, 60], "$sort": 1}}}), Doc(doc! {"_id": 2, "tests": [40, 50, 60, 70, 89, 89]})),
        (doc! {"_id": 3, "tests": [89, 70, 100, 20]}, bson!({"$push": {"tests": {"$each": [], "$sort": -1}}}), Doc(doc! {"_id": 3, "tests": [100, 89, 70, 20]})),
        (
            doc! {"_id": 1, "quizzes": [{"id": 1, "score": 6}, {"id": 2, "score": 9}]},
            bson!({"$push": {"quizzes": {"$sort": {"score": 1}, "$each": [{"id": 3, "score": 8}, {"id": 4, "score": 7}, {"id": 5, "score": 6}]}}}),
            Doc(doc! {"_id": 1, "quizzes": [{"id": 1, "score": 6}, {"id": 5, "score": 6}, {"id": 4, "score": 7}, {"id": 3, "score": 8}, {"id": 2, "score": 9}]}),
        ),
        (
            doc! {"_id": 1, "a": [{"b": {"c": 2}}, {"b": {"c": 1}}, {"x": 1}, 5]},
            bson!({"$push": {"a": {"$each": [], "$sort": {"b.c": 1}}}}),
            Doc(doc! {"_id": 1, "a": [{"x": 1}, 5, {"b": {"c": 1}}, {"b": {"c": 2}}]}),
        ),
        // Mixed types sort in BSON order.
        (doc! {"_id": 1, "a": ["b", 2, {"x": 1}, null, 1.5]}, bson!({"$push": {"a": {"$each": [], "$sort": 1}}}), Doc(doc! {"_id": 1, "a": [null, 1.5, 2, "b", {"x": 1}]})),
        // Without $each, a document with $-fields is pushed as it is.
        (doc! {"_id": 1, "a": []}, bson!({"$push": {"a": {"$slice": 1}}}), Doc(doc! {"_id": 1, "a": [{"$slice": 1}]})),
        // Errors.
        (
            doc! {"_id": 1, "a": 5},
            bson!({"$push": {"a": 1}}),
            Fail(2, "The field 'a' must be an array but is of type int in document {_id: 1}"),
        ),
        (
            doc! {"_id": 1, "a": {"b": "x"}},
            bson!({"$push": {"a.b": 1}}),
            Fail(2, "The field 'a.b' must be an array but is of type string in document {_id: 1}"),
        ),
        (doc! {"_id": 1}, bson!({"$push": {"a": {"$each": 1}}}), Fail(2, "The argument to $each in $push must be an array but it was of type: int")),
        // `$each` as a field name of $push creates a top-level `$`-prefixed field: refused.
        (
            doc! {"_id": 1, "skill": ["css"]},
            bson!({"$push": {"$each": ["nodejs", "java"]}}),
            Fail(52, "The dollar ($) prefixed field '$each' in '$each' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith."),
        ),
        (doc! {"_id": 1}, bson!({"$push": {"a": {"$each": [], "$foo": 1}}}), Fail(2, "Unrecognized clause in $push: $foo")),
        (doc! {"_id": 1}, bson!({"$push": {"a": {"$each": [], "$slice": 1.5}}}), Fail(2, "The value for $slice must be an integer value but was given type: double")),
        (doc! {"_id": 1}, bson!({"$push": {"a": {"$each": [], "$slice": "x"}}}), Fail(2, "The value for $slice must be an integer value but was given type: string")),
        (doc! {"_id": 1}, bson!({"$push": {"a": {"$each": [], "$position": "x"}}}), Fail(2, "The value for $position must be an integer value, not of type: string")),
        (doc! {"_id": 1}, bson!({"$push": {"a": {"$each": [], "$sort": 2}}}), Fail(2, "The $sort element value must be either 1 or -1")),
        (doc! {"_id": 1}, bson!({"$push": {"a": {"$each": [], "$sort": {}}}}), Fail(2, "The sort pattern is empty when it should be a set of fields.")),
        (doc! {"_id": 1}, bson!({"$push": {"a": {"$each": [], "$sort": {"b": 0}}}}), Fail(2, "The sort element value must be either 1 or -1")),
        (doc! {"_id": 1}, bson!({"$push": {"a": {"$each": [], "$sort": {"b..c": 1}}}}), Fail(2, "The sort field is a dotted field but has an empty part: b..c")),
        (
            doc! {"_id": 1},
            bson!({"$push": {"a": {"$each": [], "$sort": "x"}}}),
            Fail(2, "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields"),
        ),
    ]);
}

#[test]
fn add_to_set() {
    check(vec![
        (doc! {"_id": 1, "letters": ["a", "b"]}, bson!({"$addToSet": {"letters": ["c", "d"]}}), Doc(doc! {"_id": 1, "letters": ["a", "b", ["c", "d"]]})),
        (doc! {"_id": 1, "item": "polarizing_filter", "tags": ["electronics", "camera"]}, bson!({"$addToSet": {"tags": "accessories"}}), Doc(doc! {"_id": 1, "item": "polarizing_filter", "tags": ["electronics", "camera", "accessories"]})),
        (doc! {"_id": 1, "tags": ["electronics", "camera", "accessories"]}, bson!({"$addToSet": {"tags": "camera"}}), NoOp),
        (
            doc! {"_id": 2, "item": "cable", "tags": ["electronics", "supplies"]},
            bson!({"$addToSet": {"tags": {"$each": ["camera", "electronics", "accessories"]}}}),
            Doc(doc! {"_id": 2, "item": "cable", "tags": ["electronics", "supplies", "camera", "accessories"]}),
        ),
        // A missing field becomes an array of the values (duplicates among them dropped).
        (doc! {"_id": 1}, bson!({"$addToSet": {"colors": {"$each": ["red", "red", "blue"]}}}), Doc(doc! {"_id": 1, "colors": ["red", "blue"]})),
        // Equality is the server's: numbers across types; documents field by field, in order.
        (doc! {"_id": 1, "a": [1]}, bson!({"$addToSet": {"a": 1.0}}), NoOp),
        (doc! {"_id": 1, "a": [{"x": 1, "y": 2}]}, bson!({"$addToSet": {"a": {"x": 1, "y": 2}}}), NoOp),
        (doc! {"_id": 1, "a": [{"x": 1, "y": 2}]}, bson!({"$addToSet": {"a": {"y": 2, "x": 1}}}), Doc(doc! {"_id": 1, "a": [{"x": 1, "y": 2}, {"y": 2, "x": 1}]})),
        // Existing duplicates are left alone.
        (doc! {"_id": 1, "a": [1, 1]}, bson!({"$addToSet": {"a": 2}}), Doc(doc! {"_id": 1, "a": [1, 1, 2]})),
        // A document whose first field is not $each is a value.
        (doc! {"_id": 1, "a": []}, bson!({"$addToSet": {"a": {"b": 1, "$each": [2]}}}), Doc(doc! {"_id": 1, "a": [{"b": 1, "$each": [2]}]})),
        (
            doc! {"_id": 1, "a": "x"},
            bson!({"$addToSet": {"a": 1}}),
            Fail(2, "Cannot apply $addToSet to non-array field. Field named 'a' has non-array type string"),
        ),
        (doc! {"_id": 1}, bson!({"$addToSet": {"a": {"$each": 1}}}), Fail(14, "The argument to $each in $addToSet must be an array but it was of type int")),
        (
            doc! {"_id": 1},
            bson!({"$addToSet": {"a": {"$each": [1], "$slice": 1}}}),
            Fail(2, "Found unexpected fields after $each in $addToSet: { $each: [ 1 ], $slice: 1 }"),
        ),
    ]);
}

#[test]
fn pop() {
    check(vec![
        (doc! {"_id": 1, "scores": [8, 9, 10]}, bson!({"$pop": {"scores": -1}}), Doc(doc! {"_id": 1, "scores": [9, 10]})),
        (doc! {"_id": 1, "scores": [9, 10]}, bson!({"$pop": {"scores": 1}}), Doc(doc! {"_id": 1, "scores": [9]})),
        // Removing the last element leaves an empty array; an empty array or missing field is a no-op.
        (doc! {"_id": 1, "a": [1]}, bson!({"$pop": {"a": 1.0}}), Doc(doc! {"_id": 1, "a": []})),
        (doc! {"_id": 1, "a": []}, bson!({"$pop": {"a": 1}}), NoOp),
        (doc! {"_id": 1}, bson!({"$pop": {"a": 1}}), NoOp),
        (doc! {"_id": 1, "a": {}}, bson!({"$pop": {"a.b.c": 1}}), NoOp),
        (doc! {"_id": 1, "a": [{"b": [1, 2]}]}, bson!({"$pop": {"a.0.b": 1}}), Doc(doc! {"_id": 1, "a": [{"b": [1]}]})),
        (doc! {"_id": 1, "a": [1]}, bson!({"$pop": {"a.3.b": 1}}), NoOp),
        (doc! {"_id": 1, "a": 5}, bson!({"$pop": {"a": 1}}), Fail(14, "Path 'a' contains an element of non-array type 'int'")),
        (doc! {"_id": 1, "a": 5}, bson!({"$pop": {"a.b": 1}}), Fail(28, "Cannot use the part (b) of (a.b) to traverse the element ({a: 5})")),
        (doc! {"_id": 1, "a": [1]}, bson!({"$pop": {"a": 2}}), Fail(9, "$pop expects 1 or -1, found: 2")),
        (doc! {"_id": 1, "a": [1]}, bson!({"$pop": {"a": "x"}}), Fail(9, "Expected a number in: a: \"x\"")),
        (doc! {"_id": 1, "a": [1]}, bson!({"$pop": {"a": 1.5}}), Fail(9, "Expected an integer: a: 1.5")),
    ]);
}

#[test]
fn pull_by_value_and_pull_all() {
    check(vec![
        (doc! {"_id": 1, "vegetables": ["carrots", "celery", "squash", "carrots"]}, bson!({"$pull": {"vegetables": "carrots"}}), Doc(doc! {"_id": 1, "vegetables": ["celery", "squash"]})),
        // An array value removes only elements equal to it exactly, order included.
        (doc! {"_id": 1, "a": [[1, 2], [2, 1], 1]}, bson!({"$pull": {"a": [1, 2]}}), Doc(doc! {"_id": 1, "a": [[2, 1], 1]})),
        // Numbers equal across types.
        (doc! {"_id": 1, "a": [1, 1.0, 2i64]}, bson!({"$pull": {"a": 1i64}}), Doc(doc! {"_id": 1, "a": [2i64]})),
        (doc! {"_id": 1, "a": [1]}, bson!({"$pull": {"a": 2}}), NoOp),
        (doc! {"_id": 1}, bson!({"$pull": {"a": 2}}), NoOp),
        (doc! {"_id": 1, "a": 5}, bson!({"$pull": {"a": 1}}), Fail(2, "Cannot apply $pull to a non-array value")),
        (doc! {"_id": 1, "a": 5}, bson!({"$pull": {"a.b": 1}}), Fail(28, "Cannot use the part (b) of (a.b) to traverse the element ({a: 5})")),
        (doc! {"_id": 1, "scores": [0, 2, 5, 5, 1, 0]}, bson!({"$pullAll": {"scores": [0, 5]}}), Doc(doc! {"_id": 1, "scores": [2, 1]})),
        (doc! {"_id": 1, "a": [{"x": 1}, {"x": 1, "y": 2}]}, bson!({"$pullAll": {"a": [{"x": 1}]}}), Doc(doc! {"_id": 1, "a": [{"x": 1, "y": 2}]})),
        (doc! {"_id": 1, "a": [1]}, bson!({"$pullAll": {"a": []}}), NoOp),
        (doc! {"_id": 1, "a": "x"}, bson!({"$pullAll": {"a": [1]}}), Fail(2, "Cannot apply $pull to a non-array value")),
        (doc! {"_id": 1, "a": [1]}, bson!({"$pullAll": {"a": 1}}), Fail(2, "$pullAll requires an array argument but was given a int")),
    ]);
}

#[test]
fn bit() {
    check(vec![
        (doc! {"_id": 1, "expdata": 13}, bson!({"$bit": {"expdata": {"and": 10}}}), Doc(doc! {"_id": 1, "expdata": 8})),
        (doc! {"_id": 2, "expdata": 3}, bson!({"$bit": {"expdata": {"or": 5}}}), Doc(doc! {"_id": 2, "expdata": 7})),
        (doc! {"_id": 3, "expdata": 1}, bson!({"$bit": {"expdata": {"xor": 5}}}), Doc(doc! {"_id": 3, "expdata": 4})),
        // int with a long operand widens to long; several operations apply in order.
        (doc! {"_id": 1, "a": 3}, bson!({"$bit": {"a": {"or": 4i64}}}), Doc(doc! {"_id": 1, "a": 7i64})),
        (doc! {"_id": 1, "a": 12i64}, bson!({"$bit": {"a": {"and": 6, "xor": 1}}}), Doc(doc! {"_id": 1, "a": 5i64})),
        (doc! {"_id": 1, "a": 12}, bson!({"$bit": {"a": {"and": 12}}}), NoOp),
        // A missing field starts from zero.
        (doc! {"_id": 1}, bson!({"$bit": {"a": {"or": 5}}}), Doc(doc! {"_id": 1, "a": 5})),
        (
            doc! {"_id": 1, "a": 1.0},
            bson!({"$bit": {"a": {"and": 1}}}),
            Fail(2, "Cannot apply $bit to a value of non-integral type._id: 1 has the field a of non-integer type double"),
        ),
        (
            doc! {"_id": 1},
            bson!({"$bit": {"a": {"nand": 1}}}),
            Fail(2, "The $bit modifier only supports 'and', 'or', and 'xor', not 'nand' which is an unknown operator: {nand: 1}"),
        ),
        (
            doc! {"_id": 1},
            bson!({"$bit": {"a": {"and": 1.0}}}),
            Fail(2, "The $bit modifier field must be an Integer(32/64 bit); a 'double' is not supported here: {and: 1.0}"),
        ),
        (
            doc! {"_id": 1},
            bson!({"$bit": {"a": {}}}),
            Fail(2, "You must pass in at least one bitwise operation. The format is: {$bit: {field: {and/or/xor: #}}"),
        ),
        (
            doc! {"_id": 1},
            bson!({"$bit": {"a": 5}}),
            Fail(2, "The $bit modifier is not compatible with a int. You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}"),
        ),
    ]);
}

#[test]
fn positional_operator() {
    positional(
        0,
        vec![
            (doc! {"_id": 1, "grades": [85, 80, 80]}, bson!({"$set": {"grades.$": 82}}), Doc(doc! {"_id": 1, "grades": [82, 80, 80]})),
            (
                doc! {"_id": 4, "grades": [{"grade": 80, "mean": 75, "std": 8}, {"grade": 85, "mean": 90, "std": 5}]},
                bson!({"$set": {"grades.$.std": 6}}),
                Doc(doc! {"_id": 4, "grades": [{"grade": 80, "mean": 75, "std": 6}, {"grade": 85, "mean": 90, "std": 5}]}),
            ),
            (doc! {"_id": 1, "a": [{"b": 1}]}, bson!({"$inc": {"a.$.b": 1, "a.$.c": 1}}), Doc(doc! {"_id": 1, "a": [{"b": 2, "c": 1}]})),
            // The positional element merged with an explicit path to the same element.
            (doc! {"_id": 1, "a": [{"b": 1}]}, bson!({"$set": {"a.$.b": 5, "a.0.c": 6}}), Doc(doc! {"_id": 1, "a": [{"b": 5, "c": 6}]})),
            (doc! {"_id": 1, "a": [1]}, bson!({"$set": {"a.$": 5, "a.0": 6}}), Fail(40, "Update created a conflict at 'a.0'")),
        ],
    );
    check(vec![(
        doc! {"_id": 1, "grades": [85, 80]},
        bson!({"$set": {"grades.$": 82}}),
        Fail(2, "The positional operator did not find the match needed from the query."),
    )]);
}

#[test]
fn all_positional_operator() {
    check(vec![
        (doc! {"_id": 1, "grades": [85, 82, 80]}, bson!({"$inc": {"grades.$[]": 10}}), Doc(doc! {"_id": 1, "grades": [95, 92, 90]})),
        (
            doc! {"_id": 1, "grades": [{"grade": 80, "mean": 75, "std": 8}, {"grade": 85, "mean": 90, "std": 6}]},
            bson!({"$inc": {"grades.$[].std": -2}}),
            Doc(doc! {"_id": 1, "grades": [{"grade": 80, "mean": 75, "std": 6}, {"grade": 85, "mean": 90, "std": 4}]}),
        ),
        // Nested arrays.
        (doc! {"_id": 1, "a": [[1, 2], [3]]}, bson!({"$inc": {"a.$[].$[]": 1}}), Doc(doc! {"_id": 1, "a": [[2, 3], [4]]})),
        (doc! {"_id": 1, "a": []}, bson!({"$set": {"a.$[].b": 1}}), NoOp),
        (doc! {"_id": 1, "a": [1, {"b": 1}]}, bson!({"$set": {"a.$[].b": 2}}), Fail(28, "Cannot create field 'b' in element {0: 1}")),
        (doc! {"_id": 1}, bson!({"$set": {"a.$[]": 1}}), Fail(2, "The path 'a' must exist in the document in order to apply array updates.")),
        (doc! {"_id": 1, "a": "abc"}, bson!({"$set": {"a.$[]": 1}}), Fail(2, "Cannot apply array updates to non-array element a: \"abc\"")),
        (doc! {"_id": 1, "a": [1]}, bson!({"$set": {"a.$[]": 2, "a.0": 3}}), Fail(40, "Updating the path 'a.0' would create a conflict at 'a'")),
    ]);
    // When an upsert inserts, the array must come from the query's equality.
    upsert(vec![(doc! {"_id": 1}, bson!({"$set": {"grades.$[]": 1}}), Fail(2, "The path 'grades' must exist in the document in order to apply array updates."))]);
}

#[test]
fn array_filter_parsing() {
    let run = |filters: Vec<Document>, update: Bson| {
        Update::parse(&update, Some(&filters)).err().map(|e| (e.code_num(), e.message)).unwrap_or_default()
    };
    assert_eq!(
        run(vec![doc! {"x": {"$gt": 1}}], bson!({"$set": {"a.$[y]": 1}})),
        (2, "No array filter found for identifier 'y' in path 'a.$[y]'".to_string())
    );
    assert_eq!(
        run(vec![doc! {"x": 1}, doc! {"y": 2}], bson!({"$set": {"a.$[x]": 1}})),
        (9, "The array filter for identifier 'y' was not used in the update { $set: { a.$[x]: 1 } }".to_string())
    );
    assert_eq!(
        run(vec![doc! {"X": 1}], bson!({"$set": {"a.$[X]": 1}})),
        (
            2,
            "Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found 'X'"
                .to_string()
        )
    );
    assert_eq!(
        run(vec![doc! {"a": 1, "b": 1}], bson!({"$set": {"x.$[a]": 1}})),
        (9, "Error parsing array filter :: caused by :: Expected a single top-level field name, found 'a' and 'b'".to_string())
    );
    assert_eq!(
        run(vec![doc! {"e": 1}, doc! {"e.x": 2}], bson!({"$set": {"x.$[e]": 1}})),
        (9, "Found multiple array filters with the same top-level field name e".to_string())
    );
    assert_eq!(
        run(vec![doc! {}], bson!({"$set": {"x.$[e]": 1}})),
        (9, "Cannot use an expression without a top-level field name in arrayFilters".to_string())
    );
    assert_eq!(
        run(vec![doc! {"e": 1}], bson!([{"$set": {"a": 1}}])),
        (9, "arrayFilters may not be specified for pipeline-style updates".to_string())
    );
    // Identifiers inside $and / $or, and one filter used by two paths.
    assert_eq!(run(vec![doc! {"$or": [{"e.a": 1}, {"e.b": 2}]}], bson!({"$set": {"x.$[e].c": 1, "y.$[e]": 2}})), (0, String::new()));
}

#[test]
fn replacement() {
    check(vec![
        // The _id is kept in its place when the replacement has none.
        (doc! {"_id": 1, "a": 1, "b": 2}, bson!({"c": 3}), Doc(doc! {"_id": 1, "c": 3})),
        (doc! {"_id": 1, "a": 1}, bson!({"a": 2, "_id": 1}), Doc(doc! {"a": 2, "_id": 1})),
        (doc! {"_id": 1, "a": 1}, bson!({"_id": 1, "a": 1}), NoOp),
        // An empty document is a replacement too.
        (doc! {"_id": 1, "a": 1}, bson!({}), Doc(doc! {"_id": 1})),
        (
            doc! {"_id": 1, "a": 1},
            bson!({"_id": 2}),
            Fail(66, "After applying the update, the (immutable) field '_id' was found to have been altered to _id: 2"),
        ),
        (
            doc! {"_id": 1},
            bson!({"a": 1, "$set": {"b": 1}}),
            Fail(52, "The dollar ($) prefixed field '$set' in '$set' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith."),
        ),
        (doc! {"_id": 1}, bson!({"a": {"$b": 1}, "c.d": 1}), Doc(doc! {"_id": 1, "a": {"$b": 1}, "c.d": 1})),
        // Zero timestamps at the top become the current time.
        (doc! {"_id": 1}, bson!({"t": Timestamp { time: 0, increment: 0 }}), Doc(doc! {"_id": 1, "t": Timestamp { time: (NOW_MS / 1000) as u32, increment: 1 }})),
    ]);
    let err = |d: Document| validate_replacement(&d).err().map(|e| (e.code_num(), e.message)).unwrap_or_default();
    assert_eq!(err(doc! {"a": 1, "b": {"$c": 1}}), (0, String::new()));
    assert_eq!(err(doc! {"_id": [1]}), (53, "The '_id' value cannot be of type array".to_string()));
    assert_eq!(
        err(doc! {"_id": {"$a": 1}}),
        (52, "_id fields may not contain '$'-prefixed fields: $a is not valid for storage.".to_string())
    );
    assert_eq!(
        err(doc! {"$inc": {"a": 1}}),
        (
            52,
            "The dollar ($) prefixed field '$inc' in '$inc' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith."
                .to_string()
        )
    );
    assert_eq!(err(doc! {"x": {"$ref": "c", "$id": 1}}), (0, String::new()));
}

#[test]
fn pipeline_stage_errors() {
    check(vec![
        (doc! {"_id": 1}, bson!([{"$match": {"a": 1}}]), Fail(72, "$match is not allowed to be used within an update")),
        (doc! {"_id": 1}, bson!([{"$group": {"_id": null}}]), Fail(72, "$group is not allowed to be used within an update")),
        (doc! {"_id": 1}, bson!([{"$foo": {}}]), Fail(40324, "Unrecognized pipeline stage name: '$foo'")),
        (doc! {"_id": 1}, bson!([1]), Fail(14, "Each element of the 'pipeline' array must be an object")),
        (doc! {"_id": 1}, bson!([{"$set": {"a": 1}, "$unset": "b"}]), Fail(40323, "A pipeline stage specification object must contain exactly one field.")),
        (doc! {"_id": 1}, bson!([{"$set": 1}]), Fail(40272, "$set specification stage must be an object, got int")),
        (doc! {"_id": 1}, bson!([{"$unset": 1}]), Fail(31002, "$unset specification must be a string or an array")),
        (doc! {"_id": 1}, bson!([{"$unset": []}]), Fail(31119, "$unset specification must be a string or an array with at least one field")),
        (doc! {"_id": 1}, bson!([{"$unset": ["a", 1]}]), Fail(31120, "$unset specification must be a string or an array containing only string values")),
        (
            doc! {"_id": 1},
            bson!([{"$project": {"a": 1, "b": 0}}]),
            Fail(31254, "Invalid $project :: caused by :: Cannot do exclusion on field b in inclusion projection"),
        ),
        // $unset needs no expression: it runs without the expression engine.
        (doc! {"_id": 1, "a": 1, "b": {"c": 1, "d": 2}, "e": [{"c": 1}, 2]}, bson!([{"$unset": ["a", "b.c", "e.c"]}]), Doc(doc! {"_id": 1, "b": {"d": 2}, "e": [{}, 2]})),
        (doc! {"_id": 1, "a": 1}, bson!([{"$unset": "b"}]), NoOp),
        (doc! {"_id": 1, "a": 1, "b": 2}, bson!([{"$project": {"a": 0}}]), Doc(doc! {"_id": 1, "b": 2})),
        (
            doc! {"_id": 1, "a": 1, "b": {"c": 1, "d": 2}, "x": 3},
            bson!([{"$project": {"b.d": 1, "a": true}}]),
            Doc(doc! {"_id": 1, "a": 1, "b": {"d": 2}}),
        ),
        // The pipeline's result keeps the _id even when a stage drops it (and, as the result
        // differed from the original, the server counts it as a modification).
        (doc! {"_id": 1, "a": 1}, bson!([{"$project": {"_id": 0, "a": 1}}]), Doc(doc! {"_id": 1, "a": 1})),
    ]);
}

#[test]
fn document_size_limit() {
    let big = "x".repeat(9 * 1024 * 1024);
    check(vec![(
        doc! {"_id": 1, "a": big.clone()},
        bson!({"$set": {"b": big}}),
        Fail(17419, "Resulting document after update is larger than 16777216"),
    )]);
}

#[test]
fn changed_paths_and_no_ops_are_reported() {
    let u = Update::parse(&bson!({"$set": {"items.1.price": 5, "n": 1}, "$push": {"log": "x"}}), None).unwrap();
    let a = u.apply(&doc! {"_id": 1, "items": [{"price": 1}, {"price": 2}], "n": 1}, None, false, &env()).unwrap();
    assert!(a.modified);
    assert_eq!(a.changed_paths, vec!["items.1.price".to_string(), "log".to_string()]);
    let r = Update::parse(&bson!({"a": 1, "c": {"d": 2}}), None).unwrap();
    let a = r.apply(&doc! {"_id": 1, "a": 1, "b": 2, "c": {"d": 1}}, None, false, &env()).unwrap();
    assert_eq!(a.changed_paths, vec!["b".to_string(), "c.d".to_string()]);
    assert!(Update::parse(&bson!({"$set": {"a.$": 1}}), None).unwrap().is_positional());
    assert!(!Update::parse(&bson!({"$set": {"a.$[]": 1}}), None).unwrap().is_positional());
}

#[test]
fn the_original_document_is_never_touched_by_a_failed_update() {
    let doc = doc! {"_id": 1, "a": [1, 2], "b": "x"};
    let u = Update::parse(&bson!({"$push": {"a": 3}, "$inc": {"b": 1}}), None).unwrap();
    assert!(u.apply(&doc, None, false, &env()).is_err());
    assert_eq!(shown(&doc), shown(&doc! {"_id": 1, "a": [1, 2], "b": "x"}));
}

#[test]
fn rendering_in_messages() {
    assert_eq!(display::document(&doc! {"_id": 1, "a": [1, 2.0, "s"], "b": {}}), r#"{ _id: 1, a: [ 1, 2.0, "s" ], b: {} }"#);
    assert_eq!(display::element("_id", &bson!({"a": null, "b": true})), "_id: { a: null, b: true }");
    assert_eq!(display::value(&Bson::DateTime(DateTime::from_millis(5))), "new Date(5)");
    assert_eq!(display::value(&Bson::Timestamp(Timestamp { time: 3, increment: 4 })), "Timestamp(3, 4)");
    assert_eq!(display::value(&Bson::Decimal128("1.50".parse().unwrap())), "1.50");
    assert_eq!(display::value(&bson!("say \"hi\"")), "\"say \"hi\"\"");
    let uuid = bson::Binary { subtype: bson::spec::BinarySubtype::Uuid, bytes: (0u8..16).collect() };
    assert_eq!(display::value(&Bson::Binary(uuid)), "UUID(\"00010203-0405-0607-0809-0a0b0c0d0e0f\")");
    let bin = bson::Binary { subtype: bson::spec::BinarySubtype::Generic, bytes: vec![0xab, 1] };
    assert_eq!(display::value(&Bson::Binary(bin)), "BinData(0, AB01)");
    assert_eq!(display::value(&Bson::ObjectId(bson::oid::ObjectId::from_bytes([0xab; 12]))), "ObjectId('abababababababababababab')");
    assert_eq!(display::value(&bson!(1e20)), "1e+20.0");
    assert_eq!(display::value(&bson!("x".repeat(200))), format!("\"{}...\"", "x".repeat(150)));
}

#[test]
fn pipeline_updates() {
    check(vec![
        // $set / $addFields: expressions see the stage's input document; fields keep their place.
        (
            doc! {"_id": 1, "student": "Skye", "points": 75, "commentsSemester1": "great at math", "commentsSemester2": "loses temper"},
            bson!([{"$set": {"status": "Modified", "comments": ["$commentsSemester1", "$commentsSemester2"]}}, {"$unset": ["commentsSemester1", "commentsSemester2"]}]),
            Doc(doc! {"_id": 1, "student": "Skye", "points": 75, "status": "Modified", "comments": ["great at math", "loses temper"]}),
        ),
        (doc! {"_id": 1, "a": 1, "b": 2}, bson!([{"$addFields": {"a": {"$add": ["$a", "$b"]}}}]), Doc(doc! {"_id": 1, "a": 3, "b": 2})),
        (doc! {"_id": 1, "a": 1}, bson!([{"$set": {"b": "$a"}}, {"$set": {"c": "$b"}}]), Doc(doc! {"_id": 1, "a": 1, "b": 1, "c": 1})),
        // $$REMOVE removes; a literal string starting with $ needs $literal.
        (doc! {"_id": 1, "a": 1, "b": 2}, bson!([{"$set": {"a": "$$REMOVE"}}]), Doc(doc! {"_id": 1, "b": 2})),
        (doc! {"_id": 1}, bson!([{"$set": {"cost": {"$literal": "$27"}}}]), Doc(doc! {"_id": 1, "cost": "$27"})),
        // Dotted and nested specs add into embedded documents, and into each element of an array.
        (doc! {"_id": 1, "a": {"x": 1}}, bson!([{"$set": {"a.y": 2}}]), Doc(doc! {"_id": 1, "a": {"x": 1, "y": 2}})),
        (doc! {"_id": 1, "a": {"x": 1}}, bson!([{"$set": {"a": {"y": 2}}}]), Doc(doc! {"_id": 1, "a": {"x": 1, "y": 2}})),
        (doc! {"_id": 1, "a": [{"x": 1}, 5]}, bson!([{"$set": {"a.y": 2}}]), Doc(doc! {"_id": 1, "a": [{"x": 1, "y": 2}, {"y": 2}]})),
        // $$NOW is the operation's time.
        (doc! {"_id": 1}, bson!([{"$set": {"t": "$$NOW"}}]), Doc(doc! {"_id": 1, "t": DateTime::from_millis(NOW_MS)})),
        // $replaceRoot / $replaceWith: the old _id stays when the new root has none.
        (
            doc! {"_id": 1, "name": {"first": "John", "last": "Backus"}},
            bson!([{"$replaceRoot": {"newRoot": "$name"}}]),
            Doc(doc! {"_id": 1, "first": "John", "last": "Backus"}),
        ),
        (
            doc! {"_id": 1, "a": {"b": 1}},
            bson!([{"$replaceWith": {"$mergeObjects": [{"_id": "$_id", "c": 0}, "$a"]}}]),
            Doc(doc! {"_id": 1, "c": 0, "b": 1}),
        ),
        (
            doc! {"_id": 1, "a": 1},
            bson!([{"$replaceWith": "$a"}]),
            Fail(40228, "'replacement document' must evaluate to an object, but resulting value was: 1. Type of resulting value: 'int'. Input document: {_id: 1, a: 1}"),
        ),
        (
            doc! {"_id": 1, "a": 1},
            bson!([{"$replaceRoot": {"newRoot": "$missing"}}]),
            Fail(40228, "'newRoot' expression must evaluate to an object, but resulting value was: MISSING. Type of resulting value: 'missing'. Input document: {_id: 1, a: 1}"),
        ),
        (
            doc! {"_id": 1, "a": {"_id": 2}},
            bson!([{"$replaceWith": "$a"}]),
            Fail(66, "After applying the update, the (immutable) field '_id' was found to have been altered to _id: 2"),
        ),
        // Top-level $-prefixed names may be written by a pipeline ($setField).
        (
            doc! {"_id": 1},
            bson!([{"$replaceWith": {"$setField": {"field": {"$literal": "$a"}, "value": 1, "input": "$$ROOT"}}}]),
            Doc(doc! {"_id": 1, "$a": 1}),
        ),
        // $project with computed fields.
        (
            doc! {"_id": 1, "a": 2, "b": 3},
            bson!([{"$project": {"a": 1, "sum": {"$add": ["$a", "$b"]}}}]),
            Doc(doc! {"_id": 1, "a": 2, "sum": 5}),
        ),
        // Setting a field to the value it has is a no-op.
        (doc! {"_id": 1, "a": 1}, bson!([{"$set": {"a": 1}}]), NoOp),
        (doc! {"_id": 1, "a": 1}, bson!([{"$set": {"a": {"$add": [1, 0.0]}}}]), Doc(doc! {"_id": 1, "a": 1.0})),
    ]);
}

#[test]
fn pull_by_condition() {
    check(vec![
        // Several conditions, $in, and a plain value.
        (
            doc! {"_id": 1, "fruits": ["apples", "pears", "oranges", "grapes", "bananas"], "vegetables": ["carrots", "celery", "squash", "carrots"]},
            bson!({"$pull": {"fruits": {"$in": ["apples", "oranges"]}, "vegetables": "carrots"}}),
            Doc(doc! {"_id": 1, "fruits": ["pears", "grapes", "bananas"], "vegetables": ["celery", "squash"]}),
        ),
        // An operator condition is matched against each element.
        (doc! {"_id": 1, "votes": [3, 5, 6, 7, 7, 8]}, bson!({"$pull": {"votes": {"$gte": 6}}}), Doc(doc! {"_id": 1, "votes": [3, 5]})),
        (doc! {"_id": 1, "a": ["apple", "banana", "avocado"]}, bson!({"$pull": {"a": Bson::RegularExpression(bson::Regex { pattern: "^a".try_into().unwrap(), options: "".try_into().unwrap() })}}), Doc(doc! {"_id": 1, "a": ["banana"]})),
        (doc! {"_id": 1, "a": [1, "x", 2]}, bson!({"$pull": {"a": {"$type": "string"}}}), Doc(doc! {"_id": 1, "a": [1, 2]})),
        // A document condition is a query over the document elements: field order does not
        // matter and extra fields are allowed.
        (
            doc! {"_id": 1, "results": [{"item": "A", "score": 5}, {"item": "C", "score": 8, "comment": "Strongly agree"}]},
            bson!({"$pull": {"results": {"score": 8, "item": "C"}}}),
            Doc(doc! {"_id": 1, "results": [{"item": "A", "score": 5}]}),
        ),
        (
            doc! {"_id": 1, "results": [{"item": "A", "score": 5}, {"item": "B", "score": 8}, 8]},
            bson!({"$pull": {"results": {"score": {"$gte": 6}}}}),
            Doc(doc! {"_id": 1, "results": [{"item": "A", "score": 5}, 8]}),
        ),
        // Documents in nested arrays, with $elemMatch.
        (
            doc! {"_id": 1, "results": [
                {"item": "A", "score": 5, "answers": [{"q": 1, "a": 4}, {"q": 2, "a": 6}]},
                {"item": "B", "score": 8, "answers": [{"q": 1, "a": 8}, {"q": 2, "a": 9}]},
            ]},
            bson!({"$pull": {"results": {"answers": {"$elemMatch": {"q": 2, "a": {"$gte": 8}}}}}}),
            Doc(doc! {"_id": 1, "results": [{"item": "A", "score": 5, "answers": [{"q": 1, "a": 4}, {"q": 2, "a": 6}]}]}),
        ),
        // An empty condition document removes every document element.
        (doc! {"_id": 1, "a": [{"x": 1}, 2, {}]}, bson!({"$pull": {"a": {}}}), Doc(doc! {"_id": 1, "a": [2]})),
        (doc! {"_id": 1, "a": [1, 2]}, bson!({"$pull": {"a": {"$gt": 5}}}), NoOp),
    ]);
}

fn with_filters(filters: Vec<Document>, cases: Vec<(Document, Bson, Want)>) {
    check_all(cases, Opts { filters: Some(filters), ..Opts::default() })
}

#[test]
fn filtered_positional_operator() {
    with_filters(
        vec![doc! {"element": {"$gte": 100}}],
        vec![
            (doc! {"_id": 1, "grades": [95, 92, 90]}, bson!({"$set": {"grades.$[element]": 100}}), NoOp),
            (doc! {"_id": 2, "grades": [98, 100, 102]}, bson!({"$set": {"grades.$[element]": 100}}), Doc(doc! {"_id": 2, "grades": [98, 100, 100]})),
            (doc! {"_id": 3, "grades": [95, 110, 100]}, bson!({"$set": {"grades.$[element]": 100}}), Doc(doc! {"_id": 3, "grades": [95, 100, 100]})),
        ],
    );
    with_filters(
        vec![doc! {"elem.grade": {"$gte": 85}}],
        vec![(
            doc! {"_id": 1, "grades": [{"grade": 80, "mean": 75, "std": 6}, {"grade": 85, "mean": 90, "std": 4}, {"grade": 85, "mean": 85, "std": 6}]},
            bson!({"$set": {"grades.$[elem].mean": 100}}),
            Doc(doc! {"_id": 1, "grades": [{"grade": 80, "mean": 75, "std": 6}, {"grade": 85, "mean": 100, "std": 4}, {"grade": 85, "mean": 100, "std": 6}]}),
        )],
    );
    // Several conditions on the identifier.
    with_filters(
        vec![doc! {"elem.grade": {"$gte": 80}, "elem.std": {"$gt": 5}}],
        vec![(
            doc! {"_id": 1, "grades": [{"grade": 80, "std": 6}, {"grade": 85, "std": 4}, {"grade": 85, "std": 6}]},
            bson!({"$inc": {"grades.$[elem].std": -1}}),
            Doc(doc! {"_id": 1, "grades": [{"grade": 80, "std": 5}, {"grade": 85, "std": 4}, {"grade": 85, "std": 5}]}),
        )],
    );
    // $unset through a filter sets the elements to null.
    with_filters(
        vec![doc! {"e": {"$lt": 2}}],
        vec![(doc! {"_id": 1, "a": [1, 2, 0]}, bson!({"$unset": {"a.$[e]": ""}}), Doc(doc! {"_id": 1, "a": [null, 2, null]}))],
    );
    // Nested arrays with $[] and $[<id>] together.
    with_filters(
        vec![doc! {"score": {"$gte": 8}}],
        vec![(
            doc! {"_id": 1, "grades": [{"type": "quiz", "questions": [10, 8, 5]}, {"type": "quiz", "questions": [8, 9, 6]}]},
            bson!({"$inc": {"grades.$[].questions.$[score]": 2}}),
            Doc(doc! {"_id": 1, "grades": [{"type": "quiz", "questions": [12, 10, 5]}, {"type": "quiz", "questions": [10, 11, 6]}]}),
        )],
    );
    // Two filters matching the same element are merged; writing the same path twice conflicts.
    with_filters(
        vec![doc! {"i.x": {"$gte": 0}}, doc! {"j.x": {"$lte": 0}}],
        vec![
            (doc! {"_id": 1, "a": [{"x": 0}, {"x": 1}]}, bson!({"$set": {"a.$[i].y": 1, "a.$[j].z": 2}}), Doc(doc! {"_id": 1, "a": [{"x": 0, "y": 1, "z": 2}, {"x": 1, "y": 1}]})),
            (doc! {"_id": 1, "a": [{"x": 0}]}, bson!({"$set": {"a.$[i].b": 1, "a.$[j].b": 2}}), Fail(40, "Update created a conflict at 'a.0.b'")),
        ],
    );
    with_filters(
        vec![doc! {"i": {"$gte": 0}}, doc! {"j": {"$lte": 0}}],
        vec![(doc! {"_id": 1, "a": [0]}, bson!({"$set": {"a.$[i]": 1, "a.$[j]": 2}}), Fail(40, "Update created a conflict at 'a.0'"))],
    );
}

#[test]
fn nesting_depth_limit() {
    let nested = |levels: usize| (0..levels).fold(Bson::Int32(1), |inner, _| Bson::Document(doc! {"x": inner}));
    // A top-level field is at depth 1; the limit for stored documents is 180.
    check(vec![
        (doc! {"_id": 1}, bson!({"$set": {"a": nested(179)}}), Doc(doc! {"_id": 1, "a": nested(179)})),
        (doc! {"_id": 1}, bson!({"$set": {"a": nested(180)}}), Fail(15, "Document exceeds maximum nesting depth of 180")),
        (doc! {"_id": 1, "b": {}}, bson!({"$set": {"b.c": nested(179)}}), Fail(15, "Document exceeds maximum nesting depth of 180")),
        // Only appended elements are checked, but they are checked.
        (doc! {"_id": 1, "a": [1]}, bson!({"$push": {"a": nested(178)}}), Doc(doc! {"_id": 1, "a": [1, nested(178)]})),
        (doc! {"_id": 1, "a": [1]}, bson!({"$push": {"a": nested(179)}}), Fail(15, "Document exceeds maximum nesting depth of 180")),
        (doc! {"_id": 1, "a": [1]}, bson!({"$addToSet": {"a": {"$each": [2, nested(179)]}}}), Fail(15, "Document exceeds maximum nesting depth of 180")),
    ]);
}

#[test]
fn filtered_positional_with_negation_and_upsert() {
    // A negation in the filter (the manual's "degrees" example).
    with_filters(
        vec![doc! {"elem.type": {"$ne": "Bachelor"}}],
        vec![(
            doc! {"_id": 1, "degrees": [{"level": 1, "type": "Bachelor"}, {"level": 2, "type": "Master"}]},
            bson!({"$set": {"degrees.$[elem].gradcampaign": 1}}),
            Doc(doc! {"_id": 1, "degrees": [{"level": 1, "type": "Bachelor"}, {"level": 2, "type": "Master", "gradcampaign": 1}]}),
        )],
    );
    // When an upsert inserts, the array comes from the query's equality and the filters apply to it.
    check_all(
        vec![(doc! {"grades": [95, 110]}, bson!({"$set": {"grades.$[g]": 100}}), Doc(doc! {"grades": [95, 100]}))],
        Opts { filters: Some(vec![doc! {"g": {"$gte": 100}}]), inserting: true, ..Opts::default() },
    );
    upsert(vec![(doc! {"grades": [1, 2]}, bson!({"$inc": {"grades.$[]": 1}}), Doc(doc! {"grades": [2, 3]}))]);
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    fn scalar() -> impl Strategy<Value = Bson> {
        prop_oneof![
            any::<i32>().prop_map(Bson::Int32),
            any::<i64>().prop_map(Bson::Int64),
            any::<f64>().prop_map(Bson::Double),
            "[a-c]{0,2}".prop_map(Bson::String),
            Just(Bson::Null),
            any::<bool>().prop_map(Bson::Boolean),
        ]
    }

    fn value() -> impl Strategy<Value = Bson> {
        scalar().prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Bson::Array),
                prop::collection::vec(("[a-c$]{1,2}", inner), 0..3).prop_map(|kv| Bson::Document(kv.into_iter().collect())),
            ]
        })
    }

    fn path() -> impl Strategy<Value = String> {
        let part = prop_oneof![4 => "[a-c]", 3 => "[0-2]", 1 => Just("$".to_string()), 1 => Just("$[]".to_string()), 1 => Just("$[e]".to_string())];
        ("[a-c]", prop::collection::vec(part, 0..3)).prop_map(|(first, rest)| std::iter::once(first).chain(rest).collect::<Vec<_>>().join("."))
    }

    fn operator() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "$set", "$unset", "$inc", "$mul", "$min", "$max", "$rename", "$currentDate", "$setOnInsert", "$push", "$addToSet",
            "$pop", "$pull", "$pullAll", "$bit",
        ])
    }

    fn argument(op: &'static str) -> BoxedStrategy<Bson> {
        match op {
            "$rename" => "[a-c](\\.[a-c0-2]){0,2}".prop_map(Bson::String).boxed(),
            "$bit" => any::<i32>().prop_map(|n| bson!({"xor": n})).boxed(),
            "$push" => (prop::collection::vec(scalar(), 0..3), -3i32..3).prop_map(|(v, n)| bson!({"$each": v, "$slice": n, "$sort": 1})).boxed(),
            "$inc" | "$mul" => scalar().prop_filter("a number", |v| matches!(v, Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_))).boxed(),
            "$currentDate" => Just(Bson::Boolean(true)).boxed(),
            "$pop" => prop_oneof![Just(Bson::Int32(1)), Just(Bson::Int32(-1))].boxed(),
            "$pullAll" => prop::collection::vec(scalar(), 0..3).prop_map(Bson::Array).boxed(),
            "$pull" => prop_oneof![scalar(), scalar().prop_map(|v| bson!({"$gte": v}))].boxed(),
            _ => value().boxed(),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn updates_never_panic_and_failures_change_nothing(
            fields in prop::collection::vec(("[a-c]", value()), 0..4),
            ops in prop::collection::vec((operator(), path()).prop_flat_map(|(op, p)| (Just(op), Just(p), argument(op))), 1..4),
            positional in prop::option::of(0usize..3),
            inserting in any::<bool>(),
        ) {
            let mut doc = doc! {"_id": 1};
            for (k, v) in fields {
                doc.insert(k, v);
            }
            let mut spec = Document::new();
            for (op, p, arg) in ops {
                let entry = spec.entry(op.to_string()).or_insert_with(|| Bson::Document(Document::new()));
                if let Bson::Document(d) = entry {
                    d.insert(p, arg);
                }
            }
            let before = shown(&doc);
            let uses_e = format!("{spec:?}").contains("$[e]");
            let filters = vec![doc! {"e": {"$gte": 0}}];
            let parsed = Update::parse(&Bson::Document(spec), if uses_e { Some(&filters[..]) } else { None });
            if let Ok(u) = parsed {
                match u.apply(&doc, positional, inserting, &env()) {
                    Ok(a) => {
                        prop_assert!(a.doc.to_vec().is_ok());
                        if !a.modified {
                            prop_assert_eq!(shown(&a.doc), before.clone());
                        }
                        if !inserting {
                            prop_assert_eq!(a.doc.get("_id"), Some(&Bson::Int32(1)));
                        }
                    }
                    Err(e) => prop_assert!(!e.message.is_empty()),
                }
            }
            prop_assert_eq!(shown(&doc), before);
        }
    }
}
