//! `$bucketAuto`: sorts documents by `groupBy` and cuts them into at most `buckets` buckets of
//! about equal size (equal values never split), `_id: { min, max }` where a bucket's `max` is the
//! next bucket's `min`; optional `granularity` rounds the boundaries to a preferred-number series.

use std::cmp::Ordering;
use std::sync::Arc;

use bson::{doc, Bson, Document};

use super::bucket::{is_path_or_expression, output_statements};
use crate::aggregate::accumulator::{Row, Statement};
use crate::aggregate::stage::blocking;
use crate::aggregate::util::{err, tname};
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::error::{Error, ErrorKind, Result};
use crate::expr::Expr;
use crate::value::{compare, Number};
use crate::value::display;

#[derive(Debug)]
pub(crate) struct BucketAuto {
    group_by: Expr,
    buckets: usize,
    granularity: Option<Granularity>,
    stmts: Vec<Statement>,
}

#[derive(Debug, Clone)]
enum Granularity {
    PowersOf2,
    Series(&'static [f64]),
}

const R5: &[f64] = &[10.0, 16.0, 25.0, 40.0, 63.0];
const R10: &[f64] = &[100.0, 125.0, 160.0, 200.0, 250.0, 315.0, 400.0, 500.0, 630.0, 800.0];
const R20: &[f64] = &[
    100.0, 112.0, 125.0, 140.0, 160.0, 180.0, 200.0, 224.0, 250.0, 280.0, 315.0, 355.0, 400.0, 450.0, 500.0, 560.0, 630.0, 710.0, 800.0,
    900.0,
];
const S125: &[f64] = &[10.0, 20.0, 50.0];
const E6: &[f64] = &[10.0, 15.0, 22.0, 33.0, 47.0, 68.0];
const E12: &[f64] = &[10.0, 12.0, 15.0, 18.0, 22.0, 27.0, 33.0, 39.0, 47.0, 56.0, 68.0, 82.0];
const E24: &[f64] = &[
    10.0, 11.0, 12.0, 13.0, 15.0, 16.0, 18.0, 20.0, 22.0, 24.0, 27.0, 30.0, 33.0, 36.0, 39.0, 43.0, 47.0, 51.0, 56.0, 62.0, 68.0, 75.0, 82.0, 91.0,
];

fn granularity(name: &str) -> Result<Granularity> {
    Ok(match name {
        "POWERSOF2" => Granularity::PowersOf2,
        "R5" => Granularity::Series(R5),
        "R10" => Granularity::Series(R10),
        "R20" => Granularity::Series(R20),
        "1-2-5" => Granularity::Series(S125),
        "E6" => Granularity::Series(E6),
        "E12" => Granularity::Series(E12),
        "E24" => Granularity::Series(E24),
        "R40" | "R80" | "E48" | "E96" | "E192" => {
            return Err(Error::new(ErrorKind::NotImplemented, format!("granularity '{name}' is not supported by this engine")))
        }
        other => return Err(err(40257, format!("Unknown rounding granularity '{other}'"))),
    })
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let Bson::Document(d) = spec else {
        return Err(err(40240, format!("The argument to $bucketAuto must be an object, but found type: {}", tname(spec))));
    };
    let scope = &pcx.scope;
    let (mut group_by, mut buckets, mut gran, mut output) = (None, None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "groupBy" => {
                if !is_path_or_expression(v) {
                    return Err(err(
                        40239,
                        format!("The $bucketAuto 'groupBy' field must be defined as a $-prefixed path or an expression object, but found: {}", display::value(v)),
                    ));
                }
                group_by = Some(Expr::parse(v, scope)?);
            }
            "buckets" => {
                let Some(n) = Number::from_bson(v) else {
                    return Err(err(40241, format!("The $bucketAuto 'buckets' field must be a numeric value, but found type: {}", tname(v))));
                };
                let i = n.to_exact_i64().filter(|i| *i >= i32::MIN as i64 && *i <= i32::MAX as i64).ok_or_else(|| {
                    err(40242, format!("The $bucketAuto 'buckets' field must be representable as a 32-bit integer, but found {}", display::value(v)))
                })?;
                if i <= 0 {
                    return Err(err(40243, format!("The $bucketAuto 'buckets' field must be greater than 0, but found: {i}")));
                }
                buckets = Some(i as usize);
            }
            "granularity" => match v {
                Bson::String(s) => gran = Some(granularity(s)?),
                other => return Err(err(40261, format!("The $bucketAuto 'granularity' field must be a string, but found type: {}", tname(other)))),
            },
            "output" => match v {
                Bson::Document(o) => output = Some(o),
                other => return Err(err(40244, format!("The $bucketAuto 'output' field must be an object, but found type: {}", tname(other)))),
            },
            other => return Err(err(40245, format!("Unrecognized option to $bucketAuto: {other}"))),
        }
    }
    let (Some(group_by), Some(buckets)) = (group_by, buckets) else {
        return Err(err(40246, "$bucketAuto requires 'groupBy' and 'buckets' to be specified"));
    };
    let stmts = output_statements(output, scope)?;
    Ok(Arc::new(BucketAuto { group_by, buckets, granularity: gran, stmts }))
}

