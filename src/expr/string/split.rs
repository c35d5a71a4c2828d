//! `$split: [string, delimiter]`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 2, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    if args[0].is_nullish() || args[1].is_nullish() {
        return Ok(Some(Bson::Null));
    }
    let Some(input) = super::as_str(&args[0]) else {
        return Err(Error::code(
            40085,
            format!("$split requires an expression that evaluates to a string as a first argument, found: {}", args[0].type_name()),
        ));
    };
    let Some(sep) = super::as_str(&args[1]) else {
        return Err(Error::code(
            40086,
            format!("$split requires an expression that evaluates to a string as a second argument, found: {}", args[1].type_name()),
        ));
    };
    if sep.is_empty() {
        return Err(Error::code(40087, "$split requires a non-empty separator"));
    }
    Ok(Some(Bson::Array(input.split(sep).map(|p| Bson::String(p.to_string())).collect())))
}
