//! `$not`.

use bson::Bson;

use crate::error::Result;
use crate::expr::args::Simple;
use crate::expr::{val_truthy, Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    Ok(Some(Bson::Boolean(!val_truthy(&args[0]))))
}
