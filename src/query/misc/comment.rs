//! `$comment`: annotates a query; matches nothing more and nothing less.

use bson::Bson;

use crate::error::Result;
use crate::query::node::Node;
use crate::query::parser::{Level, ParseCx};

pub(crate) fn parse(_op: &str, _arg: &Bson, _pc: &ParseCx, _level: Level) -> Result<Option<Node>> {
    Ok(None)
}
