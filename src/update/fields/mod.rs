//! Field update operators (the manual's "Fields" family): `$currentDate`, `$inc`, `$min`,
//! `$max`, `$mul`, `$rename`, `$set`, `$setOnInsert`, `$unset`.

pub mod current_date;
pub mod inc;
pub mod max;
pub mod min;
pub mod mul;
pub mod rename;
pub mod set;
pub mod set_on_insert;
pub mod unset;

use bson::Bson;

use crate::error::{Error, ErrorKind, Result};
use crate::value::{compare, Number};

use super::modifier::{OpCtx, Outcome};
use crate::value::display;

/// `$inc` and `$mul` (the server's `ArithmeticNode`).
#[derive(Debug, Clone)]
pub(crate) struct Arithmetic {
    pub arg: Bson,
    pub multiply: bool,
}

impl Arithmetic {
    pub fn parse(field: &str, v: &Bson, multiply: bool) -> Result<Arithmetic> {
        if Number::from_bson(v).is_none() {
            let verb = if multiply { "multiply" } else { "increment" };
            return Err(Error::type_mismatch(format!(
                "Cannot {verb} with non-numeric argument: {{{}}}",
                display::element(field, v)
            )));
        }
        Ok(Arithmetic { arg: v.clone(), multiply })
    }

    fn name(&self) -> &'static str {
        if self.multiply {
            "$mul"
        } else {
            "$inc"
        }
    }

    pub fn update_existing(&self, elem: &mut Bson, c: &mut OpCtx) -> Result<Outcome> {
        let Some(current) = Number::from_bson(elem) else {
            return Err(Error::type_mismatch(format!(
                "Cannot apply {} to a value of non-numeric type. {{{}}} has the field '{}' of non-numeric type {}",
                self.name(),
                c.id,
                c.field,
                crate::value::types::type_name(elem)
            )));
        };
        let arg = Number::from_bson(&self.arg).unwrap_or(Number::Int(0));
        let result = if self.multiply {
            crate::value::number::checked_multiply(arg, current)
        } else {
            crate::value::number::checked_add(arg, current)
        };
        match result {
            Some(r) if same_number(r, current) => Ok(Outcome::NoOp),
            Some(r) => {
                *elem = r.to_bson();
                Ok(Outcome::Updated)
            }
            None => Err(Error::bad_value(format!(
                "Failed to apply {} operations to current value ({}) for document {{{}}}",
                self.name(),
                debug_number(current),
                c.id
            ))),
        }
    }

    pub fn new_value(&self) -> Bson {
        let arg = Number::from_bson(&self.arg).unwrap_or(Number::Int(0));
        if self.multiply {
            // The created value has the argument's type and a zero value.
            crate::value::number::multiply(arg, Number::Int(0)).to_bson()
        } else {
            self.arg.clone()
        }
    }
}

/// `SafeNum::isIdentical`: same type and same value.
fn same_number(a: Number, b: Number) -> bool {
    match (a, b) {
        (Number::Int(x), Number::Int(y)) => x == y,
        (Number::Long(x), Number::Long(y)) => x == y,
        (Number::Double(x), Number::Double(y)) => x == y,
        (Number::Decimal(_), Number::Decimal(_)) => !a.is_nan() && a.cmp_num(b) == std::cmp::Ordering::Equal,
        _ => false,
    }
}

/// `SafeNum::debugString`: `(NumberLong)9223372036854775807`.
fn debug_number(n: Number) -> String {
    match n {
        Number::Int(i) => format!("(NumberInt){i}"),
        Number::Long(i) => format!("(NumberLong){i}"),
        Number::Double(f) => format!("(NumberDouble){}", display::double(f)),
        Number::Decimal(_) => format!("(NumberDecimal){}", display::value(&n.to_bson())),
    }
}

/// `$min` and `$max` (the server's `CompareNode`): replace when the argument sorts before
/// (`$min`) or after (`$max`) the current value in BSON order; equal values are a no-op.
#[derive(Debug, Clone)]
pub(crate) struct Compare {
    pub arg: Bson,
    pub max: bool,
}

impl Compare {
    pub fn update_existing(&self, elem: &mut Bson) -> Result<Outcome> {
        let ord = compare(elem, &self.arg);
        let keep = ord == std::cmp::Ordering::Equal
            || (self.max && ord == std::cmp::Ordering::Greater)
            || (!self.max && ord == std::cmp::Ordering::Less);
        if keep {
            return Ok(Outcome::NoOp);
        }
        *elem = self.arg.clone();
        Ok(Outcome::Updated)
    }
}

/// An internal error for states the update tree should never reach.
pub(crate) fn internal(what: &str) -> Error {
    Error::new(ErrorKind::InternalError, format!("update: {what}"))
}
