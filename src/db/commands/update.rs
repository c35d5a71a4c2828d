//! `update`: `{ update: "c", updates: [{ q, u, upsert, multi, arrayFilters, sort, hint }],
//! ordered, let }` -> `{ n, nModified, upserted?, writeErrors? }`.

use bson::{doc, Bson, Document};

use crate::error::{Error, Result};

use super::super::args::{self, Fields};
use super::super::{timeseries, Database};
use super::insert::check_batch_size;
use super::write::{self, StatementOpts, UpdateSpec};
use super::{let_vars, Ctx};

/// One parsed update statement (borrowing from the command).
pub(crate) struct Statement<'a> {
    pub q: &'a Document,
    pub u: &'a Bson,
    pub upsert: bool,
    pub multi: bool,
    pub array_filters: Option<Vec<Document>>,
    pub sort: Option<&'a Document>,
    pub constants: Option<&'a Document>,
    /// The command's `bypassDocumentValidation`.
    pub bypass_validation: bool,
    pub hint: Option<&'a Bson>,
}

impl<'a> Statement<'a> {
    /// Reads one element of `updates` (errors name `update.updates.<field>`).
    pub fn parse(v: &'a Bson, prefix: &str) -> Result<Statement<'a>> {
        let Bson::Document(d) = v else {
            return Err(args::wrong_type(prefix, v, "object"));
        };
        let f = Fields::new(d, prefix);
        let q = f.required_doc("q")?;
        let u = match d.get("u") {
            None => return Err(args::missing(&f.path("u"))),
            Some(u @ (Bson::Document(_) | Bson::Array(_))) => u,
            Some(other) => {
                return Err(Error::failed_to_parse(format!(
                    "Update argument must be either an object or an array, but got {}",
                    crate::value::types::type_name(other)
                )))
            }
        };
        Ok(Statement {
            q,
            u,
            upsert: f.bool_or("upsert", false)?,
            multi: f.bool_or("multi", false)?,
            array_filters: f.doc_array("arrayFilters")?,
            sort: f.doc("sort")?,
            constants: f.doc("c")?,
            bypass_validation: false,
            hint: d.get("hint").filter(|h| !matches!(h, Bson::Null)),
        })
    }

    /// The parsed update of this statement; `vars` are the command's `let` names.
    pub fn spec(&self, vars: &crate::expr::VarScope) -> Result<UpdateSpec> {
        if self.constants.is_some() && !matches!(self.u, Bson::Array(_)) {
            return Err(Error::code(51198, "Constant values may only be specified for pipeline updates"));
        }
        if self.sort.is_some() && self.multi {
            return Err(Error::new(
                crate::error::ErrorKind::FailedToParse,
                "Cannot specify sort with multi=true",
            ));
        }
        let Some(c) = self.constants else {
            return UpdateSpec::parse(self.u, self.array_filters.as_deref(), self.multi, vars);
        };
        let mut scope = vars.clone();
        scope.names.extend(c.keys().cloned());
        UpdateSpec::parse(self.u, self.array_filters.as_deref(), self.multi, &scope)
    }
}

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let f = Fields::new(cmd, "update");
    let updates = f.required_array("updates")?;
    let ordered = f.bool_or("ordered", true)?;
    check_batch_size(updates.len())?;
    let bypass = f.bool_or("bypassDocumentValidation", false)?;
    let mut statements = updates
        .iter()
        .map(|u| Statement::parse(u, "update.updates"))
        .collect::<Result<Vec<_>>>()?;
    for st in &mut statements {
        st.bypass_validation = bypass;
    }
    let_vars(ctx, f.doc("let")?)?;
    let (done, errors) = write::each_statement(statements.len(), ordered, |i| run_statement(db, ctx, &coll, &statements[i]));
    let mut n = 0i64;
    let mut n_modified = 0i64;
    let mut upserted = Vec::new();
    for (i, r) in done {
        n += r.matched as i64;
        n_modified += r.modified as i64;
        if let Some(id) = r.upserted {
            n += 1;
            upserted.push(Bson::Document(doc! {"index": i as i32, "_id": id}));
        }
    }
    let mut reply = write::n_reply(n, errors);
    if !upserted.is_empty() {
        reply.insert("upserted", upserted);
    }
    reply.insert("nModified", super::number(n_modified));
    Ok(reply)
}

/// Runs one statement (its constants `c` become variables for a pipeline).
pub(crate) fn run_statement(db: &mut Database, ctx: &mut Ctx, coll: &str, st: &Statement) -> Result<write::UpdateResult> {
    let spec = st.spec(&super::let_scope(ctx))?;
    let saved = ctx.env.vars.clone();
    if let Some(c) = st.constants {
        for (k, v) in c {
            ctx.env.vars.insert(k.clone(), v.clone());
        }
    }
    let opts = StatementOpts { upsert: st.upsert, multi: st.multi, sort: st.sort, keep_docs: false, bypass_validation: st.bypass_validation, hint: st.hint, operation: "update" };
    let buckets = match time_series_buckets(db, ctx, coll, st) {
        Ok(b) => b,
        Err(e) => {
            ctx.env.vars = saved;
            return Err(e);
        }
    };
    let r = write::update_statement(db, &ctx.db.clone(), coll, st.q, &spec, &opts, &ctx.env);
    ctx.env.vars = saved;
    let mut r = r?;
    if let Some(matched) = buckets {
        // The server updates bucket documents: its counts are of buckets, not measurements.
        let c = db.collection(&ctx.db, coll);
        r.matched = matched.len() as u64;
        r.modified = matched
            .iter()
            .filter(|(rid, before)| c.and_then(|c| c.get(*rid)).is_none_or(|rec| rec.bytes() != before.as_slice()))
            .count() as u64;
    }
    Ok(r)
}

/// For an update of a time series collection: the server's checks, then the buckets it will
/// match (each bucket's first measurement and its bytes, to tell afterwards whether the bucket
/// changed). `None` for other collections.
fn time_series_buckets(db: &Database, ctx: &Ctx, coll: &str, st: &Statement) -> Result<Option<Vec<(u64, Vec<u8>)>>> {
    let Some(c) = db.collection(&ctx.db, coll) else { return Ok(None) };
    let Some(Bson::Document(ts)) = c.options.get("timeseries") else { return Ok(None) };
    timeseries::check_update(ts, st.q, st.u, st.multi, st.upsert)?;
    let filter = crate::query::Matcher::parse_in_env(st.q, &ctx.env)?;
    let mut matched = Vec::new();
    for rids in timeseries::bucket_members(c).unwrap_or_default() {
        // A filter on the metaField alone matches a bucket's measurements all or none.
        let Some(rec) = rids.first().and_then(|rid| c.get(*rid)) else { continue };
        if filter.matches(&rec.doc()?, &ctx.env)? {
            matched.push((rids[0], rec.bytes().to_vec()));
        }
    }
    Ok(Some(matched))
}
