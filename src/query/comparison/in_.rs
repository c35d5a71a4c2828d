//! `$in`: matches a value equal to any element of the list (or matched by a regex in it); a
//! null in the list also matches a missing field (MongoDB 8: not undefined).

use std::collections::HashSet;

use bson::Bson;

use crate::error::{Error, Result};
use crate::query::evaluation::regex::RegexPred;
use crate::query::node::{Cx, Node, Predicate};
use crate::query::parser::{is_expression_value, PathArgs};
use crate::value::hash_key;

/// The `$in` predicate.
#[derive(Debug, Clone)]
pub(crate) struct In {
    keys: HashSet<Vec<u8>, crate::value::KeyHasher>,
    regexes: Vec<RegexPred>,
    has_null: bool,
    /// The plain values, in the order given (for upsert seeds and index lookups).
    pub values: Vec<Bson>,
}

impl In {
    /// Parses the list of an `$in` or `$nin`.
    pub fn parse_list(list: &[Bson]) -> Result<In> {
        let mut keys = HashSet::default();
        let mut regexes = Vec::new();
        let mut values = Vec::new();
        let mut has_null = false;
        for e in list {
            if is_expression_value(e, false) {
                return Err(Error::bad_value("cannot nest $ under $in"));
            }
            match e {
                Bson::RegularExpression(re) => regexes.push(RegexPred::new(re.pattern.as_str(), re.options.as_str())?),
                Bson::Undefined => return Err(Error::bad_value("InMatchExpression equality cannot be undefined")),
                _ => {
                    has_null |= matches!(e, Bson::Null);
                    keys.insert(hash_key(e));
                    values.push(e.clone());
                }
            }
        }
        Ok(In { keys, regexes, has_null, values })
    }
}

impl Predicate for In {
    fn match_type(&self) -> u8 {
        13
    }

    fn matches_value(&self, v: Option<&Bson>, cx: &mut Cx) -> Result<bool> {
        let Some(v) = v else { return Ok(self.has_null) };
        if self.keys.contains(&hash_key(v)) {
            return Ok(true);
        }
        for re in &self.regexes {
            if re.matches_value(Some(v), cx)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn equality_value(&self) -> Option<&Bson> {
        match (&self.values[..], self.regexes.is_empty()) {
            ([v], true) => Some(v),
            _ => None,
        }
    }
}

/// Checks the argument of `$in`/`$nin` is an array.
pub(crate) fn list<'a>(a: &'a PathArgs, op: &str) -> Result<&'a [Bson]> {
    match a.arg {
        Bson::Array(list) => Ok(list),
        _ => Err(Error::bad_value(format!("{op} needs an array"))),
    }
}

pub(crate) fn parse(a: &PathArgs) -> Result<Option<Node>> {
    Ok(Some(Node::path(a.path, In::parse_list(list(a, "$in")?)?)))
}
