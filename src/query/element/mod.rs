//! Element query operators: `$exists` and `$type`.

pub mod exists;
pub mod type_;

use bson::Bson;

use crate::value::Number;

/// The server's `BSONElement::trueValue`: false for `false`, zero, null and undefined.
pub(crate) fn true_value(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Null | Bson::Undefined => false,
        other => match Number::from_bson(other) {
            Some(Number::Int(i)) => i != 0,
            Some(Number::Long(i)) => i != 0,
            Some(Number::Double(f)) => f != 0.0,
            Some(n @ Number::Decimal(_)) => n.to_f64() != 0.0,
            None => true,
        },
    }
}
