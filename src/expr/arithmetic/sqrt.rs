//! `$sqrt`.

use bson::Bson;

use super::single_numeric;
use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let Some(n) = single_numeric(name, &args[0])? else { return Ok(Some(Bson::Null)) };
    let negative = || Error::code(28714, "$sqrt's argument must be greater than or equal to 0");
    Ok(Some(match n {
        Number::Decimal(d) => {
            if !d.is_nan() && d < decmathlib_rs::d128::d128::from(0) {
                return Err(negative());
            }
            let mut flags = 0;
            super::dec(d.square_root(None, &mut flags))
        }
        other => {
            let f = other.to_f64();
            if f < 0.0 {
                return Err(negative());
            }
            Bson::Double(f.sqrt())
        }
    }))
}
