//! `ppAnalyzeSchema` (an engine extension for the Schema view; no server has it):
//! `{ ppAnalyzeSchema: "c", sample: N }` -> the collection's field paths with presence, types,
//! array lengths, sample values, distinct counts and bytes (see `crate::schema`).

use bson::Document;

use crate::error::{Error, ErrorKind, Result};

use super::super::args::{self, Fields};
use super::super::Database;
use super::Ctx;

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let f = Fields::new(cmd, "ppAnalyzeSchema");
    let sample = match f.i64("sample")? {
        None => crate::schema::DEFAULT_SAMPLE,
        Some(n) if n >= 1 => usize::try_from(n).unwrap_or(usize::MAX),
        Some(n) => return Err(Error::bad_value(format!("sample must be a positive number, got {n}"))),
    };
    db.check_not_view(&ctx.db, &coll)?;
    let Some(c) = db.collection(&ctx.db, &coll) else {
        return Err(Error::new(ErrorKind::NamespaceNotFound, format!("ns does not exist: {}.{coll}", ctx.db)));
    };
    Ok(crate::schema::analyze(c, sample))
}
