//! The evaluation environment shared by one operation: `$$NOW`, `let` variables, the seedable
//! random source of `$rand`/`$sample`, and the operation's cost counters.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use bson::{Bson, DateTime};

/// Deterministic cost counters of one operation (what explain's executionStats reports).
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    pub docs_examined: u64,
    pub keys_examined: u64,
    pub docs_returned: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
}

/// The environment of one operation.
#[derive(Debug)]
pub struct Env {
    /// `$$NOW` and `$currentDate`: fixed for the whole operation.
    pub now: DateTime,
    /// User variables from a `let` option (names without `$$`).
    pub vars: HashMap<String, Bson>,
    rng: Cell<u64>,
    cost: Cell<CostCells>,
    /// The sort key of the document being evaluated, when a `$sort` gave it one (`$meta`).
    sort_key: RefCell<Option<Bson>>,
}

#[derive(Debug, Default, Clone, Copy)]
struct CostCells {
    docs_examined: u64,
    keys_examined: u64,
    docs_returned: u64,
    bytes_read: u64,
    bytes_written: u64,
}

impl Env {
    pub fn new(now: DateTime) -> Env {
        Env {
            now,
            vars: HashMap::new(),
            rng: Cell::new(0x9E37_79B9_7F4A_7C15 ^ now.timestamp_millis() as u64),
            cost: Cell::new(CostCells::default()),
            sort_key: RefCell::new(None),
        }
    }

    /// Seeds `$rand` and `$sample` (tests and lessons use a fixed seed).
    pub fn with_seed(mut self, seed: u64) -> Env {
        self.rng = Cell::new(seed.max(1));
        self
    }

    pub fn with_vars(mut self, vars: HashMap<String, Bson>) -> Env {
        self.vars = vars;
        self
    }

    /// `{$meta: "sortKey"}` of the document being evaluated.
    pub fn sort_key(&self) -> Option<Bson> {
        self.sort_key.borrow().clone()
    }

    /// Sets (or clears) the sort key `$meta` reports while one document goes through stages.
    pub(crate) fn set_sort_key(&self, key: Option<Bson>) {
        *self.sort_key.borrow_mut() = key;
    }

    /// A uniform double in [0, 1) (xorshift64*).
    pub fn random(&self) -> f64 {
        let mut x = self.rng.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng.set(x);
        let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (r >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn add_docs_examined(&self, n: u64, bytes: u64) {
        let mut c = self.cost.get();
        c.docs_examined += n;
        c.bytes_read += bytes;
        self.cost.set(c);
    }

    pub fn add_keys_examined(&self, n: u64) {
        let mut c = self.cost.get();
        c.keys_examined += n;
        self.cost.set(c);
    }

    pub fn add_returned(&self, n: u64) {
        let mut c = self.cost.get();
        c.docs_returned += n;
        self.cost.set(c);
    }

    pub fn add_written(&self, bytes: u64) {
        let mut c = self.cost.get();
        c.bytes_written += bytes;
        self.cost.set(c);
    }

    pub fn cost(&self) -> Cost {
        let c = self.cost.get();
        Cost { docs_examined: c.docs_examined, keys_examined: c.keys_examined, docs_returned: c.docs_returned, bytes_read: c.bytes_read, bytes_written: c.bytes_written }
    }
}
