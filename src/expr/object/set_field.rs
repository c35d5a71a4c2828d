//! `$setField: { field, input, value }` and `$unsetField: { field, input }`.

use bson::{Bson, Document};

use super::get_field::parse_field;
use crate::error::{Error, Result};
use crate::expr::{Ctx, Expr, Op, VarScope};

#[derive(Debug)]
struct SetField {
    name: &'static str,
    field: Expr,
    input: Expr,
    /// `None` for `$unsetField`.
    value: Option<Expr>,
}

impl Op for SetField {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let field = match self.field.eval(ctx)? {
            Some(Bson::String(s)) => s,
            _ => String::new(),
        };
        let input = self.input.eval_val(ctx)?;
        if input.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let Some(doc) = input.as_doc() else {
            return Err(Error::code(
                4161105,
                format!("{} requires 'input' to evaluate to type Object, but got {}", self.name, input.type_name()),
            ));
        };
        let value = match &self.value {
            Some(v) => v.eval(ctx)?,
            None => None,
        };
        let mut out = Document::new();
        let mut replaced = false;
        for (k, v) in doc {
            if *k == field {
                if let Some(nv) = &value {
                    out.insert(k.clone(), nv.clone());
                    replaced = true;
                }
            } else {
                out.insert(k.clone(), v.clone());
            }
        }
        if !replaced {
            if let Some(nv) = value {
                out.insert(field, nv);
            }
        }
        Ok(Some(Bson::Document(out)))
    }
}

fn parse_impl(name: &'static str, arg: &Bson, scope: &VarScope, with_value: bool) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(
            4161100,
            format!("{name} only supports an object as its argument"),
        ));
    };
    let (mut field, mut input, mut value) = (None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "field" => field = Some(parse_field(name, v, scope)?),
            "input" => input = Some(Expr::parse(v, scope)?),
            "value" if with_value => value = Some(Expr::parse(v, scope)?),
            _ => return Err(Error::code(4161101, format!("{name} found an unknown argument: {k}"))),
        }
    }
    let field = field.ok_or_else(|| Error::code(4161102, format!("{name} requires 'field' to be specified")))?;
    let input = input.ok_or_else(|| Error::code(4161103, format!("{name} requires 'input' to be specified")))?;
    if with_value && value.is_none() {
        return Err(Error::code(4161104, format!("{name} requires 'value' to be specified")));
    }
    Ok(Expr::op(SetField { name, field, input, value }))
}

pub fn parse_set(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    parse_impl(name, arg, scope, true)
}

pub fn parse_unset(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    parse_impl(name, arg, scope, false)
}
