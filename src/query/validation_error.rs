//! Why a document failed a collection's validator: the `details` of a
//! `DocumentValidationFailure`'s `errInfo`, as the server's `doc_validation_error.cpp` builds
//! them (MongoDB 5.0 and later, unchanged in 8.0).
//!
//! The server walks its parsed validator (each node annotated with the operator the user wrote)
//! and explains each failing node: a leaf names its operator, what was specified, the reason and
//! the values it considered; `$and`/`$or`/`$nor` list the clauses that decided the verdict (by
//! index); `$not` and `$nor` invert the sense of what their children report. `$jsonSchema`
//! lists the schema rules not satisfied, in the order the server's JSON Schema parser builds
//! them (scalar keywords, array keywords, object keywords, logical keywords, then the type).
//!
//! Every verdict here comes from the engine's own matcher ([`Matcher`], [`Schema`]) on the piece
//! being explained, so the explanation agrees with the decision to refuse the write.

use std::collections::BTreeSet;

use bson::{doc, Bson, Document};

use super::evaluation::json_schema::{unordered_equal, Schema};
use super::evaluation::regex::RegexPred;
use super::parser::is_expression_document;
use super::Matcher;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::expr::{Expr, VarScope};
use crate::value::types::{is_number, type_name};

/// The `details` of a validation failure of `doc` against `validator`, or `None` when the
/// validator uses an operator this explainer does not describe.
pub fn explain(validator: &Document, doc: &Document, env: &Env) -> Option<Document> {
    let q = build(validator).ok()?;
    let cx = Cx { doc, env };
    q.generate(&cx, false)
}

struct Cx<'a> {
    doc: &'a Document,
    env: &'a Env,
}

/// The validator as the server's annotated tree.
enum Q {
    /// `$and` (explicit, or the implicit AND of a filter's fields).
    And(Vec<Q>),
    /// An AND that reports nothing itself (`$not` of a single operator).
    PassThrough(Box<Q>),
    Or(Vec<Q>),
    Nor(Vec<Q>),
    Not(Box<Q>),
    Leaf(Leaf),
    Expr(Bson),
    Schema(Document),
}

struct Leaf {
    /// The operator as the user wrote it (`$ne`, `$nin`, ...).
    op: String,
    path: String,
    /// The filter whose verdict this leaf is (`{path: {op: arg}}`).
    filter: Document,
    /// The `specifiedAs` the server echoes.
    spec: Document,
    /// `$ne`, `$nin` and `$exists: false` are the negation of a positive test: they report that
    /// test's inverted reason.
    negated: bool,
}

fn unsupported() -> Error {
    Error::bad_value("no validation details")
}

fn build(obj: &Document) -> Result<Q> {
    let mut children = Vec::new();
    for (k, v) in obj {
        match k.as_str() {
            "$and" | "$or" | "$nor" => {
                let Bson::Array(list) = v else { return Err(unsupported()) };
                let mut subs = Vec::new();
                for e in list {
                    let Bson::Document(d) = e else { return Err(unsupported()) };
                    subs.push(build(d)?);
                }
                children.push(match k.as_str() {
                    "$and" => Q::And(subs),
                    "$or" => Q::Or(subs),
                    _ => Q::Nor(subs),
                });
            }
            "$expr" => children.push(Q::Expr(v.clone())),
            "$jsonSchema" => {
                let Bson::Document(d) = v else { return Err(unsupported()) };
                children.push(Q::Schema(d.clone()));
            }
            "$comment" => {}
            k if k.starts_with('$') => return Err(unsupported()),
            path => match v {
                Bson::Document(sub) if is_expression_document(sub, false) => {
                    for (op, arg) in sub {
                        if let Some(q) = build_op(path, op, arg, sub)? {
                            children.push(q);
                        }
                    }
                }
                Bson::RegularExpression(_) => children.push(leaf("$regex", path, doc! {path: v.clone()}, false)),
                _ => children.push(leaf("$eq", path, doc! {path: v.clone()}, false)),
            },
        }
    }
    if children.len() == 1 {
        return children.pop().ok_or_else(unsupported);
    }
    Ok(Q::And(children))
}

