//! `$redact: <expr>`: restricts each document by an expression evaluated at every embedded
//! document level (`$$CURRENT`): `$$KEEP` keeps the level, `$$PRUNE` drops it, `$$DESCEND` keeps
//! its scalar fields and applies the expression to its embedded documents.

use std::collections::HashMap;
use std::sync::Arc;

use bson::{Bson, Document};

use crate::aggregate::util::{child_env, err};
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::env::Env;
use crate::error::Result;
use crate::expr::Expr;
use crate::value::equal;
use crate::value::display;

#[derive(Debug)]
pub(crate) struct Redact {
    expr: Expr,
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let mut scope = pcx.scope.clone();
    for n in ["KEEP", "PRUNE", "DESCEND", "CURRENT"] {
        scope.names.push(n.to_string());
    }
    Ok(Arc::new(Redact { expr: Expr::parse(spec, &scope)? }))
}

impl Redact {
    fn level(&self, current: Document, root: &Document, env: &Env) -> Result<Option<Document>> {
        let mut vars = HashMap::new();
        vars.insert("KEEP".to_string(), Bson::String("keep".into()));
        vars.insert("PRUNE".to_string(), Bson::String("prune".into()));
        vars.insert("DESCEND".to_string(), Bson::String("descend".into()));
        vars.insert("CURRENT".to_string(), Bson::Document(current));
        let child = child_env(env, &vars);
        let verdict = self.expr.evaluate(root, &child)?;
        let Some(Bson::Document(current)) = vars.remove("CURRENT") else { return Ok(None) };
        match verdict {
            Some(v) if equal(&v, &Bson::String("keep".into())) => Ok(Some(current)),
            Some(v) if equal(&v, &Bson::String("prune".into())) => Ok(None),
            Some(v) if equal(&v, &Bson::String("descend".into())) => {
                let mut out = Document::new();
                for (k, v) in current {
                    if let Some(x) = self.value(v, root, env)? {
                        out.insert(k, x);
                    }
                }
                Ok(Some(out))
            }
            other => Err(err(
                17053,
                format!(
                    "$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned {}",
                    display::stream_value(other.as_ref())
                ),
            )),
        }
    }

    fn value(&self, v: Bson, root: &Document, env: &Env) -> Result<Option<Bson>> {
        match v {
            Bson::Document(d) => Ok(self.level(d, root, env)?.map(Bson::Document)),
            Bson::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for e in items {
                    if let Some(x) = self.value(e, root, env)? {
                        out.push(x);
                    }
                }
                Ok(Some(Bson::Array(out)))
            }
            other => Ok(Some(other)),
        }
    }
}

impl Stage for Redact {
    fn name(&self) -> &'static str {
        "$redact"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        Box::new(input.filter_map(move |d| match d {
            Ok(d) => {
                let root = d.clone();
                self.level(d, &root, cx.env).transpose()
            }
            Err(e) => Some(Err(e)),
        }))
    }
}
