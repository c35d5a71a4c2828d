//! `$lte`: matches values less than or equal to the argument, within its canonical type bracket.

use super::{parse_ordering, CmpOp};
use crate::error::Result;
use crate::query::node::Node;
use crate::query::parser::PathArgs;

pub(crate) fn parse(a: &PathArgs) -> Result<Option<Node>> {
    parse_ordering(a, CmpOp::Lte)
}
