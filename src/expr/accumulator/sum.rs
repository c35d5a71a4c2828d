//! `$sum`: the sum of the numeric values (others ignored); 0 when there are none.

use bson::Bson;

use crate::error::Result;
use crate::expr::arithmetic::add::AddState;
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::types::is_number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::variadic(name, arg, scope, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let mut state = AddState::new();
    for v in super::inputs(args) {
        if is_number(&v) {
            state.add(&v)?;
        }
    }
    Ok(Some(state.value()))
}
