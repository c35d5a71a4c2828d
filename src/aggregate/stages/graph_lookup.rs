//! `$graphLookup`: a breadth-first search over another collection, from `startWith` along
//! `connectFromField` -> `connectToField`, collecting each reached document once (by `_id`) into
//! `as`; `maxDepth` bounds the search, `depthField` records each document's depth (int64),
//! `restrictSearchWithMatch` filters the documents the search may reach.

use std::collections::HashSet;
use std::sync::Arc;

use bson::{Bson, Document};

use super::lookup::{equality_index, local_values, probe, EqIndex, Foreign};
use crate::aggregate::util::{check_field_path, err, set_path, tname};
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::error::Result;
use crate::expr::Expr;
use crate::query::Matcher;
use crate::value::{hash_key, Number};
use crate::value::display;

#[derive(Debug)]
pub(crate) struct GraphLookup {
    from: String,
    start_with: Expr,
    connect_from: String,
    connect_to: String,
    as_path: Vec<String>,
    max_depth: Option<i64>,
    depth_field: Option<Vec<String>>,
    restrict: Option<Matcher>,
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    // The server's lite parse runs first: FailedToParse for a non-object and a missing 'from'.
    let Bson::Document(d) = spec else {
        return Err(err(9, format!("the $graphLookup stage specification must be an object, but found {}", tname(spec))));
    };
    match d.get("from") {
        None => {
            return Err(err(9, format!("missing 'from' option to $graphLookup stage specification: {}", display::document(d))));
        }
        Some(Bson::String(_) | Bson::Document(_)) => {}
        Some(other) => return Err(err(9, format!("$graphLookup 'from' field must be a string, but found {}", tname(other)))),
    }
    let (mut from, mut start_with, mut connect_from, mut connect_to, mut as_) = (None, None, None, None, None);
    let (mut max_depth, mut depth_field, mut restrict) = (None, None, None);
    for (k, v) in d {
        let string = |v: &Bson| match v {
            Bson::String(s) => Ok(s.clone()),
            other => Err(err(40103, format!("expected string as argument for {k}, found: {}", display::value(other)))),
        };
        match k.as_str() {
            "from" => from = Some(string(v)?),
            "as" => as_ = Some(string(v)?),
            "connectFromField" => connect_from = Some(string(v)?),
            "connectToField" => connect_to = Some(string(v)?),
            "depthField" => depth_field = Some(string(v)?),
            "startWith" => start_with = Some(Expr::parse(v, &pcx.scope)?),
            "maxDepth" => {
                let Some(n) = Number::from_bson(v) else {
                    return Err(err(40100, format!("maxDepth must be numeric, found type: {}", tname(v))));
                };
                // As the server: truncate (`safeNumberLong`), check the sign, then exactness.
                let f = n.to_f64();
                let i = n.to_exact_i64().unwrap_or(if f.is_nan() { 0 } else { f as i64 });
                if i < 0 {
                    return Err(err(40101, format!("maxDepth requires a nonnegative argument, found: {i}")));
                }
                if n.to_exact_i64().is_none() {
                    return Err(err(40102, format!("maxDepth could not be represented as a long long: {}", crate::value::display::stream_double(f))));
                }
                max_depth = Some(i);
            }
            "restrictSearchWithMatch" => match v {
                Bson::Document(m) => restrict = Some(Matcher::parse_with_scope(m, &pcx.scope)?),
                other => return Err(err(40185, format!("restrictSearchWithMatch must be an object, found {}", tname(other)))),
            },
            other => return Err(err(40104, format!("Unknown argument to $graphLookup: {other}"))),
        }
    }
    let (Some(from), Some(start_with), Some(connect_from), Some(connect_to), Some(as_)) = (from, start_with, connect_from, connect_to, as_)
    else {
        return Err(err(40105, "$graphLookup requires 'from', 'as', 'startWith', 'connectFromField', and 'connectToField' to be specified."));
    };
    for p in [&as_, &connect_from, &connect_to] {
        check_field_path(p)?;
    }
    if let Some(df) = &depth_field {
        check_field_path(df)?;
    }
    Ok(Arc::new(GraphLookup {
        from,
        start_with,
        connect_from,
        connect_to,
        as_path: as_.split('.').map(String::from).collect(),
        max_depth,
        depth_field: depth_field.map(|d| d.split('.').map(String::from).collect()),
        restrict,
    }))
}

impl GraphLookup {
    fn search(&self, mut doc: Document, foreign: &[Document], index: &EqIndex, cx: &RunCtx) -> Result<Document> {
        let start = self.start_with.evaluate(&doc, cx.env)?;
        let mut frontier: Vec<Bson> = match start {
            Some(Bson::Array(a)) => a,
            Some(v) => vec![v],
            None => Vec::new(),
        };
        let mut visited_ids: HashSet<Vec<u8>> = HashSet::new();
        let mut queried: HashSet<Vec<u8>> = HashSet::new();
        let mut found: Vec<(usize, i64)> = Vec::new();
        let mut depth: i64 = 0;
        let mut key = Vec::new();
        while !frontier.is_empty() && self.max_depth.is_none_or(|m| depth <= m) {
            let values: Vec<&Bson> = frontier.iter().filter(|v| queried.insert(hash_key(v))).collect();
            let hits = probe(index, &values, &mut key);
            let mut next: Vec<Bson> = Vec::new();
            for i in hits {
                let Some(fd) = foreign.get(i) else { continue };
                if let Some(m) = &self.restrict {
                    if !m.matches(fd, cx.env)? {
                        continue;
                    }
                }
                let Some(id) = fd.get("_id") else {
                    return Err(err(40271, format!("Documents in the '{}' namespace must contain an _id for de-duplication in $graphLookup", self.from)));
                };
                if !visited_ids.insert(hash_key(id)) {
                    continue;
                }
                found.push((i, depth));
                next.extend(local_values(fd, &self.connect_from).into_iter().cloned());
            }
            frontier = next;
            depth += 1;
        }
        let results: Vec<Bson> = found
            .into_iter()
            .filter_map(|(i, depth)| {
                let mut d = foreign.get(i)?.clone();
                if let Some(df) = &self.depth_field {
                    set_path(&mut d, df, Bson::Int64(depth));
                }
                Some(Bson::Document(d))
            })
            .collect();
        set_path(&mut doc, &self.as_path, Bson::Array(results));
        Ok(doc)
    }
}

impl Stage for GraphLookup {
    fn name(&self) -> &'static str {
        "$graphLookup"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        let mut state: Foreign<'a, EqIndex> = None;
        Box::new(input.map(move |d| {
            let d = d?;
            let (foreign, index) = state.get_or_insert_with(|| {
                let foreign = cx.catalog.read(&self.from);
                let index = equality_index(&foreign, &self.connect_to);
                (foreign, index)
            });
            self.search(d, foreign, index, cx)
        }))
    }
}
