//! `find`: `{ find: "c", filter, projection, sort, skip, limit, batchSize, singleBatch, let, .. }`
//! -> `{ cursor: { firstBatch, id, ns } }`. The results are computed once; what the first batch
//! does not hold stays with an open cursor for `getMore` (`db::cursors`).

use bson::{doc, Bson, Document};

use crate::error::Result;

use super::super::args::{self, Fields};
use super::super::exec::{self, Filter, Sort};
use crate::query::projection::Projection;
use super::super::Database;
use super::super::cursors::{OpenCursor, Rest};
use super::{let_vars, Ctx};

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let ns = format!("{}.{coll}", ctx.db);
    let f = Fields::new(cmd, "find");
    let batch_size = f.non_negative("batchSize")?;
    let single_batch = f.bool("singleBatch")?.unwrap_or(false);
    let limit = f.non_negative("limit")?.unwrap_or(0);
    let (rest, n) = match find_results(db, ctx, &coll, cmd)? {
        Found::Docs(docs) => {
            let n = docs.len();
            (Rest::Docs(docs.into()), n)
        }
        // Unchanged stored documents: a batch is filled from the collection when the reply is
        // written (see `Batch`), not copied here.
        Found::Stored(rids) => {
            let n = rids.len();
            (Rest::Stored(rids.into()), n)
        }
    };
    let uuid = db.collection(&ctx.db, &coll).map(|c| c.uuid);
    // A plan with a limit knows it is exhausted once the limit is reached.
    let eof_known = limit > 0 && n as i64 >= limit;
    let cursor = OpenCursor { ns, collection: coll, uuid, rest, eof_known };
    let dbname = ctx.db.clone();
    Ok(db.open_cursor(&dbname, cursor, batch_size, single_batch, &mut ctx.batch))
}

/// What a find returns: documents it built (projected, or from a view), or stored records
/// returned as they are.
enum Found {
    Docs(Vec<Document>),
    Stored(Vec<u64>),
}

/// The results of a find command.
fn find_results(db: &Database, ctx: &mut Ctx, coll: &str, cmd: &Document) -> Result<Found> {
    let f = Fields::new(cmd, "find");
    let empty = Document::new();
    let filter_doc = f.doc("filter")?.unwrap_or(&empty);
    let projection = f.doc("projection")?;
    let sort = Sort::parse(f.doc("sort")?)?;
    let skip = f.non_negative("skip")?.unwrap_or(0) as u64;
    let limit = f.non_negative("limit")?.unwrap_or(0) as u64;
    let_vars(ctx, f.doc("let")?)?;
    // Errors raised while the plan runs carry the server's executor context.
    let filter = Filter::parse(filter_doc, &ctx.env)?
        .with_hint(cmd.get("hint"))
        .with_min_max(f.doc("min")?, f.doc("max")?)
        .in_executor(format!("Executor error during find command: {}.{coll}", ctx.db));
    let projection = match projection {
        Some(p) if !p.is_empty() => {
            let spec = match &sort {
                Some(Sort::Spec(s)) => Some(s),
                _ => None,
            };
            Some(Projection::parse_with(p, filter.matcher(), &super::let_scope(ctx))?.with_sort(spec, sort.is_some())?)
        }
        _ => None,
    };
    if let Some(view) = db.resolve_view(&ctx.db, coll)? {
        // The server runs a find on a view as an aggregation.
        let mut stages: Vec<Bson> = Vec::new();
        if !filter_doc.is_empty() {
            stages.push(Bson::Document(doc! {"$match": filter_doc.clone()}));
        }
        if let Some(s) = f.doc("sort")?.filter(|s| !s.is_empty()) {
            stages.push(Bson::Document(doc! {"$sort": s.clone()}));
        }
        if skip > 0 {
            stages.push(Bson::Document(doc! {"$skip": skip as i64}));
        }
        if limit > 0 {
            stages.push(Bson::Document(doc! {"$limit": limit as i64}));
        }
        if let Some(p) = f.doc("projection")?.filter(|p| !p.is_empty()) {
            stages.push(Bson::Document(doc! {"$project": p.clone()}));
        }
        let out = db.view_documents(&ctx.db, &view, &stages, &ctx.env)?;
        ctx.env.add_returned(out.len() as u64);
        return Ok(Found::Docs(out));
    }
    let Some(c) = db.collection(&ctx.db, coll) else { return Ok(Found::Docs(Vec::new())) };
    let found = exec::select(c, &filter, sort.as_ref(), skip, limit, &ctx.env)?;
    let Some(p) = &projection else {
        let rids: Vec<u64> = found.into_iter().map(|(rid, _)| rid).filter(|rid| c.get(*rid).is_some()).collect();
        ctx.env.add_returned(rids.len() as u64);
        return Ok(Found::Stored(rids));
    };
    let mut out = Vec::with_capacity(found.len());
    for (rid, details) in found {
        let Some(rec) = c.get(rid) else { continue };
        out.push(p.apply(&rec.doc()?, &details, &ctx.env).map_err(|e| filter.executor_error(e))?);
    }
    ctx.env.add_returned(out.len() as u64);
    Ok(Found::Docs(out))
}
