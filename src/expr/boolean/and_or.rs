//! `$and` and `$or`: short-circuit, any number of operands.

use bson::Bson;

use crate::error::Result;
use crate::expr::args::operands;
use crate::expr::{val_truthy, Ctx, Expr, Op, VarScope};

#[derive(Debug)]
struct AndOr {
    and: bool,
    args: Vec<Expr>,
}

impl Op for AndOr {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        for a in &self.args {
            let t = val_truthy(&a.eval_val(ctx)?);
            if t != self.and {
                return Ok(Some(Bson::Boolean(!self.and)));
            }
        }
        Ok(Some(Bson::Boolean(self.and)))
    }
}

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Ok(Expr::op(AndOr { and: name == "$and", args: operands(arg, scope)? }))
}
