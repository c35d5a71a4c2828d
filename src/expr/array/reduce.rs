//! `$reduce: { input, initialValue, in }` with `$$this` and `$$value`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::{Ctx, Expr, Frame, Op, VarScope};

#[derive(Debug)]
struct Reduce {
    input: Expr,
    initial: Expr,
    names: [String; 2],
    body: Expr,
}

impl Op for Reduce {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let input = self.input.eval_val(ctx)?;
        if input.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let Some(arr) = input.as_array() else {
            return Err(Error::code(
                40080,
                format!("$reduce requires that 'input' be an array, found: {}", crate::expr::args::display_val(&input)),
            ));
        };
        let mut acc = self.initial.eval(ctx)?;
        for e in arr {
            let values = [Some(e), acc.as_ref()];
            let frame = Frame { names: &self.names, values: &values, parent: ctx.frame() };
            let inner = ctx.bind(&frame);
            let next = self.body.eval(&inner)?;
            acc = next;
        }
        Ok(acc)
    }
}

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(
            40075,
            format!("{name} requires an object as an argument, found: {}", crate::value::types::type_name(arg)),
        ));
    };
    let (mut input, mut initial, mut body) = (None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "input" => input = Some(v),
            "initialValue" => initial = Some(v),
            "in" => body = Some(v),
            _ => return Err(Error::code(40076, format!("$reduce found an unknown argument: {k}"))),
        }
    }
    let input = input.ok_or_else(|| Error::code(40077, "$reduce requires 'input' to be specified"))?;
    let initial = initial.ok_or_else(|| Error::code(40078, "$reduce requires 'initialValue' to be specified"))?;
    let body = body.ok_or_else(|| Error::code(40079, "$reduce requires 'in' to be specified"))?;
    let inner = scope.with("this").with("value");
    Ok(Expr::op(Reduce {
        input: Expr::parse(input, scope)?,
        initial: Expr::parse(initial, scope)?,
        names: ["this".into(), "value".into()],
        body: Expr::parse(body, &inner)?,
    }))
}
