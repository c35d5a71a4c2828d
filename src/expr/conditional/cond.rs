//! `$cond`: `[if, then, else]` or `{ if, then, else }`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::{check_exact, operands};
use crate::expr::{val_truthy, Ctx, Expr, Op, Val, VarScope};

#[derive(Debug)]
struct Cond {
    cond: Expr,
    then: Expr,
    otherwise: Expr,
}

impl Op for Cond {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        Ok(self.eval_val(ctx)?.into_option())
    }

    fn eval_val<'a>(&'a self, ctx: &Ctx<'a>) -> Result<Val<'a>> {
        if val_truthy(&self.cond.eval_val(ctx)?) {
            self.then.eval_val(ctx)
        } else {
            self.otherwise.eval_val(ctx)
        }
    }
}

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    if let Bson::Document(d) = arg {
        if !d.keys().next().is_some_and(|k| k.starts_with('$')) {
            let (mut c, mut t, mut e) = (None, None, None);
            for (k, v) in d {
                match k.as_str() {
                    "if" => c = Some(Expr::parse(v, scope)?),
                    "then" => t = Some(Expr::parse(v, scope)?),
                    "else" => e = Some(Expr::parse(v, scope)?),
                    _ => return Err(Error::code(17083, format!("Unrecognized parameter to $cond: {k}"))),
                }
            }
            let cond = c.ok_or_else(|| Error::code(17080, "Missing 'if' parameter to $cond"))?;
            let then = t.ok_or_else(|| Error::code(17081, "Missing 'then' parameter to $cond"))?;
            let otherwise = e.ok_or_else(|| Error::code(17082, "Missing 'else' parameter to $cond"))?;
            return Ok(Expr::op(Cond { cond, then, otherwise }));
        }
    }
    let mut args = operands(arg, scope)?;
    check_exact(name, args.len(), 3)?;
    let otherwise = args.pop().unwrap_or_else(|| Expr::constant(Bson::Null));
    let then = args.pop().unwrap_or_else(|| Expr::constant(Bson::Null));
    let cond = args.pop().unwrap_or_else(|| Expr::constant(Bson::Null));
    Ok(Expr::op(Cond { cond, then, otherwise }))
}
