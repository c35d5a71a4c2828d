//! The top-level fields a pipeline reads from its input documents, for the pipelines whose
//! answer is safe to know from their specification alone (the server's dependency analysis,
//! `DepsTracker`, narrowed to what is simple to get right): stages that read only the fields
//! they name (`$match`, `$sort`, `$skip`, `$limit`, `$lookup`, `$unwind`, `$addFields`/`$set`,
//! `$project`, `$unset`) up to a `$group`, which builds new documents from the fields it names,
//! or a stage that is a `$group` and more (`$count`, `$sortByCount`, `$bucket`, `$bucketAuto`),
//! or a `$facet` whose every sub-pipeline is such a pipeline.
//! The collection then decodes only those fields of each stored document: a field no stage
//! names reaches the `$group` unread, whatever the stages before it pass on.
//!
//! The analysis over-approximates: every field name and every `"$path"` string anywhere in
//! those stages counts, at any depth (a literal that looks like a path, a field a stage adds,
//! only make a field be decoded for nothing), and a `$lookup`'s `localField` and `as`. The
//! names a stage gives are not fields read: a `$group`'s output names, a `$lookup`'s `from` and
//! `foreignField`. It gives up (`None`: decode everything) on a variable (`"$$ROOT"`,
//! `"$$CURRENT"`, any `$$`), on the operators that read fields by computed or implicit names
//! (`$getField`, `$setField`, `$unsetField`, `$function`, `$accumulator`, `$where`,
//! `$jsonSchema`), and on any other stage before the `$group`.
//!
//! The same walk, over the stages after a `$lookup`, tells the join which fields of the
//! documents it joins are read later (`joined_fields_read`): when those stages end in a
//! `$group` and reach the joined array only through paths into its documents, the join copies
//! only those fields of each.

use bson::Bson;

/// Operators that read fields not named by a `"$path"` or a field name.
const OPAQUE: &[&str] = &["$getField", "$setField", "$unsetField", "$function", "$accumulator", "$where", "$jsonSchema"];

/// The top-level fields `stages` read before and in their first `$group` (or stage that is one),
/// or `None` when the whole document may be read.
pub fn group_input_fields(stages: &[Bson]) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    read_paths(stages, &mut |path| {
        add(path, &mut fields);
        Some(())
    })?;
    Some(fields)
}

/// The top-level fields of the documents a `$lookup` joins (`spec`, a join by `localField` and
/// `foreignField`) that the stages after it (`later`) read, when they end in a `$group` and read
/// the joined array (`as`) only through paths into its documents (`"$as.f"`, `{"as.f": ..}`):
/// the other fields of the joined documents need not be copied. `None` when the array may be
/// read whole (`"$as"`, a numeric path part that may index it, anything `group_input_fields`
/// gives up on) or the documents reach the pipeline's output.
pub fn joined_fields_read(spec: &Bson, later: &[Bson]) -> Option<Vec<String>> {
    let Bson::Document(l) = spec else { return None };
    if l.contains_key("pipeline") {
        return None;
    }
    let Some(Bson::String(as_)) = l.get("as") else { return None };
    let mut fields = Vec::new();
    read_paths(later, &mut |path| {
        if path == as_ || as_.strip_prefix(path).is_some_and(|rest| rest.starts_with('.')) {
            return None;
        }
        if let Some(rest) = path.strip_prefix(as_.as_str()).and_then(|rest| rest.strip_prefix('.')) {
            let first = rest.split('.').next().unwrap_or(rest);
            if first.is_empty() || first.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            if !fields.iter().any(|f| f == first) {
                fields.push(first.to_string());
            }
        }
        Some(())
    })?;
    Some(fields)
}

