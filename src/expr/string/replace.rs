//! `$replaceOne` and `$replaceAll: { input, find, replacement }`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::{display_val, named};
use crate::expr::{Ctx, Expr, Op, VarScope};

#[derive(Debug)]
struct Replace {
    name: &'static str,
    input: Expr,
    find: Expr,
    replacement: Expr,
}

impl Op for Replace {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let input = self.input.eval_val(ctx)?;
        let find = self.find.eval_val(ctx)?;
        let replacement = self.replacement.eval_val(ctx)?;
        let check = |v: &crate::expr::Val, what: &str, code: i32| -> Result<()> {
            if v.is_nullish() || super::as_str(v).is_some() {
                Ok(())
            } else {
                Err(Error::code(
                    code,
                    format!("{} requires that '{what}' be a string, found: {}", self.name, display_val(v)),
                ))
            }
        };
        check(&input, "input", 51746)?;
        check(&find, "find", 51745)?;
        check(&replacement, "replacement", 51744)?;
        let (Some(i), Some(f), Some(r)) = (super::as_str(&input), super::as_str(&find), super::as_str(&replacement)) else {
            return Ok(Some(Bson::Null));
        };
        Ok(Some(Bson::String(if self.name == "$replaceOne" { i.replacen(f, r, 1) } else { i.replace(f, r) })))
    }
}

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(
            51751,
            format!("{name} requires an object as an argument, found: {}", crate::value::types::type_name(arg)),
        ));
    };
    let [input, find, replacement] =
        named(d, ["input", "find", "replacement"], scope, |k| Error::code(51750, format!("{name} found an unknown argument: {k}")))?;
    let input = input.ok_or_else(|| Error::code(51749, format!("{name} requires 'input' to be specified")))?;
    let find = find.ok_or_else(|| Error::code(51748, format!("{name} requires 'find' to be specified")))?;
    let replacement = replacement.ok_or_else(|| Error::code(51747, format!("{name} requires 'replacement' to be specified")))?;
    Ok(Expr::op(Replace { name, input, find, replacement }))
}
