//! `$replaceRoot: { newRoot: <expr> }` and `$replaceWith: <expr>`: each document replaced by the
//! document the expression evaluates to (anything else is an error, 40228).

use std::sync::Arc;

use bson::Bson;

use crate::aggregate::util::{err, tname};
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::error::Result;
use crate::expr::Expr;
use crate::value::display;

#[derive(Debug)]
pub(crate) struct ReplaceRoot {
    name: &'static str,
    new_root: Expr,
}

pub(crate) fn parse(name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let Bson::Document(d) = spec else {
        return Err(err(40229, format!("expected an object as specification for $replaceRoot stage, got {}", tname(spec))));
    };
    let mut new_root = None;
    for (k, v) in d {
        match k.as_str() {
            "newRoot" => new_root = Some(v),
            other => return Err(err(40415, format!("BSON field '$replaceRoot.{other}' is an unknown field."))),
        }
    }
    let new_root = new_root.ok_or_else(|| err(40414, "BSON field '$replaceRoot.newRoot' is missing but a required field"))?;
    Ok(Arc::new(ReplaceRoot { name, new_root: Expr::parse(new_root, &pcx.scope)? }))
}

pub(crate) fn parse_with(name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    Ok(Arc::new(ReplaceRoot { name, new_root: Expr::parse(spec, &pcx.scope)? }))
}

impl Stage for ReplaceRoot {
    fn name(&self) -> &'static str {
        self.name
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        Box::new(input.map(move |d| {
            let d = d?;
            match self.new_root.evaluate(&d, cx.env)? {
                Some(Bson::Document(nd)) => Ok(nd),
                other => {
                    let opener = if self.name == "$replaceWith" { "'replacement document' " } else { "'newRoot' expression " };
                    Err(err(
                        40228,
                        format!(
                            "{opener}must evaluate to an object, but resulting value was: {}. Type of resulting value: '{}'. Input document: {}",
                            display::stream_value(other.as_ref()),
                            other.as_ref().map(tname).unwrap_or("missing"),
                            display::stream_value(Some(&Bson::Document(d)))
                        ),
                    ))
                }
            }
        }))
    }
}
