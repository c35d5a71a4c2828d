//! `$zip: { inputs, useLongestLength, defaults }`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::display_val;
use crate::expr::{Ctx, Expr, Op, VarScope};

#[derive(Debug)]
struct Zip {
    inputs: Vec<Expr>,
    longest: bool,
    defaults: Vec<Expr>,
}

impl Op for Zip {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let mut arrays = Vec::with_capacity(self.inputs.len());
        for e in &self.inputs {
            let v = e.eval_val(ctx)?;
            if v.is_nullish() {
                return Ok(Some(Bson::Null));
            }
            match v.as_array() {
                Some(a) => arrays.push(a.clone()),
                None => {
                    return Err(Error::code(34468, format!("$zip found a non-array expression in input: {}", display_val(&v))));
                }
            }
        }
        let min = arrays.iter().map(Vec::len).min().unwrap_or(0);
        let max = arrays.iter().map(Vec::len).max().unwrap_or(0);
        let mut defaults = vec![Bson::Null; arrays.len()];
        if min != max {
            for (i, d) in self.defaults.iter().enumerate() {
                if let Some(slot) = defaults.get_mut(i) {
                    *slot = d.eval(ctx)?.unwrap_or(Bson::Null);
                }
            }
        }
        let n = if self.longest { max } else { min };
        let out = (0..n)
            .map(|row| {
                Bson::Array(
                    arrays
                        .iter()
                        .enumerate()
                        .map(|(col, a)| a.get(row).cloned().unwrap_or_else(|| defaults[col].clone()))
                        .collect(),
                )
            })
            .collect();
        Ok(Some(Bson::Array(out)))
    }
}

pub fn parse(_: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(
            34460,
            format!("$zip only supports an object as an argument, found {}", crate::value::types::type_name(arg)),
        ));
    };
    let (mut inputs, mut longest, mut defaults) = (None, false, None);
    for (k, v) in d {
        match k.as_str() {
            "inputs" => {
                let Bson::Array(a) = v else {
                    return Err(Error::code(
                        34461,
                        format!("inputs must be an array of expressions, found {}", crate::value::types::type_name(v)),
                    ));
                };
                inputs = Some(a.iter().map(|e| Expr::parse(e, scope)).collect::<Result<Vec<_>>>()?);
            }
            "defaults" => {
                let Bson::Array(a) = v else {
                    return Err(Error::code(
                        34462,
                        format!("defaults must be an array of expressions, found {}", crate::value::types::type_name(v)),
                    ));
                };
                defaults = Some(a.iter().map(|e| Expr::parse(e, scope)).collect::<Result<Vec<_>>>()?);
            }
            "useLongestLength" => {
                let Bson::Boolean(b) = v else {
                    return Err(Error::code(
                        34463,
                        format!("useLongestLength must be a bool, found {}", crate::value::types::type_name(v)),
                    ));
                };
                longest = *b;
            }
            _ => return Err(Error::code(34464, format!("$zip found an unknown argument: {k}"))),
        }
    }
    let inputs = inputs.ok_or_else(|| Error::code(34465, "$zip requires at least one input array"))?;
    if inputs.is_empty() {
        return Err(Error::code(34465, "$zip requires at least one input array"));
    }
    if let Some(d) = &defaults {
        if !longest {
            return Err(Error::code(34466, "cannot specify defaults unless useLongestLength is true"));
        }
        if d.len() != inputs.len() {
            return Err(Error::code(34467, "defaults and inputs must have the same length"));
        }
    }
    Ok(Expr::op(Zip { inputs, longest, defaults: defaults.unwrap_or_default() }))
}
