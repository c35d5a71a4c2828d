//! `$abs`.

use bson::Bson;

use super::{int_or_long, single_numeric};
use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let Some(n) = single_numeric(name, &args[0])? else { return Ok(Some(Bson::Null)) };
    Ok(Some(match n {
        Number::Double(f) => Bson::Double(f.abs()),
        Number::Decimal(d) => super::dec(d.abs()),
        Number::Int(i) => int_or_long((i as i64).abs()),
        Number::Long(i) => match i.checked_abs() {
            Some(a) => Bson::Int64(a),
            None => return Err(Error::code(28680, "can't take $abs of long long min")),
        },
    }))
}