fn leaf(op: &str, path: &str, spec: Document, negated: bool) -> Q {
    Q::Leaf(Leaf { op: op.to_string(), path: path.to_string(), filter: spec.clone(), spec, negated })
}

/// One operator of `{path: {...}}`.
fn build_op(path: &str, op: &str, arg: &Bson, context: &Document) -> Result<Option<Q>> {
    let one = || doc! {path: {op: arg.clone()}};
    Ok(Some(match op {
        "$options" => return Ok(None),
        "$regex" => {
            let mut filter = Document::new();
            for (k, v) in context {
                if k == "$regex" || k == "$options" {
                    filter.insert(k.clone(), v.clone());
                }
            }
            Q::Leaf(Leaf { op: op.to_string(), path: path.to_string(), filter: doc! {path: filter}, spec: doc! {path: context.clone()}, negated: false })
        }
        "$not" => match arg {
            Bson::RegularExpression(_) => Q::Not(Box::new(leaf("$regex", path, doc! {path: arg.clone()}, false))),
            Bson::Document(inner) => {
                let mut subs = Vec::new();
                for (iop, iarg) in inner {
                    if let Some(q) = build_op(path, iop, iarg, inner)? {
                        subs.push(q);
                    }
                }
                let child = if subs.len() == 1 { Q::PassThrough(Box::new(subs.remove(0))) } else { Q::And(subs) };
                Q::Not(Box::new(child))
            }
            _ => return Err(unsupported()),
        },
        "$ne" | "$nin" => leaf(op, path, one(), true),
        "$exists" => leaf(op, path, one(), !truthy(arg)),
        "$eq" | "$lt" | "$lte" | "$gt" | "$gte" | "$in" | "$type" | "$mod" | "$size" | "$elemMatch" | "$all" | "$bitsAllSet"
        | "$bitsAnySet" | "$bitsAllClear" | "$bitsAnyClear" => leaf(op, path, one(), false),
        _ => return Err(unsupported()),
    }))
}

fn truthy(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Null | Bson::Undefined => false,
        Bson::Int32(n) => *n != 0,
        Bson::Int64(n) => *n != 0,
        Bson::Double(n) => *n != 0.0,
        _ => true,
    }
}

impl Q {
    /// Whether this node matches the current document (an evaluation error counts as
    /// contributing to the error, as in the server).
    fn verdict(&self, cx: &Cx) -> Result<bool> {
        Ok(match self {
            Q::And(c) => {
                for q in c {
                    if !q.verdict(cx)? {
                        return Ok(false);
                    }
                }
                true
            }
            Q::PassThrough(q) => q.verdict(cx)?,
            Q::Or(c) => {
                for q in c {
                    if q.verdict(cx)? {
                        return Ok(true);
                    }
                }
                false
            }
            Q::Nor(c) => {
                for q in c {
                    if q.verdict(cx)? {
                        return Ok(false);
                    }
                }
                true
            }
            Q::Not(q) => !q.verdict(cx)?,
            Q::Leaf(l) => Matcher::parse(&l.filter)?.matches(cx.doc, cx.env)?,
            Q::Expr(e) => Matcher::parse(&doc! {"$expr": e.clone()})?.matches(cx.doc, cx.env)?,
            Q::Schema(s) => Matcher::parse(&doc! {"$jsonSchema": s.clone()})?.matches(cx.doc, cx.env)?,
        })
    }

    /// True when this child explains its parent's outcome in the sense `inverted`: it failed
    /// (normal sense) or matched (inverted sense).
    fn contributes(&self, cx: &Cx, inverted: bool) -> bool {
        self.verdict(cx).map(|m| m == inverted).unwrap_or(true)
    }

