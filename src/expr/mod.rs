//! Aggregation expressions (`$add`, `$map`, `$$ROOT`, ...), shared by `$expr`, pipeline updates
//! and aggregation stages.
//!
//! An expression is parsed once ([`Expr::parse`]) into a tree and evaluated per document
//! ([`Expr::evaluate`]). Operators live one per file in folders named after the manual's families
//! (`arithmetic/`, `array/`, ...); [`registry`] is the single table from operator name to parser,
//! and so also the source of the "Unrecognized expression" error.
//!
//! Evaluation borrows: `$$ROOT`, `$$CURRENT` and field paths are looked up in place ([`Val`]), so
//! `{ $bsonSize: "$$ROOT" }` or `{ $size: "$items" }` never copy the document.

mod args;
mod field_path;
pub mod registry;

mod accumulator;
mod arithmetic;
mod array;
mod boolean;
mod comparison;
mod conditional;
mod date;
pub use date::tzdb;
mod misc;
mod object;
mod set;
mod string;
mod type_;
mod variable;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use bson::{Bson, Document};

use crate::env::Env;
use crate::error::{Error, Result};

pub use field_path::{validate_name_for_write, FieldPath};
pub(crate) use array::n_elements::check_n;

/// Names of variables visible where an expression is parsed (for "Use of undefined variable").
/// Callers put the names of a command's `let` variables here (see [`VarScope::with_names`] and
/// [`VarScope::from_env`]); the system variables (`ROOT`, `CURRENT`, `NOW`, ...) are always
/// visible.
#[derive(Debug, Clone, Default)]
pub struct VarScope {
    pub names: Vec<String>,
}

impl VarScope {
    /// A scope with these user variable names.
    pub fn with_names<I, S>(names: I) -> VarScope
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        VarScope { names: names.into_iter().map(Into::into).collect() }
    }

    /// A scope with the names of the environment's `let` variables.
    pub fn from_env(env: &Env) -> VarScope {
        VarScope { names: env.vars.keys().cloned().collect() }
    }

    /// This scope plus one more name (for `$map`'s `as`, `$let`'s `vars`, ...).
    pub fn with(&self, name: &str) -> VarScope {
        let mut s = self.clone();
        s.names.push(name.to_string());
        s
    }

    pub fn contains(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }
}

/// True when a value counts as true for `$cond`, `$and`, `$filter`, `$expr`, ...: missing, null,
/// undefined, `false` and numeric zero (and NaN? no: NaN is true) are false; everything else
/// (including empty strings, arrays and objects) is true.
pub fn truthy(v: Option<&Bson>) -> bool {
    match v {
        None | Some(Bson::Null) | Some(Bson::Undefined) => false,
        Some(Bson::Boolean(b)) => *b,
        Some(Bson::Int32(i)) => *i != 0,
        Some(Bson::Int64(i)) => *i != 0,
        Some(Bson::Double(f)) => *f != 0.0,
        Some(Bson::Decimal128(d)) => !crate::value::number::to_d128(d).is_zero(),
        Some(_) => true,
    }
}

/// A parsed expression.
#[derive(Debug, Clone)]
pub struct Expr {
    node: Node,
}

#[derive(Clone)]
enum Node {
    /// A constant (including `$literal`).
    Const(Bson),
    /// `$a.b`, `$$ROOT`, `$$x.y`.
    Path(Arc<FieldPath>),
    /// `{ a: <expr>, b: <expr> }`: fields that evaluate to missing are left out.
    Object(Arc<Vec<(String, Expr)>>),
    /// `[<expr>, ...]`: missing elements become null.
    Array(Arc<Vec<Expr>>),
    /// An operator (`$add`, ...).
    Op(Arc<dyn Op>),
}

impl fmt::Debug for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Node::Const(b) => write!(f, "Const({b})"),
            Node::Path(p) => write!(f, "Path({p:?})"),
            Node::Object(o) => f.debug_map().entries(o.iter().map(|(k, v)| (k, v))).finish(),
            Node::Array(a) => f.debug_list().entries(a.iter()).finish(),
            Node::Op(o) => o.fmt(f),
        }
    }
}

/// One operator node. `eval` returns `None` for missing.
pub(crate) trait Op: fmt::Debug + Send + Sync {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>>;

    /// Evaluates without copying when the result is a borrowed value (`$let`, `$cond`, ...).
    fn eval_val<'a>(&'a self, ctx: &Ctx<'a>) -> Result<Val<'a>> {
        Ok(Val::from(self.eval(ctx)?))
    }
}

