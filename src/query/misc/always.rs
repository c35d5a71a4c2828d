//! `$alwaysTrue: 1` and `$alwaysFalse: 1`.

use bson::{Bson, Document};

use crate::error::{Error, Result};
use crate::query::int_arg;
use crate::query::node::{Cx, DocPredicate, Node};
use crate::query::parser::{Level, ParseCx};

#[derive(Debug, Clone)]
pub(crate) struct Always(pub bool);

impl DocPredicate for Always {
    fn matches_doc(&self, _doc: &Document, _cx: &mut Cx) -> Result<bool> {
        Ok(self.0)
    }
}

fn parse(op: &str, arg: &Bson, value: bool) -> Result<Option<Node>> {
    if int_arg::to_long(op, arg)? != 1 {
        return Err(Error::failed_to_parse(format!("{op} must be an integer value of 1")));
    }
    Ok(Some(Node::doc(Always(value))))
}

pub(crate) fn parse_true(op: &str, arg: &Bson, _pc: &ParseCx, _level: Level) -> Result<Option<Node>> {
    parse(op, arg, true)
}

pub(crate) fn parse_false(op: &str, arg: &Bson, _pc: &ParseCx, _level: Level) -> Result<Option<Node>> {
    parse(op, arg, false)
}
