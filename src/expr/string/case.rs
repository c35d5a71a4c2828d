//! `$toLower` and `$toUpper` (ASCII letters only, as the server).

use bson::Bson;

use crate::error::Result;
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let s = super::coerce_to_string(&args[0], name)?;
    Ok(Some(Bson::String(if name == "$toLower" { s.to_ascii_lowercase() } else { s.to_ascii_uppercase() })))
}
