//! The parsed filter: a tree of logical nodes over path predicates (one per operator file) and
//! whole-document predicates (`$expr`, `$jsonSchema`, ...), matched as the server's classic
//! matcher does, including the array position the positional `$` refers to.

use std::fmt;
use std::sync::Arc;

use bson::{Bson, Document};

use crate::env::Env;
use crate::error::Result;
use crate::value::path::walk_matcher_path;

/// The matching context: the environment and the `elemMatchKey` being recorded.
pub(crate) struct Cx<'e> {
    pub env: &'e Env,
    /// Whether this branch records the array position (`$or`, `$nor` and `$not` do not).
    pub record: bool,
    pub key: Option<usize>,
}

impl<'e> Cx<'e> {
    pub fn new(env: &'e Env) -> Cx<'e> {
        Cx { env, record: true, key: None }
    }

    /// A context for a branch that does not record the array position.
    pub fn silent(&self) -> Cx<'e> {
        Cx { env: self.env, record: false, key: None }
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

    /// The value of an equality predicate (`$eq`, or `$in` with one value), for upserts and
    /// index lookups.
    fn equality_value(&self) -> Option<&Bson> {
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

    /// Matches a document (`MatchExpression::matches`).
    pub fn matches(&self, doc: &Document, cx: &mut Cx) -> Result<bool> {
        match self {
            Node::And(children) => {
                for c in children {
                    if !c.matches(doc, cx)? {
                        cx.key = None;
                        return Ok(false);
                    }
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
                result
            }
            Node::Doc(pred) => pred.matches_doc(doc, cx),
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
