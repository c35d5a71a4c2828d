//! `$eq`, and the implicit equality of `{ field: value }`: matches a value equal to the
//! argument, an array containing it, or (for an array argument) an equal array. `{a: null}`
//! also matches a missing `a`.

use bson::Bson;

use super::{Cmp, CmpOp};
use crate::error::Result;
use crate::query::node::Node;
use crate::query::parser::PathArgs;

/// The equality predicate on `rhs`.
pub(crate) fn equality(rhs: Bson) -> Result<Cmp> {
    Cmp::new(CmpOp::Eq, rhs)
}

pub(crate) fn parse(a: &PathArgs) -> Result<Option<Node>> {
    Ok(Some(Node::path(a.path, equality(a.arg.clone())?)))
}
