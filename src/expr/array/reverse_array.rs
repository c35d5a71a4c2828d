//! `$reverseArray`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    if args[0].is_nullish() {
        return Ok(Some(Bson::Null));
    }
    match args[0].as_array() {
        Some(a) => Ok(Some(Bson::Array(a.iter().rev().cloned().collect()))),
        None => Err(Error::code(
            34435,
            format!("The argument to $reverseArray must be an array, but was of type: {}", args[0].type_name()),
        )),
    }
}
