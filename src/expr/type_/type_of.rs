//! `$type` and `$isNumber`.

use bson::Bson;

use crate::error::Result;
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse_type(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval_type)
}

pub fn parse_is_number(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval_is_number)
}

fn eval_type(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    Ok(Some(Bson::String(args[0].type_name().to_string())))
}

fn eval_is_number(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    Ok(Some(Bson::Boolean(args[0].as_bson().is_some_and(crate::value::types::is_number))))
}
