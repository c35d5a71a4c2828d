//! `$max`: the largest value in the server's order, null and missing ignored (null when there
//! is nothing else).

use std::sync::Arc;

use bson::Bson;

use super::min::Extreme;
use crate::aggregate::accumulator::{Accumulator, Unary};
use crate::error::Result;
use crate::expr::VarScope;

pub(crate) fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
    Unary::<Extreme<true>>::parse(name, arg, scope)
}
