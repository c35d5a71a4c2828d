//! Filter parsing, as the server's `MatchExpressionParser`: top-level `$` operators go to the
//! pathless registry, `{field: {$op: ..}}` to the path registry (which also produces the
//! "unknown operator" errors), other values are equalities (regexes are `$regex`).

use bson::{Bson, Document};

use super::comparison::eq;
use super::evaluation::regex::RegexPred;
use super::logical::not;
use super::node::{FieldPath, Node};
use super::registry;
use crate::error::{Error, Result};
use crate::expr::VarScope;

/// Where the parser is (`DocumentParseLevel`): `$expr`, `$where` and `$text` only apply to the
/// whole document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    PredicateTop,
    UserDocumentTop,
    SubDocument,
}

/// What the parse needs besides the filter.
pub(crate) struct ParseCx<'a> {
    /// Variables visible to `$expr` (from the command's `let`).
    pub scope: &'a VarScope,
}

/// The arguments of a path operator's parser.
pub(crate) struct PathArgs<'a> {
    pub path: &'a FieldPath,
    /// The operator with its `$` (`$gt`).
    pub op: &'a str,
    /// The operator's argument.
    pub arg: &'a Bson,
    /// The whole operator document (`$regex` and `$options` read each other).
    pub context: &'a Document,
    pub pc: &'a ParseCx<'a>,
}

/// Parses a filter document.
pub(crate) fn parse(obj: &Document, pc: &ParseCx, level: Level) -> Result<Node> {
    let next_level = if level == Level::PredicateTop { Level::UserDocumentTop } else { level };
    let mut children = Vec::new();
    for (k, v) in obj {
        if let Some(name) = k.strip_prefix('$') {
            let Some(parser) = registry::pathless_operator(name) else {
                let hint = if name == "not" {
                    ". If you are trying to negate an entire expression, use $nor."
                } else {
                    ". If you have a field name that starts with a '$' symbol, consider using $getField or $setField."
                };
                return Err(Error::bad_value(format!("unknown top level operator: {k}{hint}")));
            };
            if let Some(node) = parser(k, v, pc, level)? {
                children.push(node);
            }
            continue;
        }
        // BSONDepth::getMaxDepthForUserStorage(): 200 - 20.
        if k.split('.').count() > 180 {
            return Err(Error::code(5729100, "FieldPath is too long"));
        }
        let path = FieldPath::new(k);
        match v {
            Bson::Document(sub) if is_expression_document(sub, false) => {
                parse_sub(&path, sub, &mut children, pc, next_level)?;
            }
            Bson::RegularExpression(re) => {
                children.push(Node::path(&path, RegexPred::new(re.pattern.as_str(), re.options.as_str())?));
            }
            _ => children.push(Node::path(&path, eq::equality(v.clone())?)),
        }
    }
    Ok(Node::and_of(children))
}

/// `{ a: { $gt: 1, $lt: 5 } }`: every operator of the sub-document, ANDed into `children`.
pub(crate) fn parse_sub(path: &FieldPath, sub: &Document, children: &mut Vec<Node>, pc: &ParseCx, level: Level) -> Result<()> {
    if let Some((first, v)) = sub.iter().next() {
        if matches!(v, Bson::Document(_) | Bson::Array(_)) && matches!(first.as_str(), "$near" | "$nearSphere" | "$geoNear") {
            return Err(registry::geo_not_supported(first));
        }
    }
    for (k, v) in sub {
        if let Some(node) = parse_sub_field(path, k, v, sub, pc, level)? {
            children.push(node);
        }
    }
    Ok(())
}

/// One operator of a sub-document (`$gt: 5`).
pub(crate) fn parse_sub_field(path: &FieldPath, op: &str, arg: &Bson, context: &Document, pc: &ParseCx, level: Level) -> Result<Option<Node>> {
    if op == "$not" {
        return not::parse_not(path, arg, pc, level).map(Some);
    }
    let parser = op.strip_prefix('$').and_then(registry::path_operator);
    let Some(parser) = parser else {
        if op == "$where" {
            return Err(Error::bad_value("$where cannot be applied to a field"));
        }
        return Err(Error::bad_value(format!("unknown operator: {op}")));
    };
    parser(&PathArgs { path, op, arg, context, pc })
}

/// The server's `isExpressionDocument`: a non-empty document whose first field starts with `$`
/// and that is not a DBRef (`$ref` and `$id`; with `allow_incomplete_dbref`, any of `$ref`,
/// `$id`, `$db`).
pub(crate) fn is_expression_document(d: &Document, allow_incomplete_dbref: bool) -> bool {
    let Some(first) = d.keys().next() else { return false };
    if !first.starts_with('$') {
        return false;
    }
    let has = |k: &str| d.contains_key(k);
    let dbref = if allow_incomplete_dbref { has("$ref") || has("$id") || has("$db") } else { has("$ref") && has("$id") };
    !dbref
}

/// The server's `isExpressionDocument` on a value.
pub(crate) fn is_expression_value(v: &Bson, allow_incomplete_dbref: bool) -> bool {
    matches!(v, Bson::Document(d) if is_expression_document(d, allow_incomplete_dbref))
}
