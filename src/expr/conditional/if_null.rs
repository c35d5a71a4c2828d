//! `$ifNull`: the first operand that is neither null nor missing, else the last.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::operands;
use crate::expr::{Ctx, Expr, Op, Val, VarScope};

#[derive(Debug)]
struct IfNull {
    args: Vec<Expr>,
}

impl Op for IfNull {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        Ok(self.eval_val(ctx)?.into_option())
    }

    fn eval_val<'a>(&'a self, ctx: &Ctx<'a>) -> Result<Val<'a>> {
        let n = self.args.len();
        for (i, a) in self.args.iter().enumerate() {
            let v = a.eval_val(ctx)?;
            if i + 1 == n || !v.is_nullish() {
                return Ok(v);
            }
        }
        Ok(Val::Missing)
    }
}

pub fn parse(_: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let args = operands(arg, scope)?;
    if args.len() < 2 {
        return Err(Error::code(1257300, format!("$ifNull needs at least two arguments, had: {}", args.len())));
    }
    Ok(Expr::op(IfNull { args }))
}
