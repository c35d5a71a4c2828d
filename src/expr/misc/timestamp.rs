//! `$tsSecond` and `$tsIncrement`: the parts of a timestamp, as longs.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    if args[0].is_nullish() {
        return Ok(Some(Bson::Null));
    }
    match args[0].as_bson() {
        Some(Bson::Timestamp(t)) => {
            Ok(Some(Bson::Int64(if name == "$tsSecond" { t.time as i64 } else { t.increment as i64 })))
        }
        _ => Err(Error::code(
            if name == "$tsSecond" { 5687301 } else { 5687302 },
            format!("Argument to {name} must be a timestamp, but is {}", args[0].type_name()),
        )),
    }
}
