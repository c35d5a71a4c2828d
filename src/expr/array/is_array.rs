//! `$isArray`.

use bson::Bson;

use crate::error::Result;
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    Ok(Some(Bson::Boolean(args[0].as_array().is_some())))
}
