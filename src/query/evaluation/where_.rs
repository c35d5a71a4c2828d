//! `$where`: JavaScript predicates. The playground runs no server-side JavaScript, so it is
//! refused as a server with scripting disabled refuses it.

use bson::Bson;

use crate::error::{Error, Result};
use crate::query::node::Node;
use crate::query::parser::{Level, ParseCx};

pub(crate) fn parse(_op: &str, _arg: &Bson, _pc: &ParseCx, level: Level) -> Result<Option<Node>> {
    if level == Level::SubDocument {
        return Err(Error::bad_value("$where can only be applied to the top-level document"));
    }
    Err(Error::bad_value("$where is not allowed in this context"))
}
