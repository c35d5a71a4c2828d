//! A pipeline that reads only some fields up to a `$group`, or a stage that is one (`$count`,
//! `$sortByCount`, `$bucket`, `$bucketAuto`, a `$facet` of such pipelines), gets only those
//! top-level fields of each stored document decoded (`aggregate::deps`). It must answer exactly
//! as over whole documents, which a leading `$replaceWith: "$$ROOT"` gives (a variable makes the
//! analysis give up): the same documents in the same order, with the same types and field order,
//! and the same errors. A `$facet` first in the pipeline hands each sub-pipeline the stored
//! documents themselves (each read as a whole pipeline reads them), and must answer as one over
//! decoded documents.

use bson::{doc, Bson, Document};
use proptest::prelude::*;

use super::gen::{aggregate_reply as reply, collection_of, fields, show};

fn path() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["$a", "$b", "$c", "$a.b", "$c.d", "$a.0", "$b.a"])
}

/// A pipeline ending in a stage that is a `$group`, with stages before it that read fields.
fn pipeline() -> impl Strategy<Value = Vec<Document>> {
    let before = prop::sample::select(vec![
        doc! {},
        doc! {"$unwind": "$a"},
        doc! {"$unwind": {"path": "$b", "preserveNullAndEmptyArrays": true}},
        doc! {"$match": {"c": {"$exists": true}}},
        doc! {"$project": {"a": 1, "c": 1}},
        doc! {"$set": {"c": "$b"}},
    ]);
    let last = (path(), path(), 0usize..7).prop_map(|(p, q, which)| match which {
        0 => doc! {"$count": "n"},
        1 => doc! {"$sortByCount": p},
        2 => doc! {"$bucket": {"groupBy": p, "boundaries": [-1, 0.5, 2], "default": "other", "output": {"n": {"$sum": 1}, "m": {"$max": q}}}},
        3 => doc! {"$bucketAuto": {"groupBy": p, "buckets": 2, "output": {"all": {"$push": q}}}},
        // sub-pipelines that all end in one, and one that does not (whole documents then)
        4 => doc! {"$facet": {"n": [{"$count": "n"}], "by": [{"$sortByCount": p}], "s": [{"$unwind": q}, {"$group": {"_id": null, "v": {"$push": q}}}]}},
        5 => doc! {"$facet": {"by": [{"$sortByCount": p}], "first": [{"$limit": 2}]}},
        _ => doc! {"$group": {"_id": p, "s": {"$sum": q}, "f": {"$first": q}}},
    });
    (before, last).prop_map(|(b, l)| if b.is_empty() { vec![l] } else { vec![b, l] })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn pipelines_reading_some_fields_answer_as_over_whole_documents(
        docs in prop::collection::vec(fields(), 0..12),
        stages in pipeline(),
    ) {
        let mut db = collection_of(&docs);
        let some = reply(&mut db, &stages);
        let mut whole_stages = vec![doc! {"$replaceWith": "$$ROOT"}];
        whole_stages.extend(stages.iter().cloned());
        let whole = reply(&mut db, &whole_stages);
        prop_assert!(some == whole, "{:?}\n some:  {}\n whole: {}", stages, show(&some), show(&whole));
        // documents, not an error both gave (none of these pipelines fails)
        prop_assert!(Document::from_reader(some.as_slice()).is_ok_and(|d| d.contains_key("cursor")), "{:?}: {}", stages, show(&some));
    }
}

/// A field the stages name only as an output is not decoded, and the answer does not change.
#[test]
fn an_output_named_as_a_stored_field() {
    let docs: Vec<Vec<(&'static str, Bson)>> = vec![vec![("a", Bson::Int32(1)), ("b", Bson::String("x".into()))], vec![("a", Bson::Int32(1))]];
    let mut db = collection_of(&docs);
    let stages = vec![doc! {"$bucket": {"groupBy": "$a", "boundaries": [0, 2], "output": {"b": {"$push": "$a"}}}}];
    let some = reply(&mut db, &stages);
    let got = Document::from_reader(some.as_slice()).expect("reply");
    let batch = got.get_document("cursor").and_then(|c| c.get_array("firstBatch")).expect("firstBatch");
    assert_eq!(batch, &vec![Bson::Document(doc! {"_id": 0, "b": [1, 1]})]);
}
