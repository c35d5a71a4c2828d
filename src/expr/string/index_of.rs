//! `$indexOfBytes` and `$indexOfCP`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::array::index_of_array::index_arg;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::ranged(name, arg, scope, 2, 4, eval)
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let bytes = name == "$indexOfBytes";
    let (c1, c2) = if bytes { (40091, 40092) } else { (40093, 40094) };
    if args[0].is_nullish() {
        return Ok(Some(Bson::Null));
    }
    let Some(input) = super::as_str(&args[0]) else {
        return Err(Error::code(c1, format!("{name} requires a string as the first argument, found: {}", args[0].type_name())));
    };
    let Some(token) = super::as_str(&args[1]) else {
        return Err(Error::code(c2, format!("{name} requires a string as the second argument, found: {}", args[1].type_name())));
    };
    let start = match args.get(2) {
        Some(v) => index_arg(name, "starting index", v)?,
        None => 0,
    };
    if bytes {
        let end = match args.get(3) {
            Some(v) => index_arg(name, "ending index", v)?.min(input.len()),
            None => input.len(),
        };
        if start > input.len() || end < start {
            return Ok(Some(Bson::Int32(-1)));
        }
        let hay = &input.as_bytes()[..end];
        let t = token.as_bytes();
        let pos = (start..=hay.len().saturating_sub(t.len())).find(|&i| hay.len() >= t.len() && &hay[i..i + t.len()] == t);
        return Ok(Some(Bson::Int32(pos.map(|p| p as i32).unwrap_or(-1))));
    }
    let chars: Vec<char> = input.chars().collect();
    let tok: Vec<char> = token.chars().collect();
    let end = match args.get(3) {
        Some(v) => index_arg(name, "ending index", v)?.min(chars.len()),
        None => chars.len(),
    };
    if start > chars.len() || end < start {
        return Ok(Some(Bson::Int32(-1)));
    }
    let mut i = start;
    while i + tok.len() <= end {
        if chars[i..i + tok.len()] == tok[..] {
            return Ok(Some(Bson::Int32(i as i32)));
        }
        i += 1;
    }
    Ok(Some(Bson::Int32(-1)))
}
