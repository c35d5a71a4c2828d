//! `$map: { input, as, in }`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::{Ctx, Expr, Frame, Op, VarScope};

#[derive(Debug)]
struct Map {
    input: Expr,
    names: [String; 1],
    body: Expr,
}

impl Op for Map {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let input = self.input.eval_val(ctx)?;
        if input.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let Some(arr) = input.as_array() else {
            return Err(Error::code(16883, format!("input to $map must be an array not {}", input.type_name())));
        };
        let mut out = Vec::with_capacity(arr.len());
        for e in arr {
            let values = [Some(e)];
            let frame = Frame { names: &self.names, values: &values, parent: ctx.frame() };
            let inner = ctx.bind(&frame);
            out.push(self.body.eval(&inner)?.unwrap_or(Bson::Null));
        }
        Ok(Some(Bson::Array(out)))
    }
}

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else { return Err(super::object_arg_error(16878, name)) };
    let (mut input, mut as_, mut body) = (None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "input" => input = Some(v),
            "as" => as_ = Some(v),
            "in" => body = Some(v),
            _ => return Err(Error::code(16879, format!("Unrecognized parameter to $map: {k}"))),
        }
    }
    let input = input.ok_or_else(|| Error::code(16880, "Missing 'input' parameter to $map"))?;
    let body = body.ok_or_else(|| Error::code(16882, "Missing 'in' parameter to $map"))?;
    let input = Expr::parse(input, scope)?;
    let var = super::as_name(as_, "this")?;
    let body = Expr::parse(body, &scope.with(&var))?;
    Ok(Expr::op(Map { input, names: [var], body }))
}
