//! `$bit`: applies `and`, `or` and `xor` (in the order given) to an int32 or int64 field; int32
//! with an int64 operand widens to int64. A missing field starts from int32 zero.

use bson::Bson;

use crate::error::{Error, Result};
use crate::update::modifier::{Modifier, OpCtx, Outcome};
use crate::value::display;
use crate::value::types::type_name;

#[derive(Debug, Clone, Copy)]
enum BitOp {
    And,
    Or,
    Xor,
}

#[derive(Debug, Clone)]
pub(crate) struct Bit {
    ops: Vec<(BitOp, Bson)>,
}

pub(crate) fn parse(_field: &str, v: &Bson) -> Result<Bit> {
    let Bson::Document(d) = v else {
        return Err(Error::bad_value(format!(
            "The $bit modifier is not compatible with a {}. You must pass in an embedded document: {{$bit: {{field: {{and/or/xor: #}}}}",
            type_name(v)
        )));
    };
    let mut ops = Vec::new();
    for (k, x) in d {
        let op = match k.as_str() {
            "and" => BitOp::And,
            "or" => BitOp::Or,
            "xor" => BitOp::Xor,
            _ => {
                return Err(Error::bad_value(format!(
                    "The $bit modifier only supports 'and', 'or', and 'xor', not '{k}' which is an unknown operator: {{{}}}",
                    display::element(k, x)
                )))
            }
        };
        if !matches!(x, Bson::Int32(_) | Bson::Int64(_)) {
            return Err(Error::bad_value(format!(
                "The $bit modifier field must be an Integer(32/64 bit); a '{}' is not supported here: {{{}}}",
                type_name(x),
                display::element(k, x)
            )));
        }
        ops.push((op, x.clone()));
    }
    if ops.is_empty() {
        return Err(Error::bad_value(
            "You must pass in at least one bitwise operation. The format is: {$bit: {field: {and/or/xor: #}}",
        ));
    }
    Ok(Bit { ops })
}

impl Bit {
    fn apply_ops(&self, start: &Bson) -> Bson {
        let mut cur = start.clone();
        for (op, operand) in &self.ops {
            cur = match (&cur, operand) {
                (Bson::Int32(a), Bson::Int32(b)) => Bson::Int32(combine32(*op, *a, *b)),
                (a, b) => Bson::Int64(combine64(*op, as_i64(a), as_i64(b))),
            };
        }
        cur
    }
}

fn as_i64(v: &Bson) -> i64 {
    match v {
        Bson::Int32(i) => *i as i64,
        Bson::Int64(i) => *i,
        _ => 0,
    }
}

fn combine32(op: BitOp, a: i32, b: i32) -> i32 {
    match op {
        BitOp::And => a & b,
        BitOp::Or => a | b,
        BitOp::Xor => a ^ b,
    }
}

fn combine64(op: BitOp, a: i64, b: i64) -> i64 {
    match op {
        BitOp::And => a & b,
        BitOp::Or => a | b,
        BitOp::Xor => a ^ b,
    }
}

impl Modifier for Bit {
    fn update_existing(&self, elem: &mut Bson, c: &mut OpCtx) -> Result<Outcome> {
        if !matches!(elem, Bson::Int32(_) | Bson::Int64(_)) {
            return Err(Error::bad_value(format!(
                "Cannot apply $bit to a value of non-integral type.{} has the field {} of non-integer type {}",
                c.id,
                c.field,
                type_name(elem)
            )));
        }
        let next = self.apply_ops(elem);
        let same = match (&next, &*elem) {
            (Bson::Int32(a), Bson::Int32(b)) => a == b,
            (Bson::Int64(a), Bson::Int64(b)) => a == b,
            _ => false,
        };
        if same {
            return Ok(Outcome::NoOp);
        }
        *elem = next;
        Ok(Outcome::Updated)
    }

    fn new_value(&self, _c: &mut OpCtx) -> Result<Option<Bson>> {
        Ok(Some(self.apply_ops(&Bson::Int32(0))))
    }
}
