//! `$id`, `$ref` and `$db` at the top level: equality on those DBRef field names (as inside an
//! `$elemMatch` over DBRefs).

use bson::Bson;

use crate::error::Result;
use crate::query::comparison::eq::equality;
use crate::query::node::{FieldPath, Node};
use crate::query::parser::{Level, ParseCx};

pub(crate) fn parse(op: &str, arg: &Bson, _pc: &ParseCx, _level: Level) -> Result<Option<Node>> {
    Ok(Some(Node::path(&FieldPath::new(op), equality(arg.clone())?)))
}
