//! `$lookup`: joins each document with documents of another collection into an array field:
//! by `localField` / `foreignField` (equality with the query's array semantics; a missing local
//! value matches null or missing foreign values), by a `pipeline` with `let` variables, or both.

use std::collections::HashMap;
use std::sync::Arc;

use bson::{Bson, Document};

use crate::aggregate::stage::parse_sub_pipeline;
use crate::aggregate::util::{absorb_cost, check_field_path, child_env, parse_err, set_path, tname};
use crate::aggregate::{DocStream, ParseCtx, Pipeline, RunCtx, Stage, Within};
use crate::error::{Error, Result};
use crate::expr::Expr;
use crate::value::{hash_key, hash_key_into, path::matcher_values, KeyHasher};
use crate::value::display;

#[derive(Debug)]
pub(crate) struct Lookup {
    from: Option<String>,
    as_path: Vec<String>,
    join: Option<(String, String)>,
    lets: Vec<(String, Expr)>,
    pipeline: Option<Pipeline>,
    /// The only fields of the joined documents the stages after this one read (a join without a
    /// sub-pipeline whose array no later stage reads whole: `deps::joined_fields_read`): the
    /// others are not copied into each document.
    keep: Option<Vec<String>>,
}

/// Reads the `pipeline` option of `$lookup` / `$unionWith` / `$facet` into stage documents.
pub(crate) fn pipeline_array(v: &Bson) -> Result<&Vec<Bson>> {
    match v {
        Bson::Array(a) => {
            if a.iter().any(|s| !matches!(s, Bson::Document(_))) {
                return Err(Error::type_mismatch("Each element of the 'pipeline' array must be an object"));
            }
            Ok(a)
        }
        _ => Err(Error::type_mismatch("'pipeline' option must be specified as an array")),
    }
}

/// The server's error for `$documents` first in a pipeline that reads a collection.
pub(crate) fn documents_needs_no_collection() -> Error {
    Error::new(crate::error::ErrorKind::InvalidNamespace, "'$documents' can only be run with {aggregate: 1}")
}

/// True when a pipeline's first stage is `$documents`.
pub(crate) fn starts_with_documents(stages: &[Bson]) -> bool {
    matches!(stages.first(), Some(Bson::Document(d)) if d.contains_key("$documents"))
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    parse_keeping(spec, pcx, None)
}

/// [`parse`], for a stage after which only the fields `keep` of the joined documents are read.
pub(crate) fn parse_keeping(spec: &Bson, pcx: &ParseCtx, keep: Option<Vec<String>>) -> Result<Arc<dyn Stage>> {
    let Bson::Document(d) = spec else {
        return Err(parse_err(format!("the $lookup stage specification must be an object, but found {}", tname(spec))));
    };
    if !d.contains_key("from") && !d.contains_key("pipeline") {
        return Err(parse_err("must specify 'pipeline' when 'from' is empty"));
    }
    let (mut from, mut as_, mut local, mut foreign) = (None, String::new(), String::new(), String::new());
    let mut lets: Option<&Document> = None;
    let mut stages: Option<&Vec<Bson>> = None;
    for (k, v) in d {
        match k.as_str() {
            "pipeline" => {
                stages = Some(pipeline_array(v)?);
                continue;
            }
            "let" => {
                match v {
                    Bson::Document(l) => lets = Some(l),
                    other => {
                        return Err(parse_err(format!("$lookup argument '{}' must be an object, is type {}", display::element(k, other), tname(other))))
                    }
                }
                continue;
            }
            "from" => {
                match v {
                    Bson::String(s) => from = Some(s.clone()),
                    Bson::Document(ns) => {
                        let db = ns.get_str("db").unwrap_or_default();
                        let coll = ns.get_str("coll").unwrap_or_default();
                        return Err(parse_err(format!(
                            "$lookup with syntax {{from: {{db:<>, coll:<>}},..}} is not supported for db: {db} and coll: {coll}"
                        )));
                    }
                    other => return Err(parse_err(format!("$lookup 'from' field must be a string, but found {}", tname(other)))),
                }
                continue;
            }
            _ => {}
        }
        let Bson::String(s) = v else {
            return Err(parse_err(format!("$lookup argument '{k}' must be a string, found {}: {}", display::element(k, v), tname(v))));
        };
        match k.as_str() {
            "as" => as_ = s.clone(),
            "localField" => local = s.clone(),
            "foreignField" => foreign = s.clone(),
            other => return Err(parse_err(format!("unknown argument to $lookup: {other}"))),
        }
    }
    if from.is_none() && !stages.is_some_and(|s| starts_with_documents(s)) {
        return Err(parse_err("$lookup stage without explicit collection must have a pipeline with $documents as first stage"));
    }
    // A sub-pipeline on a collection may not start with `$documents` (collection-less only).
    if from.is_some() && stages.is_some_and(|s| starts_with_documents(s)) {
        return Err(documents_needs_no_collection());
    }
    if as_.is_empty() {
        return Err(parse_err("must specify 'as' field for a $lookup"));
    }
    let join = if stages.is_some() {
        if local.is_empty() && foreign.is_empty() {
            None
        } else if local.is_empty() || foreign.is_empty() {
            return Err(parse_err("$lookup requires both or neither of 'localField' and 'foreignField' to be specified"));
        } else {
            Some((local, foreign))
        }
    } else {
        if local.is_empty() || foreign.is_empty() {
            return Err(parse_err("$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified"));
        }
        if lets.is_some() {
            return Err(parse_err("$lookup with a 'let' argument must also specify 'pipeline'"));
        }
        Some((local, foreign))
    };
    check_field_path(&as_)?;
    if let Some((l, f)) = &join {
        check_field_path(l)?;
        check_field_path(f)?;
    }
    let mut parsed_lets = Vec::new();
    let mut sub = pcx.sub_pipeline(Within::Lookup)?;
    if let Some(l) = lets {
        for (name, v) in l {
            crate::expr::validate_name_for_write(name)?;
            parsed_lets.push((name.clone(), Expr::parse(v, &pcx.scope)?));
            sub.scope.names.push(name.clone());
        }
    }
    let pipeline = match stages {
        Some(s) => Some(parse_sub_pipeline(s, &sub, Within::Lookup)?),
        None => None,
    };
    let keep = if pipeline.is_none() { keep } else { None };
    Ok(Arc::new(Lookup { from, as_path: as_.split('.').map(String::from).collect(), join, lets: parsed_lets, pipeline, keep }))
}

