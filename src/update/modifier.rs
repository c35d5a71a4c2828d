//! What every update operator implements (the server's `ModifierNode`), and the binary-identity
//! test operators share for no-op detection.

use bson::Bson;

use crate::env::Env;
use crate::error::Result;

/// The document's `_id` as update messages quote it (`_id: 1`), or `no id`: rendered only when a
/// message needs it (rendering it for every update cost more than a small `$inc`).
pub(crate) struct DocId(pub Option<Bson>);

impl std::fmt::Display for DocId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(v) => f.write_str(&crate::value::display::element("_id", v)),
            None => f.write_str("no id"),
        }
    }
}

/// What an operator learns about the element it applies to.
pub(crate) struct OpCtx<'a> {
    pub env: &'a Env,
    /// The element's own field name (the last component of its path).
    pub field: &'a str,
    /// The dotted path of the element.
    pub path: &'a str,
    /// The document's `_id` as messages quote it (`_id: 1`), or `no id`.
    pub id: &'a DocId,
    /// Increments already handed to `$currentDate` timestamps in this operation.
    pub timestamps: &'a mut u32,
}

/// The effect of an operator on an existing element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    NoOp,
    Updated,
    /// Remove the element (an array element becomes `null` instead).
    Removed,
}

/// One update operator applied at the end of a path.
pub(crate) trait Modifier {
    /// Applies the operator to an element that exists.
    fn update_existing(&self, elem: &mut Bson, c: &mut OpCtx) -> Result<Outcome>;

    /// The value of the element the operator creates where the path is missing; `None` for
    /// operators that never create (`$unset`, `$pop`, `$pull`, `$pullAll`).
    fn new_value(&self, c: &mut OpCtx) -> Result<Option<Bson>>;

    /// For operators that do not create: true when a missing path that could not even be created
    /// is still a no-op rather than an error (only `$unset`).
    fn allow_non_viable(&self) -> bool {
        false
    }

    /// True for `$setOnInsert`, which does nothing unless the document is being inserted.
    fn insert_only(&self) -> bool {
        false
    }
}

/// Binary identity of two values (`BSONElement::binaryEqualValues`): same type and same bytes, so
/// `1` and `1.0` differ, and so do `0.0` and `-0.0`. Used only for no-op detection, never for
/// matching (which is `value::equal`).
pub(crate) fn identical(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Double(x), Bson::Double(y)) => x.to_bits() == y.to_bits(),
        (Bson::Int32(x), Bson::Int32(y)) => x == y,
        (Bson::Int64(x), Bson::Int64(y)) => x == y,
        (Bson::Decimal128(x), Bson::Decimal128(y)) => x.bytes() == y.bytes(),
        (Bson::Document(x), Bson::Document(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|((ka, va), (kb, vb))| ka == kb && identical(va, vb))
        }
        (Bson::Array(x), Bson::Array(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| identical(p, q)),
        (Bson::JavaScriptCodeWithScope(x), Bson::JavaScriptCodeWithScope(y)) => {
            x.code == y.code && identical(&Bson::Document(x.scope.clone()), &Bson::Document(y.scope.clone()))
        }
        (x, y) => {
            if std::mem::discriminant(x) != std::mem::discriminant(y) {
                return false;
            }
            // Strings, ObjectIds, binaries, dates, timestamps, regexes, code, symbols and the
            // unit types: the driver's equality is byte equality for these.
            x == y
        }
    }
}

/// Binary identity of two whole documents.
pub(crate) fn identical_docs(a: &bson::Document, b: &bson::Document) -> bool {
    a.len() == b.len() && a.iter().zip(b.iter()).all(|((ka, va), (kb, vb))| ka == kb && identical(va, vb))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::bson;

    #[test]
    fn identity_is_binary() {
        assert!(!identical(&bson!(1), &bson!(1.0)));
        assert!(!identical(&bson!(0.0), &bson!(-0.0)));
        assert!(identical(&bson!(f64::NAN), &bson!(f64::NAN)));
        assert!(!identical(&bson!({"a": 1, "b": 2}), &bson!({"b": 2, "a": 1})));
        assert!(identical(&bson!({"a": [1, "x"]}), &bson!({"a": [1, "x"]})));
    }
}
