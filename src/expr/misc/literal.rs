//! `$literal`: its argument, unparsed.

use bson::Bson;

use crate::error::Result;
use crate::expr::{Expr, VarScope};

pub fn parse(_: &'static str, arg: &Bson, _: &VarScope) -> Result<Expr> {
    Ok(Expr::constant(arg.clone()))
}
