//! `$elemMatch`: matches arrays with at least one element satisfying every condition. With
//! operators (`{$elemMatch: {$gte: 80, $lt: 85}}`) the conditions apply to the element itself;
//! with fields (`{$elemMatch: {product: "x", qty: {$gt: 5}}}`) the element (a document, or an
//! array seen as one) must match the filter. Records the element's position for `$`.

use bson::{Bson, Document};

use crate::error::{Error, Result};
use crate::query::node::{Cx, FieldPath, Node, Predicate};
use crate::query::parser::{self, is_expression_document, parse_sub, Level, PathArgs};
use crate::query::registry;

/// `$elemMatch` on values.
#[derive(Debug, Clone)]
pub(crate) struct ElemMatchValue(Vec<Node>);

impl Predicate for ElemMatchValue {
    fn match_type(&self) -> u8 {
        3
    }

    fn matches_value(&self, v: Option<&Bson>, cx: &mut Cx) -> Result<bool> {
        let Some(Bson::Array(arr)) = v else { return Ok(false) };
        'elements: for (i, e) in arr.iter().enumerate() {
            for c in &self.0 {
                if !c.matches_single(e, &mut cx.silent())? {
                    continue 'elements;
                }
            }
            cx.set_key(i);
            return Ok(true);
        }
        Ok(false)
    }

    fn traverse_leaf_arrays(&self) -> bool {
        false
    }
}

/// `$elemMatch` on documents.
#[derive(Debug, Clone)]
pub(crate) struct ElemMatchObject(Node);

impl Predicate for ElemMatchObject {
    fn match_type(&self) -> u8 {
        2
    }

    fn matches_value(&self, v: Option<&Bson>, cx: &mut Cx) -> Result<bool> {
        let Some(Bson::Array(arr)) = v else { return Ok(false) };
        for (i, e) in arr.iter().enumerate() {
            let matched = match e {
                Bson::Document(d) => self.0.matches(d, &mut cx.silent())?,
                Bson::Array(inner) => self.0.matches(&array_as_document(inner), &mut cx.silent())?,
                _ => false,
            };
            if matched {
                cx.set_key(i);
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn traverse_leaf_arrays(&self) -> bool {
        false
    }
}

/// An array as the document `{ "0": .., "1": .. }` it is stored as.
pub(crate) fn array_as_document(a: &[Bson]) -> Document {
    a.iter().enumerate().map(|(i, v)| (i.to_string(), v.clone())).collect()
}

/// Parses the argument of `$elemMatch` on `path`.
pub(crate) fn parse_elem_match(path: &FieldPath, arg: &Bson, a: &PathArgs) -> Result<Node> {
    let Bson::Document(obj) = arg else {
        return Err(Error::bad_value("$elemMatch needs an Object"));
    };
    let value_form = is_expression_document(obj, true)
        && obj.keys().next().and_then(|k| k.strip_prefix('$')).is_some_and(|n| registry::pathless_operator(n).is_none());
    if value_form {
        let mut children = Vec::new();
        parse_sub(&FieldPath::new(""), obj, &mut children, a.pc, Level::SubDocument)?;
        return Ok(Node::path(path, ElemMatchValue(children)));
    }
    let sub = parser::parse(obj, a.pc, Level::SubDocument)?;
    Ok(Node::path(path, ElemMatchObject(sub)))
}

pub(crate) fn parse(a: &PathArgs) -> Result<Option<Node>> {
    parse_elem_match(a.path, a.arg, a).map(Some)
}
