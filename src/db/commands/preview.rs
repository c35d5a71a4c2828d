//! `ppPreviewUpdate` (an engine extension for the UI): `{ ppPreviewUpdate: "c", q, u, upsert,
//! multi, arrayFilters, sort, let }` runs the update on a copy of the collection and returns
//! `{ matchedCount, modifiedCount, upsertedId?, docs: [{ before, after, changedPaths, sizeBefore,
//! sizeAfter }] }` (matched documents, unchanged ones included, then an upserted one). The data is
//! not touched.

use std::collections::BTreeMap;

use bson::{doc, Bson, Document};

use crate::error::Result;
use crate::value;

use super::super::args::{self, Fields};
use super::super::{Database, Db};
use super::update::Statement;
use super::write::{self, StatementOpts};
use super::{let_vars, Ctx};

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let f = Fields::new(cmd, "ppPreviewUpdate");
    let mut stmt_doc = Document::new();
    for k in ["q", "u", "upsert", "multi", "arrayFilters", "sort", "c", "hint"] {
        if let Some(v) = cmd.get(k) {
            stmt_doc.insert(k, v.clone());
        }
    }
    if !stmt_doc.contains_key("q") {
        stmt_doc.insert("q", Document::new());
    }
    let stmt = Bson::Document(stmt_doc);
    let st = Statement::parse(&stmt, "ppPreviewUpdate")?;
    let_vars(ctx, f.doc("let")?)?;
    let spec = st.spec(&super::let_scope(ctx))?;
    // A scratch server holding a copy of the one collection.
    let mut collections = BTreeMap::new();
    if let Some(c) = db.collection(&ctx.db, &coll) {
        collections.insert(coll.clone(), c.clone());
    }
    let mut dbs = BTreeMap::new();
    dbs.insert(ctx.db.clone(), Db { collections });
    let mut scratch = Database { dbs, clock: db.clock, ids: db.ids.clone(), last_cost: Default::default(), reports: Vec::new(), reports_total: 0, cursors: Default::default(), topology: db.topology, txns: Default::default(), txn_swapped: false, txn_inside: false };
    let opts = StatementOpts { upsert: st.upsert, multi: st.multi, sort: st.sort, keep_docs: true, bypass_validation: false, hint: st.hint, operation: "update" };
    let saved = ctx.env.vars.clone();
    if let Some(c) = st.constants {
        for (k, v) in c {
            ctx.env.vars.insert(k.clone(), v.clone());
        }
    }
    let r = write::update_statement(&mut scratch, &ctx.db.clone(), &coll, st.q, &spec, &opts, &ctx.env);
    ctx.env.vars = saved;
    let r = r?;
    let docs: Vec<Bson> = r
        .docs
        .iter()
        .map(|c| {
            Bson::Document(doc! {
                "before": c.before.clone().map(Bson::Document).unwrap_or(Bson::Null),
                "after": c.after.clone(),
                "changedPaths": c.changed_paths.clone(),
                "sizeBefore": c.before.as_ref().map(|b| Bson::Int64(value::bson_size(b) as i64)).unwrap_or(Bson::Null),
                "sizeAfter": value::bson_size(&c.after) as i64,
            })
        })
        .collect();
    let mut reply = doc! {"matchedCount": r.matched as i64, "modifiedCount": r.modified as i64};
    if let Some(id) = r.upserted {
        reply.insert("upsertedId", id);
    }
    reply.insert("docs", docs);
    Ok(reply)
}
