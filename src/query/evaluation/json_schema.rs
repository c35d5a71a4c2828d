//! `$jsonSchema`: validates the document against a JSON Schema (draft 4, MongoDB's dialect):
//! `bsonType`, `type`, `required`, `properties`, `patternProperties`, `additionalProperties`,
//! `minProperties`/`maxProperties`, `dependencies`, `enum`, `minimum`/`maximum` (and
//! `exclusiveMinimum`/`exclusiveMaximum`), `multipleOf`, `minLength`/`maxLength`, `pattern`,
//! `items`, `additionalItems`, `minItems`/`maxItems`, `uniqueItems`, `allOf`, `anyOf`,
//! `oneOf`, `not`, `title`, `description`.
//!
//! As in JSON Schema, keywords only constrain values of their kind: `minimum` ignores strings,
//! `properties` ignores non-documents; a missing property passes unless `required`.

use std::cmp::Ordering;

use bson::{Bson, Document};

use super::regex::RegexPred;
use crate::error::{Error, ErrorKind, Result};
use crate::query::element::type_::TypeSet;
use crate::query::int_arg;
use crate::query::node::{Cx, DocPredicate, Node};
use crate::query::parser::{Level, ParseCx};
use crate::value::types::is_number;
use crate::value::{compare, Number};

#[derive(Debug, Clone)]
enum Extra {
    Allowed(bool),
    Schema(Box<Schema>),
}

#[derive(Debug, Clone)]
enum Items {
    All(Box<Schema>),
    Tuple(Vec<Schema>),
}

#[derive(Debug, Clone)]
enum Dependency {
    Fields(Vec<String>),
    Schema(Box<Schema>),
}

/// A parsed schema.
#[derive(Debug, Clone, Default)]
pub(crate) struct Schema {
    types: Option<TypeSet>,
    required: Vec<String>,
    properties: Vec<(String, Schema)>,
    pattern_properties: Vec<(RegexPred, Schema)>,
    additional_properties: Option<Extra>,
    min_properties: Option<i64>,
    max_properties: Option<i64>,
    dependencies: Vec<(String, Dependency)>,
    enumeration: Option<Vec<Bson>>,
    minimum: Option<(Bson, bool)>,
    maximum: Option<(Bson, bool)>,
    multiple_of: Option<Bson>,
    min_length: Option<i64>,
    max_length: Option<i64>,
    pattern: Option<RegexPred>,
    items: Option<Items>,
    additional_items: Option<Extra>,
    min_items: Option<i64>,
    max_items: Option<i64>,
    unique_items: bool,
    all_of: Vec<Schema>,
    any_of: Vec<Schema>,
    one_of: Vec<Schema>,
    not: Option<Box<Schema>>,
}

fn type_err(kw: &str, what: &str) -> Error {
    Error::new(ErrorKind::TypeMismatch, format!("$jsonSchema keyword '{kw}' must be {what}"))
}

fn parse_err(msg: impl Into<String>) -> Error {
    Error::failed_to_parse(msg)
}

fn count(kw: &str, v: &Bson) -> Result<i64> {
    if !is_number(v) {
        return Err(type_err(kw, "a number"));
    }
    int_arg::to_non_negative_long(kw, v)
}

fn schema_list(kw: &str, v: &Bson) -> Result<Vec<Schema>> {
    let Bson::Array(list) = v else { return Err(type_err(kw, "an array")) };
    if list.is_empty() {
        return Err(parse_err(format!("$jsonSchema keyword '{kw}' must be a non-empty array")));
    }
    list.iter()
        .map(|e| match e {
            Bson::Document(d) => Schema::parse(d),
            _ => Err(type_err(kw, "an array of objects")),
        })
        .collect()
}

fn extra(kw: &str, v: &Bson) -> Result<Extra> {
    match v {
        Bson::Boolean(b) => Ok(Extra::Allowed(*b)),
        Bson::Document(d) => Ok(Extra::Schema(Box::new(Schema::parse(d)?))),
        _ => Err(type_err(kw, "either an object or a boolean")),
    }
}

fn json_types(v: &Bson) -> Result<TypeSet> {
    let names: Vec<&Bson> = match v {
        Bson::Array(list) => list.iter().collect(),
        other => vec![other],
    };
    let mut set = TypeSet::default();
    for n in names {
        let Bson::String(s) = n else {
            return Err(type_err("type", "either a string or an array of strings"));
        };
        match s.as_str() {
            "number" => set.all_numbers = true,
            "object" => set.types.push(3),
            "array" => set.types.push(4),
            "string" => set.types.push(2),
            "boolean" => set.types.push(8),
            "null" => set.types.push(10),
            "integer" => return Err(parse_err("$jsonSchema type 'integer' is not currently supported.")),
            other => return Err(Error::bad_value(format!("Unknown type name alias: {other}"))),
        }
    }
    Ok(set)
}

