//! `$firstN`, `$lastN`, `$maxN`, `$minN` over an array: `{ n, input }`.

use std::cmp::Ordering;

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::display_val;
use crate::expr::{Ctx, Expr, Op, VarScope};
use crate::value::display::stream_value;
use crate::value::{compare, Number};

#[derive(Debug)]
struct NElements {
    name: &'static str,
    n: Expr,
    input: Expr,
}

impl Op for NElements {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let n = check_n(self.n.eval_val(ctx)?.bson().as_deref())?;
        let input = self.input.eval_val(ctx)?;
        let Some(arr) = input.as_array() else {
            return Err(Error::code(
                5788200,
                format!("Input to {} must be an array, but found: {}", self.name, display_val(&input)),
            ));
        };
        let n = n as usize;
        let out: Vec<Bson> = match self.name {
            "$firstN" => arr.iter().take(n).cloned().collect(),
            "$lastN" => arr[arr.len().saturating_sub(n)..].to_vec(),
            _ => {
                let mut vals: Vec<&Bson> = arr.iter().filter(|v| !matches!(v, Bson::Null | Bson::Undefined)).collect();
                let max = self.name == "$maxN";
                vals.sort_by(|a, b| {
                    let o = compare(a, b);
                    if max { o.reverse() } else { o }
                });
                let _ = Ordering::Equal;
                vals.into_iter().take(n).cloned().collect()
            }
        };
        Ok(Some(Bson::Array(out)))
    }
}

/// The `n` of `$firstN`, `$lastN`, `$maxN` and `$minN`, as expressions and as accumulators: a
/// positive integral number (5787902, 5787903, 5787908).
pub(crate) fn check_n(v: Option<&Bson>) -> Result<i64> {
    let not_integral = |code| Error::code(code, format!("Value for 'n' must be of integral type, but found {}", stream_value(v)));
    let Some(num) = v.and_then(Number::from_bson) else {
        return Err(not_integral(5787902));
    };
    let Some(n) = num.to_exact_i64() else {
        return Err(not_integral(5787903));
    };
    if n <= 0 {
        return Err(Error::code(5787908, format!("'n' must be greater than 0, found {n}")));
    }
    Ok(n)
}

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(
            5787801,
            format!("specification must be an object; found {}: {}", crate::value::display::value(arg), crate::value::types::type_name(arg)),
        ));
    };
    let (mut n, mut input) = (None, None);
    for (k, v) in d {
        match k.as_str() {
            "n" => n = Some(Expr::parse(v, scope)?),
            "input" => input = Some(Expr::parse(v, scope)?),
            _ => return Err(Error::code(5787901, format!("Unknown argument for 'n' operator: {k}"))),
        }
    }
    let n = n.ok_or_else(|| Error::code(5787906, format!("Missing value for 'n' in {name}")))?;
    let input = input.ok_or_else(|| Error::code(5787907, format!("Missing value for 'input' in {name}")))?;
    Ok(Expr::op(NElements { name, n, input }))
}
