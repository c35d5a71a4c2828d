//! `$not` on a field: the negation of a regex or of an operator document over all the values of
//! the path (`{a: {$not: {$gt: 5}}}` matches a missing `a` and non-numbers).

use bson::Bson;

use crate::error::{Error, Result};
use crate::query::evaluation::regex::RegexPred;
use crate::query::node::{FieldPath, Node};
use crate::query::parser::{parse_sub, Level, ParseCx};

pub(crate) fn parse_not(path: &FieldPath, arg: &Bson, pc: &ParseCx, level: Level) -> Result<Node> {
    match arg {
        Bson::RegularExpression(re) => {
            Ok(Node::Not(Box::new(Node::path(path, RegexPred::new(re.pattern.as_str(), re.options.as_str())?))))
        }
        Bson::Document(d) => {
            if d.is_empty() {
                return Err(Error::bad_value("$not cannot be empty"));
            }
            let mut children = Vec::new();
            parse_sub(path, d, &mut children, pc, level)?;
            Ok(Node::Not(Box::new(Node::And(children))))
        }
        _ => Err(Error::bad_value("$not needs a regex or a document")),
    }
}
