//! `$stdDevPop`: the population standard deviation of the numeric values.

use std::sync::Arc;

use bson::Bson;

use super::std_dev::StdDev;
use crate::aggregate::accumulator::{Accumulator, Unary};
use crate::error::Result;
use crate::expr::VarScope;

pub(crate) fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
    Unary::<StdDev<false>>::parse(name, arg, scope)
}