/// Hands `path` every field path `stages` read (or name) before and in their first `$group` (or
/// stage that is one);
/// `None` when `path` does, or when the stages may read fields no path names or do not end in a
/// `$group` (see the module documentation).
fn read_paths(stages: &[Bson], path: &mut dyn FnMut(&str) -> Option<()>) -> Option<()> {
    for stage in stages {
        let Bson::Document(d) = stage else { return None };
        if d.len() != 1 {
            return None;
        }
        let (name, spec) = d.iter().next()?;
        match name.as_str() {
            "$match" | "$sort" | "$skip" | "$limit" | "$unwind" | "$addFields" | "$set" | "$project" | "$unset" => collect(spec, path)?,
            "$lookup" => {
                let Bson::Document(l) = spec else { return None };
                for (k, v) in l {
                    match k.as_str() {
                        // `localField` names a local field without a `$`; `as` the field it
                        // sets (counted: a dotted one sets a field within a stored one).
                        "localField" | "as" => {
                            let Bson::String(p) = v else { return None };
                            path(p)?;
                        }
                        // a field of the other collection, and its name
                        "from" | "foreignField" => {}
                        // `let` (its expressions read local fields) and `pipeline`
                        _ => collect(v, path)?,
                    }
                }
            }
            "$group" => {
                // Its own keys name outputs: only what they compute reads fields.
                let Bson::Document(g) = spec else { return None };
                for (_, v) in g {
                    collect(v, path)?;
                }
                return Some(());
            }
            // The stages that are a `$group` (and more) end the walk as it does: `$count` reads
            // no field, `$sortByCount` its expression.
            "$count" => return Some(()),
            "$sortByCount" => return collect(spec, path),
            "$bucket" | "$bucketAuto" => {
                // `groupBy` and the accumulators of `output` (whose keys name outputs); the
                // other options are constants.
                let Bson::Document(b) = spec else { return None };
                for (k, v) in b {
                    match (k.as_str(), v) {
                        ("output", Bson::Document(out)) => {
                            for (_, acc) in out {
                                collect(acc, path)?;
                            }
                        }
                        _ => collect(v, path)?,
                    }
                }
                return Some(());
            }
            // Each sub-pipeline reads the same input: all must end in a stage that is a `$group`.
            "$facet" => {
                let Bson::Document(f) = spec else { return None };
                for (_, sub) in f {
                    let Bson::Array(sub) = sub else { return None };
                    read_paths(sub, path)?;
                }
                return Some(());
            }
            _ => return None,
        }
    }
    None
}

fn add(path: &str, fields: &mut Vec<String>) {
    let top = path.split('.').next().unwrap_or(path);
    if !fields.iter().any(|f| f == top) {
        fields.push(top.to_string());
    }
}

