//! `$exists`: with a true argument, matches when the path yields any value (an empty array
//! counts, `a.b` through an array of scalars does not); with a false one, the negation.

use bson::Bson;

use super::true_value;
use crate::error::Result;
use crate::query::node::{Cx, Node, Predicate};
use crate::query::parser::PathArgs;

#[derive(Debug, Clone)]
pub(crate) struct Exists;

impl Predicate for Exists {
    fn match_type(&self) -> u8 {
        12
    }

    fn matches_value(&self, v: Option<&Bson>, _cx: &mut Cx) -> Result<bool> {
        Ok(v.is_some())
    }
}

pub(crate) fn parse(a: &PathArgs) -> Result<Option<Node>> {
    let node = Node::path(a.path, Exists);
    Ok(Some(if true_value(a.arg) { node } else { Node::Not(Box::new(node)) }))
}
