//! `$expr`: an aggregation expression evaluated against the whole document; the document
//! matches when the result is truthy (not false, null, missing, undefined or zero).

use bson::{Bson, Document};

use crate::error::{Error, Result};
use crate::expr::Expr;
use crate::query::node::{Cx, DocPredicate, Node};
use crate::query::parser::{Level, ParseCx};

#[derive(Debug, Clone)]
pub(crate) struct ExprPred(pub Expr);

impl DocPredicate for ExprPred {
    fn matches_doc(&self, doc: &Document, cx: &mut Cx) -> Result<bool> {
        Ok(self.0.evaluate(doc, cx.env)?.as_ref().is_some_and(coerce_to_bool))
    }
}

/// The server's `Value::coerceToBool`.
pub fn coerce_to_bool(v: &Bson) -> bool {
    match v {
        Bson::Null | Bson::Undefined => false,
        Bson::Boolean(b) => *b,
        Bson::Int32(i) => *i != 0,
        Bson::Int64(i) => *i != 0,
        Bson::Double(f) => *f != 0.0,
        Bson::Decimal128(_) => crate::value::Number::from_bson(v).is_some_and(|n| n.to_f64() != 0.0 || n.is_nan()),
        _ => true,
    }
}

pub(crate) fn parse(_op: &str, arg: &Bson, pc: &ParseCx, level: Level) -> Result<Option<Node>> {
    if level == Level::SubDocument {
        return Err(Error::bad_value("$expr can only be applied to the top-level document"));
    }
    Ok(Some(Node::doc(ExprPred(Expr::parse(arg, pc.scope)?))))
}
