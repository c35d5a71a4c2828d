//! `insert`: `{ insert: "c", documents: [..], ordered }` -> `{ n, writeErrors? }`.

use bson::{Bson, Document, RawDocument};

use crate::error::{Error, ErrorKind, Result};

use super::super::args::{self, Fields};
use super::super::Database;
use super::write;
use super::Ctx;

/// The server's limit on statements in one write command.
pub(crate) const MAX_BATCH: usize = 100_000;

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let raw = ctx.take_raw(|part| match part {
        super::RawPart::Documents(docs) => Ok(docs),
        other => Err(other),
    });
    let coll = args::collection_name(cmd, &ctx.db)?;
    let f = Fields::new(cmd, "insert");
    let docs = f.required_array("documents")?;
    let ordered = f.bool_or("ordered", true)?;
    if let Some(mut raw) = raw {
        // The documents came as bytes (`split_raw`): all of them documents that read.
        check_batch_size(raw.len())?;
        let bypass = f.bool_or("bypassDocumentValidation", false)?;
        let (done, errors) = write::each_statement(raw.len(), ordered, |i| match raw[i].take() {
            Some(d) => insert_raw(db, ctx, &coll, d, bypass),
            None => Err(Error::new(ErrorKind::InternalError, "insert statement run twice")),
        });
        return Ok(write::n_reply(done.len() as i64, errors));
    }
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

/// One document of an insert command given as bytes: the bytes and whether they are in the form
/// the engine stores (`value::raw::check_stored_form`; others are decoded and encoded).
pub(crate) type RawDoc = (Vec<u8>, bool);

/// An insert command given as bytes, split so that its documents are not decoded: the command
/// without them (`documents` left as an empty array, for the command's other checks) and each
/// document's bytes. `None` (the caller decodes the whole command, as for any other) unless the
/// command is an `insert` whose one `documents` field is an array of documents that all read
/// (so the decoded path would have reached the same statements).
pub(crate) fn split_raw(raw: &RawDocument) -> Option<(Document, Vec<Option<RawDoc>>)> {
    super::split_raw_command(raw, "insert", "documents", |v| {
        let max = crate::value::MAX_NESTING;
        let mut docs = Vec::new();
        for d in crate::value::raw::array_documents(v.as_array()?) {
            let d = d?;
            let form = crate::value::raw::check_stored_form(d, max).ok()?;
            // The command's nesting limit (the document's fields are two levels down in it): a
            // command past it is refused before it runs, by the caller.
            if form.depth + 1 >= max {
                return None;
            }
            // A document past the storage depth fails on the decoded path, with its error.
            let canonical = form.same && form.filled_depth < super::super::validate::MAX_DEPTH;
            docs.push(Some((d.as_bytes().to_vec(), canonical)));
        }
        Some(docs)
    })
}

/// [`insert_one`] of a document given as bytes: a document in the stored form, into a
/// collection that needs no decoded document, is prepared and stored as bytes; any other is
/// decoded and goes through [`insert_one`].
fn insert_raw(db: &mut Database, ctx: &Ctx, coll: &str, (bytes, canonical): RawDoc, bypass: bool) -> Result<()> {
    let needs_doc = db.collection(&ctx.db, coll).is_some_and(|c| c.is_timeseries() || (!bypass && c.has_validator()));
    if !canonical || needs_doc {
        let doc = RawDocument::from_bytes(&bytes)
            .and_then(crate::value::raw::decode)
            .map_err(|e| Error::new(ErrorKind::InvalidBSON, e.to_string()))?;
        return insert_one(db, ctx, coll, &doc, bypass);
    }
    let prepared = write::prepare_insert_raw(db, bytes)?;
    write::insert_prepared_raw(db, &ctx.db, coll, prepared, &ctx.env)
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
