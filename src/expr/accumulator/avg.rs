//! `$avg`: the mean of the numeric values (a double, or a decimal if any is decimal); null when
//! there are none.

use bson::Bson;

use crate::error::Result;
use crate::expr::arithmetic::add::AddState;
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::types::is_number;
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::variadic(name, arg, scope, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let mut state = AddState::new();
    let mut count = 0i64;
    for v in super::inputs(args) {
        if is_number(&v) {
            state.add(&v)?;
            count += 1;
        }
    }
    if count == 0 {
        return Ok(Some(Bson::Null));
    }
    Ok(Some(match Number::from_bson(&state.value()) {
        Some(Number::Decimal(d)) => Number::Decimal(d / decmathlib_rs::d128::d128::from(count)).to_bson(),
        Some(n) => Bson::Double(n.to_f64() / count as f64),
        None => Bson::Null,
    }))
}
