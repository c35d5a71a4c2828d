//! Query filters (`{ qty: { $gt: 5 } }`) with MongoDB 8's semantics, find projections and sort.
//!
//! - [`Matcher`]: parses a filter ([`Matcher::parse`]) and matches documents, reporting the array
//!   position the positional `$` refers to ([`Matcher::match_details`]).
//! - [`projection::Projection`]: find projections (inclusion/exclusion, `$slice`, `$elemMatch`,
//!   positional `field.$`, expressions).
//! - [`sort::SortSpec`]: the server's sort order.
//! - [`upsert_seed`] and [`equality_fields`]: what upserts and index lookups take from a filter.
//!
//! Operators live one per file in folders named after the manual's families (`comparison/`,
//! `logical/`, `element/`, `evaluation/`, `array/`, `bitwise/`, `misc/`); `registry.rs` lists
//! them and produces the "unknown operator" errors.

pub mod array;
pub mod bitwise;
pub mod comparison;
pub mod element;
pub mod evaluation;
pub mod field_path;
pub mod int_arg;
pub mod logical;
pub mod misc;
pub(crate) mod node;
pub(crate) mod parser;
pub mod projection;
pub mod registry;
pub mod sort;
pub mod validation_error;
mod upsert;

pub use upsert::{equality_fields, upsert_seed};

use bson::Document;

use crate::env::Env;
use crate::error::Result;
use crate::expr::VarScope;
use node::{Cx, Node};
use parser::{Level, ParseCx};

/// The outcome of matching one document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatchDetails {
    pub matched: bool,
    /// The array position the positional `$` update/projection operator refers to: the index of
    /// the first element of the implicitly traversed array that made the last array-traversing
    /// predicate match (as the server's `elemMatchKey`). `None` when no array was traversed.
    pub elem_index: Option<usize>,
}

/// A parsed filter.
#[derive(Debug, Clone)]
pub struct Matcher {
    root: Node,
}

impl Matcher {
    /// Parses a filter (errors with the server's codes and wording: "unknown operator: $foo",
    /// "$in needs an array", ...).
    pub fn parse(filter: &Document) -> Result<Matcher> {
        Matcher::parse_with_scope(filter, &VarScope::default())
    }

    /// Parses a filter whose `$expr` may use the variables of `scope` (a command's `let`).
    pub fn parse_with_scope(filter: &Document, scope: &VarScope) -> Result<Matcher> {
        let pc = ParseCx { scope };
        Ok(Matcher { root: parser::parse(filter, &pc, Level::PredicateTop)? })
    }

    /// Parses a filter whose `$expr` may use the `let` variables of `env`.
    pub fn parse_in_env(filter: &Document, env: &Env) -> Result<Matcher> {
        Matcher::parse_with_scope(filter, &VarScope::from_env(env))
    }

    /// True when `doc` matches. Errors only from `$expr` evaluation.
    pub fn matches(&self, doc: &Document, env: &Env) -> Result<bool> {
        Ok(self.match_details(doc, env)?.matched)
    }

    /// Matches `doc` and reports the positional array index.
    pub fn match_details(&self, doc: &Document, env: &Env) -> Result<MatchDetails> {
        let mut cx = Cx::new(env);
        let matched = self.root.matches(doc, &mut cx)?;
        Ok(MatchDetails { matched, elem_index: if matched { cx.key } else { None } })
    }

    /// [`Matcher::match_details`] on a document's BSON bytes, read in place, when the filter can
    /// be answered without decoding it (paths through embedded documents, no array on them, no
    /// whole-document predicate); `None` otherwise (match the decoded document then). The
    /// answer is always the decoded path's (`tests/engine/raw_match.rs`).
    pub fn match_details_raw(&self, doc: &bson::RawDocument, env: &Env) -> Result<Option<MatchDetails>> {
        let mut cx = Cx::new(env);
        Ok(self.root.matches_raw(doc, &mut cx)?.map(|matched| MatchDetails { matched, elem_index: None }))
    }

    /// True when the filter is empty (`{}` matches every document).
    pub fn is_empty(&self) -> bool {
        matches!(&self.root, Node::And(c) if c.is_empty())
    }

    pub(crate) fn root(&self) -> &Node {
        &self.root
    }
}
