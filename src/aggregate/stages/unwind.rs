//! `$unwind`: one output document per element of an array field (path through embedded
//! documents only), with `includeArrayIndex` (int64) and `preserveNullAndEmptyArrays`.

use std::sync::Arc;

use bson::{Bson, Document};

use crate::aggregate::util::{check_field_path, err, get_nested, remove_path, set_path, tname};
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::error::Result;

#[derive(Debug)]
pub(crate) struct Unwind {
    path: Vec<String>,
    index: Option<Vec<String>>,
    preserve: bool,
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, _pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let mut path = String::new();
    let mut preserve = false;
    let mut index: Option<String> = None;
    match spec {
        Bson::Document(d) => {
            for (k, v) in d {
                match k.as_str() {
                    "path" => match v {
                        Bson::String(s) => path = s.clone(),
                        other => return Err(err(28808, format!("expected a string as the path for $unwind stage, got {}", tname(other)))),
                    },
                    "preserveNullAndEmptyArrays" => match v {
                        Bson::Boolean(b) => preserve = *b,
                        other => {
                            return Err(err(
                                28809,
                                format!("expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage, got {}", tname(other)),
                            ))
                        }
                    },
                    "includeArrayIndex" => match v {
                        Bson::String(s) if !s.is_empty() => {
                            if s.starts_with('$') {
                                return Err(err(28822, format!("includeArrayIndex option to $unwind stage should not be prefixed with a '$': {s}")));
                            }
                            index = Some(s.clone());
                        }
                        other => {
                            return Err(err(
                                28810,
                                format!("expected a non-empty string for the includeArrayIndex  option to $unwind stage, got {}", tname(other)),
                            ))
                        }
                    },
                    other => return Err(err(28811, format!("unrecognized option to $unwind stage: {other}"))),
                }
            }
        }
        Bson::String(s) => path = s.clone(),
        other => {
            return Err(err(
                15981,
                format!("expected either a string or an object as specification for $unwind stage, got {}", tname(other)),
            ))
        }
    }
    if path.is_empty() {
        return Err(err(28812, "no path specified to $unwind stage"));
    }
    let Some(p) = path.strip_prefix('$') else {
        return Err(err(28818, format!("path option to $unwind stage should be prefixed with a '$': {path}")));
    };
    check_field_path(p)?;
    if let Some(i) = &index {
        check_field_path(i)?;
    }
    Ok(Arc::new(Unwind {
        path: p.split('.').map(String::from).collect(),
        index: index.map(|i| i.split('.').map(String::from).collect()),
        preserve,
    }))
}

impl Unwind {
    fn unwind(&self, doc: Document, out: &mut Vec<Document>) {
        let path: Vec<&str> = self.path.iter().map(String::as_str).collect();
        let index: Option<Vec<&str>> = self.index.as_ref().map(|i| i.iter().map(String::as_str).collect());
        let set_index = |d: &mut Document, v: Bson| {
            if let Some(ix) = &index {
                set_path(d, ix, v);
            }
        };
        match get_nested(&doc, &path) {
            Some(Bson::Array(a)) if !a.is_empty() => {
                let n = a.len();
                let mut base = doc;
                // Take the array out so the other fields are copied once per element, not the array.
                let items = match get_nested_mut_take(&mut base, &path) {
                    Some(items) => items,
                    None => return,
                };
                out.reserve(n);
                for (i, item) in items.into_iter().enumerate() {
                    let mut d = base.clone();
                    set_path(&mut d, &path, item);
                    set_index(&mut d, Bson::Int64(i as i64));
                    out.push(d);
                }
            }
            Some(Bson::Array(_)) => {
                if self.preserve {
                    let mut d = doc;
                    remove_path(&mut d, &path);
                    set_index(&mut d, Bson::Null);
                    out.push(d);
                }
            }
            None | Some(Bson::Null) | Some(Bson::Undefined) => {
                if self.preserve {
                    let mut d = doc;
                    set_index(&mut d, Bson::Null);
                    out.push(d);
                }
            }
            Some(_) => {
                let mut d = doc;
                set_index(&mut d, Bson::Null);
                out.push(d);
            }
        }
    }
}

/// Takes the array at `path` out of `doc`, leaving an empty array in its place.
fn get_nested_mut_take(doc: &mut Document, path: &[&str]) -> Option<Vec<Bson>> {
    let (last, parents) = path.split_last()?;
    let mut cur = doc;
    for p in parents {
        cur = match cur.get_mut(*p) {
            Some(Bson::Document(d)) => d,
            _ => return None,
        };
    }
    match cur.get_mut(*last) {
        Some(Bson::Array(a)) => Some(std::mem::take(a)),
        _ => None,
    }
}

impl Stage for Unwind {
    fn name(&self) -> &'static str {
        "$unwind"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, _cx: &'a RunCtx<'a>) -> DocStream<'a> {
        Box::new(input.flat_map(move |d| {
            let mut out = Vec::new();
            match d {
                Ok(d) => {
                    self.unwind(d, &mut out);
                    out.into_iter().map(Ok).collect::<Vec<_>>()
                }
                Err(e) => vec![Err(e)],
            }
        }))
    }

    fn keeps_metadata(&self) -> bool {
        true
    }
}