/// The value of an expression, borrowed where it could be.
#[derive(Debug, Clone)]
pub enum Val<'a> {
    Missing,
    /// The root document (`$$ROOT`, `$$CURRENT`).
    Doc(&'a Document),
    Ref(&'a Bson),
    Owned(Bson),
}

impl<'a> From<Option<Bson>> for Val<'a> {
    fn from(v: Option<Bson>) -> Self {
        match v {
            Some(b) => Val::Owned(b),
            None => Val::Missing,
        }
    }
}

impl<'a> Val<'a> {
    pub fn into_option(self) -> Option<Bson> {
        match self {
            Val::Missing => None,
            Val::Doc(d) => Some(Bson::Document(d.clone())),
            Val::Ref(b) => Some(b.clone()),
            Val::Owned(b) => Some(b),
        }
    }

    pub fn is_missing(&self) -> bool {
        matches!(self, Val::Missing)
    }

    /// Missing, null or undefined.
    pub fn is_nullish(&self) -> bool {
        matches!(self, Val::Missing | Val::Ref(Bson::Null | Bson::Undefined) | Val::Owned(Bson::Null | Bson::Undefined))
    }

    /// The value as a `Bson` (copies only the root document).
    pub fn bson(&self) -> Option<Cow<'_, Bson>> {
        match self {
            Val::Missing => None,
            Val::Doc(d) => Some(Cow::Owned(Bson::Document((*d).clone()))),
            Val::Ref(b) => Some(Cow::Borrowed(b)),
            Val::Owned(b) => Some(Cow::Borrowed(b)),
        }
    }

    /// The value when it is not the root document.
    pub fn as_bson(&self) -> Option<&Bson> {
        match self {
            Val::Ref(b) => Some(b),
            Val::Owned(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_doc(&self) -> Option<&Document> {
        match self {
            Val::Doc(d) => Some(d),
            Val::Ref(Bson::Document(d)) => Some(d),
            Val::Owned(Bson::Document(d)) => Some(d),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Bson>> {
        match self {
            Val::Ref(Bson::Array(a)) => Some(a),
            Val::Owned(Bson::Array(a)) => Some(a),
            _ => None,
        }
    }

    /// The server's type name (`"missing"` for missing).
    pub fn type_name(&self) -> &'static str {
        match self {
            Val::Missing => "missing",
            Val::Doc(_) => "object",
            Val::Ref(b) => crate::value::types::type_name(b),
            Val::Owned(b) => crate::value::types::type_name(b),
        }
    }
}

/// The evaluation context: the root document, the operation's environment and the variables
/// bound by enclosing `$let`/`$map`/`$filter`/`$reduce`.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    pub root: &'a Document,
    pub env: &'a Env,
    frame: Option<&'a Frame<'a>>,
}

/// Variables bound by one enclosing expression.
pub(crate) struct Frame<'a> {
    pub names: &'a [String],
    pub values: &'a [Option<&'a Bson>],
    pub parent: Option<&'a Frame<'a>>,
}

impl<'a> Ctx<'a> {
    pub fn new(root: &'a Document, env: &'a Env) -> Ctx<'a> {
        Ctx { root, env, frame: None }
    }

    /// A context with more variables bound.
    pub(crate) fn bind<'b>(&'b self, frame: &'b Frame<'b>) -> Ctx<'b> {
        Ctx { root: self.root, env: self.env, frame: Some(frame) }
    }

    pub(crate) fn frame(&self) -> Option<&'a Frame<'a>> {
        self.frame
    }

    /// The value of a user variable (innermost binding first, then the command's `let`).
    /// `Err(())` when it is not defined at all.
    pub(crate) fn lookup_var(&self, name: &str) -> std::result::Result<Val<'a>, ()> {
        let mut f = self.frame;
        while let Some(fr) = f {
            if let Some(i) = fr.names.iter().rposition(|n| n == name) {
                return Ok(match fr.values.get(i).copied().flatten() {
                    Some(v) => Val::Ref(v),
                    None => Val::Missing,
                });
            }
            f = fr.parent;
        }
        match self.env.vars.get(name) {
            Some(v) => Ok(Val::Ref(v)),
            None => Err(()),
        }
    }
}

impl Expr {
    /// Parses an expression; errors carry the server's codes (168 for an unknown operator, ...).
    pub fn parse(spec: &Bson, scope: &VarScope) -> Result<Expr> {
        match spec {
            Bson::String(s) if s.starts_with('$') => Ok(Expr { node: Node::Path(Arc::new(FieldPath::parse(s, scope)?)) }),
            Bson::Document(d) => Expr::parse_object(d, scope),
            Bson::Array(a) => {
                let items = a.iter().map(|e| Expr::parse(e, scope)).collect::<Result<Vec<_>>>()?;
                Ok(Expr { node: Node::Array(Arc::new(items)) })
            }
            other => Ok(Expr::constant(other.clone())),
        }
    }

