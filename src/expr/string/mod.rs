//! String expression operators.

pub mod case;
pub mod concat;
pub mod index_of;
pub mod regex;
pub mod replace;
pub mod split;
pub mod strcasecmp;
pub mod strlen;
pub mod substr;
pub mod trim;

use bson::Bson;

use crate::error::{Error, Result};
use crate::value::display::stream_double;
use crate::expr::Val;

/// The server's `Value::coerceToString` (used by `$toLower`, `$substrBytes`, `$strcasecmp`):
/// null and missing become `""`; numbers, dates and timestamps are printed.
pub(crate) fn coerce_to_string(v: &Val, name: &str) -> Result<String> {
    if v.is_nullish() {
        return Ok(String::new());
    }
    let Some(b) = v.as_bson() else {
        return Err(Error::code(16007, "can't convert from BSON type object to String"));
    };
    let _ = name;
    Ok(match b {
        Bson::String(s) | Bson::Symbol(s) | Bson::JavaScriptCode(s) => s.clone(),
        Bson::Int32(i) => i.to_string(),
        Bson::Int64(i) => i.to_string(),
        Bson::Double(f) => stream_double(*f),
        Bson::Decimal128(d) => d.to_string(),
        Bson::DateTime(d) => crate::expr::date::format_iso(d.timestamp_millis()),
        Bson::Timestamp(t) => format!("Timestamp({}, {})", t.time, t.increment),
        other => {
            return Err(Error::code(
                16007,
                format!("can't convert from BSON type {} to String", crate::value::types::type_name(other)),
            ))
        }
    })
}

/// The string in an argument, if it is one.
pub(crate) fn as_str<'v>(v: &'v Val) -> Option<&'v str> {
    match v.as_bson() {
        Some(Bson::String(s)) => Some(s),
        _ => None,
    }
}
