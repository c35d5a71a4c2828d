//! The parsed filter: a tree of logical nodes over path predicates (one per operator file) and
//! whole-document predicates (`$expr`, `$jsonSchema`, ...), matched as the server's classic
//! matcher does, including the array position the positional `$` refers to.

use std::fmt;
use std::sync::Arc;

use bson::{Bson, Document, RawBsonRef, RawDocument};

use crate::env::Env;
use crate::error::Result;
use crate::value::path::walk_matcher_path;
use crate::value::raw::{self, RawLookup};

/// The matching context: the environment and the `elemMatchKey` being recorded, with the
/// place in the server's canonical order (`sortTree`: match type, then path) of the predicate
/// that recorded it: of an AND's children the last in that order wins, whatever the filter's
/// order (so `{activity_ids: 1, grades: 95, deans_list: 2021}` positions `$` by `grades`).
pub(crate) struct Cx<'e, 'n> {
    pub env: &'e Env,
    /// Whether this branch records the array position (`$or`, `$nor` and `$not` do not).
    pub record: bool,
    pub key: Option<usize>,
    key_rank: Option<(u8, &'n str)>,
}

impl<'e, 'n> Cx<'e, 'n> {
    pub fn new(env: &'e Env) -> Cx<'e, 'n> {
        Cx { env, record: true, key: None, key_rank: None }
    }

    /// A context for a branch that does not record the array position.
    pub fn silent<'m>(&self) -> Cx<'e, 'm> {
        Cx { env: self.env, record: false, key: None, key_rank: None }
    }

    pub fn set_key(&mut self, k: usize) {
        if self.record {
            self.key = Some(k);
        }
    }
}

/// A predicate on the values a path yields (`$gt: 5`, `$size: 2`, ...).
pub(crate) trait Predicate: fmt::Debug + Send + Sync {
    /// Tests one value (`None`: the path is missing there).
    fn matches_value(&self, v: Option<&Bson>, cx: &mut Cx) -> Result<bool>;

    /// False for the array operators (`$size`, `$elemMatch`), which see a leaf array whole and
    /// not element by element.
    fn traverse_leaf_arrays(&self) -> bool {
        true
    }

    /// The server's `MatchType` of the predicate (its canonical order of an AND's children:
    /// `$elemMatch` 2-3, `$size` 4, `$eq` 5, `$lte` 6, `$lt` 7, `$gt` 8, `$gte` 9, `$regex` 10,
    /// `$mod` 11, `$exists` 12, `$in` 13, bit tests 14-17, `$type` 20).
    fn match_type(&self) -> u8 {
        5
    }

    /// The value of an equality predicate (`$eq`, or `$in` with one value), for upserts and
    /// index lookups.
    fn equality_value(&self) -> Option<&Bson> {
        None
    }

    /// The answer for a value read in place (`v`: what a path holds, never an array along it),
    /// when the predicate can give it without the value decoded; `None` to decode it and ask
    /// [`Predicate::matches_value`], whose answer this must be.
    fn matches_raw_value(&self, _v: RawBsonRef<'_>) -> Option<bool> {
        None
    }
}

/// A predicate on the whole document (`$expr`, `$jsonSchema`, `$alwaysTrue`, ...).
pub(crate) trait DocPredicate: fmt::Debug + Send + Sync {
    fn matches_doc(&self, doc: &Document, cx: &mut Cx) -> Result<bool>;
}

/// A dotted path, split once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldPath {
    pub full: String,
    pub parts: Vec<String>,
}

impl FieldPath {
    pub fn new(full: &str) -> FieldPath {
        FieldPath { full: full.to_string(), parts: full.split('.').map(str::to_string).collect() }
    }
}

/// A node of the parsed filter.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    And(Vec<Node>),
    Or(Vec<Node>),
    Nor(Vec<Node>),
    Not(Box<Node>),
    Path(FieldPath, Arc<dyn Predicate>),
    Doc(Arc<dyn DocPredicate>),
}

impl Node {
    pub fn path(path: &FieldPath, pred: impl Predicate + 'static) -> Node {
        Node::Path(path.clone(), Arc::new(pred))
    }

    pub fn doc(pred: impl DocPredicate + 'static) -> Node {
        Node::Doc(Arc::new(pred))
    }

    /// An AND of `children`, or the single child itself (as the server's parser does).
    pub fn and_of(mut children: Vec<Node>) -> Node {
        if children.len() == 1 {
            children.pop().unwrap_or(Node::And(Vec::new()))
        } else {
            Node::And(children)
        }
    }

    /// The server's `MatchType` order, which its canonical form sorts an AND's children by
    /// (before their paths).
    fn match_type(&self) -> u8 {
        match self {
            Node::And(_) => 0,
            Node::Or(_) => 1,
            Node::Not(_) => 18,
            Node::Nor(_) => 19,
            Node::Path(_, pred) => pred.match_type(),
            Node::Doc(_) => 23,
        }
    }

