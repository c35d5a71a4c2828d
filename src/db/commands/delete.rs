//! `delete`: `{ delete: "c", deletes: [{ q, limit: 0 | 1, hint }], ordered, let }` ->
//! `{ n, writeErrors? }`.

use bson::{Bson, Document};

use crate::error::{Error, Result};

use super::super::args::{self, Fields};
use super::super::Database;
use super::insert::check_batch_size;
use super::write;
use super::{let_vars, Ctx};

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let f = Fields::new(cmd, "delete");
    let deletes = f.required_array("deletes")?;
    let ordered = f.bool_or("ordered", true)?;
    check_batch_size(deletes.len())?;
    let mut statements = Vec::with_capacity(deletes.len());
    for v in deletes {
        let Bson::Document(d) = v else { return Err(args::wrong_type("delete.deletes", v, "object")) };
        let sf = Fields::new(d, "delete.deletes");
        let q = sf.required_doc("q")?.clone();
        let limit = match sf.i64("limit")? {
            Some(l) => l,
            None => return Err(args::missing("delete.deletes.limit")),
        };
        if limit != 0 && limit != 1 {
            return Err(Error::failed_to_parse(format!("The limit field in delete objects must be 0 or 1. Got {limit}")));
        }
        statements.push((q, limit == 1, d.get("hint").cloned()));
    }
    let_vars(ctx, f.doc("let")?)?;
    let dbname = ctx.db.clone();
    let (done, errors) = write::each_statement(statements.len(), ordered, |i| {
        let (q, one, hint) = &statements[i];
        write::delete_statement(db, &dbname, &coll, q, *one, None, hint.as_ref(), "delete", &ctx.env)
    });
    let n: usize = done.iter().map(|(_, removed)| removed.n).sum();
    Ok(write::n_reply(n as i64, errors))
}
