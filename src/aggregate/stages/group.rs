//! `$group`: one output document per distinct `_id` value (keys equal as the server compares
//! them: 1, 1.0 and `Long(1)` are one group), with accumulated fields. The server's output order
//! comes from a hash table and is unspecified; the engine uses first-seen order.

use std::collections::HashMap;
use std::sync::Arc;

use bson::{Bson, Document};

use crate::aggregate::accumulator::{parse_statement, Arg, Row, Statement};
use crate::aggregate::stage::blocking;
use crate::aggregate::util::err;
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::env::Env;
use crate::error::Result;
use crate::expr::{Expr, VarScope};
use crate::value::{hash_key_into, KeyHasher};

#[derive(Debug)]
pub(crate) struct Group {
    id: Arg,
    stmts: Vec<Statement>,
}

/// Parses a group key (`_id`): `{}` is a constant, `{ $op: .. }` an expression, any other object
/// an object of expressions (no inclusion-style values: 17390).
pub(crate) fn parse_id(spec: &Bson, scope: &VarScope) -> Result<Expr> {
    match spec {
        Bson::Document(d) if d.is_empty() => Ok(Expr::constant(spec.clone())),
        Bson::Document(d) if d.keys().next().is_some_and(|k| k.starts_with('$')) => Expr::parse_object(d, scope),
        Bson::Document(d) => {
            if d.values().any(|v| matches!(v, Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) | Bson::Boolean(_))) {
                return Err(err(17390, "$group does not support inclusion-style expressions"));
            }
            Expr::parse_object(d, scope)
        }
        other => Expr::parse(other, scope),
    }
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let Bson::Document(d) = spec else {
        return Err(err(15947, "a group's fields must be specified in an object"));
    };
    let mut id = None;
    let mut stmts = Vec::new();
    for (k, v) in d {
        if k == "_id" {
            id = Some(parse_id(v, &pcx.scope)?);
        } else {
            stmts.push(parse_statement(k, v, &pcx.scope)?);
        }
    }
    let id = id.ok_or_else(|| err(15955, "a group specification must include an _id"))?;
    Ok(Arc::new(Group { id: Arg::from_expr(id), stmts }))
}

/// Groups in first-seen order of their keys (keys equal as the server compares them).
pub(crate) struct Groups<'s> {
    stmts: &'s [Statement],
    index: HashMap<Vec<u8>, usize, KeyHasher>,
    rows: Vec<(Bson, Row<'s>)>,
    /// The current document's key bytes (one buffer for all documents).
    scratch: Vec<u8>,
}

impl<'s> Groups<'s> {
    pub fn new(stmts: &'s [Statement]) -> Groups<'s> {
        Groups { stmts, index: HashMap::default(), rows: Vec::new(), scratch: Vec::new() }
    }

    /// The group of a key (`None`, missing, groups with null); the key is copied only for a new
    /// group.
    pub fn slot(&mut self, key: Option<&Bson>, env: &Env) -> Result<usize> {
        let key = key.unwrap_or(&Bson::Null);
        hash_key_into(key, &mut self.scratch);
        if let Some(i) = self.index.get(self.scratch.as_slice()) {
            return Ok(*i);
        }
        let row = Row::start(self.stmts, key, env)?;
        self.rows.push((key.clone(), row));
        self.index.insert(self.scratch.clone(), self.rows.len() - 1);
        Ok(self.rows.len() - 1)
    }

    pub fn add(&mut self, slot: usize, doc: &Document, env: &Env) -> Result<()> {
        match self.rows.get_mut(slot) {
            Some((_, row)) => row.add(doc, env),
            None => Ok(()),
        }
    }

    /// Groups a stream by an argument expression.
    pub fn by_arg<I, D>(stmts: &'s [Statement], input: I, key: &Arg, env: &Env) -> Result<Groups<'s>>
    where
        I: Iterator<Item = Result<D>>,
        D: std::borrow::Borrow<Document>,
    {
        let mut g = Groups::new(stmts);
        for doc in input {
            let doc = doc?;
            let doc = doc.borrow();
            let i = key.with(doc, env, |k| g.slot(k, env))?;
            g.add(i, doc, env)?;
        }
        Ok(g)
    }

    /// The output documents `{ _id, <accumulated fields> }`.
    pub fn finish(self) -> Result<Vec<Document>> {
        finish(self.rows, self.stmts)
    }
}

/// The output documents `{ _id, <accumulated fields> }`.
fn finish(groups: Vec<(Bson, Row)>, stmts: &[Statement]) -> Result<Vec<Document>> {
    let mut out = Vec::with_capacity(groups.len());
    for (k, row) in groups {
        let mut d = Document::new();
        d.insert("_id", k);
        row.finish_into(stmts, &mut d)?;
        out.push(d);
    }
    Ok(out)
}

impl Stage for Group {
    fn name(&self) -> &'static str {
        "$group"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        blocking(input, move |input| {
            Groups::by_arg(&self.stmts, input, &self.id, cx.env)?.finish()
        })
    }

    fn run_refs(&self, input: &[&Document], cx: &RunCtx) -> Option<Result<Vec<Document>>> {
        Some(Groups::by_arg(&self.stmts, input.iter().map(|d| Ok(*d)), &self.id, cx.env).and_then(Groups::finish))
    }
}
