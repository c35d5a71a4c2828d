//! `$let: { vars: { name: <expr>, ... }, in: <expr> }`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::field_path::validate_name_for_write;
use crate::expr::{Ctx, Expr, Frame, Op, Val, VarScope};

#[derive(Debug)]
struct Let {
    names: Vec<String>,
    values: Vec<Expr>,
    body: Expr,
}

impl Op for Let {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        // The variables' expressions see only the outer scope.
        let mut vals: Vec<Val> = Vec::with_capacity(self.values.len());
        for v in &self.values {
            vals.push(v.eval_val(ctx)?);
        }
        let owned: Vec<Option<std::borrow::Cow<Bson>>> = vals.iter().map(|v| v.bson()).collect();
        let refs: Vec<Option<&Bson>> = owned.iter().map(|o| o.as_deref()).collect();
        let frame = Frame { names: &self.names, values: &refs, parent: ctx.frame() };
        let inner = ctx.bind(&frame);
        self.body.eval(&inner)
    }
}

pub fn parse(_: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(16874, "$let only supports an object as its argument"));
    };
    let (mut vars, mut body) = (None, None);
    for (k, v) in d {
        match k.as_str() {
            "vars" => vars = Some(v),
            "in" => body = Some(v),
            _ => return Err(Error::code(16875, format!("Unrecognized parameter to $let: {k}"))),
        }
    }
    let vars = vars.ok_or_else(|| Error::code(16876, "Missing 'vars' parameter to $let"))?;
    let body = body.ok_or_else(|| Error::code(16877, "Missing 'in' parameter to $let"))?;
    let Bson::Document(vd) = vars else {
        return Err(Error::code(
            10065,
            "invalid parameter: expected an object (vars)",
        ));
    };
    let mut names = Vec::new();
    let mut values = Vec::new();
    let mut inner = scope.clone();
    for (k, v) in vd {
        validate_name_for_write(k)?;
        values.push(Expr::parse(v, scope)?);
        names.push(k.clone());
        inner.names.push(k.clone());
    }
    Ok(Expr::op(Let { names, values, body: Expr::parse(body, &inner)? }))
}
