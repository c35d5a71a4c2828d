//! `$bottomN: { n, output, sortBy }`: the outputs of the last n documents in `sortBy` order.

use std::sync::Arc;

use bson::Bson;

use super::sorted_n;
use crate::aggregate::accumulator::Accumulator;
use crate::error::Result;
use crate::expr::VarScope;

pub(crate) fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
    sorted_n::parse(true, false, name, arg, scope)
}
