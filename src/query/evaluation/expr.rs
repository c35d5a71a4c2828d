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
        self.0.evaluate_truthy(doc, cx.env)
    }
}

pub(crate) fn parse(_op: &str, arg: &Bson, pc: &ParseCx, level: Level) -> Result<Option<Node>> {
    if level == Level::SubDocument {
        return Err(Error::bad_value("$expr can only be applied to the top-level document"));
    }
    Ok(Some(Node::doc(ExprPred(Expr::parse(arg, pc.scope)?))))
}
