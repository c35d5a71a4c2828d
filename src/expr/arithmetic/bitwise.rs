//! `$bitAnd`, `$bitOr`, `$bitXor` (int and long operands) and `$bitNot`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::variadic(name, arg, scope, eval)
}

pub fn parse_not(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval_not)
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let mut acc: i64 = if name == "$bitAnd" { -1 } else { 0 };
    let mut long = false;
    for a in args {
        if a.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let x = match a.as_bson() {
            Some(Bson::Int32(i)) => *i as i64,
            Some(Bson::Int64(i)) => {
                long = true;
                *i
            }
            _ => return Err(Error::type_mismatch(format!("{name} only supports int and long operands."))),
        };
        acc = match name {
            "$bitAnd" => acc & x,
            "$bitOr" => acc | x,
            _ => acc ^ x,
        };
    }
    Ok(Some(if long { Bson::Int64(acc) } else { Bson::Int32(acc as i32) }))
}

fn eval_not(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let Some(n) = super::single_numeric(name, &args[0])? else { return Ok(Some(Bson::Null)) };
    match n {
        crate::value::Number::Int(i) => Ok(Some(Bson::Int32(!i))),
        crate::value::Number::Long(i) => Ok(Some(Bson::Int64(!i))),
        _ => Err(Error::type_mismatch(format!("{name} only supports int and long, not: {}.", args[0].type_name()))),
    }
}