fn bson_types(v: &Bson) -> Result<TypeSet> {
    match v {
        Bson::String(_) => {}
        Bson::Array(list) if list.iter().all(|e| matches!(e, Bson::String(_))) => {}
        _ => return Err(type_err("bsonType", "either a string or an array of strings")),
    }
    TypeSet::parse(v)
}

impl Schema {
    /// Parses a schema document (errors as the server's JSON Schema parser).
    pub fn parse(d: &Document) -> Result<Schema> {
        let mut s = Schema::default();
        if d.contains_key("type") && d.contains_key("bsonType") {
            return Err(parse_err("Cannot specify both $jsonSchema keywords 'type' and 'bsonType'"));
        }
        let mut exclusive_min = None;
        let mut exclusive_max = None;
        for (kw, v) in d {
            match kw.as_str() {
                "type" => s.types = Some(json_types(v)?),
                "bsonType" => s.types = Some(bson_types(v)?),
                "required" => {
                    let Bson::Array(list) = v else { return Err(type_err(kw, "an array")) };
                    if list.is_empty() {
                        return Err(parse_err("$jsonSchema keyword 'required' cannot be an empty array"));
                    }
                    for e in list {
                        let Bson::String(name) = e else { return Err(type_err(kw, "an array of strings")) };
                        if s.required.contains(name) {
                            return Err(parse_err("$jsonSchema keyword 'required' array cannot contain duplicate values"));
                        }
                        s.required.push(name.clone());
                    }
                }
                "properties" => {
                    let Bson::Document(props) = v else { return Err(type_err(kw, "an object")) };
                    for (name, sub) in props {
                        let Bson::Document(sub) = sub else {
                            return Err(Error::new(ErrorKind::TypeMismatch, format!("Nested schema for $jsonSchema property '{name}' must be an object")));
                        };
                        s.properties.push((name.clone(), Schema::parse(sub)?));
                    }
                }
                "patternProperties" => {
                    let Bson::Document(props) = v else { return Err(type_err(kw, "an object")) };
                    for (pattern, sub) in props {
                        let Bson::Document(sub) = sub else {
                            return Err(type_err(kw, "an object whose values are objects"));
                        };
                        s.pattern_properties.push((RegexPred::new(pattern, "")?, Schema::parse(sub)?));
                    }
                }
                "additionalProperties" => s.additional_properties = Some(extra(kw, v)?),
                "minProperties" => s.min_properties = Some(count(kw, v)?),
                "maxProperties" => s.max_properties = Some(count(kw, v)?),
                "dependencies" => {
                    let Bson::Document(deps) = v else { return Err(type_err(kw, "an object")) };
                    for (name, dep) in deps {
                        // The server lets `title` and `description` annotate the keyword.
                        if matches!(dep, Bson::String(_)) && (name == "title" || name == "description") {
                            continue;
                        }
                        let dep = match dep {
                            Bson::Document(sub) => Dependency::Schema(Box::new(Schema::parse(sub)?)),
                            Bson::Array(list) => {
                                let mut fields = Vec::new();
                                for e in list {
                                    let Bson::String(f) = e else {
                                        return Err(type_err(kw, "an object whose values are objects or arrays of strings"));
                                    };
                                    fields.push(f.clone());
                                }
                                Dependency::Fields(fields)
                            }
                            _ => return Err(type_err(kw, "an object whose values are objects or arrays of strings")),
                        };
                        s.dependencies.push((name.clone(), dep));
                    }
                }
                "enum" => {
                    let Bson::Array(list) = v else { return Err(type_err(kw, "an array")) };
                    if list.is_empty() {
                        return Err(parse_err("$jsonSchema keyword 'enum' cannot be an empty array"));
                    }
                    s.enumeration = Some(list.clone());
                }
                "minimum" | "maximum" => {
                    if !is_number(v) {
                        return Err(type_err(kw, "a number"));
                    }
                    if kw == "minimum" {
                        s.minimum = Some((v.clone(), false));
                    } else {
                        s.maximum = Some((v.clone(), false));
                    }
                }
                "exclusiveMinimum" | "exclusiveMaximum" => {
                    let Bson::Boolean(b) = v else { return Err(type_err(kw, "a boolean")) };
                    if kw == "exclusiveMinimum" {
                        exclusive_min = Some(*b);
                    } else {
                        exclusive_max = Some(*b);
                    }
                }
                "multipleOf" => {
                    let Some(n) = Number::from_bson(v) else { return Err(type_err(kw, "a number")) };
                    if n.to_f64().partial_cmp(&0.0) != Some(Ordering::Greater) {
                        return Err(parse_err("$jsonSchema keyword 'multipleOf' must have a positive value"));
                    }
                    s.multiple_of = Some(v.clone());
                }
                "minLength" => s.min_length = Some(count(kw, v)?),
                "maxLength" => s.max_length = Some(count(kw, v)?),
                "pattern" => {
                    let Bson::String(p) = v else { return Err(type_err(kw, "a string")) };
                    s.pattern = Some(RegexPred::new(p, "")?);
                }
                "items" => {
                    s.items = Some(match v {
                        Bson::Document(sub) => Items::All(Box::new(Schema::parse(sub)?)),
                        Bson::Array(list) => Items::Tuple(
                            list.iter()
                                .map(|e| match e {
                                    Bson::Document(d) => Schema::parse(d),
                                    _ => Err(type_err(kw, "an array of objects")),
                                })
                                .collect::<Result<_>>()?,
                        ),
                        _ => return Err(type_err(kw, "an array or an object")),
                    })
                }
                "additionalItems" => s.additional_items = Some(extra(kw, v)?),
                "minItems" => s.min_items = Some(count(kw, v)?),
                "maxItems" => s.max_items = Some(count(kw, v)?),
                "uniqueItems" => {
                    let Bson::Boolean(b) = v else { return Err(type_err(kw, "a boolean")) };
                    s.unique_items = *b;
                }
                "allOf" => s.all_of = schema_list(kw, v)?,
                "anyOf" => s.any_of = schema_list(kw, v)?,
                "oneOf" => s.one_of = schema_list(kw, v)?,
                "not" => {
                    let Bson::Document(sub) = v else { return Err(type_err(kw, "an object")) };
                    s.not = Some(Box::new(Schema::parse(sub)?));
                }
                "title" | "description" => {
                    if !matches!(v, Bson::String(_)) {
                        return Err(type_err(kw, "a string"));
                    }
                }
                "$ref" | "$schema" | "default" | "definitions" | "format" | "id" => {
                    return Err(parse_err(format!("$jsonSchema keyword '{kw}' is not currently supported")));
                }
                other => return Err(parse_err(format!("Unknown $jsonSchema keyword: {other}"))),
            }
        }
        if let Some(x) = exclusive_min {
            let Some(m) = s.minimum.as_mut() else {
                return Err(parse_err("$jsonSchema keyword 'minimum' must be a present if exclusiveMinimum is present"));
            };
            m.1 = x;
        }
        if let Some(x) = exclusive_max {
            let Some(m) = s.maximum.as_mut() else {
                return Err(parse_err("$jsonSchema keyword 'maximum' must be a present if exclusiveMaximum is present"));
            };
            m.1 = x;
        }
        if s.additional_items.is_some() && !matches!(s.items, Some(Items::Tuple(_))) {
            // Without a tuple `items`, `additionalItems` has no effect.
            s.additional_items = None;
        }
        Ok(s)
    }

