//! `$range: [start, end, step?]`.

use bson::Bson;

use crate::error::{Error, ErrorKind, Result};
use crate::expr::args::{display_val, Simple};
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::ranged(name, arg, scope, 2, 3, eval)
}

/// The most elements one `$range` may produce (the server's 100 MB `internalQueryMaxRangeBytes`
/// at its approximate element size).
const MAX_BYTES: i64 = 104_857_600;

fn int_arg(v: &Val, what: &str, code_type: i32, code_int: i32) -> Result<i64> {
    let Some(n) = v.as_bson().and_then(Number::from_bson) else {
        let sep = if what == "step" { ":" } else { ": " };
        return Err(Error::code(
            code_type,
            format!("$range requires a numeric {what} value, found value of type{sep}{}", v.type_name()),
        ));
    };
    match n.to_exact_i64().filter(|i| i32::try_from(*i).is_ok()) {
        Some(i) => Ok(i),
        None => Err(Error::code(
            code_int,
            format!(
                "$range requires a{} {what} value that can be represented as a 32-bit integer, found value: {}",
                if what == "ending" { "n" } else { "" },
                display_val(v)
            ),
        )),
    }
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let start = int_arg(&args[0], "starting", 34443, 34444)?;
    let end = int_arg(&args[1], "ending", 34445, 34446)?;
    let step = match args.get(2) {
        Some(s) => {
            let st = int_arg(s, "step", 34447, 34448)?;
            if st == 0 {
                return Err(Error::code(34449, "$range requires a non-zero step value"));
            }
            st
        }
        None => 1,
    };
    let steps = (end - start) / step;
    let len = if steps >= 0 { 1 + steps } else { 0 };
    let mem = 24 + len * 16;
    if mem >= MAX_BYTES {
        return Err(Error::new(
            ErrorKind::ExceededMemoryLimit,
            format!("$range would use too much memory ({mem} bytes) and cannot spill to disk. Memory limit: {MAX_BYTES} bytes"),
        ));
    }
    let mut out = Vec::new();
    let mut cur = start;
    while if step > 0 { cur < end } else { cur > end } {
        out.push(Bson::Int32(cur as i32));
        cur += step;
    }
    Ok(Some(Bson::Array(out)))
}
