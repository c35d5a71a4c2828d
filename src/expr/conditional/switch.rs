//! `$switch: { branches: [{ case, then }, ...], default }`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::{val_truthy, Ctx, Expr, Op, Val, VarScope};

#[derive(Debug)]
struct Switch {
    branches: Vec<(Expr, Expr)>,
    default: Option<Expr>,
}

impl Op for Switch {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        Ok(self.eval_val(ctx)?.into_option())
    }

    fn eval_val<'a>(&'a self, ctx: &Ctx<'a>) -> Result<Val<'a>> {
        for (case, then) in &self.branches {
            if val_truthy(&case.eval_val(ctx)?) {
                return then.eval_val(ctx);
            }
        }
        match &self.default {
            Some(d) => d.eval_val(ctx),
            None => Err(Error::code(
                40066,
                "$switch could not find a matching branch for an input, and no default was specified.",
            )),
        }
    }
}

pub fn parse(_: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(40060, "$switch requires an object as an argument, found: ".to_string() + crate::value::types::type_name(arg)));
    };
    let mut branches = Vec::new();
    let mut default = None;
    for (k, v) in d {
        match k.as_str() {
            "branches" => {
                let Bson::Array(items) = v else {
                    return Err(Error::code(
                        40061,
                        format!("$switch expected an array for 'branches', found: {}", crate::value::types::type_name(v)),
                    ));
                };
                for b in items {
                    let Bson::Document(bd) = b else {
                        return Err(Error::code(
                            40062,
                            format!("$switch expected each branch to be an object, found: {}", crate::value::types::type_name(b)),
                        ));
                    };
                    let (mut case, mut then) = (None, None);
                    for (bk, bv) in bd {
                        match bk.as_str() {
                            "case" => case = Some(Expr::parse(bv, scope)?),
                            "then" => then = Some(Expr::parse(bv, scope)?),
                            _ => {
                                return Err(Error::code(40063, format!("$switch found an unknown argument to a branch: {bk}")));
                            }
                        }
                    }
                    let case = case.ok_or_else(|| Error::code(40064, "$switch requires each branch have a 'case' expression"))?;
                    let then = then.ok_or_else(|| Error::code(40065, "$switch requires each branch have a 'then' expression."))?;
                    branches.push((case, then));
                }
            }
            "default" => default = Some(Expr::parse(v, scope)?),
            _ => return Err(Error::code(40067, format!("$switch found an unknown argument: {k}"))),
        }
    }
    if branches.is_empty() {
        return Err(Error::code(40068, "$switch requires at least one branch."));
    }
    Ok(Expr::op(Switch { branches, default }))
}
