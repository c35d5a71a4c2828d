//! Argument handling shared by the operators: operand lists, arity errors, the common
//! "evaluate every argument, then compute" operator, and the printing of evaluated values in
//! messages.

use bson::{Bson, Document};

use super::{Ctx, Expr, Op, Val, VarScope};
use crate::error::{Error, Result};

/// A parser: operator name (`"$add"`), its argument, the variables in scope.
pub type ParseFn = fn(&'static str, &Bson, &VarScope) -> Result<Expr>;

/// What a plain operator computes from its evaluated arguments.
pub type EvalFn = fn(&'static str, &[Val], &Ctx) -> Result<Option<Bson>>;

/// `ExpressionNary::parseArguments`: an array is the operand list, anything else one operand.
pub fn operands(arg: &Bson, scope: &VarScope) -> Result<Vec<Expr>> {
    match arg {
        Bson::Array(a) => a.iter().map(|e| Expr::parse(e, scope)).collect(),
        other => Ok(vec![Expr::parse(other, scope)?]),
    }
}

/// Error 16020 of a fixed-arity operator.
pub fn check_exact(name: &str, n: usize, expected: usize) -> Result<()> {
    if n != expected {
        return Err(Error::code(
            16020,
            format!("Expression {name} takes exactly {expected} arguments. {n} were passed in."),
        ));
    }
    Ok(())
}

/// Error 28667 of an operator with a range of arities.
pub fn check_range(name: &str, n: usize, min: usize, max: usize) -> Result<()> {
    if n < min || n > max {
        return Err(Error::code(
            28667,
            format!("Expression {name} takes at least {min} arguments, and at most {max}, but {n} were passed in."),
        ));
    }
    Ok(())
}

/// An operator that evaluates all its arguments and computes from them.
pub struct Simple {
    pub name: &'static str,
    pub args: Vec<Expr>,
    pub f: EvalFn,
}

impl std::fmt::Debug for Simple {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(self.name).field("args", &self.args).finish()
    }
}

impl Op for Simple {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let mut vals = Vec::with_capacity(self.args.len());
        for a in &self.args {
            vals.push(a.eval_val(ctx)?);
        }
        (self.f)(self.name, &vals, ctx)
    }
}

impl Simple {
    /// Any number of operands.
    pub fn variadic(name: &'static str, arg: &Bson, scope: &VarScope, f: EvalFn) -> Result<Expr> {
        Ok(Expr::op(Simple { name, args: operands(arg, scope)?, f }))
    }

    /// Exactly `n` operands (16020).
    pub fn fixed(name: &'static str, arg: &Bson, scope: &VarScope, n: usize, f: EvalFn) -> Result<Expr> {
        let args = operands(arg, scope)?;
        check_exact(name, args.len(), n)?;
        Ok(Expr::op(Simple { name, args, f }))
    }

    /// Between `min` and `max` operands (28667).
    pub fn ranged(name: &'static str, arg: &Bson, scope: &VarScope, min: usize, max: usize, f: EvalFn) -> Result<Expr> {
        let args = operands(arg, scope)?;
        check_range(name, args.len(), min, max)?;
        Ok(Expr::op(Simple { name, args, f }))
    }

    /// Already parsed operands.
    pub fn with_args(name: &'static str, args: Vec<Expr>, f: EvalFn) -> Expr {
        Expr::op(Simple { name, args, f })
    }
}

/// Parses a named-argument object: each known name's value as an expression (in `scope`), any
/// other name reported by `unknown`.
pub fn named<const N: usize>(
    d: &Document,
    names: [&str; N],
    scope: &VarScope,
    unknown: impl Fn(&str) -> Error,
) -> Result<[Option<Expr>; N]> {
    let mut out: [Option<Expr>; N] = std::array::from_fn(|_| None);
    for (k, v) in d {
        match names.iter().position(|n| n == k) {
            Some(i) => out[i] = Some(Expr::parse(v, scope)?),
            None => return Err(unknown(k)),
        }
    }
    Ok(out)
}

/// The server's `Value` printing (`operator<<(ostream, Value)`) of an evaluated value, as
/// [`crate::value::display::stream_value`] prints it: `MISSING`, `{a: 1}`, `[1, 2]`.
pub fn display_val(v: &Val) -> String {
    crate::value::display::stream_value(v.bson().as_deref())
}
