//! `findAndModify`: `{ findAndModify: "c", query, sort, remove, update, new, fields, upsert,
//! arrayFilters, let }` -> `{ lastErrorObject: { n, updatedExisting?, upserted? }, value }`.
//! Errors are command errors (not write errors).

use bson::{doc, Bson, Document};

use crate::error::{Error, Result};
use crate::query::MatchDetails;

use super::super::args::{self, Fields};
use super::super::exec::{Filter, Sort};
use crate::query::projection::Projection;
use super::super::Database;
use super::write::{self, StatementOpts, UpdateSpec};
use super::{let_vars, Ctx};

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let f = Fields::new(cmd, "findAndModify");
    let empty = Document::new();
    let query = f.doc("query")?.unwrap_or(&empty).clone();
    let sort = f.doc("sort")?.cloned();
    let remove = f.bool_or("remove", false)?;
    let new = f.bool_or("new", false)?;
    let upsert = f.bool_or("upsert", false)?;
    let fields = f.doc("fields")?;
    let array_filters = f.doc_array("arrayFilters")?;
    let update = match cmd.get("update") {
        None | Some(Bson::Null) => None,
        Some(u @ (Bson::Document(_) | Bson::Array(_))) => Some(u.clone()),
        Some(other) => {
            return Err(Error::failed_to_parse(format!(
                "Update argument must be either an object or an array, but got {}",
                crate::value::types::type_name(other)
            )))
        }
    };
    if remove {
        if update.is_some() {
            return Err(Error::failed_to_parse("Cannot specify both an update and remove=true"));
        }
        if upsert {
            return Err(Error::failed_to_parse("Cannot specify both upsert=true and remove=true"));
        }
        if new {
            return Err(Error::failed_to_parse(
                "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document",
            ));
        }
        if array_filters.is_some() {
            return Err(Error::failed_to_parse("Cannot specify arrayFilters and remove=true"));
        }
    } else if update.is_none() {
        return Err(Error::failed_to_parse("Either an update or remove=true must be specified"));
    }
    let_vars(ctx, f.doc("let")?)?;
    let filter = Filter::parse(&query, &ctx.env)?;
    // The projection and sort as a find's (the server plans findAndModify as a canonical query):
    // `{$meta: "sortKey"}` needs the sort.
    let projection = match fields {
        Some(p) if !p.is_empty() => {
            let parsed = Projection::parse_with(p, filter.matcher(), &super::let_scope(ctx))?;
            let sort = Sort::parse(sort.as_ref())?;
            let spec = match &sort {
                Some(Sort::Spec(s)) => Some(s),
                _ => None,
            };
            Some(parsed.with_sort(spec, sort.is_some())?)
        }
        _ => None,
    };
    // The query may no longer match the updated document: a positional projection cannot
    // return it (the server refuses this when it plans the projection).
    if new && !remove && projection.as_ref().is_some_and(|p| p.has_positional()) {
        return Err(Error::bad_value("cannot use a positional projection and return the new document"));
    }
    // A positional projection (`a.$`) takes the array position the query matches in the
    // returned document.
    let project = |d: &Document, sorted: &Document, ctx: &Ctx| -> Result<Document> {
        let Some(p) = &projection else { return Ok(d.clone()) };
        let details = match filter.matcher() {
            Some(m) if p.has_positional() => m.match_details(d, &ctx.env),
            _ => Ok(MatchDetails { matched: true, elem_index: None }),
        };
        // Projecting runs in the server's executor too.
        details
            .and_then(|details| p.apply_sorted_as(d, sorted, &details, &ctx.env))
            .map_err(|e| e.add_context(write::executor_context("findAndModify")))
    };
    let dbname = ctx.db.clone();
    if remove {
        let removed = write::delete_statement(db, &dbname, &coll, &query, true, sort.as_ref(), cmd.get("hint"), "findAndModify", &ctx.env)?;
        let value = match &removed.first {
            Some(d) => Bson::Document(project(d, d, ctx)?),
            None => Bson::Null,
        };
        return Ok(doc! {"lastErrorObject": {"n": removed.n as i32}, "value": value});
    }
    let Some(u) = update else { return Err(Error::failed_to_parse("Either an update or remove=true must be specified")) };
    let spec = UpdateSpec::parse(&u, array_filters.as_deref(), false, &super::let_scope(ctx))?;
    let opts = StatementOpts { upsert, multi: false, sort: sort.as_ref(), keep_docs: true, bypass_validation: f.bool_or("bypassDocumentValidation", false)?, hint: cmd.get("hint"), operation: "findAndModify" };
    let r = write::update_statement(db, &dbname, &coll, &query, &spec, &opts, &ctx.env)?;
    let mut leo = Document::new();
    let value = match r.docs.first() {
        None => {
            leo.insert("n", 0);
            leo.insert("updatedExisting", false);
            Bson::Null
        }
        Some(change) => {
            leo.insert("n", 1);
            leo.insert("updatedExisting", change.before.is_some());
            if let Some(id) = &r.upserted {
                leo.insert("upserted", id.clone());
            }
            match (&change.before, new) {
                (_, true) => Bson::Document(project(&change.after, change.before.as_ref().unwrap_or(&change.after), ctx)?),
                (Some(b), false) => Bson::Document(project(b, b, ctx)?),
                (None, false) => Bson::Null,
            }
        }
    };
    Ok(doc! {"lastErrorObject": leo, "value": value})
}
