//! Sort specifications (`{ at: -1, _id: 1 }`) with the server's ordering of arrays (ascending uses
//! an array's smallest element, descending its largest) and missing fields (as null). STUB.

use std::cmp::Ordering;

use bson::Document;

use crate::error::Result;
use crate::value;

/// A parsed sort specification.
#[derive(Debug, Clone)]
pub struct SortSpec {
    keys: Vec<(String, bool)>,
}

impl SortSpec {
    /// Parses `{ field: 1 | -1, ... }` (errors as the server's for bad values).
    pub fn parse(spec: &Document) -> Result<SortSpec> {
        Ok(SortSpec { keys: spec.iter().map(|(k, v)| (k.clone(), !matches!(v, bson::Bson::Int32(-1)))).collect() })
    }

    /// Orders two documents by this specification.
    pub fn compare(&self, a: &Document, b: &Document) -> Ordering {
        for (k, asc) in &self.keys {
            let (x, y) = (value::path::get_strict(a, k), value::path::get_strict(b, k));
            let o = value::compare(x.unwrap_or(&bson::Bson::Null), y.unwrap_or(&bson::Bson::Null));
            let o = if *asc { o } else { o.reverse() };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }
}
