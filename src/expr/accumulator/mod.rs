//! Accumulators used as expressions (`$sum`, `$avg`, `$min`, `$max`, `$stdDevPop`,
//! `$stdDevSamp`): over one array operand, or over the list of operands.

pub mod avg;
pub mod min_max;
pub mod std_dev;
pub mod sum;

use bson::Bson;

use crate::expr::Val;

/// The values an accumulator expression folds: the elements of a single array operand, else the
/// operands themselves (missing ones skipped).
pub(crate) fn inputs<'v>(args: &'v [Val<'v>]) -> Vec<std::borrow::Cow<'v, Bson>> {
    if args.len() == 1 {
        if let Some(a) = args[0].as_array() {
            return a.iter().map(std::borrow::Cow::Borrowed).collect();
        }
    }
    args.iter().filter_map(|v| v.bson()).collect()
}
