//! `$bitsAllClear`: matches integral numbers and BinData in which every listed bit is 0.

use super::{parse_bit_test, BitOp};
use crate::error::Result;
use crate::query::node::Node;
use crate::query::parser::PathArgs;

pub(crate) fn parse(a: &PathArgs) -> Result<Option<Node>> {
    parse_bit_test(a, BitOp::AllClear)
}
