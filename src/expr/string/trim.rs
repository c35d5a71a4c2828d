//! `$trim`, `$ltrim`, `$rtrim: { input, chars }` (by code points; default: whitespace and NUL).

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::{display_val, named};
use crate::expr::{Ctx, Expr, Op, VarScope};

/// The server's default trim set: NUL, ASCII whitespace and the Unicode spaces.
const DEFAULT: &[char] = &[
    '\0', ' ', '\t', '\n', '\u{0B}', '\u{0C}', '\r', '\u{00A0}', '\u{1680}', '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}',
    '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}', '\u{2008}', '\u{2009}', '\u{200A}',
];

#[derive(Debug)]
struct Trim {
    name: &'static str,
    input: Expr,
    chars: Option<Expr>,
}

impl Op for Trim {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let input = self.input.eval_val(ctx)?;
        if input.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let Some(s) = super::as_str(&input) else {
            return Err(Error::code(
                50699,
                format!("{} requires its input to be a string, got {} (of type {}) instead.", self.name, display_val(&input), input.type_name()),
            ));
        };
        let custom: Option<Vec<char>> = match &self.chars {
            None => None,
            Some(c) => {
                let cv = c.eval_val(ctx)?;
                if cv.is_nullish() {
                    return Ok(Some(Bson::Null));
                }
                let Some(cs) = super::as_str(&cv) else {
                    return Err(Error::code(
                        50700,
                        format!("{} requires 'chars' to be a string, got {} (of type {}) instead.", self.name, display_val(&cv), cv.type_name()),
                    ));
                };
                Some(cs.chars().collect())
            }
        };
        let set: &[char] = custom.as_deref().unwrap_or(DEFAULT);
        let (left, right) = match self.name {
            "$ltrim" => (true, false),
            "$rtrim" => (false, true),
            _ => (true, true),
        };
        let mut out: &str = s;
        if left {
            out = out.trim_start_matches(|c| set.contains(&c));
        }
        if right {
            out = out.trim_end_matches(|c| set.contains(&c));
        }
        Ok(Some(Bson::String(out.to_string())))
    }
}

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(
            50696,
            format!("{name} only supports an object as an argument, found: {}", crate::value::types::type_name(arg)),
        ));
    };
    let [input, chars] = named(d, ["input", "chars"], scope, |k| Error::code(50694, format!("{name} found an unknown argument: {k}")))?;
    let input = input.ok_or_else(|| Error::code(50695, format!("{name} requires an 'input' field")))?;
    Ok(Expr::op(Trim { name, input, chars }))
}
