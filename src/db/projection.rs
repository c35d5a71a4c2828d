//! The adapter between the commands and the query module's find projection.
//! TEMPORARY: until `query`'s projection lands, only plain top-level inclusion/exclusion.

use bson::{Bson, Document};

use crate::env::Env;
use crate::error::Result;
use crate::query::MatchDetails;

/// A parsed find projection.
pub(crate) struct Projection {
    spec: Document,
    inclusion: bool,
}

impl Projection {
    pub fn parse(spec: &Document) -> Result<Projection> {
        let inclusion = spec.iter().any(|(k, v)| k != "_id" && truthy(v));
        Ok(Projection { spec: spec.clone(), inclusion })
    }

    pub fn apply(&self, doc: &Document, _details: MatchDetails, _env: &Env) -> Result<Document> {
        let id_excluded = self.spec.get("_id").map(|v| !truthy(v)).unwrap_or(false);
        let mut out = Document::new();
        for (k, v) in doc {
            let keep = if k == "_id" {
                !id_excluded
            } else if self.inclusion {
                self.spec.get(k).map(truthy).unwrap_or(false)
            } else {
                !self.spec.contains_key(k)
            };
            if keep {
                out.insert(k.clone(), v.clone());
            }
        }
        Ok(out)
    }
}

fn truthy(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Int32(i) => *i != 0,
        Bson::Int64(i) => *i != 0,
        Bson::Double(f) => *f != 0.0,
        _ => true,
    }
}