    fn generate(&self, cx: &Cx, inv: bool) -> Option<Document> {
        match self {
            Q::And(children) => {
                let key = if inv { "clausesSatisfied" } else { "clausesNotSatisfied" };
                // Normally only the failing clauses; inverted (the AND matched), every clause.
                Some(clauses("$and", key, children, cx, inv, |q| inv || q.contributes(cx, false)))
            }
            Q::PassThrough(q) => q.generate(cx, inv),
            Q::Or(children) => {
                let key = if inv { "clausesSatisfied" } else { "clausesNotSatisfied" };
                Some(clauses("$or", key, children, cx, inv, |q| !inv || q.contributes(cx, true)))
            }
            Q::Nor(children) => {
                let inner = !inv;
                let key = if inner { "clausesSatisfied" } else { "clausesNotSatisfied" };
                Some(clauses("$nor", key, children, cx, inner, |q| inv || q.contributes(cx, true)))
            }
            Q::Not(child) => {
                let mut d = doc! {"operatorName": "$not"};
                if let Some(details) = child.generate(cx, !inv) {
                    d.insert("details", details);
                }
                Some(d)
            }
            Q::Leaf(l) => Some(l.generate(cx, inv ^ l.negated)),
            Q::Expr(e) => Some(expr_error(e, cx, inv)),
            Q::Schema(s) => Some(if inv {
                doc! {"operatorName": "$jsonSchema", "reason": "schema matched"}
            } else {
                schema_root_error(s, cx.doc)
            }),
        }
    }
}

fn clauses(op: &str, key: &str, children: &[Q], cx: &Cx, inv: bool, include: impl Fn(&Q) -> bool) -> Document {
    let mut list = Vec::new();
    for (i, q) in children.iter().enumerate() {
        if !include(q) {
            continue;
        }
        if let Some(details) = q.generate(cx, inv) {
            list.push(Bson::Document(doc! {"index": i as i32, "details": details}));
        }
    }
    doc! {"operatorName": op, key: list}
}

const NUMBERS: &[&str] = &["decimal", "double", "int", "long"];

impl Leaf {
    fn generate(&self, cx: &Cx, inv: bool) -> Document {
        let mut d = doc! {"operatorName": self.op.as_str(), "specifiedAs": self.spec.clone()};
        let reason = |normal: &str, inverted: &str| if inv { inverted.to_string() } else { normal.to_string() };
        let omit = values_at(cx.doc, &self.path, true);
        match self.op.as_str() {
            "$exists" => {
                d.insert("reason", reason("path does not exist", "path does exist"));
            }
            "$type" => {
                if omit.is_none() {
                    d.insert("reason", "field was missing");
                } else {
                    d.insert("reason", reason("type did not match", "type did match"));
                }
                considered_values(&mut d, &omit);
                considered_types(&mut d, &omit);
            }
            "$all" if matches!(self.spec.get(&self.path), Some(Bson::Document(o)) if matches!(o.get("$all"), Some(Bson::Array(a)) if a.is_empty())) => {
                // `$all: []` matches nothing.
                d.insert("reason", "expression always evaluates to false");
            }
            "$all" => {
                let vals = values_at(cx.doc, &self.path, false);
                let r = reason("array did not contain all specified values", "array did contain all specified values");
                path_error(&mut d, &vals, None, r);
            }
            "$size" | "$elemMatch" => {
                let vals = values_at(cx.doc, &self.path, false);
                let r = if self.op == "$size" {
                    reason("array length was not equal to given size", "array length was equal to given size")
                } else {
                    reason("array did not satisfy the child predicate", "array did satisfy the child predicate")
                };
                path_error(&mut d, &vals, Some(&["array"]), r);
            }
            "$regex" => {
                let r = reason("regular expression did not match", "regular expression did match");
                path_error(&mut d, &omit, Some(&["regex", "string", "symbol"]), r);
            }
            "$mod" => {
                let r = reason("$mod did not evaluate to expected remainder", "$mod did evaluate to expected remainder");
                path_error(&mut d, &omit, Some(NUMBERS), r);
            }
            "$in" | "$nin" => {
                let r = reason("no matching value found in array", "matching value found in array");
                path_error(&mut d, &omit, None, r);
            }
            op if op.starts_with("$bits") => {
                let r = reason("bitwise operator failed to match", "bitwise operator matched successfully");
                path_error(&mut d, &omit, Some(&["binData", "decimal", "double", "int", "long"]), r);
            }
            _ => {
                let r = reason("comparison failed", "comparison succeeded");
                path_error(&mut d, &omit, None, r);
            }
        }
        d
    }
}