    /// Parses an object: an operator (`{ $add: [...] }`) or an object of expressions.
    pub fn parse_object(d: &Document, scope: &VarScope) -> Result<Expr> {
        let Some((first, arg)) = d.iter().next() else {
            return Ok(Expr::constant(Bson::Document(Document::new())));
        };
        if first.starts_with('$') {
            if d.len() != 1 {
                return Err(Error::code(
                    15983,
                    format!(
                        "An object representing an expression must have exactly one field: {}",
                        crate::value::display::document(d)
                    ),
                ));
            }
            return registry::parse_operator(first, arg, scope);
        }
        let mut fields: Vec<(String, Expr)> = Vec::with_capacity(d.len());
        for (k, v) in d {
            field_path::validate_field_name(k)?;
            if fields.iter().any(|(f, _)| f == k) {
                return Err(Error::code(
                    16406,
                    format!("duplicate field name specified in object literal: {}", crate::value::display::document(d)),
                ));
            }
            fields.push((k.clone(), Expr::parse(v, scope)?));
        }
        Ok(Expr { node: Node::Object(Arc::new(fields)) })
    }

    /// A constant expression.
    pub fn constant(v: Bson) -> Expr {
        Expr { node: Node::Const(v) }
    }

    pub(crate) fn op(op: impl Op + 'static) -> Expr {
        Expr { node: Node::Op(Arc::new(op)) }
    }

    /// True when the expression does not depend on the document or variables.
    pub fn is_constant(&self) -> bool {
        matches!(self.node, Node::Const(_))
    }

    /// The constant value, when the expression is a constant.
    pub fn as_constant(&self) -> Option<&Bson> {
        match &self.node {
            Node::Const(b) => Some(b),
            _ => None,
        }
    }

    /// The field path (`"a.b"` for `"$a.b"`), when the expression is a plain field path of the
    /// current document.
    pub fn as_field_path(&self) -> Option<String> {
        match &self.node {
            Node::Path(p) => p.current_path(),
            _ => None,
        }
    }

    /// The fields of an object of expressions (`{ a: "$x", b: 1 }`), when the expression is one.
    pub(crate) fn as_object(&self) -> Option<&[(String, Expr)]> {
        match &self.node {
            Node::Object(fields) => Some(fields),
            _ => None,
        }
    }

    /// Evaluates against `root` (`$$ROOT` and `$$CURRENT`). `None` means missing (a missing field
    /// or `$$REMOVE`).
    pub fn evaluate(&self, root: &Document, env: &Env) -> Result<Option<Bson>> {
        self.eval(&Ctx::new(root, env))
    }

    /// Evaluates with extra variables bound (e.g. `$lookup`'s `let`, `$$this` of an accumulator).
    pub fn evaluate_with_vars(&self, root: &Document, env: &Env, vars: &HashMap<String, Bson>) -> Result<Option<Bson>> {
        let names: Vec<String> = vars.keys().cloned().collect();
        let values: Vec<Option<&Bson>> = names.iter().map(|n| vars.get(n)).collect();
        let frame = Frame { names: &names, values: &values, parent: None };
        let ctx = Ctx { root, env, frame: Some(&frame) };
        self.eval(&ctx)
    }

    /// Evaluates as a boolean (`$expr`, `$cond`'s `if`).
    pub fn evaluate_truthy(&self, root: &Document, env: &Env) -> Result<bool> {
        let ctx = Ctx::new(root, env);
        let v = self.eval_val(&ctx)?;
        Ok(val_truthy(&v))
    }

    pub(crate) fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        match &self.node {
            Node::Const(b) => Ok(Some(b.clone())),
            Node::Path(p) => Ok(p.eval(ctx)?.into_option()),
            Node::Object(fields) => {
                let mut out = Document::new();
                for (k, e) in fields.iter() {
                    if let Some(v) = e.eval(ctx)? {
                        out.insert(k.clone(), v);
                    }
                }
                Ok(Some(Bson::Document(out)))
            }
            Node::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for e in items.iter() {
                    out.push(e.eval(ctx)?.unwrap_or(Bson::Null));
                }
                Ok(Some(Bson::Array(out)))
            }
            Node::Op(op) => op.eval(ctx),
        }
    }

    /// Evaluates, borrowing the result from the document or the expression where possible.
    pub(crate) fn eval_val<'a>(&'a self, ctx: &Ctx<'a>) -> Result<Val<'a>> {
        match &self.node {
            Node::Const(b) => Ok(Val::Ref(b)),
            Node::Path(p) => p.eval(ctx),
            Node::Op(op) => op.eval_val(ctx),
            _ => Ok(Val::from(self.eval(ctx)?)),
        }
    }
}

/// Evaluates an optional argument.
pub(crate) fn eval_opt<'a>(e: &'a Option<Expr>, ctx: &Ctx<'a>) -> Result<Option<Val<'a>>> {
    match e {
        Some(e) => Ok(Some(e.eval_val(ctx)?)),
        None => Ok(None),
    }
}

/// [`truthy`] over a [`Val`].
pub(crate) fn val_truthy(v: &Val) -> bool {
    match v {
        Val::Missing => false,
        Val::Doc(_) => true,
        Val::Ref(b) => truthy(Some(b)),
        Val::Owned(b) => truthy(Some(b)),
    }
}
