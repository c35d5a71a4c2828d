//! `$sum`: the sum of the numeric values (others ignored), typed as the server types it: int32
//! while it fits, int64 past 2^31 or with a long, double past int64 or with a double, decimal with
//! a decimal. Doubles are summed in double-double precision as the server does.

use std::sync::Arc;

use bson::Bson;
use decmathlib_rs::d128::d128;

use crate::aggregate::accumulator::{Accumulator, Fold, Unary};
use crate::error::Result;
use crate::expr::VarScope;
use crate::value::number::{from_d128, to_d128};

pub(crate) fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
    Unary::<SumFold>::parse(name, arg, scope)
}

#[derive(Default)]
pub(crate) struct SumFold(pub NumSum);

impl Fold for SumFold {
    fn add(&mut self, v: Option<&Bson>) -> Result<()> {
        if let Some(v) = v {
            self.0.add(v);
        }
        Ok(())
    }

    fn finish(self) -> Result<Bson> {
        Ok(self.0.total())
    }
}

/// The widest numeric type seen.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Width {
    #[default]
    Int,
    Long,
    Double,
    Decimal,
}

/// A running numeric sum: exact integers, double-double doubles, decimals apart.
#[derive(Debug, Default, Clone)]
pub(crate) struct NumSum {
    pub width: Width,
    pub count: u64,
    ints: i128,
    hi: f64,
    lo: f64,
    special: f64,
    dec: Option<d128>,
}

impl NumSum {
    /// Adds a value if it is a number; returns whether it was one.
    pub fn add(&mut self, v: &Bson) -> bool {
        match v {
            Bson::Int32(i) => self.ints += *i as i128,
            Bson::Int64(i) => {
                self.ints += *i as i128;
                self.width = self.width.max(Width::Long);
            }
            Bson::Double(f) => {
                self.add_double(*f);
                self.width = self.width.max(Width::Double);
            }
            Bson::Decimal128(d) => {
                let x = to_d128(d);
                self.dec = Some(match self.dec {
                    Some(s) => s + x,
                    None => x,
                });
                self.width = Width::Decimal;
            }
            _ => return false,
        }
        self.count += 1;
        true
    }

    fn add_double(&mut self, x: f64) {
        if !x.is_finite() {
            self.special += x;
            return;
        }
        // TwoSum of the high part, then fold the error into the low part.
        let s = self.hi + x;
        let bp = s - self.hi;
        let err = (self.hi - (s - bp)) + (x - bp);
        self.lo += err;
        let hi = s + self.lo;
        self.lo -= hi - s;
        self.hi = hi;
    }

    /// The sum of the doubles and integers as one double.
    pub fn as_f64(&self) -> f64 {
        if self.special != 0.0 || self.special.is_nan() {
            return self.special;
        }
        let ih = self.ints as f64;
        let il = (self.ints - ih as i128) as f64;
        let mut t = self.clone();
        t.special = 0.0;
        t.add_double(ih);
        t.add_double(il);
        t.hi + t.lo
    }

    /// The sum of everything as a decimal.
    pub fn as_decimal(&self) -> d128 {
        let ints = d128::from(self.ints.to_string().as_str());
        let doubles = if self.special != 0.0 || self.special.is_nan() {
            d128::from(self.special)
        } else {
            d128::from(self.hi) + d128::from(self.lo)
        };
        let mut total = ints + doubles;
        if let Some(d) = self.dec {
            total = d + total;
        }
        total
    }

    /// The total with the server's result type.
    pub fn total(&self) -> Bson {
        match self.width {
            Width::Int if self.ints >= i32::MIN as i128 && self.ints <= i32::MAX as i128 => Bson::Int32(self.ints as i32),
            Width::Int | Width::Long => match i64::try_from(self.ints) {
                Ok(i) => Bson::Int64(i),
                Err(_) => Bson::Double(self.as_f64()),
            },
            Width::Double => Bson::Double(self.as_f64()),
            Width::Decimal => Bson::Decimal128(from_d128(self.as_decimal())),
        }
    }
}
