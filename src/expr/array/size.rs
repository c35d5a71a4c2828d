//! `$size`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    match args[0].as_array() {
        Some(a) => Ok(Some(super::super::arithmetic::int_or_long(a.len() as i64))),
        None => Err(Error::code(
            17124,
            format!("The argument to $size must be an array. Type of argument is: {}", args[0].type_name()),
        )),
    }
}