    /// Matches a document (`MatchExpression::matches`).
    pub fn matches<'n>(&'n self, doc: &Document, cx: &mut Cx<'_, 'n>) -> Result<bool> {
        match self {
            Node::And(children) => {
                let outer = (cx.key.take(), cx.key_rank.take());
                let mut best: Option<(usize, (u8, &'n str))> = None;
                for c in children {
                    if !c.matches(doc, cx)? {
                        cx.key = None;
                        cx.key_rank = None;
                        return Ok(false);
                    }
                    if let (Some(k), Some(r)) = (cx.key.take(), cx.key_rank.take()) {
                        if best.is_none_or(|(_, b)| r >= b) {
                            best = Some((k, r));
                        }
                    }
                }
                match best {
                    Some((k, r)) => {
                        cx.key = Some(k);
                        cx.key_rank = Some(r);
                    }
                    None => (cx.key, cx.key_rank) = outer,
                }
                Ok(true)
            }
            Node::Or(children) => {
                // A single-branch $or is optimized away by the server, so it records.
                if children.len() == 1 {
                    return children[0].matches(doc, cx);
                }
                for c in children {
                    if c.matches(doc, &mut cx.silent())? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Node::Nor(children) => {
                for c in children {
                    if c.matches(doc, &mut cx.silent())? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Node::Not(child) => Ok(!child.matches(doc, &mut cx.silent())?),
            Node::Path(path, pred) => {
                let mut result: Result<bool> = Ok(false);
                let mut found_offset = None;
                let traverse = pred.traverse_leaf_arrays();
                walk_matcher_path(doc, &path.parts, traverse, &mut |v, offset| match pred.matches_value(v, cx) {
                    Ok(true) => {
                        found_offset = Some(offset);
                        result = Ok(true);
                        true
                    }
                    Ok(false) => false,
                    Err(e) => {
                        result = Err(e);
                        true
                    }
                });
                if let Some(Some(off)) = found_offset {
                    cx.set_key(off);
                }
                if cx.key.is_some() && cx.key_rank.is_none() {
                    cx.key_rank = Some((self.match_type(), path.full.as_str()));
                }
                result
            }
            Node::Doc(pred) => pred.matches_doc(doc, cx),
        }
    }

    /// [`Node::matches`] on a document read in place (its BSON bytes), for the filters whose
    /// paths reach their values through embedded documents only: `None` when the answer needs
    /// the decoded document (a path meets an array, a whole-document predicate such as `$expr`),
    /// which the caller then matches with [`Node::matches`] from the start. Children are tried
    /// in the same order, so the first definite answer or error is the decoded path's. No array
    /// is traversed, so no array position is recorded.
    pub fn matches_raw(&self, doc: &RawDocument, cx: &mut Cx) -> Result<Option<bool>> {
        match self {
            Node::And(children) => {
                for c in children {
                    match c.matches_raw(doc, cx)? {
                        Some(true) => {}
                        other => return Ok(other),
                    }
                }
                Ok(Some(true))
            }
            Node::Or(children) => {
                for c in children {
                    match c.matches_raw(doc, &mut cx.silent())? {
                        Some(false) => {}
                        other => return Ok(other),
                    }
                }
                Ok(Some(false))
            }
            Node::Nor(children) => {
                for c in children {
                    match c.matches_raw(doc, &mut cx.silent())? {
                        Some(false) => {}
                        Some(true) => return Ok(Some(false)),
                        None => return Ok(None),
                    }
                }
                Ok(Some(true))
            }
            Node::Not(child) => Ok(child.matches_raw(doc, &mut cx.silent())?.map(|m| !m)),
            Node::Path(path, pred) => {
                let v = match raw::lookup(doc, &path.parts) {
                    RawLookup::Decode => return Ok(None),
                    RawLookup::Missing => None,
                    RawLookup::Value(v) => {
                        if let Some(m) = pred.matches_raw_value(v) {
                            return Ok(Some(m));
                        }
                        match raw::decode_value(v) {
                            Ok(v) => Some(v),
                            Err(_) => return Ok(None),
                        }
                    }
                };
                pred.matches_value(v.as_ref(), cx).map(Some)
            }
            Node::Doc(_) => Ok(None),
        }
    }

    /// Matches one value directly, ignoring paths (`matchesSingleElement`, as `$elemMatch` on
    /// values uses it).
    pub fn matches_single(&self, v: &Bson, cx: &mut Cx) -> Result<bool> {
        match self {
            Node::And(children) => {
                for c in children {
                    if !c.matches_single(v, cx)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Node::Or(children) => {
                for c in children {
                    if c.matches_single(v, cx)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Node::Nor(children) => {
                for c in children {
                    if c.matches_single(v, cx)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Node::Not(child) => Ok(!child.matches_single(v, cx)?),
            Node::Path(_, pred) => pred.matches_value(Some(v), cx),
            Node::Doc(_) => Ok(false),
        }
    }
}
