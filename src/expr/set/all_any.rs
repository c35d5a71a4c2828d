//! `$allElementsTrue` and `$anyElementTrue`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{truthy, Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let Some(arr) = args[0].as_array() else {
        return Err(Error::code(
            if name == "$allElementsTrue" { 17040 } else { 17041 },
            format!("{name}'s argument must be an array, but is {}", args[0].type_name()),
        ));
    };
    let r = if name == "$allElementsTrue" {
        arr.iter().all(|e| truthy(Some(e)))
    } else {
        arr.iter().any(|e| truthy(Some(e)))
    };
    Ok(Some(Bson::Boolean(r)))
}
