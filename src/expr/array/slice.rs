//! `$slice: [array, n]` or `[array, position, n]`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::value::display::stream_double;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::ranged(name, arg, scope, 2, 3, eval)
}

fn int32(v: &Val, ord: &str, codes: (i32, i32), numeric_word: &str) -> Result<i64> {
    let Some(n) = v.as_bson().and_then(Number::from_bson) else {
        return Err(Error::code(
            codes.0,
            format!("{ord} argument to $slice must be {numeric_word}, but is of type: {}", v.type_name()),
        ));
    };
    n.to_exact_i64().filter(|i| i32::try_from(*i).is_ok()).ok_or_else(|| {
        Error::code(codes.1, format!("{ord} argument to $slice can't be represented as a 32-bit integer: {}", stream_double(n.to_f64())))
    })
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    if args[0].is_nullish() || args[1].is_nullish() {
        return Ok(Some(Bson::Null));
    }
    let Some(arr) = args[0].as_array() else {
        return Err(Error::code(
            28724,
            format!("First argument to $slice must be an array, but is of type: {}", args[0].type_name()),
        ));
    };
    let second = int32(&args[1], "Second", (28725, 28726), "a numeric value")?;
    let len = arr.len() as i64;
    let (start, end) = if args.len() == 2 {
        if second >= 0 {
            (0, second.min(len))
        } else {
            ((len + second).max(0), len)
        }
    } else {
        let start = if second < 0 { (len + second).max(0) } else { second.min(len) };
        if args[2].is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let count = int32(&args[2], "Third", (28727, 28728), "numeric")?;
        if count <= 0 {
            return Err(Error::code(28729, format!("Third argument to $slice must be positive: {count}")));
        }
        (start, (start + count).min(len))
    };
    Ok(Some(Bson::Array(arr[start as usize..end as usize].to_vec())))
}
