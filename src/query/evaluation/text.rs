//! `$text`: needs a text index, which the playground does not build; refused as the server
//! refuses a `$text` query on a collection without one.

use bson::Bson;

use crate::error::{Error, ErrorKind, Result};
use crate::query::node::Node;
use crate::query::parser::{Level, ParseCx};

pub(crate) fn parse(_op: &str, _arg: &Bson, _pc: &ParseCx, level: Level) -> Result<Option<Node>> {
    if level == Level::SubDocument {
        return Err(Error::bad_value("$text can only be applied to the top-level document"));
    }
    Err(Error::new(ErrorKind::IndexNotFound, "text index required for $text query"))
}