    /// True when `v` satisfies the schema.
    pub fn validate(&self, v: &Bson) -> bool {
        if let Some(types) = &self.types {
            if !types.has(v) {
                return false;
            }
        }
        if let Some(list) = &self.enumeration {
            if !list.iter().any(|e| unordered_equal(e, v)) {
                return false;
            }
        }
        if is_number(v) && !self.validate_number(v) {
            return false;
        }
        match v {
            Bson::String(s) => {
                let len = s.chars().count() as i64;
                if self.min_length.is_some_and(|m| len < m) || self.max_length.is_some_and(|m| len > m) {
                    return false;
                }
                if self.pattern.as_ref().is_some_and(|p| !p.is_match(s)) {
                    return false;
                }
            }
            Bson::Array(a) if !self.validate_array(a) => return false,
            Bson::Document(d) if !self.validate_object(d) => return false,
            _ => {}
        }
        if !self.all_of.iter().all(|s| s.validate(v)) {
            return false;
        }
        if !self.any_of.is_empty() && !self.any_of.iter().any(|s| s.validate(v)) {
            return false;
        }
        if !self.one_of.is_empty() && self.one_of.iter().filter(|s| s.validate(v)).count() != 1 {
            return false;
        }
        if self.not.as_ref().is_some_and(|s| s.validate(v)) {
            return false;
        }
        true
    }

