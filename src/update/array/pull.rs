//! `$pull`: removes the array elements that equal a value or match a condition. A condition
//! whose first field is a query operator (`{ $gte: 6 }`, or a regex) is matched against each
//! element as if the element were the document `{ "": element }`; any other document is a query
//! matched against the document elements only (`{ score: 8, item: "B" }`).

use bson::{Bson, Document};

use crate::error::Result;
use crate::query::Matcher;
use crate::update::modifier::{Modifier, OpCtx, Outcome};
use crate::value::equal;

#[derive(Debug, Clone)]
enum Condition {
    /// A query over document elements.
    Object(Matcher),
    /// An operator condition on the element itself, matched as `{ "": element }`.
    Wrapped(Matcher),
    /// Plain equality (scalars and arrays).
    Equal(Bson),
}

#[derive(Debug, Clone)]
pub(crate) struct Pull {
    condition: Condition,
}

/// Query operators that apply to a path (`MatchExpressionParser::parsePathAcceptingKeyword`).
const PATH_OPERATORS: &[&str] = &[
    "$eq", "$lt", "$lte", "$gte", "$gt", "$in", "$ne", "$size", "$all", "$nin", "$exists", "$mod", "$type",
    "$regex", "$options", "$elemMatch", "$near", "$nearSphere", "$geoNear", "$within", "$geoWithin",
    "$geoIntersects", "$bitsAllSet", "$bitsAllClear", "$bitsAnySet", "$bitsAnyClear", "$not",
];

fn is_path_operator(name: &str) -> bool {
    PATH_OPERATORS.contains(&name) || name.starts_with("$_internal")
}

fn wrap(v: &Bson) -> Document {
    let mut d = Document::new();
    d.insert("", v.clone());
    d
}

pub(crate) fn parse(_field: &str, v: &Bson) -> Result<Pull> {
    let condition = match v {
        Bson::Document(d) if !d.keys().next().is_some_and(|k| is_path_operator(k)) => Condition::Object(Matcher::parse(d)?),
        Bson::Document(_) | Bson::RegularExpression(_) => Condition::Wrapped(Matcher::parse(&wrap(v))?),
        other => Condition::Equal(other.clone()),
    };
    Ok(Pull { condition })
}

impl Modifier for Pull {
    fn update_existing(&self, elem: &mut Bson, c: &mut OpCtx) -> Result<Outcome> {
        let env = c.env;
        super::cull(elem, |item| match &self.condition {
            Condition::Object(m) => match item {
                Bson::Document(d) => m.matches(d, env),
                _ => Ok(false),
            },
            Condition::Wrapped(m) => m.matches(&wrap(item), env),
            Condition::Equal(v) => Ok(equal(item, v)),
        })
    }

    fn new_value(&self, _c: &mut OpCtx) -> Result<Option<Bson>> {
        Ok(None)
    }
}
