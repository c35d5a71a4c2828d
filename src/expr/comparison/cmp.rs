//! `$cmp`, `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`.

use std::cmp::Ordering;

use bson::Bson;

use crate::error::Result;
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::compare;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 2, eval)
}

/// Compares two evaluated values (missing as undefined).
pub(crate) fn compare_vals(a: &Val, b: &Val) -> Ordering {
    const UNDEF: Bson = Bson::Undefined;
    match (a, b) {
        (Val::Doc(x), Val::Doc(y)) => crate::value::compare_documents(x, y),
        _ => {
            let x = a.bson();
            let y = b.bson();
            compare(x.as_deref().unwrap_or(&UNDEF), y.as_deref().unwrap_or(&UNDEF))
        }
    }
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let o = compare_vals(&args[0], &args[1]);
    let b = match name {
        "$cmp" => {
            return Ok(Some(Bson::Int32(match o {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            })))
        }
        "$eq" => o == Ordering::Equal,
        "$ne" => o != Ordering::Equal,
        "$gt" => o == Ordering::Greater,
        "$gte" => o != Ordering::Less,
        "$lt" => o == Ordering::Less,
        _ => o != Ordering::Greater,
    };
    Ok(Some(Bson::Boolean(b)))
}
