//! `$and`: every filter of the array matches.

use bson::Bson;

use super::parse_tree;
use crate::error::Result;
use crate::query::node::Node;
use crate::query::parser::{Level, ParseCx};

pub(crate) fn parse(op: &str, arg: &Bson, pc: &ParseCx, level: Level) -> Result<Option<Node>> {
    Ok(Some(Node::And(parse_tree(op, arg, pc, level)?)))
}
