//! `$concatArrays`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::variadic(name, arg, scope, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let mut out = Vec::new();
    for v in args {
        if v.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        match v.as_array() {
            Some(a) => out.extend(a.iter().cloned()),
            None => {
                return Err(Error::code(
                    28664,
                    format!("$concatArrays only supports arrays, not {}", v.type_name()),
                ))
            }
        }
    }
    Ok(Some(Bson::Array(out)))
}
