//! `$filter: { input, as, cond, limit }`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::display_val;
use crate::expr::{val_truthy, Ctx, Expr, Frame, Op, VarScope};
use crate::value::Number;

#[derive(Debug)]
struct Filter {
    input: Expr,
    names: [String; 1],
    cond: Expr,
    limit: Option<Expr>,
}

impl Op for Filter {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let input = self.input.eval_val(ctx)?;
        if input.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let Some(arr) = input.as_array() else {
            return Err(Error::code(28651, format!("input to $filter must be an array not {}", input.type_name())));
        };
        if arr.is_empty() {
            return Ok(Some(Bson::Array(Vec::new())));
        }
        let mut limit: Option<usize> = None;
        if let Some(l) = &self.limit {
            let lv = l.eval_val(ctx)?;
            if !lv.is_nullish() {
                let n = lv.as_bson().and_then(Number::from_bson);
                let Some(i) = n.and_then(|n| n.to_exact_i64()).filter(|i| i32::try_from(*i).is_ok()) else {
                    return Err(Error::code(
                        327391,
                        format!("$filter: limit must be represented as a 32-bit integral value: {}", display_val(&lv)),
                    ));
                };
                if i < 1 {
                    return Err(Error::code(327392, format!("$filter: limit must be greater than 0: {}", display_val(&lv))));
                }
                limit = Some(i as usize);
            }
        }
        let mut out = Vec::new();
        for e in arr {
            if limit.is_some_and(|l| out.len() >= l) {
                break;
            }
            let values = [Some(e)];
            let frame = Frame { names: &self.names, values: &values, parent: ctx.frame() };
            let inner = ctx.bind(&frame);
            if val_truthy(&self.cond.eval_val(&inner)?) {
                out.push(e.clone());
            }
        }
        Ok(Some(Bson::Array(out)))
    }
}

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else { return Err(super::object_arg_error(28646, name)) };
    let (mut input, mut as_, mut cond, mut limit) = (None, None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "input" => input = Some(v),
            "as" => as_ = Some(v),
            "cond" => cond = Some(v),
            "limit" => limit = Some(v),
            _ => return Err(Error::code(28647, format!("Unrecognized parameter to $filter: {k}"))),
        }
    }
    let input = input.ok_or_else(|| Error::code(28648, "Missing 'input' parameter to $filter"))?;
    let cond = cond.ok_or_else(|| Error::code(28650, "Missing 'cond' parameter to $filter"))?;
    let input = Expr::parse(input, scope)?;
    let var = super::as_name(as_, "this")?;
    let cond = Expr::parse(cond, &scope.with(&var))?;
    let limit = limit.map(|l| Expr::parse(l, scope)).transpose()?;
    Ok(Expr::op(Filter { input, names: [var], cond, limit }))
}
