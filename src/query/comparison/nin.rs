//! `$nin`: the negation of `$in` over all the values of the path (matches a missing field
//! unless the list holds null).

use super::in_::{list, In};
use crate::error::Result;
use crate::query::node::Node;
use crate::query::parser::PathArgs;

pub(crate) fn parse(a: &PathArgs) -> Result<Option<Node>> {
    Ok(Some(Node::Not(Box::new(Node::path(a.path, In::parse_list(list(a, "$nin")?)?)))))
}
