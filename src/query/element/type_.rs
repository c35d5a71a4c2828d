//! `$type`: matches values of the given BSON types (names like `"string"`, numbers like `2`,
//! `"number"` for any numeric type, or an array of them). A leaf array is tested element by
//! element and whole, so `{$type: "array"}` matches arrays.

use bson::Bson;

use crate::error::{Error, ErrorKind, Result};
use crate::value::display::stream_double;
use crate::query::int_arg;
use crate::query::node::{Cx, Node, Predicate};
use crate::query::parser::PathArgs;
use crate::value::types::{is_number, number_for_alias, type_number};
use crate::value::Number;

/// A set of BSON types (`MatcherTypeSet`).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TypeSet {
    pub all_numbers: bool,
    pub types: Vec<i32>,
}

impl TypeSet {
    /// Parses a type, or an array of types, as `$type` and `bsonType` accept them.
    pub fn parse(v: &Bson) -> Result<TypeSet> {
        let mut set = TypeSet::default();
        match v {
            Bson::Array(list) => {
                for e in list {
                    set.add(e)?;
                }
            }
            other => set.add(other)?,
        }
        Ok(set)
    }

    fn add(&mut self, v: &Bson) -> Result<()> {
        match v {
            Bson::String(alias) => {
                if alias == "number" {
                    self.all_numbers = true;
                    return Ok(());
                }
                let code = number_for_alias(alias).ok_or_else(|| Error::bad_value(format!("Unknown type name alias: {alias}")))?;
                self.types.push(code);
                Ok(())
            }
            v if is_number(v) => {
                let shown = stream_double(Number::from_bson(v).map(|n| n.to_f64()).unwrap_or(f64::NAN));
                let code = int_arg::to_int("", v).map_err(|_| Error::bad_value(format!("Invalid numerical type code: {shown}")))?;
                if code == 0 {
                    return Err(Error::bad_value(format!("Invalid numerical type code: {shown}. Instead use {{$exists:false}}.")));
                }
                if !matches!(code, -1 | 1..=19 | 127) {
                    return Err(Error::bad_value(format!("Invalid numerical type code: {shown}")));
                }
                self.types.push(code);
                Ok(())
            }
            _ => Err(Error::new(ErrorKind::TypeMismatch, "type must be represented as a number or a string")),
        }
    }

    pub fn is_empty(&self) -> bool {
        !self.all_numbers && self.types.is_empty()
    }

    /// True when `v` has one of the types.
    pub fn has(&self, v: &Bson) -> bool {
        (self.all_numbers && is_number(v)) || self.types.contains(&type_number(v))
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Type(pub TypeSet);

impl Predicate for Type {
    fn match_type(&self) -> u8 {
        20
    }

    fn matches_value(&self, v: Option<&Bson>, _cx: &mut Cx) -> Result<bool> {
        Ok(v.is_some_and(|v| self.0.has(v)))
    }
}

pub(crate) fn parse(a: &PathArgs) -> Result<Option<Node>> {
    let set = TypeSet::parse(a.arg)?;
    if set.is_empty() {
        return Err(Error::failed_to_parse(format!("{} must match at least one type", a.path.full)));
    }
    Ok(Some(Node::path(a.path, Type(set))))
}
