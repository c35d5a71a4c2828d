//! `$top`, `$bottom`, `$topN`, `$bottomN`: the first / last values of the group in a `sortBy`
//! order, with the server's tie rule (on equal sort keys the value seen first is kept).

use std::cmp::Ordering;
use std::sync::Arc;

use bson::{Bson, Document};

use crate::aggregate::accumulator::{eval_n, Accumulator, State};
use crate::aggregate::util::err;
use crate::env::Env;
use crate::error::Result;
use crate::expr::{Expr, VarScope};
use crate::query::sort::SortSpec;
use crate::value::display;

#[derive(Debug)]
pub(crate) struct SortedN {
    bottom: bool,
    /// `$top` / `$bottom` return one value, not an array.
    single: bool,
    n: Option<Expr>,
    output: Expr,
    /// The sort fields as expressions (`"$a.b"`), evaluated into `k0`, `k1`, ...
    keys: Vec<Expr>,
    /// The sort order over `{ k0: .., k1: .. }`.
    order: SortSpec,
}

/// Parses `{ n?, output, sortBy }` with the server's errors (5788001 .. 5788005).
pub(crate) fn parse(bottom: bool, single: bool, name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
    let Bson::Document(spec) = arg else {
        return Err(err(5788001, format!("specification must be an object; found {name}: {}", display::value(arg))));
    };
    let (mut n, mut output, mut sort_by) = (None, None, None);
    for (k, v) in spec {
        match k.as_str() {
            "n" if !single => n = Some(Expr::parse(v, scope)?),
            "output" => output = Some(v),
            "sortBy" => match v {
                Bson::Document(d) => sort_by = Some(d),
                other => {
                    return Err(err(10065, format!("invalid parameter: expected an object (sortBy), found {}", crate::aggregate::util::tname(other))))
                }
            },
            other => return Err(err(5788002, format!("Unknown argument to {name} '{other}'"))),
        }
    }
    if !single && n.is_none() {
        return Err(err(5788003, "Missing value for 'n'"));
    }
    let output = output.ok_or_else(|| err(5788004, "Missing value for 'output'"))?;
    let sort_by = sort_by.ok_or_else(|| err(5788005, "Missing value for 'sortBy'"))?;
    SortSpec::parse(sort_by)?;
    let mut keys = Vec::with_capacity(sort_by.len());
    let mut order = Document::new();
    for (i, (field, dir)) in sort_by.iter().enumerate() {
        keys.push(Expr::parse(&Bson::String(format!("${field}")), scope)?);
        order.insert(format!("k{i}"), dir.clone());
    }
    Ok(Arc::new(SortedN { bottom, single, n, output: Expr::parse(output, scope)?, keys, order: SortSpec::parse(&order)? }))
}

struct SortedState<'s> {
    spec: &'s SortedN,
    n: usize,
    /// Ascending in the sort order; equal keys in arrival order.
    items: Vec<(Document, Bson)>,
}

impl Accumulator for SortedN {
    fn start<'s>(&'s self, id: &Bson, env: &Env) -> Result<Box<dyn State + 's>> {
        let n = match &self.n {
            Some(e) => eval_n(e, id, env)?,
            None => 1,
        };
        Ok(Box::new(SortedState { spec: self, n, items: Vec::new() }))
    }
}

impl SortedState<'_> {
    fn key(&self, doc: &Document, env: &Env) -> Result<Document> {
        let mut key = Document::new();
        for (i, e) in self.spec.keys.iter().enumerate() {
            key.insert(format!("k{i}"), e.evaluate(doc, env)?.unwrap_or(Bson::Null));
        }
        Ok(key)
    }
}

impl State for SortedState<'_> {
    fn add(&mut self, doc: &Document, env: &Env) -> Result<()> {
        // The server evaluates the whole argument (output and sort fields) for every document.
        let out = self.spec.output.evaluate(doc, env)?.unwrap_or(Bson::Null);
        let key = self.key(doc, env)?;
        let order = &self.spec.order;
        if self.items.len() >= self.n {
            if self.spec.bottom {
                // Enter only above the smallest kept key.
                match self.items.first() {
                    Some((first, _)) if order.compare(&key, first) == Ordering::Greater => {
                        self.items.remove(0);
                    }
                    _ => return Ok(()),
                }
            } else {
                match self.items.last() {
                    Some((last, _)) if order.compare(last, &key) == Ordering::Greater => {
                        self.items.pop();
                    }
                    _ => return Ok(()),
                }
            }
        }
        let pos = self.items.partition_point(|(k, _)| order.compare(k, &key) != Ordering::Greater);
        self.items.insert(pos, (key, out));
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Bson> {
        let mut values: Vec<Bson> = self.items.into_iter().map(|(_, v)| v).collect();
        if self.spec.single {
            return Ok(if values.is_empty() { Bson::Null } else { values.swap_remove(0) });
        }
        Ok(Bson::Array(values))
    }
}
