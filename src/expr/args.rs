//! Argument handling shared by the operators: operand lists, arity errors, the common
//! "evaluate every argument, then compute" operator, and the server's printing of values in
//! messages.

use std::fmt::Write;

use bson::{Bson, Document};

use super::{Ctx, Expr, Op, Val, VarScope};
use crate::error::{Error, Result};

/// A parser: operator name (`"$add"`), its argument, the variables in scope.
pub type ParseFn = fn(&'static str, &Bson, &VarScope) -> Result<Expr>;

/// What a plain operator computes from its evaluated arguments.
pub type EvalFn = fn(&'static str, &[Val], &Ctx) -> Result<Option<Bson>>;

/// `ExpressionNary::parseArguments`: an array is the operand list, anything else one operand.
pub fn operands(arg: &Bson, scope: &VarScope) -> Result<Vec<Expr>> {
    match arg {
        Bson::Array(a) => a.iter().map(|e| Expr::parse(e, scope)).collect(),
        other => Ok(vec![Expr::parse(other, scope)?]),
    }
}

/// Error 16020 of a fixed-arity operator.
pub fn check_exact(name: &str, n: usize, expected: usize) -> Result<()> {
    if n != expected {
        return Err(Error::code(
            16020,
            format!("Expression {name} takes exactly {expected} arguments. {n} were passed in."),
        ));
    }
    Ok(())
}

/// Error 28667 of an operator with a range of arities.
pub fn check_range(name: &str, n: usize, min: usize, max: usize) -> Result<()> {
    if n < min || n > max {
        return Err(Error::code(
            28667,
            format!("Expression {name} takes at least {min} arguments, and at most {max}, but {n} were passed in."),
        ));
    }
    Ok(())
}

/// An operator that evaluates all its arguments and computes from them.
pub struct Simple {
    pub name: &'static str,
    pub args: Vec<Expr>,
    pub f: EvalFn,
}

impl std::fmt::Debug for Simple {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(self.name).field("args", &self.args).finish()
    }
}

impl Op for Simple {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let mut vals = Vec::with_capacity(self.args.len());
        for a in &self.args {
            vals.push(a.eval_val(ctx)?);
        }
        (self.f)(self.name, &vals, ctx)
    }
}

impl Simple {
    /// Any number of operands.
    pub fn variadic(name: &'static str, arg: &Bson, scope: &VarScope, f: EvalFn) -> Result<Expr> {
        Ok(Expr::op(Simple { name, args: operands(arg, scope)?, f }))
    }

    /// Exactly `n` operands (16020).
    pub fn fixed(name: &'static str, arg: &Bson, scope: &VarScope, n: usize, f: EvalFn) -> Result<Expr> {
        let args = operands(arg, scope)?;
        check_exact(name, args.len(), n)?;
        Ok(Expr::op(Simple { name, args, f }))
    }

    /// Between `min` and `max` operands (28667).
    pub fn ranged(name: &'static str, arg: &Bson, scope: &VarScope, min: usize, max: usize, f: EvalFn) -> Result<Expr> {
        let args = operands(arg, scope)?;
        check_range(name, args.len(), min, max)?;
        Ok(Expr::op(Simple { name, args, f }))
    }

    /// Already parsed operands.
    pub fn with_args(name: &'static str, args: Vec<Expr>, f: EvalFn) -> Expr {
        Expr::op(Simple { name, args, f })
    }
}

/// Parses a named-argument object: each known name's value as an expression (in `scope`), any
/// other name reported by `unknown`.
pub fn named<const N: usize>(
    d: &Document,
    names: [&str; N],
    scope: &VarScope,
    unknown: impl Fn(&str) -> Error,
) -> Result<[Option<Expr>; N]> {
    let mut out: [Option<Expr>; N] = std::array::from_fn(|_| None);
    for (k, v) in d {
        match names.iter().position(|n| n == k) {
            Some(i) => out[i] = Some(Expr::parse(v, scope)?),
            None => return Err(unknown(k)),
        }
    }
    Ok(out)
}

/// The server's `BSONObj::toString()` of a document: `{ a: 1, b: "x" }`.
pub fn display_doc(d: &Document) -> String {
    let mut s = String::new();
    write_doc(&mut s, d);
    s
}

/// The server's printing of one value inside messages (`BSONElement::toString(false)`).
pub fn display(v: &Bson) -> String {
    let mut s = String::new();
    write_value(&mut s, v);
    s
}

