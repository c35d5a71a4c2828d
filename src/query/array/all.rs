//! `$all`: matches when every listed value is matched (as by equality, or a regex), i.e. an
//! array containing them all; or, with `$elemMatch` entries, when every `$elemMatch` matches.
//! An empty list matches nothing.

use bson::{Bson, Document};

use super::elem_match::parse_elem_match;
use crate::error::{Error, Result};
use crate::query::comparison::eq::equality;
use crate::query::evaluation::regex::RegexPred;
use crate::query::node::{Cx, DocPredicate, Node};
use crate::query::parser::PathArgs;
use crate::query::registry;

/// Matches nothing (`$all: []`).
#[derive(Debug, Clone)]
pub(crate) struct Never;

impl DocPredicate for Never {
    fn matches_doc(&self, _doc: &Document, _cx: &mut Cx) -> Result<bool> {
        Ok(false)
    }
}

fn first_key(v: &Bson) -> Option<&str> {
    match v {
        Bson::Document(d) => d.keys().next().map(String::as_str),
        _ => None,
    }
}

pub(crate) fn parse(a: &PathArgs) -> Result<Option<Node>> {
    let Bson::Array(list) = a.arg else {
        return Err(Error::bad_value("$all needs an array"));
    };
    let mut children = Vec::with_capacity(list.len());
    if list.first().and_then(first_key) == Some("$elemMatch") {
        for e in list {
            let Bson::Document(d) = e else {
                return Err(Error::bad_value("$all/$elemMatch has to be consistent"));
            };
            match d.iter().next() {
                Some((k, arg)) if k == "$elemMatch" => children.push(parse_elem_match(a.path, arg, a)?),
                _ => return Err(Error::bad_value("$all/$elemMatch has to be consistent")),
            }
        }
        return Ok(Some(Node::And(children)));
    }
    for e in list {
        match e {
            Bson::RegularExpression(re) => children.push(Node::path(a.path, RegexPred::new(re.pattern.as_str(), re.options.as_str())?)),
            Bson::Document(_) if first_key(e).is_some_and(registry::is_path_keyword) => {
                return Err(Error::bad_value("no $ expressions in $all"));
            }
            _ => children.push(Node::path(a.path, equality(e.clone())?)),
        }
    }
    if children.is_empty() {
        return Ok(Some(Node::doc(Never)));
    }
    Ok(Some(Node::And(children)))
}