/// Hands `path` the field paths `v` names; `None` when it may read others.
fn collect(v: &Bson, path: &mut dyn FnMut(&str) -> Option<()>) -> Option<()> {
    match v {
        Bson::String(s) if s.starts_with("$$") => return None,
        Bson::String(s) => {
            if let Some(p) = s.strip_prefix('$') {
                path(p)?;
            }
        }
        Bson::Document(d) => {
            for (k, x) in d {
                if OPAQUE.contains(&k.as_str()) || k.starts_with("$$") {
                    return None;
                }
                if !k.starts_with('$') {
                    path(k)?;
                }
                collect(x, path)?;
            }
        }
        Bson::Array(a) => {
            for x in a {
                collect(x, path)?;
            }
        }
        _ => {}
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use bson::{doc, Bson};

    fn fields(stages: Vec<bson::Document>) -> Option<Vec<String>> {
        super::group_input_fields(&stages.into_iter().map(Bson::Document).collect::<Vec<_>>())
    }

    #[test]
    fn fields_of_match_and_group() {
        let f = fields(vec![
            doc! {"$match": {"v": {"$gte": 10}, "$or": [{"m.x": 1}, {"$expr": {"$gt": ["$w.y", 2]}}]}},
            doc! {"$sort": {"t": -1}},
            doc! {"$group": {"_id": "$sensor", "n": {"$sum": 1}, "top": {"$top": {"sortBy": {"k.z": 1}, "output": "$o"}}}},
        ]);
        assert_eq!(f, Some(["v", "m", "w", "t", "sensor", "sortBy", "k", "output", "o"].map(String::from).to_vec()));
        assert_eq!(fields(vec![doc! {"$group": {"_id": null, "n": {"$sum": 1}}}]), Some(Vec::new()));
        // an output named as a stored field does not read it; an expression's own keys count
        assert_eq!(fields(vec![doc! {"$group": {"_id": {"a": "$b"}, "v": {"$max": "$v"}}}]), Some(["a", "b", "v"].map(String::from).to_vec()));
        let f = fields(vec![
            doc! {"$lookup": {"from": "s", "localField": "sensor.id", "foreignField": "_id", "as": "s"}},
            doc! {"$unwind": "$tags"},
            doc! {"$group": {"_id": {"$first": "$s.site"}}},
        ]);
        assert_eq!(f, Some(["sensor", "s", "tags"].map(String::from).to_vec()));
        let f = fields(vec![
            doc! {"$lookup": {"from": "s", "let": {"k": "$key"}, "pipeline": [{"$match": {"$expr": {"$eq": ["$x", "$$k"]}}}], "as": "s"}},
            doc! {"$group": {"_id": "$s.site"}},
        ]);
        assert_eq!(f, None, "a sub-pipeline's variables are not followed");
        // the stages that are a `$group`: their outputs' names are not fields read
        assert_eq!(fields(vec![doc! {"$unwind": "$tags"}, doc! {"$count": "tags"}]), Some(vec!["tags".to_string()]));
        assert_eq!(fields(vec![doc! {"$sortByCount": {"$toLower": "$s.name"}}]), Some(vec!["s".to_string()]));
        let f = fields(vec![doc! {"$bucket": {"groupBy": "$v", "boundaries": [0, 5], "default": "other", "output": {"n": {"$sum": 1}, "w": {"$max": "$w"}}}}]);
        assert_eq!(f, Some(["v", "w"].map(String::from).to_vec()));
        let f = fields(vec![doc! {"$bucketAuto": {"groupBy": "$v", "buckets": 3, "output": {"top": {"$push": "$o.p"}}}}]);
        assert_eq!(f, Some(["v", "o"].map(String::from).to_vec()));
        assert_eq!(fields(vec![doc! {"$sortByCount": "$$ROOT"}]), None);
        // a `$facet` whose sub-pipelines all end in one; else its documents may be read whole
        let f = fields(vec![doc! {"$facet": {"n": [{"$count": "n"}], "by": [{"$unwind": "$t"}, {"$sortByCount": "$t"}]}}]);
        assert_eq!(f, Some(vec!["t".to_string()]));
        assert_eq!(fields(vec![doc! {"$facet": {"n": [{"$count": "n"}], "page": [{"$limit": 10}]}}]), None);
    }

    fn joined(spec: bson::Document, later: Vec<bson::Document>) -> Option<Vec<String>> {
        let later: Vec<Bson> = later.into_iter().map(Bson::Document).collect();
        super::joined_fields_read(&Bson::Document(spec), &later)
    }

    #[test]
    fn fields_of_joined_documents_read_later() {
        let join = doc! {"from": "sensors", "localField": "sensor", "foreignField": "_id", "as": "s"};
        let group = doc! {"$group": {"_id": {"$first": "$s.site"}, "n": {"$sum": 1}, "r": {"$addToSet": "$s.region.name"}}};
        assert_eq!(joined(join.clone(), vec![group.clone()]), Some(["site", "region"].map(String::from).to_vec()));
        let m = doc! {"$match": {"s.kind": "a", "t": {"$gt": 1}}};
        assert_eq!(joined(join.clone(), vec![m, group.clone()]), Some(["kind", "site", "region"].map(String::from).to_vec()));
        // a dotted `as`: paths below it
        let deep = doc! {"from": "x", "localField": "a", "foreignField": "b", "as": "j.k"};
        assert_eq!(joined(deep.clone(), vec![doc! {"$group": {"_id": "$j.k.f"}}]), Some(vec!["f".to_string()]));
        assert_eq!(joined(deep, vec![doc! {"$group": {"_id": "$j"}}]), None, "a parent of `as`");
        // the whole array, an element by its index, the whole document, no `$group`
        assert_eq!(joined(join.clone(), vec![doc! {"$group": {"_id": null, "all": {"$push": "$s"}}}]), None);
        assert_eq!(joined(join.clone(), vec![doc! {"$group": {"_id": {"$size": "$s"}}}]), None);
        assert_eq!(joined(join.clone(), vec![doc! {"$match": {"s.0.site": 1}}, group.clone()]), None);
        assert_eq!(joined(join.clone(), vec![doc! {"$match": {"s": {"$elemMatch": {"site": 1}}}}, group.clone()]), None);
        assert_eq!(joined(join.clone(), vec![doc! {"$group": {"_id": "$$ROOT"}}]), None);
        assert_eq!(joined(join.clone(), vec![doc! {"$project": {"s.site": 1}}]), None);
        assert_eq!(joined(join.clone(), vec![doc! {"$unwind": "$s"}, group.clone()]), None);
        assert_eq!(joined(join.clone(), vec![doc! {"$lookup": {"from": "y", "localField": "q", "foreignField": "r", "as": "s"}}, group.clone()]), None);
        // a join by a sub-pipeline
        let mut piped = join.clone();
        piped.insert("pipeline", Bson::Array(vec![]));
        assert_eq!(joined(piped, vec![group]), None);
    }

    #[test]
    fn gives_up_on_what_reads_the_whole_document() {
        assert_eq!(fields(vec![doc! {"$group": {"_id": "$$ROOT"}}]), None);
        assert_eq!(fields(vec![doc! {"$group": {"_id": {"$getField": "a"}}}]), None);
        assert_eq!(fields(vec![doc! {"$match": {"$jsonSchema": {"required": ["a"]}}}, doc! {"$group": {"_id": "$a"}}]), None);
        assert_eq!(fields(vec![doc! {"$sample": {"size": 2}}, doc! {"$group": {"_id": "$a"}}]), None);
        assert_eq!(fields(vec![doc! {"$replaceWith": "$a"}, doc! {"$group": {"_id": "$b"}}]), None);
        assert_eq!(fields(vec![doc! {"$match": {"a": 1}}]), None);
        assert_eq!(fields(vec![doc! {"$group": {"_id": "$a", "all": {"$push": "$$CURRENT"}}}]), None);
    }
}
