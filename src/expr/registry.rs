//! The one table of expression operators: name -> parser. It drives parsing and the server's
//! "Unrecognized expression" error (168).

use std::collections::HashMap;
use std::sync::OnceLock;

use bson::Bson;

use super::args::ParseFn;
use super::{accumulator as acc, arithmetic as ar, array, boolean, comparison, conditional as cond, date, misc, object, set, string, type_, variable};
use super::{Expr, VarScope};
use crate::error::{Error, ErrorKind, Result};

/// Every operator: its name and parser.
pub const OPERATORS: &[(&str, ParseFn)] = &[
    // arithmetic
    ("$abs", ar::abs::parse),
    ("$add", ar::add::parse),
    ("$ceil", ar::ceil_floor::parse),
    ("$divide", ar::divide::parse),
    ("$exp", ar::exp_log::parse_exp),
    ("$floor", ar::ceil_floor::parse),
    ("$ln", ar::exp_log::parse_ln),
    ("$log", ar::exp_log::parse_log),
    ("$log10", ar::exp_log::parse_log10),
    ("$mod", ar::mod_::parse),
    ("$multiply", ar::multiply::parse),
    ("$pow", ar::pow::parse),
    ("$round", ar::round_trunc::parse),
    ("$sqrt", ar::sqrt::parse),
    ("$subtract", ar::subtract::parse),
    ("$trunc", ar::round_trunc::parse),
    ("$sin", ar::trig::parse),
    ("$cos", ar::trig::parse),
    ("$tan", ar::trig::parse),
    ("$asin", ar::trig::parse),
    ("$acos", ar::trig::parse),
    ("$atan", ar::trig::parse),
    ("$sinh", ar::trig::parse),
    ("$cosh", ar::trig::parse),
    ("$tanh", ar::trig::parse),
    ("$asinh", ar::trig::parse),
    ("$acosh", ar::trig::parse),
    ("$atanh", ar::trig::parse),
    ("$degreesToRadians", ar::trig::parse),
    ("$radiansToDegrees", ar::trig::parse),
    ("$atan2", ar::trig::parse_atan2),
    ("$bitAnd", ar::bitwise::parse),
    ("$bitNot", ar::bitwise::parse_not),
    ("$bitOr", ar::bitwise::parse),
    ("$bitXor", ar::bitwise::parse),
    // accumulators as expressions
    ("$avg", acc::avg::parse),
    ("$max", acc::min_max::parse),
    ("$min", acc::min_max::parse),
    ("$stdDevPop", acc::std_dev::parse),
    ("$stdDevSamp", acc::std_dev::parse),
    ("$sum", acc::sum::parse),
    // array
    ("$concatArrays", array::concat_arrays::parse),
    ("$arrayElemAt", array::elem_at::parse_elem_at),
    ("$arrayToObject", array::object_array::parse_array_to_object),
    ("$filter", array::filter::parse),
    ("$first", array::elem_at::parse_first_last),
    ("$firstN", array::n_elements::parse),
    ("$in", array::in_::parse),
    ("$indexOfArray", array::index_of_array::parse),
    ("$isArray", array::is_array::parse),
    ("$last", array::elem_at::parse_first_last),
    ("$lastN", array::n_elements::parse),
    ("$map", array::map::parse),
    ("$maxN", array::n_elements::parse),
    ("$minN", array::n_elements::parse),
    ("$objectToArray", array::object_array::parse_object_to_array),
    ("$range", array::range::parse),
    ("$reduce", array::reduce::parse),
    ("$reverseArray", array::reverse_array::parse),
    ("$size", array::size::parse),
    ("$slice", array::slice::parse),
    ("$sortArray", array::sort_array::parse),
    ("$zip", array::zip::parse),
    // boolean
    ("$and", boolean::and_or::parse),
    ("$not", boolean::not::parse),
    ("$or", boolean::and_or::parse),
    // comparison
    ("$cmp", comparison::cmp::parse),
    ("$eq", comparison::cmp::parse),
    ("$gt", comparison::cmp::parse),
    ("$gte", comparison::cmp::parse),
    ("$lt", comparison::cmp::parse),
    ("$lte", comparison::cmp::parse),
    ("$ne", comparison::cmp::parse),
    // conditional
    ("$cond", cond::cond::parse),
    ("$ifNull", cond::if_null::parse),
    ("$switch", cond::switch::parse),
    // object
    ("$getField", object::get_field::parse),
    ("$mergeObjects", object::merge_objects::parse),
    ("$setField", object::set_field::parse_set),
    ("$unsetField", object::set_field::parse_unset),
    // set
    ("$allElementsTrue", set::all_any::parse),
    ("$anyElementTrue", set::all_any::parse),
    ("$setDifference", set::set_ops::parse),
    ("$setEquals", set::set_ops::parse),
    ("$setIntersection", set::set_ops::parse),
    ("$setIsSubset", set::set_ops::parse),
    ("$setUnion", set::set_ops::parse),
    // variable
    ("$let", variable::let_::parse),
    // date
    ("$dateAdd", date::add::parse),
    ("$dateDiff", date::diff::parse),
    ("$dateFromParts", date::from_parts::parse),
    ("$dateFromString", date::from_string::parse_op),
    ("$dateSubtract", date::add::parse),
    ("$dateToParts", date::to_parts::parse),
    ("$dateToString", date::to_string::parse),
    ("$dateTrunc", date::trunc::parse),
    ("$dayOfMonth", date::parts::parse),
    ("$dayOfWeek", date::parts::parse),
    ("$dayOfYear", date::parts::parse),
    ("$hour", date::parts::parse),
    ("$isoDayOfWeek", date::parts::parse),
    ("$isoWeek", date::parts::parse),
    ("$isoWeekYear", date::parts::parse),
    ("$millisecond", date::parts::parse),
    ("$minute", date::parts::parse),
    ("$month", date::parts::parse),
    ("$second", date::parts::parse),
    ("$week", date::parts::parse),
    ("$year", date::parts::parse),
    // string
    ("$concat", string::concat::parse),
    ("$indexOfBytes", string::index_of::parse),
    ("$indexOfCP", string::index_of::parse),
    ("$ltrim", string::trim::parse),
    ("$regexFind", string::regex::parse),
    ("$regexFindAll", string::regex::parse),
    ("$regexMatch", string::regex::parse),
    ("$replaceAll", string::replace::parse),
    ("$replaceOne", string::replace::parse),
    ("$rtrim", string::trim::parse),
    ("$split", string::split::parse),
    ("$strLenBytes", string::strlen::parse),
    ("$strLenCP", string::strlen::parse),
    ("$strcasecmp", string::strcasecmp::parse),
    ("$substr", string::substr::parse_bytes),
    ("$substrBytes", string::substr::parse_bytes),
    ("$substrCP", string::substr::parse_cp),
    ("$toLower", string::case::parse),
    ("$toUpper", string::case::parse),
    ("$trim", string::trim::parse),
    // type
    ("$convert", type_::convert::parse),
    ("$isNumber", type_::type_of::parse_is_number),
    ("$toBool", type_::convert::parse_shorthand),
    ("$toDate", type_::convert::parse_shorthand),
    ("$toDecimal", type_::convert::parse_shorthand),
    ("$toDouble", type_::convert::parse_shorthand),
    ("$toInt", type_::convert::parse_shorthand),
    ("$toLong", type_::convert::parse_shorthand),
    ("$toObjectId", type_::convert::parse_shorthand),
    ("$toString", type_::convert::parse_shorthand),
    ("$type", type_::type_of::parse_type),
    // misc
    ("$binarySize", misc::binary_size::parse),
    ("$bsonSize", misc::bson_size::parse),
    ("$const", misc::literal::parse),
    ("$literal", misc::literal::parse),
    ("$meta", misc::meta::parse),
    ("$rand", misc::rand::parse),
    ("$tsIncrement", misc::timestamp::parse),
    ("$tsSecond", misc::timestamp::parse),
];

/// Expression operators of MongoDB 8 the engine does not implement: named as such rather than
/// "Unrecognized expression".
pub const UNSUPPORTED_OPERATORS: &[&str] = &["$function", "$median", "$percentile", "$toHashedIndexKey"];

fn table() -> &'static HashMap<&'static str, (&'static str, ParseFn)> {
    static TABLE: OnceLock<HashMap<&'static str, (&'static str, ParseFn)>> = OnceLock::new();
    TABLE.get_or_init(|| OPERATORS.iter().map(|(n, f)| (*n, (*n, *f))).collect())
}

/// True when `name` (with its `$`) is an expression operator.
pub fn is_operator(name: &str) -> bool {
    table().contains_key(name)
}

/// Parses `{ <name>: <arg> }`.
pub fn parse_operator(name: &str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    match table().get(name) {
        Some((static_name, parse)) => parse(static_name, arg, scope),
        None if UNSUPPORTED_OPERATORS.contains(&name) => {
            Err(Error::new(ErrorKind::NotImplemented, format!("{name} is not supported by this engine")))
        }
        None => Err(Error::new(ErrorKind::InvalidPipelineOperator, format!("Unrecognized expression '{name}'"))),
    }
}
