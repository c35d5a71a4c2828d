//! `$getField: { field, input }` (or `$getField: <field>` on `$$CURRENT`): a field by its exact
//! name, dots and dollars included.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::{Ctx, Expr, Op, Val, VarScope};

#[derive(Debug)]
struct GetField {
    field: Expr,
    input: Expr,
}

impl Op for GetField {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        Ok(self.eval_val(ctx)?.into_option())
    }

    fn eval_val<'a>(&'a self, ctx: &Ctx<'a>) -> Result<Val<'a>> {
        let field = self.field.eval_val(ctx)?;
        let Some(Bson::String(name)) = field.as_bson() else {
            return Err(Error::code(
                3041704,
                format!("$getField requires 'field' to evaluate to type String, but got {}", field.type_name()),
            ));
        };
        let name = name.clone();
        let input = self.input.eval_val(ctx)?;
        if input.is_nullish() {
            return Ok(if input.is_missing() { Val::Missing } else { Val::Owned(Bson::Null) });
        }
        let out = match input {
            Val::Doc(d) => d.get(&name).map(Val::Ref),
            Val::Ref(Bson::Document(d)) => d.get(&name).map(Val::Ref),
            Val::Owned(Bson::Document(mut d)) => d.remove(&name).map(Val::Owned),
            other => {
                return Err(Error::code(
                    3041705,
                    format!("$getField requires 'input' to evaluate to type Object, but got {}", other.type_name()),
                ))
            }
        };
        Ok(out.unwrap_or(Val::Missing))
    }
}

/// `field` must be a constant string or an expression that yields one (not a field path).
pub(crate) fn parse_field(name: &str, v: &Bson, scope: &VarScope) -> Result<Expr> {
    match v {
        Bson::String(s) if s.starts_with('$') => Err(Error::code(
            3041701,
            format!("{name} requires 'field' to evaluate to a constant, but got a non-constant argument"),
        )),
        Bson::String(_) => Ok(Expr::constant(v.clone())),
        Bson::Document(_) => {
            let e = Expr::parse(v, scope)?;
            match e.as_constant() {
                Some(Bson::String(_)) => Ok(e),
                Some(other) => Err(Error::code(
                    5654601,
                    format!(
                        "{name} requires 'field' to evaluate to type String, but got {}",
                        crate::value::types::type_name(other)
                    ),
                )),
                None => Err(Error::code(
                    5654602,
                    format!("{name} requires 'field' to evaluate to a constant, but got a non-constant argument"),
                )),
            }
        }
        other => Err(Error::code(
            5654601,
            format!("{name} requires 'field' to evaluate to type String, but got {}", crate::value::types::type_name(other)),
        )),
    }
}

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    if let Bson::Document(d) = arg {
        if !d.keys().next().is_some_and(|k| k.starts_with('$')) {
            let (mut field, mut input) = (None, None);
            for (k, v) in d {
                match k.as_str() {
                    "field" => field = Some(parse_field(name, v, scope)?),
                    "input" => input = Some(Expr::parse(v, scope)?),
                    _ => return Err(Error::code(3041701, format!("{name} found an unknown argument: {k}"))),
                }
            }
            let field = field.ok_or_else(|| Error::code(3041702, format!("{name} requires 'field' to be specified")))?;
            let input = match input {
                Some(i) => i,
                None => Expr::parse(&Bson::String("$$CURRENT".into()), scope)?,
            };
            return Ok(Expr::op(GetField { field, input }));
        }
    }
    let field = parse_field(name, arg, scope)?;
    Ok(Expr::op(GetField { field, input: Expr::parse(&Bson::String("$$CURRENT".into()), scope)? }))
}
