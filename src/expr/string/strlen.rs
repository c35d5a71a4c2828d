//! `$strLenBytes` and `$strLenCP`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let bytes = name == "$strLenBytes";
    let Some(s) = super::as_str(&args[0]) else {
        return Err(Error::code(
            if bytes { 34473 } else { 34471 },
            format!("{name} requires a string argument, found: {}", args[0].type_name()),
        ));
    };
    let n = if bytes { s.len() } else { s.chars().count() };
    Ok(Some(Bson::Int32(n as i32)))
}
