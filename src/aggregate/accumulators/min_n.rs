//! `$minN: { n, input }`: the n smallest values, ascending (null and missing ignored).

use std::sync::Arc;

use bson::Bson;

use super::n_args::{self, Kind};
use crate::aggregate::accumulator::Accumulator;
use crate::error::Result;
use crate::expr::VarScope;

pub(crate) fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
    n_args::parse(Kind::Min, name, arg, scope)
}
