//! `$avg`: the mean of the numeric values (others ignored); double, or decimal when a decimal was
//! seen; null when there were no numbers.

use std::sync::Arc;

use bson::Bson;
use decmathlib_rs::d128::d128;

use super::sum::{NumSum, Width};
use crate::aggregate::accumulator::{Accumulator, Fold, Unary};
use crate::error::Result;
use crate::expr::VarScope;
use crate::value::number::from_d128;

pub(crate) fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
    Unary::<AvgFold>::parse(name, arg, scope)
}

#[derive(Default)]
pub(crate) struct AvgFold(NumSum);

impl Fold for AvgFold {
    fn add(&mut self, v: Option<&Bson>) -> Result<()> {
        if let Some(v) = v {
            self.0.add(v);
        }
        Ok(())
    }

    fn finish(self) -> Result<Bson> {
        Ok(mean(&self.0))
    }
}

/// The mean of a sum (null for no numbers). Shared with the `$avg` expression, which the server
/// evaluates with this same accumulator.
pub(crate) fn mean(s: &NumSum) -> Bson {
    if s.count == 0 {
        return Bson::Null;
    }
    if s.width == Width::Decimal {
        Bson::Decimal128(from_d128(s.as_decimal() / d128::from(s.count)))
    } else {
        Bson::Double(s.as_f64() / s.count as f64)
    }
}
