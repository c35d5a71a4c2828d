//! `$documents: <expression>`: the documents of an array (a literal or a `let` variable), in
//! place of the input.

use std::sync::Arc;

use bson::{Bson, Document};

use crate::aggregate::stage::blocking;
use crate::aggregate::util::tname;
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::error::{Error, Result};
use crate::expr::Expr;

#[derive(Debug)]
pub(crate) struct Documents {
    expr: Expr,
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    Ok(Arc::new(Documents { expr: Expr::parse(spec, &pcx.scope)? }))
}

impl Stage for Documents {
    fn name(&self) -> &'static str {
        "$documents"
    }

    fn replaces_input(&self) -> bool {
        true
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        blocking(input, move |_input| {
            let v = self.expr.evaluate(&Document::new(), cx.env)?;
            let Some(Bson::Array(items)) = v else {
                let t = v.as_ref().map(tname).unwrap_or("missing");
                return Err(Error::type_mismatch(format!("$documents must be an array of objects, got {t}")));
            };
            items
                .into_iter()
                .map(|e| match e {
                    Bson::Document(d) => Ok(d),
                    other => Err(Error::type_mismatch(format!("$documents entries must be objects, got {}", tname(&other)))),
                })
                .collect()
        })
    }
}
