//! `$size: n`: matches arrays of exactly `n` elements.

use bson::Bson;

use crate::error::{Error, Result};
use crate::query::int_arg;
use crate::query::node::{Cx, Node, Predicate};
use crate::query::parser::PathArgs;

#[derive(Debug, Clone)]
pub(crate) struct Size(usize);

impl Predicate for Size {
    fn match_type(&self) -> u8 {
        4
    }

    fn matches_value(&self, v: Option<&Bson>, _cx: &mut Cx) -> Result<bool> {
        Ok(matches!(v, Some(Bson::Array(a)) if a.len() == self.0))
    }

    fn traverse_leaf_arrays(&self) -> bool {
        false
    }
}

pub(crate) fn parse(a: &PathArgs) -> Result<Option<Node>> {
    let n = int_arg::to_non_negative_int("$size", a.arg).map_err(|e| Error::bad_value(format!("Failed to parse $size. {}", e.message)))?;
    Ok(Some(Node::path(a.path, Size(n as usize))))
}
