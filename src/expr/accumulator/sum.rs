//! `$sum`: the sum of the numeric values (others ignored); 0 when there are none. The server
//! evaluates the expression with the `$group` accumulator itself, so both share one sum
//! (`NumSum`: exact integers, double-double doubles).

use bson::Bson;

use crate::aggregate::accumulators::sum::NumSum;
use crate::error::Result;
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::variadic(name, arg, scope, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let mut sum = NumSum::default();
    for v in super::inputs(args) {
        sum.add(&v);
    }
    Ok(Some(sum.total()))
}
