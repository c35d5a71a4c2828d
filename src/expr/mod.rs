//! Aggregation expressions (`$add`, `$map`, `$$ROOT`, ...), shared by `$expr`, pipeline updates
//! and aggregation stages. STUB: the expression issue replaces this body; keep the signatures.

use bson::{Bson, Document};

use crate::env::Env;
use crate::error::{Error, ErrorKind, Result};

/// Names of variables visible where an expression is parsed (for "Use of undefined variable").
#[derive(Debug, Clone, Default)]
pub struct VarScope {
    pub names: Vec<String>,
}

/// A parsed expression.
#[derive(Debug, Clone)]
pub struct Expr {
    _spec: Bson,
}

impl Expr {
    /// Parses an expression; errors carry the server's codes (168 for an unknown operator, ...).
    pub fn parse(spec: &Bson, _scope: &VarScope) -> Result<Expr> {
        Ok(Expr { _spec: spec.clone() })
    }

    /// Evaluates against `root` (`$$ROOT` and `$$CURRENT`). `None` means missing (a missing field
    /// or `$$REMOVE`).
    pub fn evaluate(&self, _root: &Document, _env: &Env) -> Result<Option<Bson>> {
        Err(Error::new(ErrorKind::NotImplemented, "expressions are not implemented yet"))
    }
}
