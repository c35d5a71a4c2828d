//! `insert`: `{ insert: "c", documents: [..], ordered }` -> `{ n, writeErrors? }`.

use bson::{Bson, Document};

use crate::error::{Error, ErrorKind, Result};

use super::super::args::{self, Fields};
use super::super::Database;
use super::write;
use super::Ctx;

/// The server's limit on statements in one write command.
pub(crate) const MAX_BATCH: usize = 100_000;

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let f = Fields::new(cmd, "insert");
    let docs = f.required_array("documents")?;
    let ordered = f.bool_or("ordered", true)?;
    check_batch_size(docs.len())?;
    let mut parsed = Vec::with_capacity(docs.len());
    for (i, d) in docs.iter().enumerate() {
        match d {
            Bson::Document(d) => parsed.push(d),
            other => return Err(args::wrong_type(&format!("insert.documents.{i}"), other, "object")),
        }
    }
    let bypass = f.bool_or("bypassDocumentValidation", false)?;
    let (done, errors) = write::each_statement(parsed.len(), ordered, |i| insert_one(db, ctx, &coll, parsed[i], bypass));
    Ok(write::n_reply(done.len() as i64, errors))
}

/// `Write batch sizes must be between 1 and 100000. Got N operations.`
pub(crate) fn check_batch_size(n: usize) -> Result<()> {
    if n == 0 || n > MAX_BATCH {
        return Err(Error::new(
            ErrorKind::InvalidLength,
            format!("Write batch sizes must be between 1 and {MAX_BATCH}. Got {n} operations."),
        ));
    }
    Ok(())
}

/// Validates, prepares and inserts one user document.
pub(crate) fn insert_one(db: &mut Database, ctx: &Ctx, coll: &str, doc: &Document, bypass_validation: bool) -> Result<()> {
    let prepared = write::prepare_insert(db, doc)?;
    if let Some(c) = db.collection(&ctx.db, coll) {
        check_timeseries(c, &prepared)?;
    }
    write::insert_prepared(db, &ctx.db, coll, prepared, bypass_validation, &ctx.env)
}

/// A time series measurement must carry its time field as a date.
fn check_timeseries(c: &super::super::Collection, doc: &Document) -> Result<()> {
    let Some(Bson::Document(ts)) = c.options.get("timeseries") else { return Ok(()) };
    let Some(Bson::String(time_field)) = ts.get("timeField") else { return Ok(()) };
    match doc.get(time_field) {
        Some(Bson::DateTime(_)) => Ok(()),
        _ => Err(Error::bad_value(format!(
            "'{time_field}' must be present and contain a valid BSON UTC datetime value"
        ))),
    }
}
