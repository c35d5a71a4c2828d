//! `{ n: <expr>, input: <expr> }` accumulators: `$firstN`, `$lastN`, `$maxN`, `$minN`.

use std::cmp::Ordering;
use std::collections::VecDeque;
use std::sync::Arc;

use bson::{Bson, Document};

use crate::aggregate::accumulator::{eval_n, spec_not_object, Accumulator, Reads, State};
use crate::aggregate::util::err;
use crate::env::Env;
use crate::error::Result;
use crate::expr::{Expr, VarScope};
use crate::value::compare;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    First,
    Last,
    Min,
    Max,
}

#[derive(Debug)]
pub(crate) struct NInput {
    kind: Kind,
    n: Expr,
    input: Expr,
}

/// Parses `{ n, input }` with the server's errors (5787801 / 5787900, 5787901, 5787906, 5787907).
pub(crate) fn parse(kind: Kind, name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
    let code = if matches!(kind, Kind::First | Kind::Last) { 5787801 } else { 5787900 };
    let Bson::Document(spec) = arg else {
        return Err(spec_not_object(code, name, arg));
    };
    let (mut n, mut input) = (None, None);
    for (k, v) in spec {
        match k.as_str() {
            "input" => input = Some(Expr::parse(v, scope)?),
            "n" => n = Some(Expr::parse(v, scope)?),
            other => return Err(err(5787901, format!("Unknown argument for 'n' operator: {other}"))),
        }
    }
    let n = n.ok_or_else(|| err(5787906, "Missing value for 'n'"))?;
    let input = input.ok_or_else(|| err(5787907, "Missing value for 'input'"))?;
    Ok(Arc::new(NInput { kind, n, input }))
}

struct NState<'s> {
    spec: &'s NInput,
    n: usize,
    /// First/Last: in arrival order; Min: ascending; Max: descending.
    values: VecDeque<Bson>,
}

impl Accumulator for NInput {
    fn start<'s>(&'s self, id: &Bson, env: &Env) -> Result<Box<dyn State + 's>> {
        let n = eval_n(&self.n, id, env)?;
        Ok(Box::new(NState { spec: self, n, values: VecDeque::new() }))
    }

    fn reads(&self) -> Reads<'_> {
        Reads::Arg(&self.input)
    }
}

impl State for NState<'_> {
    fn add(&mut self, doc: &Document, env: &Env) -> Result<()> {
        if self.spec.kind == Kind::First && self.values.len() >= self.n {
            return Ok(());
        }
        let v = self.spec.input.evaluate(doc, env)?;
        self.add_value(v.as_ref())
    }

    fn add_value(&mut self, v: Option<&Bson>) -> Result<()> {
        let kind = self.spec.kind;
        if kind == Kind::First && self.values.len() >= self.n {
            return Ok(());
        }
        match kind {
            Kind::First | Kind::Last => {
                if self.values.len() >= self.n {
                    self.values.pop_front();
                }
                self.values.push_back(v.cloned().unwrap_or(Bson::Null));
            }
            Kind::Min | Kind::Max => {
                let Some(v) = v else { return Ok(()) };
                if matches!(v, Bson::Null | Bson::Undefined) {
                    return Ok(());
                }
                // Keep `values` in output order; a new value goes after its equals.
                let better = if kind == Kind::Min { Ordering::Less } else { Ordering::Greater };
                if self.values.len() >= self.n {
                    match self.values.back() {
                        Some(worst) if compare(v, worst) == better => {
                            self.values.pop_back();
                        }
                        _ => return Ok(()),
                    }
                }
                let pos = self.values.partition_point(|x| compare(x, v) != better.reverse());
                self.values.insert(pos, v.clone());
            }
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Bson> {
        Ok(Bson::Array(self.values.into_iter().collect()))
    }
}
