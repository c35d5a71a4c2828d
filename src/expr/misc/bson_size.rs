//! `$bsonSize`: the encoded size of a document (computed in place, never by copying it).

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::bson_size;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let v = &args[0];
    if v.is_nullish() {
        return Ok(Some(Bson::Null));
    }
    match v.as_doc() {
        Some(d) => Ok(Some(super::super::arithmetic::int_or_long(bson_size(d) as i64))),
        None => Err(Error::code(
            31393,
            format!("$bsonSize requires a document input, found: {}", v.type_name()),
        )),
    }
}