/// `generatePathError`: a missing path, a type mismatch, or the operator's reason, then the
/// values considered.
fn path_error(d: &mut Document, vals: &Option<Values>, expected: Option<&[&str]>, reason: String) {
    match vals {
        None => {
            d.insert("reason", "field was missing");
        }
        Some(Values { values: vs, .. }) => {
            if let Some(types) = expected {
                if !vs.iter().any(|v| types.contains(&type_name(v))) {
                    d.insert("reason", "type did not match");
                    considered_types(d, vals);
                    if types.len() == 1 {
                        d.insert("expectedType", types[0]);
                    } else {
                        d.insert("expectedTypes", types.iter().map(|t| Bson::String(t.to_string())).collect::<Vec<_>>());
                    }
                }
            }
            if !d.contains_key("reason") {
                d.insert("reason", reason);
            }
        }
    }
    considered_values(d, vals);
}

fn considered_values(d: &mut Document, vals: &Option<Values>) {
    let Some(Values { values: vs, truncated }) = vals else { return };
    if vs.len() == 1 {
        d.insert("consideredValue", vs[0].clone());
    } else {
        d.insert("consideredValues", vs.clone());
    }
    if *truncated {
        d.insert("consideredValuesTruncated", true);
    }
}

fn considered_types(d: &mut Document, vals: &Option<Values>) {
    let Some(Values { values: vs, .. }) = vals else { return };
    if vs.is_empty() {
        return;
    }
    let types: BTreeSet<&str> = vs.iter().map(type_name).collect();
    if types.len() == 1 {
        d.insert("consideredType", types.into_iter().next().unwrap_or_default());
    } else {
        d.insert("consideredTypes", types.into_iter().map(|t| Bson::String(t.to_string())).collect::<Vec<_>>());
    }
}

/// The values a predicate on `path` considers (the server's `ElementPath` iteration): arrays in
/// the middle of the path are traversed; an array at the end is replaced by its elements when
/// `traverse_leaf` (`kTraverseOmitArray`), kept whole otherwise. `None` when the path is missing.
fn values_at(doc: &Document, path: &str, traverse_leaf: bool) -> Option<Values> {
    let parts: Vec<&str> = path.split('.').collect();
    let mut out = Vec::new();
    let mut exists = false;
    collect(doc, &parts, traverse_leaf, &mut out, &mut exists);
    let truncated = out.len() > MAX_CONSIDERED_VALUES;
    out.truncate(MAX_CONSIDERED_VALUES);
    exists.then_some(Values { values: out, truncated })
}

/// The server's `internalQueryMaxDocValidationErrorConsideredValues`: how many values an error
/// lists before it says `consideredValuesTruncated`.
const MAX_CONSIDERED_VALUES: usize = 10;

/// The values a leaf considered (at most [`MAX_CONSIDERED_VALUES`]).
struct Values {
    values: Vec<Bson>,
    truncated: bool,
}

