//! `$rand`: a double in [0, 1) from the operation's seedable source.

use bson::{Bson, Document};

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

pub fn parse(name: &'static str, arg: &Bson, _: &VarScope) -> Result<Expr> {
    match arg {
        Bson::Document(d) if d.is_empty() => {}
        Bson::Array(a) if a.is_empty() => {}
        _ => {
            let mut spec = Document::new();
            spec.insert(name, arg.clone());
            return Err(Error::code(
                3040500,
                format!("{name} not expecting arguments: {}", crate::value::display::value(&Bson::Document(spec))),
            ));
        }
    }
    Ok(Simple::with_args(name, Vec::new(), eval))
}

fn eval(_: &'static str, _: &[Val], ctx: &Ctx) -> Result<Option<Bson>> {
    Ok(Some(Bson::Double(ctx.env.random())))
}
