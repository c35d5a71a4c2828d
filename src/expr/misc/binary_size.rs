//! `$binarySize`: the byte length of a string or binary value.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let v = &args[0];
    if v.is_nullish() {
        return Ok(Some(Bson::Null));
    }
    let n = match v.as_bson() {
        Some(Bson::String(s)) => s.len(),
        Some(Bson::Binary(b)) => b.bytes.len(),
        _ => {
            return Err(Error::code(
                51276,
                format!("$binarySize requires a string or BinData argument, found: {}", v.type_name()),
            ))
        }
    };
    Ok(Some(super::super::arithmetic::int_or_long(n as i64)))
}