fn collect(doc: &Document, parts: &[&str], traverse_leaf: bool, out: &mut Vec<Bson>, exists: &mut bool) {
    let Some(v) = doc.get(parts[0]) else { return };
    let rest = &parts[1..];
    if rest.is_empty() {
        *exists = true;
        match v {
            Bson::Array(a) if traverse_leaf => out.extend(a.iter().cloned()),
            _ => out.push(v.clone()),
        }
        return;
    }
    match v {
        Bson::Document(d) => collect(d, rest, traverse_leaf, out, exists),
        Bson::Array(a) => {
            for (i, e) in a.iter().enumerate() {
                match e {
                    Bson::Document(d) => collect(d, rest, traverse_leaf, out, exists),
                    _ if rest.len() == 1 && rest[0] == i.to_string() => {
                        *exists = true;
                        out.push(e.clone());
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

fn expr_error(e: &Bson, cx: &Cx, inv: bool) -> Document {
    let mut d = doc! {"operatorName": "$expr", "specifiedAs": {"$expr": e.clone()}};
    let result = Expr::parse(e, &VarScope::from_env(cx.env)).and_then(|x| x.evaluate(cx.doc, cx.env));
    match result {
        Ok(v) => {
            d.insert("reason", if inv { "expression did match" } else { "expression did not match" });
            if let Some(v) = v {
                d.insert("expressionResult", v);
            }
        }
        Err(err) => {
            d.insert("reason", "failed to evaluate aggregation expression");
            d.insert("details", doc! {"code": err.code_num(), "codeName": err.code_name(), "errmsg": err.message.clone()});
        }
    }
    d
}

// ---------------------------------------------------------------------------------------------
// $jsonSchema

/// `title` and `description` of a schema, as the server echoes them beside its rules.
fn annotations(schema: &Document, into: &mut Document) {
    for k in ["title", "description"] {
        if let Some(Bson::String(s)) = schema.get(k) {
            into.insert(k, s.clone());
        }
    }
}

fn schema_root_error(schema: &Document, doc: &Document) -> Document {
    let root = Bson::Document(doc.clone());
    // A top-level type that excludes objects matches nothing.
    let stated = stated_type(schema);
    if let Some((_, st)) = &stated {
        if !st.validate(&Bson::Document(Document::new())) {
            return doc! {
                "operatorName": "$jsonSchema",
                "specifiedAs": {"$jsonSchema": schema.clone()},
                "reason": "expression always evaluates to false",
            };
        }
    }
    let mut d = doc! {"operatorName": "$jsonSchema"};
    annotations(schema, &mut d);
    d.insert("schemaRulesNotSatisfied", rules(schema, Some(&root), true));
    d
}

/// The `type` or `bsonType` keyword and a schema holding only it.
fn stated_type(schema: &Document) -> Option<(&'static str, Schema)> {
    for kw in ["type", "bsonType"] {
        if let Some(v) = schema.get(kw) {
            let s = Schema::parse(&doc! {kw: v.clone()}).ok()?;
            return Some((kw, s));
        }
    }
    None
}

/// True when the schema states a single type (`isSingleType`).
fn single_type(schema: &Document) -> bool {
    let v = schema.get("type").or_else(|| schema.get("bsonType"));
    match v {
        Some(Bson::String(_)) => true,
        Some(Bson::Array(a)) => a.len() == 1,
        _ => false,
    }
}

fn verdict(schema: &Document, v: &Bson) -> bool {
    Schema::parse(schema).map(|s| s.validate(v)).unwrap_or(true)
}

/// A keyword schema's verdict (`{minimum: 1}`, ...).
fn keyword_ok(kw: &Document, v: &Bson) -> bool {
    verdict(kw, v)
}

fn sub_doc(schema: &Document, kw: &str) -> Option<Document> {
    match schema.get(kw) {
        Some(Bson::Document(d)) => Some(d.clone()),
        _ => None,
    }
}

/// The rules of `schema` that `v` (the value at the schema's path, `None` when missing) does
/// not satisfy, in the server's order. `top`: the schema of the whole document.
fn rules(schema: &Document, v: Option<&Bson>, top: bool) -> Vec<Bson> {
    let mut out = Vec::new();
    let stated = stated_type(schema);
    let single = single_type(schema);
    // Does a keyword restricted to values like `sample` apply? With a single stated type that is
    // another type the server drops it; otherwise it applies to values of its type.
    let applies = |sample: Bson, v: &Bson, kind: fn(&Bson) -> bool| -> bool {
        if !kind(v) {
            return false;
        }
        match &stated {
            Some((_, st)) if single => st.validate(&sample),
            _ => true,
        }
    };
    let is_str = |v: &Bson| matches!(v, Bson::String(_));
    let is_arr = |v: &Bson| matches!(v, Bson::Array(_));
    let is_obj = |v: &Bson| matches!(v, Bson::Document(_));
    let spec = |kw: &str| -> Document {
        let mut d = Document::new();
        if let Some(x) = schema.get(kw) {
            d.insert(kw, x.clone());
        }
        d
    };
    let mut push = |d: Document| out.push(Bson::Document(d));

    if let (Some(v), false) = (v, top) {
        // Scalar keywords: pattern, maxLength, minLength, multipleOf, maximum, minimum.
        for (kw, reason) in [
            ("pattern", "regular expression did not match"),
            ("maxLength", "specified string length was not satisfied"),
            ("minLength", "specified string length was not satisfied"),
        ] {
            if schema.contains_key(kw) && applies(Bson::String(String::new()), v, is_str) && !keyword_ok(&spec(kw), v) {
                push(doc! {"operatorName": kw, "specifiedAs": spec(kw), "reason": reason, "consideredValue": v.clone()});
            }
        }
        if schema.contains_key("multipleOf") && applies(Bson::Int32(0), v, is_number) && !keyword_ok(&spec("multipleOf"), v) {
            push(doc! {"operatorName": "multipleOf", "specifiedAs": spec("multipleOf"), "reason": "considered value is not a multiple of the specified value", "consideredValue": v.clone()});
        }
        for (kw, ex) in [("maximum", "exclusiveMaximum"), ("minimum", "exclusiveMinimum")] {
            if !schema.contains_key(kw) || !applies(Bson::Int32(0), v, is_number) {
                continue;
            }
            let mut s = spec(kw);
            if schema.get(ex) == Some(&Bson::Boolean(true)) {
                s.insert(ex, true);
            }
            if !keyword_ok(&s, v) {
                push(doc! {"operatorName": kw, "specifiedAs": s, "reason": "comparison failed", "consideredValue": v.clone()});
            }
        }
        // Array keywords: minItems, maxItems, uniqueItems, items, additionalItems.
        if let Bson::Array(a) = v {
            if applies(Bson::Array(Vec::new()), v, is_arr) {
                for kw in ["minItems", "maxItems"] {
                    if schema.contains_key(kw) && !keyword_ok(&spec(kw), v) {
                        push(doc! {"operatorName": kw, "specifiedAs": spec(kw), "reason": "array did not match specified length", "consideredValue": v.clone(), "numberOfItems": a.len() as i32});
                    }
                }
                if schema.get("uniqueItems") == Some(&Bson::Boolean(true)) {
                    let dup = a.iter().enumerate().find(|(i, x)| a[..*i].iter().any(|y| unordered_equal(x, y)));
                    if let Some((_, dup)) = dup {
                        push(doc! {"operatorName": "uniqueItems", "specifiedAs": spec("uniqueItems"), "reason": "found a duplicate item", "consideredValue": v.clone(), "duplicatedValue": dup.clone()});
                    }
                }
                let mut tuple_len = None;
                match schema.get("items") {
                    Some(Bson::Document(items)) => {
                        if let Some((i, e)) = a.iter().enumerate().find(|(_, e)| !verdict(items, e)) {
                            let mut d = doc! {"operatorName": "items"};
                            annotations(items, &mut d);
                            d.insert("reason", "At least one item did not match the sub-schema");
                            d.insert("itemIndex", i as i32);
                            d.insert("details", rules(items, Some(e), false));
                            push(d);
                        }
                    }
                    Some(Bson::Array(list)) => {
                        tuple_len = Some(list.len());
                        let mut failed = Vec::new();
                        for (i, (sub, e)) in list.iter().zip(a).enumerate() {
                            let Bson::Document(sub) = sub else { continue };
                            if !verdict(sub, e) {
                                failed.push(Bson::Document(doc! {"itemIndex": i as i64, "details": rules(sub, Some(e), false)}));
                            }
                        }
                        if !failed.is_empty() {
                            push(doc! {"operatorName": "items", "details": failed});
                        }
                    }
                    _ => {}
                }
                if let Some(n) = tuple_len.filter(|n| a.len() > *n) {
                    match schema.get("additionalItems") {
                        Some(Bson::Boolean(false)) => {
                            push(doc! {"operatorName": "additionalItems", "specifiedAs": spec("additionalItems"), "reason": "found additional items", "additionalItems": a[n..].to_vec()});
                        }
                        Some(Bson::Document(extra)) => {
                            if let Some((i, e)) = a.iter().enumerate().skip(n).find(|(_, e)| !verdict(extra, e)) {
                                let mut d = doc! {"operatorName": "additionalItems"};
                                annotations(extra, &mut d);
                                d.insert("reason", "At least one additional item did not match the sub-schema");
                                d.insert("itemIndex", i as i32);
                                d.insert("details", rules(extra, Some(e), false));
                                push(d);
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    // Object keywords: properties, additionalProperties/patternProperties, required,
    // minProperties, maxProperties, dependencies.
    let object = match v {
        Some(Bson::Document(o)) if top || applies(Bson::Document(Document::new()), v.unwrap_or(&Bson::Null), is_obj) => Some(o),
        _ => None,
    };
    if let Some(obj) = object {
        let required: Vec<&str> = match schema.get("required") {
            Some(Bson::Array(r)) => r.iter().filter_map(|x| x.as_str()).collect(),
            _ => Vec::new(),
        };
        let props = sub_doc(schema, "properties").unwrap_or_default();
        let mut failed = Vec::new();
        for (name, sub) in &props {
            let Bson::Document(sub) = sub else { continue };
            let Some(pv) = obj.get(name) else { continue };
            if verdict(sub, pv) {
                continue;
            }
            let details = rules(sub, Some(pv), false);
            if details.is_empty() {
                continue;
            }
            let mut d = doc! {"propertyName": name.as_str()};
            annotations(sub, &mut d);
            d.insert("details", details);
            failed.push(Bson::Document(d));
        }
        if !failed.is_empty() {
            push(doc! {"operatorName": "properties", "propertiesNotSatisfied": failed});
        }
        let patterns: Vec<(String, RegexPred, Document)> = sub_doc(schema, "patternProperties")
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(p, s)| match s {
                Bson::Document(s) => RegexPred::new(&p, "").ok().map(|re| (p, re, s)),
                _ => None,
            })
            .collect();
        if schema.contains_key("additionalProperties") || schema.contains_key("patternProperties") {
            let additional: Vec<&String> =
                obj.keys().filter(|k| !props.contains_key(k.as_str()) && !patterns.iter().any(|(_, re, _)| re.is_match(k))).collect();
            match schema.get("additionalProperties") {
                Some(Bson::Boolean(false)) if !additional.is_empty() => {
                    let names: Vec<Bson> = additional.iter().map(|k| Bson::String(k.to_string())).collect();
                    push(doc! {"operatorName": "additionalProperties", "specifiedAs": spec("additionalProperties"), "additionalProperties": names});
                }
                Some(Bson::Document(extra)) => {
                    let failing = additional.iter().find_map(|k| obj.get(k.as_str()).filter(|x| !verdict(extra, x)).map(|x| (*k, x)));
                    if let Some((k, x)) = failing {
                        let mut d = doc! {"operatorName": "additionalProperties"};
                        annotations(extra, &mut d);
                        d.insert("reason", "at least one additional property did not match the subschema");
                        d.insert("failingProperty", k.as_str());
                        d.insert("details", rules(extra, Some(x), false));
                        push(d);
                    }
                }
                _ => {}
            }
            let mut pattern_errors = Vec::new();
            for (p, re, sub) in &patterns {
                if let Some((k, x)) = obj.iter().find(|(k, x)| re.is_match(k) && !verdict(sub, x)) {
                    let mut d = doc! {"propertyName": k.as_str()};
                    annotations(sub, &mut d);
                    d.insert("regexMatched", p.as_str());
                    d.insert("details", rules(sub, Some(x), false));
                    pattern_errors.push(Bson::Document(d));
                }
            }
            if !pattern_errors.is_empty() {
                push(doc! {"operatorName": "patternProperties", "details": pattern_errors});
            }
        }
        let mut missing: Vec<&str> = required.iter().copied().filter(|f| !obj.contains_key(*f)).collect();
        missing.sort_unstable();
        if !missing.is_empty() {
            push(doc! {"operatorName": "required", "specifiedAs": spec("required"), "missingProperties": missing});
        }
        for kw in ["minProperties", "maxProperties"] {
            if schema.contains_key(kw) && !keyword_ok(&spec(kw), &Bson::Document(obj.clone())) {
                push(doc! {"operatorName": kw, "specifiedAs": spec(kw), "reason": "specified number of properties was not satisfied", "numberOfProperties": obj.len() as i32});
            }
        }
        if let Some(deps) = sub_doc(schema, "dependencies") {
            let mut failing = Vec::new();
            let whole = Bson::Document(obj.clone());
            for (name, dep) in &deps {
                if !obj.contains_key(name) {
                    continue;
                }
                match dep {
                    Bson::Array(fields) => {
                        let missing: Vec<Bson> = fields.iter().filter(|f| f.as_str().is_some_and(|f| !obj.contains_key(f))).cloned().collect();
                        if !missing.is_empty() {
                            failing.push(Bson::Document(doc! {"conditionalProperty": name.as_str(), "missingProperties": missing}));
                        }
                    }
                    Bson::Document(sub) if !verdict(sub, &whole) => {
                        failing.push(Bson::Document(doc! {"conditionalProperty": name.as_str(), "details": rules(sub, Some(&whole), top)}));
                    }
                    _ => {}
                }
            }
            if !failing.is_empty() {
                let mut d = doc! {"operatorName": "dependencies"};
                annotations(&deps, &mut d);
                d.insert("failingDependencies", failing);
                push(d);
            }
        }
    }

    // Logical keywords: allOf, anyOf, oneOf, not, enum (whatever the type).
    if let Some(v) = v {
        let subschemas = |kw: &str| -> Vec<Document> {
            match schema.get(kw) {
                Some(Bson::Array(l)) => l.iter().filter_map(|s| s.as_document().cloned()).collect(),
                _ => Vec::new(),
            }
        };
        let entry = |i: usize, sub: &Document| {
            let mut d = doc! {"index": i as i32};
            annotations(sub, &mut d);
            d.insert("details", rules(sub, Some(v), top));
            Bson::Document(d)
        };
        let all_of = subschemas("allOf");
        let failed: Vec<Bson> = all_of.iter().enumerate().filter(|(_, s)| !verdict(s, v)).map(|(i, s)| entry(i, s)).collect();
        if !failed.is_empty() {
            push(doc! {"operatorName": "allOf", "schemasNotSatisfied": failed});
        }
        let any_of = subschemas("anyOf");
        if !any_of.is_empty() && !any_of.iter().any(|s| verdict(s, v)) {
            let all: Vec<Bson> = any_of.iter().enumerate().map(|(i, s)| entry(i, s)).collect();
            push(doc! {"operatorName": "anyOf", "schemasNotSatisfied": all});
        }
        let one_of = subschemas("oneOf");
        if !one_of.is_empty() {
            let matching: Vec<i32> = one_of.iter().enumerate().filter(|(_, s)| verdict(s, v)).map(|(i, _)| i as i32).collect();
            if matching.is_empty() {
                let all: Vec<Bson> = one_of.iter().enumerate().map(|(i, s)| entry(i, s)).collect();
                push(doc! {"operatorName": "oneOf", "schemasNotSatisfied": all});
            } else if matching.len() > 1 {
                push(doc! {"operatorName": "oneOf", "reason": "more than one subschema matched", "matchingSchemaIndexes": matching});
            }
        }
        if let Some(not) = sub_doc(schema, "not") {
            if verdict(&not, v) {
                push(doc! {"operatorName": "not", "reason": "child expression matched"});
            }
        }
        if let Some(Bson::Array(values)) = schema.get("enum") {
            let candidates = values.iter().filter(|e| !top || matches!(e, Bson::Document(_)));
            if top && candidates.clone().next().is_none() {
                push(doc! {"operatorName": "enum", "specifiedAs": spec("enum"), "reason": "expression always evaluates to false"});
            } else if !values.iter().any(|e| unordered_equal(e, v)) {
                push(doc! {"operatorName": "enum", "specifiedAs": spec("enum"), "reason": "value was not found in enum", "consideredValue": v.clone()});
            }
        }
        // The type comes last (it is added after every other keyword).
        if let (Some((kw, st)), false) = (&stated, top) {
            if !st.validate(v) {
                push(doc! {"operatorName": *kw, "specifiedAs": spec(kw), "reason": "type did not match", "consideredValue": v.clone(), "consideredType": type_name(v)});
            }
        }
    }
    out
}
