//! `count`: `{ count: "c", query, skip, limit }` -> `{ n }`.

use bson::{doc, Bson, Document};

use crate::error::{Error, Result};

use super::super::args::{self, Fields};
use super::super::exec::{self, Filter};
use super::super::Database;
use super::Ctx;

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let n = count(db, ctx, &coll, cmd)?;
    let mut reply = Document::new();
    reply.insert("n", n as i32);
    Ok(reply)
}

/// The fields of `count` (count_command.idl) besides the generic command arguments.
const COUNT_FIELDS: &[&str] =
    &["count", "query", "limit", "skip", "hint", "collation", "readConcern", "fields", "encryptionInformation", "mirrored", "sampleId", "querySettings"];

pub(crate) fn count(db: &Database, ctx: &Ctx, coll: &str, cmd: &Document) -> Result<u64> {
    args::check_known_fields(cmd, "count", COUNT_FIELDS)?;
    let f = Fields::new(cmd, "count");
    let empty = Document::new();
    let query = f.doc("query")?.unwrap_or(&empty);
    let skip = f.i64("skip")?.unwrap_or(0);
    if skip < 0 {
        return Err(Error::code(51024, format!("BSON field 'skip' value must be >= 0, actual value '{skip}'")));
    }
    // A negative limit counts like its absolute value.
    let limit = f.i64("limit")?.unwrap_or(0).unsigned_abs();
    let filter = Filter::parse(query, &ctx.env)?.with_hint(cmd.get("hint"));
    if let Some(view) = db.resolve_view(&ctx.db, coll)? {
        let mut stages = vec![Bson::Document(doc! {"$match": query.clone()})];
        if skip > 0 {
            stages.push(Bson::Document(doc! {"$skip": skip}));
        }
        if limit > 0 {
            stages.push(Bson::Document(doc! {"$limit": limit as i64}));
        }
        return Ok(db.view_documents(&ctx.db, &view, &stages, &ctx.env)?.len() as u64);
    }
    let Some(c) = db.collection(&ctx.db, coll) else { return Ok(0) };
    if query.is_empty() && filter.hint().is_none() {
        let total = c.len() as u64;
        let after_skip = total.saturating_sub(skip as u64);
        return Ok(if limit > 0 { after_skip.min(limit) } else { after_skip });
    }
    Ok(exec::select(c, &filter, None, skip as u64, limit, &ctx.env)?.len() as u64)
}
