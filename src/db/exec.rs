//! Reading a collection for a command: the plan (see `planner`), the filter, sort, skip and
//! limit, with the cost counters charged as keys and documents are examined.

use bson::{Bson, Document};

use crate::env::Env;
use crate::error::{Error, Result};
use crate::expr::VarScope;
use crate::query::sort::SortSpec;
use crate::query::{MatchDetails, Matcher};

use super::collection::Collection;
use super::planner;

/// A parsed filter with the document it came from (the planner reads the document).
pub(crate) struct Filter<'a> {
    pub doc: &'a Document,
    /// `None` for `{}`.
    matcher: Option<Matcher>,
    /// Only an equality on `_id`: lookups in the `_id_` index answer it exactly.
    id_only: bool,
    /// The command's `hint`.
    hint: Option<Bson>,
    /// The command's `min` and `max` (`{}` when not given), when either is given.
    min_max: Option<(Document, Document)>,
    /// What the server's executor adds to errors raised while the plan runs
    /// (`Plan executor error during update`); `None` leaves them bare.
    executor: Option<String>,
}

impl<'a> Filter<'a> {
    /// Parses a filter whose `$expr` may use the variables of `env` (the command's `let`).
    pub fn parse(doc: &'a Document, env: &Env) -> Result<Filter<'a>> {
        let matcher = if doc.is_empty() {
            None
        } else {
            Some(Matcher::parse_with_scope(doc, &VarScope::with_names(env.vars.keys().cloned()))?)
        };
        let id_only = doc.len() == 1 && super::collection::id_equalities(doc).is_some();
        Ok(Filter { doc, matcher, id_only, hint: None, min_max: None, executor: None })
    }

    /// The same filter with a `hint` (an index name, key pattern or `{ $natural: 1 }`).
    pub fn with_hint(mut self, hint: Option<&Bson>) -> Filter<'a> {
        self.hint = hint.filter(|h| !matches!(h, Bson::Null)).cloned();
        self
    }

    /// The same filter read between the index keys `min` (included) and `max` (excluded) of
    /// the hinted index (a find's `min()`/`max()`).
    pub fn with_min_max(mut self, min: Option<&Document>, max: Option<&Document>) -> Filter<'a> {
        if min.is_some_and(|d| !d.is_empty()) || max.is_some_and(|d| !d.is_empty()) {
            self.min_max = Some((min.cloned().unwrap_or_default(), max.cloned().unwrap_or_default()));
        }
        self
    }

    /// The same filter run by an executor that adds `context` to the errors raised while the plan
    /// runs (matching), not to those of planning (a bad `hint`).
    pub fn in_executor(mut self, context: impl Into<String>) -> Filter<'a> {
        self.executor = Some(context.into());
        self
    }

    /// `e` with this filter's executor context, as an error raised while the plan runs.
    pub fn executor_error(&self, e: Error) -> Error {
        match &self.executor {
            Some(c) => e.add_context(c),
            None => e,
        }
    }

    pub fn hint(&self) -> Option<&Bson> {
        self.hint.as_ref()
    }

    /// The parsed matcher (`None` for `{}`).
    pub fn matcher(&self) -> Option<&Matcher> {
        self.matcher.as_ref()
    }

}

/// The records matching `filter` with the array position each match used, in plan order (index
/// order for an index scan, natural order for a collection scan). Stops after `stop_after`.
pub(crate) fn matching(coll: &Collection, filter: &Filter, env: &Env, stop_after: Option<usize>) -> Result<Vec<(u64, MatchDetails)>> {
    if stop_after == Some(0) {
        return Ok(Vec::new());
    }
    select(coll, filter, None, 0, stop_after.unwrap_or(0) as u64, env)
}

/// A sort specification, with `$natural` handled here.
pub(crate) enum Sort {
    Natural { reverse: bool },
    Spec(SortSpec),
}

