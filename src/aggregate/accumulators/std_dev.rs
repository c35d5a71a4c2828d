//! The running population / sample standard deviation (Welford), shared by `$stdDevPop` and
//! `$stdDevSamp`: numeric values only, result double, null when there are too few values.

use bson::Bson;

use crate::aggregate::accumulator::Fold;
use crate::error::Result;
use crate::value::Number;

#[derive(Default)]
pub(crate) struct StdDev<const SAMPLE: bool> {
    count: u64,
    mean: f64,
    m2: f64,
}

impl<const SAMPLE: bool> Fold for StdDev<SAMPLE> {
    fn add(&mut self, v: Option<&Bson>) -> Result<()> {
        let Some(n) = v.and_then(Number::from_bson) else { return Ok(()) };
        let x = n.to_f64();
        self.count += 1;
        let delta = x - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (x - self.mean);
        Ok(())
    }

    fn finish(self) -> Result<Bson> {
        let n = if SAMPLE { self.count.saturating_sub(1) } else { self.count };
        if n == 0 {
            return Ok(Bson::Null);
        }
        Ok(Bson::Double((self.m2 / n as f64).sqrt()))
    }
}
