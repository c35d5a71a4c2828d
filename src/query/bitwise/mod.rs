//! Bitwise query operators: `$bitsAllSet`, `$bitsAnySet`, `$bitsAllClear`, `$bitsAnyClear`.
//! The argument is a list of bit positions, a non-negative integer mask, or a BinData mask; the
//! tested values are integral numbers (two's complement, sign-extended past bit 63) or BinData
//! (bytes little-endian, zero-extended). Other values never match.

pub mod bits_all_clear;
pub mod bits_all_set;
pub mod bits_any_clear;
pub mod bits_any_set;

use bson::Bson;

use crate::error::{Error, Result};
use crate::value::display;
use crate::query::int_arg;
use crate::query::node::{Cx, Node, Predicate};
use crate::query::parser::PathArgs;
use crate::value::Number;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BitOp {
    AllSet,
    AnySet,
    AllClear,
    AnyClear,
}

#[derive(Debug, Clone)]
pub(crate) struct BitTest {
    op: BitOp,
    positions: Vec<u32>,
    mask: u64,
}

impl BitTest {
    fn test_number(&self, v: i64) -> bool {
        let v = v as u64;
        match self.op {
            BitOp::AllSet => v & self.mask == self.mask,
            BitOp::AllClear => !v & self.mask == self.mask,
            BitOp::AnySet => v & self.mask != 0,
            BitOp::AnyClear => !v & self.mask != 0,
        }
    }

    fn test_bytes(&self, bytes: &[u8]) -> bool {
        let all = matches!(self.op, BitOp::AllSet | BitOp::AllClear);
        let want_set = matches!(self.op, BitOp::AllSet | BitOp::AnySet);
        for &p in &self.positions {
            let byte = bytes.get((p / 8) as usize).copied().unwrap_or(0);
            let set = byte & (1 << (p % 8)) != 0;
            let ok = set == want_set;
            if all && !ok {
                return false;
            }
            if !all && ok {
                return true;
            }
        }
        all
    }
}

impl Predicate for BitTest {
    fn match_type(&self) -> u8 {
        match self.op {
            BitOp::AllSet => 14,
            BitOp::AllClear => 15,
            BitOp::AnySet => 16,
            BitOp::AnyClear => 17,
        }
    }

    fn matches_value(&self, v: Option<&Bson>, _cx: &mut Cx) -> Result<bool> {
        let Some(v) = v else { return Ok(false) };
        if let Bson::Binary(b) = v {
            return Ok(self.test_bytes(&b.bytes));
        }
        let Some(n) = Number::from_bson(v) else { return Ok(false) };
        let i = match n {
            Number::Int(i) => i as i64,
            Number::Long(i) => i,
            other => {
                let f = other.to_f64();
                if !int_arg::fits_i64(f) || f.fract() != 0.0 {
                    return Ok(false);
                }
                f as i64
            }
        };
        Ok(self.test_number(i))
    }
}

/// Parses the argument of a bitwise operator.
pub(crate) fn parse_bit_test(a: &PathArgs, op: BitOp) -> Result<Option<Node>> {
    let test = match a.arg {
        Bson::Array(list) => {
            let mut positions = Vec::with_capacity(list.len());
            let mut mask = 0u64;
            for (i, e) in list.iter().enumerate() {
                let p = int_arg::to_non_negative_int(&i.to_string(), e)
                    .map_err(|err| Error::bad_value(format!("Failed to parse bit position. {}", err.message)))?;
                let p = p as u32;
                positions.push(p);
                mask |= 1u64 << p.min(63);
            }
            BitTest { op, positions, mask }
        }
        Bson::Binary(b) => {
            let mut positions = Vec::new();
            let mut mask = 0u64;
            for (i, &byte) in b.bytes.iter().enumerate() {
                if byte == 0 {
                    continue;
                }
                if i < 8 {
                    // The server sign-extends the (signed) byte here.
                    mask |= ((byte as i8) as i64 as u64) << (i * 8);
                } else {
                    mask |= 1u64 << 63;
                }
                for bit in 0..8 {
                    if byte & (1 << bit) != 0 {
                        positions.push((8 * i + bit) as u32);
                    }
                }
            }
            BitTest { op, positions, mask }
        }
        v if crate::value::types::is_number(v) => {
            let mask = int_arg::to_non_negative_long(a.op, v)? as u64;
            let positions = (0..64).filter(|b| mask & (1u64 << b) != 0).collect();
            BitTest { op, positions, mask }
        }
        v => {
            return Err(Error::bad_value(format!(
                "{} takes an Array, a number, or a BinData but received: {}",
                a.path.full,
                display::element(a.op, v)
            )))
        }
    };
    Ok(Some(Node::path(a.path, test)))
}
