//! The top-level fields a pipeline reads from its input documents, for the pipelines whose
//! answer is safe to know from their specification alone (the server's dependency analysis,
//! `DepsTracker`, narrowed to what is simple to get right): stages that read only the fields
//! they name (`$match`, `$sort`, `$skip`, `$limit`, `$lookup`, `$unwind`, `$addFields`/`$set`,
//! `$project`, `$unset`) up to a `$group`, which builds new documents from the fields it names.
//! The collection then decodes only those fields of each stored document: a field no stage
//! names reaches the `$group` unread, whatever the stages before it pass on.
//!
//! The analysis over-approximates: every field name and every `"$path"` string anywhere in
//! those stages counts, at any depth (a literal that looks like a path, a field a stage adds,
//! only make a field be decoded for nothing), and a `$lookup`'s `localField`. The names a stage
//! gives are not fields read: a `$group`'s output names, a `$lookup`'s `from`, `as` and
//! `foreignField`. It gives up (`None`: decode everything) on a variable (`"$$ROOT"`,
//! `"$$CURRENT"`, any `$$`), on the operators that read fields by computed or implicit names
//! (`$getField`, `$setField`, `$unsetField`, `$function`, `$accumulator`, `$where`,
//! `$jsonSchema`), and on any other stage before the `$group`.

use bson::Bson;

/// Operators that read fields not named by a `"$path"` or a field name.
const OPAQUE: &[&str] = &["$getField", "$setField", "$unsetField", "$function", "$accumulator", "$where", "$jsonSchema"];

/// The top-level fields `stages` read before and in their first `$group`, or `None` when the
/// whole document may be read.
pub fn group_input_fields(stages: &[Bson]) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    for stage in stages {
        let Bson::Document(d) = stage else { return None };
        if d.len() != 1 {
            return None;
        }
        let (name, spec) = d.iter().next()?;
        match name.as_str() {
            "$match" | "$sort" | "$skip" | "$limit" | "$unwind" | "$addFields" | "$set" | "$project" | "$unset" => collect(spec, &mut fields)?,
            "$lookup" => {
                let Bson::Document(l) = spec else { return None };
                for (k, v) in l {
                    match k.as_str() {
                        // `localField` names a local field without a `$`; `foreignField` a
                        // field of the other collection; `from` and `as` are names.
                        "localField" => {
                            let Bson::String(local) = v else { return None };
                            add(local, &mut fields);
                        }
                        "from" | "foreignField" | "as" => {}
                        // `let` (its expressions read local fields) and `pipeline`
                        _ => collect(v, &mut fields)?,
                    }
                }
            }
            "$group" => {
                // Its own keys name outputs: only what they compute reads fields.
                let Bson::Document(g) = spec else { return None };
                for (_, v) in g {
                    collect(v, &mut fields)?;
                }
                return Some(fields);
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

/// Adds the fields `v` names; `None` when it may read others.
fn collect(v: &Bson, fields: &mut Vec<String>) -> Option<()> {
    match v {
        Bson::String(s) if s.starts_with("$$") => return None,
        Bson::String(s) => {
            if let Some(path) = s.strip_prefix('$') {
                add(path, fields);
            }
        }
        Bson::Document(d) => {
            for (k, x) in d {
                if OPAQUE.contains(&k.as_str()) || k.starts_with("$$") {
                    return None;
                }
                if !k.starts_with('$') {
                    add(k, fields);
                }
                collect(x, fields)?;
            }
        }
        Bson::Array(a) => {
            for x in a {
                collect(x, fields)?;
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
        assert_eq!(f, Some(["sensor", "tags", "s"].map(String::from).to_vec()));
        let f = fields(vec![
            doc! {"$lookup": {"from": "s", "let": {"k": "$key"}, "pipeline": [{"$match": {"$expr": {"$eq": ["$x", "$$k"]}}}], "as": "s"}},
            doc! {"$group": {"_id": "$s.site"}},
        ]);
        assert_eq!(f, None, "a sub-pipeline's variables are not followed");
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
