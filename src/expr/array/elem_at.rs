//! `$arrayElemAt`, `$first` and `$last` (the server's shared `arrayElemAt`).

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::value::display::stream_double;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::Number;

pub fn parse_elem_at(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 2, eval_elem_at)
}

pub fn parse_first_last(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval_first_last)
}

fn eval_elem_at(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    elem_at(name, 2, &args[0], &args[1])
}

fn eval_first_last(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let idx = if name == "$first" { Bson::Int32(0) } else { Bson::Int32(-1) };
    elem_at(name, 1, &args[0], &Val::Ref(&idx))
}

fn elem_at(name: &str, arity: usize, array: &Val, index: &Val) -> Result<Option<Bson>> {
    if array.is_nullish() || index.is_nullish() {
        return Ok(Some(Bson::Null));
    }
    let Some(arr) = array.as_array() else {
        return Err(Error::code(
            28689,
            format!(
                "{name}'s {} must be an array, but is {}",
                if arity == 1 { "argument" } else { "first argument" },
                array.type_name()
            ),
        ));
    };
    let Some(n) = index.as_bson().and_then(Number::from_bson) else {
        return Err(Error::code(
            28690,
            format!("{name}'s second argument must be a numeric value, but is {}", index.type_name()),
        ));
    };
    let Some(i) = n.to_exact_i64().filter(|i| i32::try_from(*i).is_ok()) else {
        return Err(Error::code(
            28691,
            format!("{name}'s second argument must be representable as a 32-bit integer: {}", stream_double(n.to_f64())),
        ));
    };
    let len = arr.len() as i64;
    let i = if i < 0 { len + i } else { i };
    if i < 0 {
        return Ok(None);
    }
    Ok(arr.get(i as usize).cloned())
}
