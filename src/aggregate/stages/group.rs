//! `$group`: one output document per distinct `_id` value (keys equal as the server compares
//! them: 1, 1.0 and `Long(1)` are one group), with accumulated fields. The server's output order
//! comes from a hash table and is unspecified; the engine uses first-seen order.

use std::collections::HashMap;
use std::sync::Arc;

use bson::{Bson, Document};

use crate::aggregate::accumulator::{parse_statement, Row, Statement};
use crate::aggregate::stage::blocking;
use crate::aggregate::util::err;
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::env::Env;
use crate::error::Result;
use crate::expr::{Expr, VarScope};
use crate::value::hash_key;

#[derive(Debug)]
pub(crate) struct Group {
    id: Expr,
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
    Ok(Arc::new(Group { id, stmts }))
}

/// Groups documents by a key function, in first-seen order of the keys.
pub(crate) fn group_by<'s, I, K>(input: I, stmts: &'s [Statement], env: &Env, mut key: K) -> Result<Vec<(Bson, Row<'s>)>>
where
    I: Iterator<Item = Result<Document>>,
    K: FnMut(&Document) -> Result<Bson>,
{
    let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut groups: Vec<(Bson, Row<'s>)> = Vec::new();
    for doc in input {
        let doc = doc?;
        let k = key(&doc)?;
        let h = hash_key(&k);
        let i = match index.get(&h) {
            Some(i) => *i,
            None => {
                let row = Row::start(stmts, &k, env)?;
                groups.push((k, row));
                index.insert(h, groups.len() - 1);
                groups.len() - 1
            }
        };
        if let Some((_, row)) = groups.get_mut(i) {
            row.add(&doc, env)?;
        }
    }
    Ok(groups)
}

/// The output documents `{ _id, <accumulated fields> }`.
pub(crate) fn finish(groups: Vec<(Bson, Row)>, stmts: &[Statement]) -> Result<Vec<Document>> {
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
            let groups = group_by(input, &self.stmts, cx.env, |d| Ok(self.id.evaluate(d, cx.env)?.unwrap_or(Bson::Null)))?;
            finish(groups, &self.stmts)
        })
    }
}
