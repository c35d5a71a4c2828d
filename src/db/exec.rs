//! Reading a collection for a command: candidates through the `_id` index or a scan, the filter,
//! sort, skip and limit, with the cost counters charged as documents and keys are examined.

use bson::{Bson, Document};

use crate::env::Env;
use crate::error::Result;
use crate::expr::VarScope;
use crate::query::sort::SortSpec;
use crate::query::{MatchDetails, Matcher};

use super::collection::{Candidates, Collection};

/// A parsed filter with the document it came from (the `_id` fast path reads the document).
/// The empty filter needs no matcher.
pub(crate) struct Filter<'a> {
    pub doc: &'a Document,
    pub matcher: Option<Matcher>,
}

impl<'a> Filter<'a> {
    /// Parses a filter whose `$expr` may use the variables of `env` (the command's `let`).
    pub fn parse(doc: &'a Document, env: &Env) -> Result<Filter<'a>> {
        // `{}` matches everything; `{_id: v}` (and `$eq`/`$in` on `_id` alone) is answered
        // exactly by the `_id` index.
        let matcher = if doc.is_empty() || is_id_only(doc) {
            None
        } else {
            Some(Matcher::parse_with_scope(doc, &VarScope::with_names(env.vars.keys().cloned()))?)
        };
        Ok(Filter { doc, matcher })
    }

    /// The parsed matcher (`None` for `{}` and `_id` equalities).
    pub fn matcher(&self) -> Option<&Matcher> {
        self.matcher.as_ref()
    }

    fn match_details(&self, doc: &Document, env: &Env) -> Result<MatchDetails> {
        match &self.matcher {
            Some(m) => m.match_details(doc, env),
            None => Ok(MatchDetails { matched: true, elem_index: None }),
        }
    }
}

/// True when the filter is only an equality on `_id` the index answers exactly.
pub(crate) fn is_id_only(filter: &Document) -> bool {
    filter.len() == 1 && super::collection::id_equalities(filter).is_some()
}

/// How the last read found its documents (for explain).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    IdIndex,
    Scan,
}

/// Which access path `filter` takes on `coll`.
pub(crate) fn access(coll: &Collection, filter: &Document) -> Access {
    match coll.candidates(filter) {
        Candidates::Ids { .. } => Access::IdIndex,
        Candidates::Scan => Access::Scan,
    }
}

/// The records matching `filter`, in natural order, with the array position the match used.
/// Stops after `stop_after` matches when given.
pub(crate) fn matching(coll: &Collection, filter: &Filter, env: &Env, stop_after: Option<usize>) -> Result<Vec<(u64, MatchDetails)>> {
    let mut out = Vec::new();
    if stop_after == Some(0) {
        return Ok(out);
    }
    let mut check = |rid: u64, doc: &Document, size: usize| -> Result<bool> {
        env.add_docs_examined(1, size as u64);
        let d = filter.match_details(doc, env)?;
        if d.matched {
            out.push((rid, d));
            if stop_after.map(|n| out.len() >= n).unwrap_or(false) {
                return Ok(true);
            }
        }
        Ok(false)
    };
    match coll.candidates(filter.doc) {
        Candidates::Ids { rids, keys_examined } => {
            env.add_keys_examined(keys_examined);
            for rid in rids {
                if let Some(r) = coll.get(rid) {
                    if check(rid, &r.doc, r.size)? {
                        break;
                    }
                }
            }
        }
        Candidates::Scan => {
            for (rid, r) in coll.iter() {
                if check(rid, &r.doc, r.size)? {
                    break;
                }
            }
        }
    }
    Ok(out)
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
    pub fn apply<T>(&self, items: &mut [T], doc: impl Fn(&T) -> &Document) {
        match self {
            Sort::Natural { reverse: false } => {}
            Sort::Natural { reverse: true } => items.reverse(),
            Sort::Spec(s) => items.sort_by(|a, b| s.compare(doc(a), doc(b))),
        }
    }
}

/// The records matching `filter` after `sort`, `skip` and `limit` (0 = no limit).
pub(crate) fn select(
    coll: &Collection,
    filter: &Filter,
    sort: Option<&Sort>,
    skip: u64,
    limit: u64,
    env: &Env,
) -> Result<Vec<(u64, MatchDetails)>> {
    let stop = match sort {
        None if limit > 0 => Some((skip + limit) as usize),
        _ => None,
    };
    let found = matching(coll, filter, env, stop)?;
    let mut with_docs: Vec<(u64, MatchDetails, &Document)> =
        found.into_iter().filter_map(|(rid, d)| coll.get(rid).map(|r| (rid, d, &r.doc))).collect();
    if let Some(s) = sort {
        s.apply(&mut with_docs, |(_, _, d)| d);
    }
    let it = with_docs.into_iter().skip(skip as usize).map(|(rid, d, _)| (rid, d));
    Ok(if limit > 0 { it.take(limit as usize).collect() } else { it.collect() })
}

/// The `_id` of a document (null when absent).
pub(crate) fn id_of(doc: &Document) -> Bson {
    doc.get("_id").cloned().unwrap_or(Bson::Null)
}
