//! `$min`: the smallest value in the server's order, null and missing ignored (null when there
//! is nothing else).

use std::cmp::Ordering;
use std::sync::Arc;

use bson::Bson;

use crate::aggregate::accumulator::{Accumulator, Fold, Unary};
use crate::error::Result;
use crate::expr::VarScope;
use crate::value::compare;

pub(crate) fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
    Unary::<MinFold>::parse(name, arg, scope)
}

/// Keeps the extreme value: `WANT` is the ordering a new value must have against the kept one to
/// replace it (`Less` for `$min`, `Greater` for `$max`).
#[derive(Default)]
pub(crate) struct Extreme<const MAX: bool>(Option<Bson>);

pub(crate) type MinFold = Extreme<false>;

impl<const MAX: bool> Fold for Extreme<MAX> {
    fn add(&mut self, v: Option<&Bson>) -> Result<()> {
        let Some(v) = v else { return Ok(()) };
        if matches!(v, Bson::Null | Bson::Undefined) {
            return Ok(());
        }
        let want = if MAX { Ordering::Greater } else { Ordering::Less };
        match &self.0 {
            Some(cur) if compare(v, cur) != want => {}
            _ => self.0 = Some(v.clone()),
        }
        Ok(())
    }

    fn finish(self) -> Result<Bson> {
        Ok(self.0.unwrap_or(Bson::Null))
    }
}
