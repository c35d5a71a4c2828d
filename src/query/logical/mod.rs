//! Logical query operators: `$and`, `$or`, `$nor` (top level, arrays of filters) and `$not`
//! (on a field).

pub mod and;
pub mod nor;
pub mod not;
pub mod or;

use bson::Bson;

use super::node::Node;
use super::parser::{parse, Level, ParseCx};
use crate::error::{Error, Result};

/// Parses the array of filters of `$and`, `$or` or `$nor` (`parseTreeTopLevel`).
pub(crate) fn parse_tree(op: &str, arg: &Bson, pc: &ParseCx, level: Level) -> Result<Vec<Node>> {
    let Bson::Array(list) = arg else {
        return Err(Error::bad_value(format!("{op} must be an array")));
    };
    if list.is_empty() {
        return Err(Error::bad_value("$and/$or/$nor must be a nonempty array"));
    }
    let mut children = Vec::with_capacity(list.len());
    for e in list {
        let Bson::Document(d) = e else {
            return Err(Error::bad_value("$or/$and/$nor entries need to be full objects"));
        };
        children.push(parse(d, pc, level)?);
    }
    Ok(children)
}
