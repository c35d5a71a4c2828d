//! The one table of update operators: it drives parsing and the "Unknown modifier" error.

use bson::Bson;

use crate::error::Result;

use super::array::{add_to_set, pop, pull, pull_all, push};
use super::bitwise::bit;
use super::fields::{current_date, inc, max, min, mul, rename, set, set_on_insert, unset};
use super::modifier::Modifier;

/// A parsed operator at the end of one update path.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    Set(set::Set),
    SetOnInsert(set_on_insert::SetOnInsert),
    Unset(unset::Unset),
    Inc(inc::Inc),
    Mul(mul::Mul),
    Min(min::Min),
    Max(max::Max),
    CurrentDate(current_date::CurrentDate),
    Rename(rename::Rename),
    Push(push::Push),
    AddToSet(add_to_set::AddToSet),
    Pop(pop::Pop),
    Pull(pull::Pull),
    PullAll(pull_all::PullAll),
    Bit(bit::Bit),
    /// The source path of a `$rename`: it holds its place in the tree so that other operators on
    /// the same path conflict, and does nothing itself.
    Placeholder,
}

impl Op {
    /// The operator as a [`Modifier`] (`$rename` and the placeholder apply differently).
    pub fn modifier(&self) -> Option<&dyn Modifier> {
        Some(match self {
            Op::Set(m) => m,
            Op::SetOnInsert(m) => m,
            Op::Unset(m) => m,
            Op::Inc(m) => m,
            Op::Mul(m) => m,
            Op::Min(m) => m,
            Op::Max(m) => m,
            Op::CurrentDate(m) => m,
            Op::Push(m) => m,
            Op::AddToSet(m) => m,
            Op::Pop(m) => m,
            Op::Pull(m) => m,
            Op::PullAll(m) => m,
            Op::Bit(m) => m,
            Op::Rename(_) | Op::Placeholder => return None,
        })
    }
}

/// Parses one `field: argument` pair of an operator.
pub(crate) type ParseFn = fn(&str, &Bson) -> Result<Op>;

/// Every update operator of the server's modifier table, by name.
pub(crate) const MODIFIERS: &[(&str, ParseFn)] = &[
    ("$addToSet", |f, v| Ok(Op::AddToSet(add_to_set::parse(f, v)?))),
    ("$bit", |f, v| Ok(Op::Bit(bit::parse(f, v)?))),
    ("$currentDate", |f, v| Ok(Op::CurrentDate(current_date::parse(f, v)?))),
    ("$inc", |f, v| Ok(Op::Inc(inc::parse(f, v)?))),
    ("$max", |f, v| Ok(Op::Max(max::parse(f, v)?))),
    ("$min", |f, v| Ok(Op::Min(min::parse(f, v)?))),
    ("$mul", |f, v| Ok(Op::Mul(mul::parse(f, v)?))),
    ("$pop", |f, v| Ok(Op::Pop(pop::parse(f, v)?))),
    ("$pull", |f, v| Ok(Op::Pull(pull::parse(f, v)?))),
    ("$pullAll", |f, v| Ok(Op::PullAll(pull_all::parse(f, v)?))),
    ("$push", |f, v| Ok(Op::Push(push::parse(f, v)?))),
    ("$rename", |f, v| Ok(Op::Rename(rename::parse(f, v)?))),
    ("$set", |f, v| Ok(Op::Set(set::parse(f, v)?))),
    ("$setOnInsert", |f, v| Ok(Op::SetOnInsert(set_on_insert::parse(f, v)?))),
    ("$unset", |f, v| Ok(Op::Unset(unset::parse(f, v)?))),
];

pub(crate) fn lookup(name: &str) -> Option<ParseFn> {
    MODIFIERS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}
