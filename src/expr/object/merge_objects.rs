//! `$mergeObjects`: later fields win; null and missing operands are skipped.

use bson::{Bson, Document};

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::variadic(name, arg, scope, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let mut out = Document::new();
    for v in args {
        if v.is_nullish() {
            continue;
        }
        let Some(d) = v.as_doc() else {
            return Err(Error::code(
                40400,
                format!("$mergeObjects requires object inputs, but input {} is of type {}", crate::expr::args::display_val(v), v.type_name()),
            ));
        };
        for (k, x) in d {
            out.insert(k.clone(), x.clone());
        }
    }
    Ok(Some(Bson::Document(out)))
}
