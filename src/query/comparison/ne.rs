//! `$ne`: the negation of `$eq` over all the values of the path (so `{a: {$ne: 5}}` does not
//! match `[1, 5]`, and matches a missing `a`).

use bson::Bson;

use super::eq::equality;
use crate::error::{Error, Result};
use crate::query::node::Node;
use crate::query::parser::PathArgs;

pub(crate) fn parse(a: &PathArgs) -> Result<Option<Node>> {
    if matches!(a.arg, Bson::RegularExpression(_)) {
        return Err(Error::bad_value("Can't have regex as arg to $ne."));
    }
    Ok(Some(Node::Not(Box::new(Node::path(a.path, equality(a.arg.clone())?)))))
}
