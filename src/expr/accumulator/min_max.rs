//! `$min` and `$max`: by the BSON order, ignoring null and missing; null when nothing is left.

use std::cmp::Ordering;

use bson::Bson;

use crate::error::Result;
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::compare;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::variadic(name, arg, scope, eval)
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let want = if name == "$max" { Ordering::Greater } else { Ordering::Less };
    let mut best: Option<std::borrow::Cow<Bson>> = None;
    for v in super::inputs(args) {
        if matches!(*v, Bson::Null | Bson::Undefined) {
            continue;
        }
        let better = match &best {
            None => true,
            Some(b) => compare(&v, b) == want,
        };
        if better {
            best = Some(v);
        }
    }
    Ok(Some(best.map(|b| b.into_owned()).unwrap_or(Bson::Null)))
}
