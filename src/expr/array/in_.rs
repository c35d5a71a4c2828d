//! `$in`: whether a value is an element of an array.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::comparison::cmp::compare_vals;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 2, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let Some(arr) = args[1].as_array() else {
        return Err(Error::code(
            40081,
            format!("$in requires an array as a second argument, found: {}", args[1].type_name()),
        ));
    };
    let found = arr.iter().any(|e| compare_vals(&args[0], &Val::Ref(e)) == std::cmp::Ordering::Equal);
    Ok(Some(Bson::Boolean(found)))
}