    fn validate_number(&self, v: &Bson) -> bool {
        if let Some((m, exclusive)) = &self.minimum {
            let o = compare(v, m);
            if o == Ordering::Less || (*exclusive && o == Ordering::Equal) {
                return false;
            }
        }
        if let Some((m, exclusive)) = &self.maximum {
            let o = compare(v, m);
            if o == Ordering::Greater || (*exclusive && o == Ordering::Equal) {
                return false;
            }
        }
        if let Some(m) = &self.multiple_of {
            let (Some(x), Some(d)) = (Number::from_bson(v), Number::from_bson(m)) else { return false };
            let ok = match (x.to_exact_i64(), d.to_exact_i64()) {
                (Some(a), Some(b)) if b != 0 => a.checked_rem(b).unwrap_or(0) == 0,
                _ => {
                    let r = x.to_f64() % d.to_f64();
                    r == 0.0
                }
            };
            if !ok {
                return false;
            }
        }
        true
    }

    fn validate_array(&self, a: &[Bson]) -> bool {
        let len = a.len() as i64;
        if self.min_items.is_some_and(|m| len < m) || self.max_items.is_some_and(|m| len > m) {
            return false;
        }
        match &self.items {
            Some(Items::All(s)) if !a.iter().all(|e| s.validate(e)) => return false,
            Some(Items::All(_)) => {}
            Some(Items::Tuple(list)) => {
                for (e, s) in a.iter().zip(list) {
                    if !s.validate(e) {
                        return false;
                    }
                }
                if a.len() > list.len() {
                    match &self.additional_items {
                        Some(Extra::Allowed(false)) => return false,
                        Some(Extra::Schema(s)) if !a[list.len()..].iter().all(|e| s.validate(e)) => return false,
                        _ => {}
                    }
                }
            }
            None => {}
        }
        if self.unique_items {
            for (i, x) in a.iter().enumerate() {
                if a[..i].iter().any(|y| unordered_equal(x, y)) {
                    return false;
                }
            }
        }
        true
    }

    fn validate_object(&self, d: &Document) -> bool {
        let len = d.len() as i64;
        if self.min_properties.is_some_and(|m| len < m) || self.max_properties.is_some_and(|m| len > m) {
            return false;
        }
        if !self.required.iter().all(|f| d.contains_key(f)) {
            return false;
        }
        for (name, s) in &self.properties {
            if let Some(v) = d.get(name) {
                if !s.validate(v) {
                    return false;
                }
            }
        }
        if !self.pattern_properties.is_empty() || self.additional_properties.is_some() {
            for (k, v) in d {
                let mut covered = self.properties.iter().any(|(n, _)| n == k);
                for (re, s) in &self.pattern_properties {
                    if re.is_match(k) {
                        covered = true;
                        if !s.validate(v) {
                            return false;
                        }
                    }
                }
                if !covered {
                    match &self.additional_properties {
                        Some(Extra::Allowed(false)) => return false,
                        Some(Extra::Schema(s)) if !s.validate(v) => return false,
                        _ => {}
                    }
                }
            }
        }
        for (name, dep) in &self.dependencies {
            if !d.contains_key(name) {
                continue;
            }
            let ok = match dep {
                Dependency::Fields(fields) => fields.iter().all(|f| d.contains_key(f)),
                Dependency::Schema(s) => s.validate(&Bson::Document(d.clone())),
            };
            if !ok {
                return false;
            }
        }
        true
    }
}

/// Equality where documents compare without regard to field order (`$_internalSchemaEq`).
pub(crate) fn unordered_equal(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Document(x), Bson::Document(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| unordered_equal(v, w)))
        }
        (Bson::Array(x), Bson::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| unordered_equal(v, w)),
        _ => compare(a, b) == Ordering::Equal,
    }
}

/// The `$jsonSchema` predicate.
#[derive(Debug, Clone)]
pub(crate) struct JsonSchema(pub Schema);

impl DocPredicate for JsonSchema {
    fn matches_doc(&self, doc: &Document, _cx: &mut Cx) -> Result<bool> {
        // Validating the root must not copy it: check the object keywords directly.
        let s = &self.0;
        if let Some(types) = &s.types {
            if !types.has(&Bson::Document(Document::new())) {
                return Ok(false);
            }
        }
        if s.enumeration.is_some() || !s.all_of.is_empty() || !s.any_of.is_empty() || !s.one_of.is_empty() || s.not.is_some() {
            return Ok(s.validate(&Bson::Document(doc.clone())));
        }
        Ok(s.validate_object(doc))
    }
}

pub(crate) fn parse(_op: &str, arg: &Bson, _pc: &ParseCx, _level: Level) -> Result<Option<Node>> {
    let Bson::Document(d) = arg else {
        return Err(Error::new(ErrorKind::TypeMismatch, "$jsonSchema must be an object"));
    };
    Ok(Some(Node::doc(JsonSchema(Schema::parse(d)?))))
}
