//! `$sample: { size: n }`: n documents chosen at random (all of them, shuffled, when there are
//! fewer), using the operation's seedable random source.

use std::sync::Arc;

use bson::{Bson, Document};

use crate::aggregate::stage::blocking;
use crate::aggregate::util::err;
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::env::Env;
use crate::error::Result;
use crate::value::Number;

#[derive(Debug)]
pub(crate) struct Sample {
    size: u64,
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, _pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let Bson::Document(d) = spec else {
        return Err(err(28745, "the $sample stage specification must be an object"));
    };
    let mut size = None;
    for (k, v) in d {
        match k.as_str() {
            "size" => {
                let Some(n) = Number::from_bson(v) else {
                    return Err(err(28746, "size argument to $sample must be a number"));
                };
                let f = n.to_f64();
                if f < 0.0 {
                    return Err(err(28747, "size argument to $sample must not be negative"));
                }
                size = Some(if f >= 9.2e18 { u64::MAX } else { f as u64 });
            }
            other => return Err(err(28748, format!("unrecognized option to $sample: {other}"))),
        }
    }
    let size = size.ok_or_else(|| err(28749, "$sample stage must specify a size"))?;
    Ok(Arc::new(Sample { size }))
}

impl Stage for Sample {
    fn name(&self) -> &'static str {
        "$sample"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        blocking(input, move |input| {
            let mut docs = input.collect::<Result<Vec<_>>>()?;
            choose(&mut docs, self.size, cx.env);
            Ok(docs)
        })
    }

    /// Chooses among a collection's stored documents by their bytes, with the same draws, and
    /// decodes only those chosen.
    fn run_records<'r>(&self, records: &mut dyn Iterator<Item = &'r [u8]>, decode: &dyn Fn(&[u8]) -> Result<Document>, cx: &RunCtx) -> Option<Result<Vec<Document>>> {
        let mut chosen: Vec<&'r [u8]> = records.collect();
        choose(&mut chosen, self.size, cx.env);
        Some(chosen.into_iter().map(decode).collect())
    }
}

/// Leaves `size` of `items` (all of them when there are fewer), chosen and ordered at random: a
/// partial Fisher-Yates, the first positions each given a uniform choice among those left.
fn choose<T>(items: &mut Vec<T>, size: u64, env: &Env) {
    let n = items.len();
    let k = usize::try_from(size).unwrap_or(usize::MAX).min(n);
    for i in 0..k {
        let j = i + ((env.random() * (n - i) as f64) as usize).min(n - i - 1);
        items.swap(i, j);
    }
    items.truncate(k);
}