impl Sort {
    /// Parses a `sort` option; `None` for an absent or empty one.
    pub fn parse(spec: Option<&Document>) -> Result<Option<Sort>> {
        let Some(spec) = spec else { return Ok(None) };
        if spec.is_empty() {
            return Ok(None);
        }
        if let Some(v) = spec.get("$natural") {
            if spec.len() == 1 {
                let reverse = crate::value::Number::from_bson(v).map(|n| n.to_f64() < 0.0).unwrap_or(false);
                return Ok(Some(Sort::Natural { reverse }));
            }
        }
        Ok(Some(Sort::Spec(SortSpec::parse_find(spec)?)))
    }

    /// Sorts records (given in natural order) in place; stable, so ties keep natural order.
    pub fn apply<T>(&self, items: &mut Vec<T>, doc: impl Fn(&T) -> &Document) {
        match self {
            Sort::Natural { reverse: false } => {}
            Sort::Natural { reverse: true } => items.reverse(),
            Sort::Spec(s) => s.sort(items, doc),
        }
    }
}

/// The records matching `filter` after `sort`, `skip` and `limit` (0 = no limit), read through
/// the plan the planner picks; the cost counters count the keys and documents it examines.
pub(crate) fn select(
    coll: &Collection,
    filter: &Filter,
    sort: Option<&Sort>,
    skip: u64,
    limit: u64,
    env: &Env,
) -> Result<Vec<(u64, MatchDetails)>> {
    let want = if limit > 0 { Some((skip + limit) as usize) } else { None };
    let plan = match &filter.min_max {
        Some((min, max)) => planner::plan_min_max(coll, filter.doc, sort, filter.hint.as_ref(), min, max)?,
        None => planner::plan_with_hint(coll, filter.doc, sort, want, filter.hint.as_ref())?,
    };
    let in_order = sort.is_none() || plan.provides_sort();
    let stop = if in_order { want } else { None };
    let exact = filter.id_only && matches!(plan, planner::Plan::IdHack { .. });
    let mut found: Vec<(u64, MatchDetails)> = Vec::new();
    let keys = planner::execute(coll, &plan, |rid| {
        let Some(r) = coll.get(rid) else { return Ok(true) };
        env.add_docs_examined(1, r.size() as u64);
        let d = match (&filter.matcher, exact) {
            (None, _) | (_, true) => MatchDetails { matched: true, elem_index: None },
            // Read in place when the filter allows it, else decoded.
            (Some(m), false) => match m.match_details_raw(r.raw()?, env)? {
                Some(d) => d,
                None => m.match_details(&r.doc()?, env)?,
            },
        };
        if d.matched {
            found.push((rid, d));
        }
        Ok(stop.map(|n| found.len() < n).unwrap_or(true))
    })
    .map_err(|e| filter.executor_error(e))?;
    env.add_keys_examined(keys);
    if let (Some(s), false) = (sort, plan.provides_sort()) {
        // The sort reads only its key fields: only those are decoded (nothing for `$natural`).
        let tops: Vec<String> = match s {
            Sort::Spec(spec) => spec.keys().into_iter().map(|(p, _)| p.split('.').next().unwrap_or(&p).to_string()).collect(),
            Sort::Natural { .. } => Vec::new(),
        };
        let keep = |name: &str| tops.iter().any(|t| t == name);
        let mut with_docs: Vec<(u64, MatchDetails, Document)> =
            found.into_iter().filter_map(|(rid, d)| coll.get(rid).map(|r| r.doc_with(&keep).map(|doc| (rid, d, doc)))).collect::<Result<_>>()?;
        s.apply(&mut with_docs, |(_, _, d)| d);
        found = with_docs.into_iter().map(|(rid, d, _)| (rid, d)).collect();
    }
    let it = found.into_iter().skip(skip as usize);
    Ok(if limit > 0 { it.take(limit as usize).collect() } else { it.collect() })
}

/// The `_id` of a document (null when absent).
pub(crate) fn id_of(doc: &Document) -> Bson {
    doc.get("_id").cloned().unwrap_or(Bson::Null)
}