fn write_doc(s: &mut String, d: &Document) {
    if d.is_empty() {
        s.push_str("{}");
        return;
    }
    s.push_str("{ ");
    for (i, (k, v)) in d.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(k);
        s.push_str(": ");
        write_value(s, v);
    }
    s.push_str(" }");
}

/// A double as the server prints it (`1.0`, `2.5`, `1e+20`, `inf`, `nan`).
pub fn display_double(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == f.trunc() && f.abs() < 1e15 {
        return format!("{f:.1}");
    }
    let s = format!("{f}");
    if s.len() > 20 {
        format!("{f:e}")
    } else {
        s
    }
}

fn write_value(s: &mut String, v: &Bson) {
    match v {
        Bson::Double(f) => s.push_str(&display_double(*f)),
        Bson::String(x) => {
            let _ = write!(s, "\"{x}\"");
        }
        Bson::Document(d) => write_doc(s, d),
        Bson::Array(a) => {
            if a.is_empty() {
                s.push_str("[]");
                return;
            }
            s.push_str("[ ");
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                write_value(s, e);
            }
            s.push_str(" ]");
        }
        Bson::Binary(b) => {
            let _ = write!(s, "BinData({}, ", u8::from(b.subtype));
            for byte in &b.bytes {
                let _ = write!(s, "{byte:02X}");
            }
            s.push(')');
        }
        Bson::Undefined => s.push_str("undefined"),
        Bson::ObjectId(o) => {
            let _ = write!(s, "ObjectId('{}')", o.to_hex());
        }
        Bson::Boolean(b) => {
            let _ = write!(s, "{b}");
        }
        Bson::DateTime(d) => {
            let _ = write!(s, "new Date({})", d.timestamp_millis());
        }
        Bson::Null => s.push_str("null"),
        Bson::RegularExpression(r) => {
            let _ = write!(s, "/{}/{}", r.pattern, r.options);
        }
        Bson::JavaScriptCode(c) => s.push_str(c),
        Bson::JavaScriptCodeWithScope(c) => s.push_str(&c.code),
        Bson::Symbol(x) => {
            let _ = write!(s, "\"{x}\"");
        }
        Bson::Int32(i) => {
            let _ = write!(s, "{i}");
        }
        Bson::Int64(i) => {
            let _ = write!(s, "{i}");
        }
        Bson::Timestamp(t) => {
            let _ = write!(s, "Timestamp({}, {})", t.time, t.increment);
        }
        Bson::Decimal128(d) => {
            let _ = write!(s, "NumberDecimal(\"{d}\")");
        }
        Bson::MinKey => s.push_str("MinKey"),
        Bson::MaxKey => s.push_str("MaxKey"),
        Bson::DbPointer(_) => s.push_str("DBPointer()"),
    }
}

/// The server's `Value` printing (`operator<<(ostream, Value)`), used by messages that print an
/// evaluated value: strings quoted, documents as `{a: 1}`, arrays as `[1, 2]`.
pub fn display_val(v: &Val) -> String {
    match v {
        Val::Missing => "MISSING".into(),
        other => match other.bson() {
            Some(b) => display_value(&b),
            None => "MISSING".into(),
        },
    }
}

/// A double as C++ streams print it (`%g`: six significant digits, `1`, `0.5`, `1e+20`).
pub fn display_g(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let sci = format!("{f:.5e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    fn strip(s: &str) -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    }
    if (-4..6).contains(&exp) {
        let decimals = (5 - exp).max(0) as usize;
        strip(&format!("{f:.decimals$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mant), exp.abs())
    }
}

/// [`display_val`] of a `Bson`.
pub fn display_value(v: &Bson) -> String {
    match v {
        Bson::Double(f) => display_g(*f),
        Bson::Document(d) => {
            let mut s = String::from("{");
            for (i, (k, v)) in d.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                let _ = write!(s, "{k}: {}", display_value(v));
            }
            s.push('}');
            s
        }
        Bson::Array(a) => {
            let mut s = String::from("[");
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                s.push_str(&display_value(e));
            }
            s.push(']');
            s
        }
        Bson::DateTime(d) => match d.try_to_rfc3339_string() {
            Ok(x) => x,
            Err(_) => format!("new Date({})", d.timestamp_millis()),
        },
        other => display(other),
    }
}
