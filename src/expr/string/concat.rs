//! `$concat`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::variadic(name, arg, scope, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let mut out = String::new();
    for v in args {
        if v.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        match super::as_str(v) {
            Some(s) => out.push_str(s),
            None => return Err(Error::code(16702, format!("$concat only supports strings, not {}", v.type_name()))),
        }
    }
    Ok(Some(Bson::String(out)))
}