fn check_roundable(v: &Bson) -> Result<f64> {
    let Some(n) = Number::from_bson(v) else {
        return Err(err(
            40258,
            format!("$bucketAuto can specify a 'granularity' with numeric boundaries only, but found type: {}", tname(v)),
        ));
    };
    if n.is_nan() {
        return Err(err(40259, "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a NaN"));
    }
    let f = n.to_f64();
    if f < 0.0 {
        return Err(err(40268, "A granularity rounder can only round non-negative numbers"));
    }
    Ok(f)
}

impl Granularity {
    fn round(&self, v: &Bson, up: bool) -> Result<Bson> {
        let x = check_roundable(v)?;
        if x == 0.0 {
            return Ok(v.clone());
        }
        match self {
            Granularity::PowersOf2 => {
                let exp = if up { x.log2().floor() + 1.0 } else { x.log2().ceil() - 1.0 };
                let p = 2f64.powf(exp);
                Ok(match v {
                    Bson::Int32(_) if p.fract() == 0.0 && p < 2_147_483_648.0 => Bson::Int32(p as i32),
                    Bson::Int32(_) | Bson::Int64(_) if p.fract() == 0.0 && p < 9.2e18 => Bson::Int64(p as i64),
                    _ => Bson::Double(p),
                })
            }
            Granularity::Series(s) => {
                let (front, decade) = (s[0], s[0] * 10.0);
                let (mut n, mut mult) = (x, 1.0f64);
                if up {
                    while n >= decade {
                        n /= 10.0;
                        mult *= 10.0;
                    }
                    while n < front {
                        n *= 10.0;
                        mult /= 10.0;
                    }
                    let r = s.iter().copied().find(|e| *e > n).unwrap_or(decade);
                    Ok(Bson::Double(r * mult))
                } else {
                    while n > decade {
                        n /= 10.0;
                        mult *= 10.0;
                    }
                    while n <= front {
                        n *= 10.0;
                        mult /= 10.0;
                    }
                    let r = s.iter().copied().rev().find(|e| *e < n).unwrap_or(front);
                    Ok(Bson::Double(r * mult))
                }
            }
        }
    }
}

struct Building<'s> {
    min: Bson,
    max: Bson,
    row: Row<'s>,
}

impl Stage for BucketAuto {
    fn name(&self) -> &'static str {
        "$bucketAuto"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        blocking(input, move |input| {
            let env = cx.env;
            let mut items: Vec<(Bson, Document)> = Vec::new();
            for d in input {
                let d = d?;
                let k = self.group_by.evaluate(&d, env)?.unwrap_or(Bson::Null);
                items.push((k, d));
            }
            items.sort_by(|a, b| compare(&a.0, &b.0));
            let n = items.len();
            if n == 0 {
                return Ok(Vec::new());
            }
            let approx = ((n as f64 / self.buckets as f64).round() as usize).max(1);
            let mut it = items.into_iter().peekable();
            let mut buckets: Vec<Building> = Vec::new();
            for i in 0..self.buckets {
                let Some((k, d)) = it.next() else { break };
                let mut b = Building { min: k.clone(), max: k, row: Row::start(&self.stmts, &Bson::Null, env)? };
                b.row.add(&d, env)?;
                if i + 1 == self.buckets {
                    for (k, d) in it.by_ref() {
                        b.max = k;
                        b.row.add(&d, env)?;
                    }
                } else {
                    for _ in 1..approx {
                        let Some((k, d)) = it.next() else { break };
                        b.max = k;
                        b.row.add(&d, env)?;
                    }
                    if let Some(g) = &self.granularity {
                        let bound = g.round(&b.max, true)?;
                        while let Some((k, _)) = it.peek() {
                            if compare(k, &bound) != Ordering::Less {
                                break;
                            }
                            if let Some((k, d)) = it.next() {
                                b.max = k;
                                b.row.add(&d, env)?;
                            }
                        }
                    } else {
                        while let Some((k, _)) = it.peek() {
                            if compare(k, &b.max) != Ordering::Equal {
                                break;
                            }
                            if let Some((_, d)) = it.next() {
                                b.row.add(&d, env)?;
                            }
                        }
                    }
                }
                buckets.push(b);
            }
            // Boundaries: each bucket's max is the next one's min (rounded with a granularity).
            let mut bounds: Vec<(Bson, Bson)> = Vec::with_capacity(buckets.len());
            for (i, b) in buckets.iter().enumerate() {
                let (min, max) = match &self.granularity {
                    Some(g) => {
                        let min = match bounds.last() {
                            Some((_, prev_max)) => prev_max.clone(),
                            None => g.round(&b.min, false)?,
                        };
                        (min, g.round(&b.max, true)?)
                    }
                    None => {
                        let max = buckets.get(i + 1).map(|n| n.min.clone()).unwrap_or_else(|| b.max.clone());
                        (b.min.clone(), max)
                    }
                };
                bounds.push((min, max));
            }
            let mut out = Vec::with_capacity(buckets.len());
            for (b, (min, max)) in buckets.into_iter().zip(bounds) {
                let mut d = doc! { "_id": { "min": min, "max": max } };
                b.row.finish_into(&self.stmts, &mut d)?;
                out.push(d);
            }
            Ok(out)
        })
    }
}
