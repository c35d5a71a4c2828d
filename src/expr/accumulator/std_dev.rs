//! `$stdDevPop` and `$stdDevSamp` over the numeric values (Welford's algorithm, as the server).

use bson::Bson;

use crate::error::Result;
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::variadic(name, arg, scope, eval)
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let (mut count, mut mean, mut m2) = (0f64, 0f64, 0f64);
    for v in super::inputs(args) {
        if let Some(n) = Number::from_bson(&v) {
            let x = n.to_f64();
            count += 1.0;
            let delta = x - mean;
            mean += delta / count;
            m2 += delta * (x - mean);
        }
    }
    let samp = name == "$stdDevSamp";
    let denom = if samp { count - 1.0 } else { count };
    if denom <= 0.0 {
        return Ok(Some(Bson::Null));
    }
    Ok(Some(Bson::Double((m2 / denom).sqrt())))
}
