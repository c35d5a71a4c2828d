//! `$mod: [divisor, remainder]`: matches numbers whose remainder (truncated toward zero, sign of
//! the dividend) equals `remainder`. Doubles and decimals are truncated; NaN, infinities and
//! values outside int64 never match.

use bson::Bson;

use crate::error::{Error, Result};
use crate::query::int_arg::{coerce_long, trunc_to_i64};
use crate::query::node::{Cx, Node, Predicate};
use crate::query::parser::PathArgs;
use crate::value::number::d128_to_f64;
use crate::value::types::is_number;
use crate::value::Number;

#[derive(Debug, Clone)]
pub(crate) struct Mod {
    divisor: i64,
    remainder: i64,
}

impl Predicate for Mod {
    fn match_type(&self) -> u8 {
        11
    }

    fn matches_value(&self, v: Option<&Bson>, _cx: &mut Cx) -> Result<bool> {
        let Some(n) = v.and_then(Number::from_bson) else { return Ok(false) };
        let dividend = match n {
            Number::Int(i) => i as i64,
            Number::Long(i) => i,
            Number::Double(f) => match trunc_to_i64(f) {
                Some(i) => i,
                None => return Ok(false),
            },
            Number::Decimal(d) => {
                if d.is_nan() || d.is_infinite() {
                    return Ok(false);
                }
                match trunc_to_i64(d128_to_f64(d)) {
                    Some(i) => i,
                    None => return Ok(false),
                }
            }
        };
        Ok(dividend.checked_rem(self.divisor).unwrap_or(0) == self.remainder)
    }
}

pub(crate) fn parse(a: &PathArgs) -> Result<Option<Node>> {
    let Bson::Array(list) = a.arg else {
        return Err(Error::bad_value("malformed mod, needs to be an array"));
    };
    let Some(d) = list.first() else {
        return Err(Error::bad_value("malformed mod, not enough elements"));
    };
    if !is_number(d) {
        return Err(Error::bad_value("malformed mod, divisor not a number"));
    }
    let Some(r) = list.get(1) else {
        return Err(Error::bad_value("malformed mod, not enough elements"));
    };
    if !is_number(r) {
        return Err(Error::bad_value("malformed mod, remainder not a number"));
    }
    if list.len() > 2 {
        return Err(Error::bad_value("malformed mod, too many elements"));
    }
    let divisor = coerce_long(d).map_err(|e| e.add_context("malformed mod, divisor value is invalid"))?;
    let remainder = coerce_long(r).map_err(|e| e.add_context("malformed mod, remainder value is invalid"))?;
    if divisor == 0 {
        return Err(Error::bad_value("divisor cannot be 0"));
    }
    Ok(Some(Node::path(a.path, Mod { divisor, remainder })))
}
