//! Comparison query operators: `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, `$in`, `$nin`.
//!
//! Comparisons only match values of the same canonical type bracket (`{$gt: 5}` never matches a
//! string), except that null also matches a missing field (`$eq`, `$gte`, `$lte`; since 8.0 not
//! `undefined`), and MinKey/MaxKey bound everything.

pub mod eq;
pub mod gt;
pub mod gte;
pub mod in_;
pub mod lt;
pub mod lte;
pub mod ne;
pub mod nin;

use std::cmp::Ordering;

use bson::{Bson, RawBsonRef};

use super::node::{Cx, Node, Predicate};
use super::parser::PathArgs;
use crate::error::{Error, Result};
use crate::value::{canonical_type, compare, Number};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Lt,
    Lte,
    Gt,
    Gte,
}

/// `{ path: { $op: rhs } }` for one comparison operator.
#[derive(Debug, Clone)]
pub(crate) struct Cmp {
    pub op: CmpOp,
    pub rhs: Bson,
}

impl Cmp {
    pub fn new(op: CmpOp, rhs: Bson) -> Result<Cmp> {
        if matches!(rhs, Bson::Undefined) {
            return Err(Error::bad_value("cannot compare to undefined"));
        }
        Ok(Cmp { op, rhs })
    }
}

impl Predicate for Cmp {
    fn match_type(&self) -> u8 {
        match self.op {
            CmpOp::Eq => 5,
            CmpOp::Lte => 6,
            CmpOp::Lt => 7,
            CmpOp::Gt => 8,
            CmpOp::Gte => 9,
        }
    }

    fn matches_value(&self, v: Option<&Bson>, _cx: &mut Cx) -> Result<bool> {
        Ok(compare_matches(self.op, v, &self.rhs))
    }

    fn equality_value(&self) -> Option<&Bson> {
        (self.op == CmpOp::Eq).then_some(&self.rhs)
    }

    /// A number against a number (neither NaN) is `compare_matches`'s `cmp_num` of the two,
    /// without the stored one decoded.
    fn matches_raw_value(&self, v: RawBsonRef<'_>) -> Option<bool> {
        let x = match v {
            RawBsonRef::Double(f) => Number::Double(f),
            RawBsonRef::Int32(i) => Number::Int(i),
            RawBsonRef::Int64(i) => Number::Long(i),
            _ => return None,
        };
        let y = match self.rhs {
            Bson::Double(f) => Number::Double(f),
            Bson::Int32(i) => Number::Int(i),
            Bson::Int64(i) => Number::Long(i),
            _ => return None,
        };
        if x.is_nan() || y.is_nan() {
            return None;
        }
        Some(op_holds(self.op, x.cmp_num(y)))
    }
}

/// Whether `op` holds of two values ordered `o`.
fn op_holds(op: CmpOp, o: Ordering) -> bool {
    match op {
        CmpOp::Eq => o == Ordering::Equal,
        CmpOp::Lt => o == Ordering::Less,
        CmpOp::Lte => o != Ordering::Greater,
        CmpOp::Gt => o == Ordering::Greater,
        CmpOp::Gte => o != Ordering::Less,
    }
}

/// `ComparisonMatchExpression::matchesSingleElement` (`None` is a missing field).
pub(crate) fn compare_matches(op: CmpOp, e: Option<&Bson>, rhs: &Bson) -> bool {
    // A missing field has the canonical type of undefined.
    let ect = e.map(canonical_type).unwrap_or(0);
    let rct = canonical_type(rhs);
    if ect != rct {
        if matches!(rhs, Bson::Null) && e.is_none() {
            // null matches missing (MongoDB 8: but not undefined).
            return matches!(op, CmpOp::Eq | CmpOp::Lte | CmpOp::Gte);
        }
        return match rhs {
            Bson::MaxKey => matches!(op, CmpOp::Lt | CmpOp::Lte),
            Bson::MinKey => matches!(op, CmpOp::Gt | CmpOp::Gte),
            _ => false,
        };
    }
    let Some(e) = e else { return false };
    if op != CmpOp::Eq {
        let (ln, rn) = (is_nan(e), is_nan(rhs));
        if ln || rn {
            return match op {
                CmpOp::Lte | CmpOp::Gte => ln && rn,
                _ => false,
            };
        }
    }
    op_holds(op, compare(e, rhs))
}

fn is_nan(v: &Bson) -> bool {
    Number::from_bson(v).is_some_and(|n| n.is_nan())
}

/// The parser shared by `$gt`, `$gte`, `$lt` and `$lte`: no regex argument.
pub(crate) fn parse_ordering(a: &PathArgs, op: CmpOp) -> Result<Option<Node>> {
    if matches!(a.arg, Bson::RegularExpression(_)) {
        return Err(Error::bad_value(format!("Can't have RegEx as arg to predicate over field '{}'.", a.path.full)));
    }
    Ok(Some(Node::path(a.path, Cmp::new(op, a.arg.clone())?)))
}
