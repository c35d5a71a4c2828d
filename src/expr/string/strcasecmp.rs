//! `$strcasecmp`: case-insensitive (ASCII) comparison, -1/0/1.

use bson::Bson;

use crate::error::Result;
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 2, eval)
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let a = super::coerce_to_string(&args[0], name)?.to_ascii_uppercase();
    let b = super::coerce_to_string(&args[1], name)?.to_ascii_uppercase();
    Ok(Some(Bson::Int32(match a.as_bytes().cmp(b.as_bytes()) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    })))
}