/// Every value a `$lookup` joins on at `path` (`visitAllValuesAtPath`): through arrays of
/// documents, and the elements of an array at the end; none when missing.
pub(crate) fn local_values<'a>(doc: &'a Document, path: &str) -> Vec<&'a Bson> {
    let mut out = Vec::new();
    visit_local_values(doc, path, &mut |v| out.push(v));
    out
}

/// [`local_values`], each handed to `visit` as it is found (no list made).
pub(crate) fn visit_local_values<'a>(doc: &'a Document, path: &str, visit: &mut dyn FnMut(&'a Bson)) {
    fn walk<'a>(v: &'a Bson, rest: Option<&str>, visit: &mut dyn FnMut(&'a Bson)) {
        match rest {
            None => match v {
                Bson::Array(a) => a.iter().for_each(|x| visit(x)),
                other => visit(other),
            },
            Some(rest) => {
                let (first, tail) = match rest.split_once('.') {
                    Some((f, t)) => (f, Some(t)),
                    None => (rest, None),
                };
                match v {
                    Bson::Document(d) => {
                        if let Some(x) = d.get(first) {
                            walk(x, tail, visit);
                        }
                    }
                    Bson::Array(a) => {
                        for e in a {
                            if let Bson::Document(d) = e {
                                if let Some(x) = d.get(first) {
                                    walk(x, tail, visit);
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    let (first, tail) = match path.split_once('.') {
        Some((f, t)) => (f, Some(t)),
        None => (path, None),
    };
    if let Some(x) = doc.get(first) {
        walk(x, tail, visit);
    }
}

/// Documents indexed by the values at a path (see [`equality_index`]).
pub(crate) type EqIndex = HashMap<Vec<u8>, Vec<usize>, KeyHasher>;

/// The foreign collection and its index, read once per run of a stage.
pub(crate) type Foreign<'a, I> = Option<(std::borrow::Cow<'a, [Document]>, I)>;

/// An equality index of documents by the values a query predicate on `path` sees (the value,
/// elements of arrays, null for missing).
pub(crate) fn equality_index(docs: &[Document], path: &str) -> EqIndex {
    let mut index = EqIndex::default();
    let null = Bson::Null;
    for (i, d) in docs.iter().enumerate() {
        for mv in matcher_values(d, path) {
            let key = hash_key(mv.value.unwrap_or(&null));
            let slot = index.entry(key).or_default();
            if slot.last() != Some(&i) {
                slot.push(i);
            }
        }
    }
    index
}

/// The documents whose indexed values equal one of `values`, in natural order, each once. (Each
/// value's list is in natural order already: one value, the usual case, needs no sort.) `key` is
/// scratch room for the values' keys.
pub(crate) fn probe(index: &EqIndex, values: &[&Bson], key: &mut Vec<u8>) -> Vec<usize> {
    let mut hits = Hits::default();
    for v in values {
        hits.add(index, v, key);
    }
    hits.finish().into_owned()
}

/// The documents [`probe`] finds, gathered value by value: one value's list is borrowed from
/// the index as it is (no list made for the usual join of one value).
#[derive(Default)]
pub(crate) struct Hits<'i> {
    one: Option<&'i [usize]>,
    more: Option<Vec<usize>>,
}

impl<'i> Hits<'i> {
    pub(crate) fn add(&mut self, index: &'i EqIndex, v: &Bson, key: &mut Vec<u8>) {
        hash_key_into(v, key);
        let Some(list) = index.get(key.as_slice()) else { return };
        match (&mut self.more, self.one) {
            (Some(more), _) => more.extend_from_slice(list),
            (None, None) => self.one = Some(list),
            (None, Some(one)) => {
                let mut more = one.to_vec();
                more.extend_from_slice(list);
                self.more = Some(more);
            }
        }
    }

    pub(crate) fn finish(self) -> std::borrow::Cow<'i, [usize]> {
        match (self.more, self.one) {
            (Some(mut more), _) => {
                more.sort_unstable();
                more.dedup();
                std::borrow::Cow::Owned(more)
            }
            (None, one) => std::borrow::Cow::Borrowed(one.unwrap_or(&[])),
        }
    }
}

impl Lookup {
    fn lookup_one(&self, mut doc: Document, foreign: &[Document], index: Option<&EqIndex>, key: &mut Vec<u8>, cx: &RunCtx) -> Result<Document> {
        let matched: Option<std::borrow::Cow<[usize]>> = match (&self.join, index) {
            (Some((local, _)), Some(index)) => {
                let mut hits = Hits::default();
                let mut any = false;
                visit_local_values(&doc, local, &mut |v| {
                    any = true;
                    hits.add(index, v, key);
                });
                if !any {
                    hits.add(index, &Bson::Null, key);
                }
                Some(hits.finish())
            }
            _ => None,
        };
        let matched = matched.as_deref().map(|hits| hits.iter().filter_map(|i| foreign.get(*i)));
        let results: Vec<Bson> = match &self.pipeline {
            None => matched.into_iter().flatten().map(|d| Bson::Document(d.clone())).collect(),
            Some(p) => {
                let mut vars = HashMap::new();
                for (name, e) in &self.lets {
                    vars.insert(name.clone(), e.evaluate(&doc, cx.env)?.unwrap_or(Bson::Null));
                }
                let env = child_env(cx.env, &vars);
                let sub = RunCtx { catalog: cx.catalog, env: &env };
                let out = match matched {
                    Some(m) => p.run_docs(m.cloned().collect(), &sub),
                    None if p.replaces_input() => p.run_docs(Vec::new(), &sub),
                    None => p.run_borrowed(foreign, &sub),
                };
                absorb_cost(cx.env, &env);
                out?.into_iter().map(Bson::Document).collect()
            }
        };
        set_path(&mut doc, &self.as_path, Bson::Array(results));
        Ok(doc)
    }
}

/// The fields of `doc` named in `keep`, in their order in `doc`.
fn only(doc: &Document, keep: &[String]) -> Document {
    doc.iter().filter(|(k, _)| keep.iter().any(|f| f == *k)).map(|(k, v)| (k.clone(), v.clone())).collect()
}

impl Stage for Lookup {
    fn name(&self) -> &'static str {
        "$lookup"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        let mut state: Foreign<'a, Option<EqIndex>> = None;
        let mut key = Vec::new();
        Box::new(input.map(move |d| {
            let d = d?;
            let (foreign, index) = state.get_or_insert_with(|| {
                let foreign = match &self.from {
                    Some(f) => cx.catalog.read(f),
                    None => std::borrow::Cow::Owned(Vec::new()),
                };
                let index = self.join.as_ref().map(|(_, ff)| equality_index(&foreign, ff));
                // (indexed whole: the `foreignField` need not be one of the fields kept)
                let foreign = match &self.keep {
                    Some(keep) => std::borrow::Cow::Owned(foreign.iter().map(|d| only(d, keep)).collect()),
                    None => foreign,
                };
                (foreign, index)
            });
            self.lookup_one(d, foreign, index.as_ref(), &mut key, cx)
        }))
    }
}
