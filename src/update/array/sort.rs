//! `$sort`: orders the array `$push` produced, by whole value (`1`/`-1`) or by fields of its
//! elements (`{ score: -1 }`; non-document elements sort as if `{ "": value }`, missing fields as
//! null).

use std::cmp::Ordering;

use bson::{Bson, Document};

use crate::error::{Error, Result};
use crate::value::compare;

/// A parsed `$sort` clause.
#[derive(Debug, Clone)]
pub(crate) enum SortSpec {
    /// Whole values, descending when true.
    Whole(bool),
    /// Fields of the elements with their directions (true = descending).
    Fields(Vec<(String, bool)>),
}

pub(crate) fn parse(v: &Bson) -> Result<SortSpec> {
    match v {
        Bson::Document(d) => {
            if d.is_empty() {
                return Err(Error::bad_value("The sort pattern is empty when it should be a set of fields."));
            }
            let mut fields = Vec::new();
            for (k, x) in d {
                let order = crate::value::Number::from_bson(x).map(|n| n.to_f64()).unwrap_or(0.0);
                if order != 1.0 && order != -1.0 {
                    return Err(Error::bad_value("The sort element value must be either 1 or -1"));
                }
                if k.is_empty() {
                    return Err(Error::bad_value("The sort field cannot be empty"));
                }
                if k.split('.').any(str::is_empty) {
                    return Err(Error::bad_value(format!("The sort field is a dotted field but has an empty part: {k}")));
                }
                fields.push((k.clone(), order < 0.0));
            }
            Ok(SortSpec::Fields(fields))
        }
        x if crate::value::types::is_number(x) => {
            let order = crate::value::Number::from_bson(x).map(|n| n.to_f64()).unwrap_or(0.0);
            if order == 1.0 || order == -1.0 {
                Ok(SortSpec::Whole(order < 0.0))
            } else {
                Err(Error::bad_value("The $sort element value must be either 1 or -1"))
            }
        }
        _ => Err(Error::bad_value(
            "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields",
        )),
    }
}

/// `BSONObj::getFieldDotted`: the field named by the whole path if there is one, else the first
/// component then the rest inside an embedded document or array (an array reads as the document
/// `{ "0": .., "1": .. }`).
fn get_field_dotted(d: &Document, path: &str) -> Option<Bson> {
    if let Some(v) = d.get(path) {
        return Some(v.clone());
    }
    let (left, right) = path.split_once('.')?;
    match d.get(left)? {
        Bson::Document(sub) => get_field_dotted(sub, right),
        Bson::Array(items) => {
            let sub: Document = items.iter().enumerate().map(|(i, v)| (i.to_string(), v.clone())).collect();
            get_field_dotted(&sub, right)
        }
        _ => None,
    }
}

fn key_of(item: &Bson, fields: &[(String, bool)]) -> Vec<Bson> {
    let wrapped;
    let d = match item {
        Bson::Document(d) => d,
        other => {
            let mut w = Document::new();
            w.insert("", other.clone());
            wrapped = w;
            &wrapped
        }
    };
    fields.iter().map(|(f, _)| get_field_dotted(d, f).unwrap_or(Bson::Null)).collect()
}

/// Sorts the array in place (stable).
pub(crate) fn apply(items: &mut Vec<Bson>, spec: &SortSpec) {
    match spec {
        SortSpec::Whole(desc) => {
            let sorted = merge_sort(std::mem::take(items), &|a: &Bson, b: &Bson| {
                let o = compare(a, b);
                if *desc {
                    o.reverse()
                } else {
                    o
                }
            });
            *items = sorted;
        }
        SortSpec::Fields(fields) => {
            let keyed: Vec<(Vec<Bson>, Bson)> = items.drain(..).map(|i| (key_of(&i, fields), i)).collect();
            let sorted = merge_sort(keyed, &|(ka, _): &(Vec<Bson>, Bson), (kb, _): &(Vec<Bson>, Bson)| {
                for ((x, y), (_, desc)) in ka.iter().zip(kb.iter()).zip(fields.iter()) {
                    let o = compare(x, y);
                    if o != Ordering::Equal {
                        return if *desc { o.reverse() } else { o };
                    }
                }
                Ordering::Equal
            });
            *items = sorted.into_iter().map(|(_, v)| v).collect();
        }
    }
}

/// A stable merge sort that cannot panic whatever the comparison answers.
pub(crate) fn merge_sort<T>(mut v: Vec<T>, cmp: &dyn Fn(&T, &T) -> Ordering) -> Vec<T> {
    if v.len() <= 1 {
        return v;
    }
    let right = v.split_off(v.len() / 2);
    let left = merge_sort(v, cmp);
    let right = merge_sort(right, cmp);
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut l = left.into_iter().peekable();
    let mut r = right.into_iter().peekable();
    loop {
        let take_right = match (l.peek(), r.peek()) {
            (Some(a), Some(b)) => cmp(b, a) == Ordering::Less,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (None, None) => break,
        };
        let next = if take_right { r.next() } else { l.next() };
        if let Some(x) = next {
            out.push(x);
        }
    }
    out
}
