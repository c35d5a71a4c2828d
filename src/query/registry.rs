//! The operator registry: every query operator by name, in the manual's families. It drives
//! parsing and the "unknown operator" / "unknown top level operator" errors.

use bson::Bson;

use super::node::Node;
use super::parser::{Level, ParseCx, PathArgs};
use super::{array, bitwise, comparison, element, evaluation, logical, misc};
use crate::error::{Error, ErrorKind, Result};

/// Parses `{ path: { $op: arg } }`; `None` when the operator adds no node (`$options`).
pub(crate) type PathParser = fn(&PathArgs) -> Result<Option<Node>>;

/// Parses a top-level `{ $op: arg }` (the operator name with its `$`); `None` for `$comment`.
pub(crate) type PathlessParser = fn(&str, &Bson, &ParseCx, Level) -> Result<Option<Node>>;

/// Operators applied to a field (the server's `queryOperatorMap`), without the `$`.
const PATH_OPERATORS: &[(&str, PathParser)] = &[
    // comparison
    ("eq", comparison::eq::parse),
    ("ne", comparison::ne::parse),
    ("gt", comparison::gt::parse),
    ("gte", comparison::gte::parse),
    ("lt", comparison::lt::parse),
    ("lte", comparison::lte::parse),
    ("in", comparison::in_::parse),
    ("nin", comparison::nin::parse),
    // element
    ("exists", element::exists::parse),
    ("type", element::type_::parse),
    // evaluation
    ("mod", evaluation::mod_::parse),
    ("regex", evaluation::regex::parse),
    ("options", evaluation::regex::parse_options),
    // array
    ("all", array::all::parse),
    ("elemMatch", array::elem_match::parse),
    ("size", array::size::parse),
    // bitwise
    ("bitsAllSet", bitwise::bits_all_set::parse),
    ("bitsAnySet", bitwise::bits_any_set::parse),
    ("bitsAllClear", bitwise::bits_all_clear::parse),
    ("bitsAnyClear", bitwise::bits_any_clear::parse),
    // geospatial (not supported)
    ("geoIntersects", geo),
    ("geoWithin", geo),
    ("within", geo),
    ("near", geo),
    ("nearSphere", geo),
    ("geoNear", geo),
];

/// Operators at the top level of a filter (the server's `pathlessOperatorMap`), without the `$`.
const PATHLESS_OPERATORS: &[(&str, PathlessParser)] = &[
    ("and", logical::and::parse),
    ("or", logical::or::parse),
    ("nor", logical::nor::parse),
    ("expr", evaluation::expr::parse),
    ("jsonSchema", evaluation::json_schema::parse),
    ("where", evaluation::where_::parse),
    ("text", evaluation::text::parse),
    ("comment", misc::comment::parse),
    ("sampleRate", misc::sample_rate::parse),
    ("alwaysTrue", misc::always::parse_true),
    ("alwaysFalse", misc::always::parse_false),
    ("id", misc::dbref::parse),
    ("ref", misc::dbref::parse),
    ("db", misc::dbref::parse),
];

/// The parser of a field operator (`gt` for `$gt`).
pub(crate) fn path_operator(name: &str) -> Option<PathParser> {
    PATH_OPERATORS.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
}

/// True when `{ $name: .. }` names a field operator (`parsePathAcceptingKeyword`).
pub(crate) fn is_path_keyword(op: &str) -> bool {
    op.strip_prefix('$').is_some_and(|n| path_operator(n).is_some())
}

/// The parser of a top-level operator (`and` for `$and`).
pub(crate) fn pathless_operator(name: &str) -> Option<PathlessParser> {
    PATHLESS_OPERATORS.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
}

/// Every operator name the registry knows, with its `$` (for documentation and tests).
pub fn operator_names() -> Vec<String> {
    let path = PATH_OPERATORS.iter().map(|(n, _)| format!("${n}"));
    let pathless = PATHLESS_OPERATORS.iter().map(|(n, _)| format!("${n}"));
    path.chain(std::iter::once("$not".to_string())).chain(pathless).collect()
}

fn geo(a: &PathArgs) -> Result<Option<Node>> {
    Err(geo_not_supported(a.op))
}

/// Geospatial operators are outside the playground's scope.
pub(crate) fn geo_not_supported(op: &str) -> Error {
    Error::new(ErrorKind::NotImplemented, format!("{op} is not supported by Pattern Playground (geospatial queries are not implemented)"))
}
