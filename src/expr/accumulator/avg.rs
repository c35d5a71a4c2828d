//! `$avg`: the mean of the numeric values (a double, or a decimal if any is decimal); null when
//! there are none. Computed by the `$group` accumulator's sum and mean, as the server does.

use bson::Bson;

use crate::aggregate::accumulators::avg::mean;
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
    Ok(Some(mean(&sum)))
}
