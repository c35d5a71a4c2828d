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

/// An update command given as bytes, split so that its statements are not decoded all at once:
/// the command without them (`updates` left as an empty array, for the command's other checks)
/// and the bytes of the `updates` array. `None` (the caller decodes the whole command, as for
/// any other) unless the command is an `update` within the nesting limit whose one `updates`
/// field is an array whose elements read.
pub(crate) fn split_raw(raw: &bson::RawDocument) -> Option<(Document, Vec<u8>)> {
    super::split_raw_command(raw, "update", "updates", |v| {
        // The statements are walked once: that they read and keep within the nesting limit.
        let array = v.as_array()?;
        reads_within(v, crate::value::MAX_NESTING).then(|| array.as_bytes().to_vec())
    })
}

/// Whether every element inside `v` reads (as decoding the whole command would find) and `v`
/// nests no deeper than `left` levels (as `value::raw_value_nests_deeper_than` counts them), in
/// one walk without decoding.
fn reads_within(v: bson::RawBsonRef<'_>, left: usize) -> bool {
    use bson::RawBsonRef;
    match v {
        RawBsonRef::Document(d) => left > 0 && d.into_iter().all(|item| item.is_ok_and(|(_, v)| reads_within(v, left - 1))),
        RawBsonRef::Array(a) => left > 0 && a.into_iter().all(|item| item.is_ok_and(|v| reads_within(v, left - 1))),
        // A scope's nesting is not counted, only whether it reads.
        RawBsonRef::JavaScriptCodeWithScope(c) => reads_within(RawBsonRef::Document(c.scope), usize::MAX),
        _ => true,
    }
}

/// The statements of an update command: decoded with it, or as the bytes of its `updates`
/// array (`split_raw`), each decoded when it is read.
enum Statements<'a> {
    Decoded(&'a [Bson]),
    Raw(Vec<bson::RawBsonRef<'a>>),
}

impl Statements<'_> {
    fn len(&self) -> usize {
        match self {
            Statements::Decoded(list) => list.len(),
            Statements::Raw(list) => list.len(),
        }
    }

    /// Statement `i` parsed (as `Statement::parse` reads it, `bypass` set), given to `f`.
    fn with<T>(&self, i: usize, bypass: bool, f: impl FnOnce(&Statement) -> Result<T>) -> Result<T> {
        let decoded;
        let v = match self {
            Statements::Decoded(list) => &list[i],
            Statements::Raw(list) => {
                decoded = decode(list[i])?;
                &decoded
            }
        };
        let mut st = Statement::parse(v, "update.updates")?;
        st.bypass_validation = bypass;
        f(&st)
    }

    /// Checks statement `i` as `Statement::parse` does. That parse reads only the types of the
    /// statement's fields and of their elements (`arrayFilters`'), so a statement given as bytes
    /// is checked on its outline two levels deep, not decoded.
    fn check(&self, i: usize) -> Result<()> {
        let shallow;
        let v = match self {
            Statements::Decoded(list) => &list[i],
            Statements::Raw(list) => {
                shallow = outline(list[i], 2)?;
                &shallow
            }
        };
        Statement::parse(v, "update.updates").map(|_| ())
    }
}

/// Bytes of a statement that do not read (`split_raw` let through only bytes that do).
fn invalid(e: bson::error::Error) -> Error {
    Error::new(crate::error::ErrorKind::InvalidBSON, e.to_string())
}

/// A value read from bytes: the fast decoder, else the crate's (as for a whole command).
fn decode(v: bson::RawBsonRef<'_>) -> Result<Bson> {
    crate::value::raw::decode_value(v).or_else(|_| Bson::try_from(v)).map_err(invalid)
}

/// `v` decoded `depth` levels deep: the documents and arrays below are left empty (what a check
/// of types reads).
fn outline(v: bson::RawBsonRef<'_>, depth: usize) -> Result<Bson> {
    Ok(match v {
        bson::RawBsonRef::Document(d) => {
            let mut out = Document::new();
            if depth > 0 {
                for item in d {
                    let (k, x) = item.map_err(invalid)?;
                    out.insert(k.as_str(), outline(x, depth - 1)?);
                }
            }
            Bson::Document(out)
        }
        bson::RawBsonRef::Array(a) => {
            let mut out = Vec::new();
            if depth > 0 {
                for item in a {
                    out.push(outline(item.map_err(invalid)?, depth - 1)?);
                }
            }
            Bson::Array(out)
        }
        other => decode(other)?,
    })
}

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let raw = ctx.take_raw(|part| match part {
        super::RawPart::Statements(bytes) => Ok(bytes),
        other => Err(other),
    });
    let coll = args::collection_name(cmd, &ctx.db)?;
    let f = Fields::new(cmd, "update");
    let updates = f.required_array("updates")?;
    let statements = match &raw {
        Some(bytes) => {
            let array = bson::RawDocument::from_bytes(bytes).map_err(invalid)?;
            let items = array.iter().map(|item| item.map(|(_, v)| v)).collect::<std::result::Result<Vec<_>, _>>();
            Statements::Raw(items.map_err(invalid)?)
        }
        None => Statements::Decoded(updates),
    };
    let ordered = f.bool_or("ordered", true)?;
    check_batch_size(statements.len())?;
    let bypass = f.bool_or("bypassDocumentValidation", false)?;
    // Every statement is checked before any runs (the server parses the whole batch first);
    // one given as bytes is decoded when it runs, so that only one is decoded at a time.
    for i in 0..statements.len() {
        statements.check(i)?;
    }
    let_vars(ctx, f.doc("let")?)?;
    let (done, errors) = write::each_statement(statements.len(), ordered, |i| statements.with(i, bypass, |st| run_statement(db, ctx, &coll, st)));
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
