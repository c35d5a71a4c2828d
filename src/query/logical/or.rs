//! `$or`: at least one filter of the array matches. Only a single-branch `$or` records the
//! array position for the positional `$` (the server optimizes it away).

use bson::Bson;

use super::parse_tree;
use crate::error::Result;
use crate::query::node::Node;
use crate::query::parser::{Level, ParseCx};

pub(crate) fn parse(op: &str, arg: &Bson, pc: &ParseCx, level: Level) -> Result<Option<Node>> {
    Ok(Some(Node::Or(parse_tree(op, arg, pc, level)?)))
}
