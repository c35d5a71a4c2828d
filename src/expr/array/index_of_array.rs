//! `$indexOfArray: [array, value, start?, end?]`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::{display_val, Simple};
use crate::expr::comparison::cmp::compare_vals;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::ranged(name, arg, scope, 2, 4, eval)
}

/// A start or end index of `$indexOfArray`/`$indexOfBytes`/`$indexOfCP`: integral, non-negative.
pub(crate) fn index_arg(name: &str, what: &str, v: &Val) -> Result<usize> {
    let n = v.as_bson().and_then(Number::from_bson).and_then(|n| n.to_exact_i64());
    let Some(i) = n.filter(|i| i32::try_from(*i).is_ok()) else {
        return Err(Error::code(
            40096,
            format!("{name}requires an integral {what}, found a value of type: {}, with value: {}", v.type_name(), display_val(v)),
        ));
    };
    if i < 0 {
        return Err(Error::code(40097, format!("{name} requires a nonnegative {what}, found: {i}")));
    }
    Ok(i as usize)
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    if args[0].is_nullish() {
        return Ok(Some(Bson::Null));
    }
    let Some(arr) = args[0].as_array() else {
        return Err(Error::code(
            40090,
            format!("$indexOfArray requires an array as a first argument, found: {}", args[0].type_name()),
        ));
    };
    let start = match args.get(2) {
        Some(v) => index_arg(name, "starting index", v)?,
        None => 0,
    };
    let end = match args.get(3) {
        Some(v) => index_arg(name, "ending index", v)?.min(arr.len()),
        None => arr.len(),
    };
    for (i, e) in arr.iter().enumerate().take(end).skip(start) {
        if compare_vals(&Val::Ref(e), &args[1]) == std::cmp::Ordering::Equal {
            return Ok(Some(Bson::Int32(i as i32)));
        }
    }
    Ok(Some(Bson::Int32(-1)))
}
