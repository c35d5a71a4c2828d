//! An update command given as bytes (`Database::run_command_raw`, what the WebAssembly bindings
//! send) keeps its statements as bytes and decodes each when it is read (`update::split_raw`),
//! so that a batch of 100 000 upserts is never decoded at once. It must answer, write and report
//! exactly as the decoded command does (`run_command`), for statements of every shape, malformed
//! ones included: a malformed statement anywhere fails the whole command before any statement
//! runs, as on the server.

use bson::{doc, Bson, Document};
use pattern_playground::db::Database;
use proptest::prelude::*;

fn filter() -> impl Strategy<Value = Option<Bson>> {
    prop_oneof![
        Just(Some(Bson::Document(doc! {}))),
        (0i32..6).prop_map(|k| Some(Bson::Document(doc! {"_id": k}))),
        (0i32..3).prop_map(|k| Some(Bson::Document(doc! {"a": {"$gt": k}}))),
        (0i32..3).prop_map(|k| Some(Bson::Document(doc! {"b": k}))),
        Just(Some(Bson::Int32(5))),
        Just(None),
    ]
}

fn update() -> impl Strategy<Value = Option<Bson>> {
    prop_oneof![
        (0i32..4).prop_map(|k| Some(Bson::Document(doc! {"$set": {"a": k}}))),
        Just(Some(Bson::Document(doc! {"$inc": {"n": 1}, "$push": {"l": 1}}))),
        (0i32..3).prop_map(|k| Some(Bson::Document(doc! {"b": k}))),
        Just(Some(Bson::Array(vec![Bson::Document(doc! {"$set": {"p": {"$add": ["$n", 1]}}})]))),
        Just(Some(Bson::Document(doc! {"$set": {"l.$[e]": 9}}))),
        Just(Some(Bson::String("x".into()))),
        Just(Some(Bson::Document(doc! {"$bad": {"a": 1}}))),
        Just(None),
    ]
}

fn statement() -> impl Strategy<Value = Bson> {
    (filter(), update(), prop::sample::select(vec![None, Some(Bson::Boolean(true)), Some(Bson::Boolean(false)), Some(Bson::String("yes".into()))]), any::<Option<bool>>(), 0u8..7).prop_map(
        |(q, u, upsert, multi, extra)| {
            let mut s = Document::new();
            if let Some(q) = q {
                s.insert("q", q);
            }
            if let Some(u) = u {
                s.insert("u", u);
            }
            if let Some(up) = upsert {
                s.insert("upsert", up);
            }
            if let Some(m) = multi {
                s.insert("multi", m);
            }
            match extra {
                1 => {
                    s.insert("arrayFilters", vec![Bson::Document(doc! {"e": {"$gte": 0}})]);
                }
                2 => {
                    s.insert("hint", doc! {"_id": 1});
                }
                3 => {
                    s.insert("notAField", 1);
                }
                4 => {
                    s.insert("arrayFilters", vec![Bson::Int32(1)]);
                }
                5 => {
                    s.insert("sort", 1);
                }
                _ => {}
            }
            Bson::Document(s)
        },
    )
}

fn command() -> impl Strategy<Value = Document> {
    (prop::collection::vec(prop_oneof![9 => statement(), 1 => Just(Bson::Int32(3))], 0..6), any::<Option<bool>>(), any::<bool>()).prop_map(|(updates, ordered, with_let)| {
        let mut cmd = doc! {"update": "c", "updates": updates};
        if let Some(o) = ordered {
            cmd.insert("ordered", o);
        }
        if with_let {
            cmd.insert("let", doc! {"x": 1});
        }
        cmd
    })
}

fn fresh() -> Database {
    let mut db = Database::new();
    db.set_fixed_time(1_700_000_000_000);
    db.set_seed(5);
    db.run_command(&doc! {"insert": "c", "documents": [{"_id": 0, "a": 1, "b": 0, "l": [1, 2]}, {"_id": 1, "a": 2, "n": 1}, {"_id": 2, "a": 3, "b": 2}]});
    db.run_command(&doc! {"createIndexes": "c", "indexes": [{"key": {"b": 1}, "name": "b_1", "unique": true, "sparse": true}]});
    db
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn raw_updates_answer_and_write_as_decoded_ones(cmds in prop::collection::vec(command(), 1..5)) {
        let mut raw = fresh();
        let mut dec = fresh();
        for cmd in cmds {
            let bytes = cmd.to_vec().expect("encodes");
            let a = Document::from_reader(raw.run_command_raw(&bytes).as_slice()).expect("reply decodes");
            let b = dec.run_command(&cmd);
            prop_assert_eq!(a.to_vec().expect("encodes"), b.to_vec().expect("encodes"), "replies differ for {}: {} / {}", cmd, a, b);
            prop_assert_eq!(raw.snapshot(), dec.snapshot(), "stored data differs after {}", cmd);
            prop_assert_eq!(format!("{:?}", raw.last_write_report()), format!("{:?}", dec.last_write_report()));
        }
    }
}

#[test]
fn a_malformed_statement_anywhere_fails_the_batch_before_any_runs() {
    let mut db = fresh();
    let cmd = doc! {"update": "c", "updates": [{"q": {"_id": 0}, "u": {"$set": {"a": 10}}}, {"q": 1, "u": {}}]};
    let reply = Document::from_reader(db.run_command_raw(&cmd.to_vec().unwrap()).as_slice()).unwrap();
    assert_eq!(reply.get("ok"), Some(&Bson::Double(0.0)), "{reply}");
    assert_eq!(reply.get("codeName"), Some(&Bson::String("TypeMismatch".into())), "{reply}");
    let found = db.run_command(&doc! {"find": "c", "filter": {"_id": 0}});
    let first = found.get_document("cursor").and_then(|c| c.get_array("firstBatch")).map(|b| b[0].clone());
    assert_eq!(first.ok().and_then(|d| d.as_document().and_then(|d| d.get("a").cloned())), Some(Bson::Int32(1)), "the first statement did not run");
}

#[test]
fn upserts_in_one_batch_are_each_written_and_reported() {
    let mut db = fresh();
    let updates: Vec<Bson> = (10..1010).map(|i| Bson::Document(doc! {"q": {"_id": i}, "u": {"$set": {"w": 1}}, "upsert": true})).collect();
    let cmd = doc! {"update": "c", "updates": updates};
    let reply = Document::from_reader(db.run_command_raw(&cmd.to_vec().unwrap()).as_slice()).unwrap();
    assert_eq!(reply.get("n"), Some(&Bson::Int32(1000)), "{reply}");
    let upserted = reply.get_array("upserted").unwrap();
    assert_eq!(upserted.len(), 1000);
    assert_eq!(upserted[999], Bson::Document(doc! {"index": 999, "_id": 1009}));
    let count = db.run_command(&doc! {"count": "c", "query": {"w": 1}});
    assert_eq!(count.get("n"), Some(&Bson::Int32(1000)), "{count}");
}

/// The command's nesting limit around its edge, on bytes as on the decoded command: a
/// statement nested deep in its update or in its filter (the `updates` array is walked once for
/// both whether it reads and how deep it goes).
#[test]
fn nesting_limit_as_on_the_decoded_command() {
    let nested = |levels: usize| (0..levels).fold(Bson::Int32(1), |inner, i| if i % 2 == 0 { Bson::Document(doc! {"x": inner}) } else { Bson::Array(vec![inner]) });
    let mut answers = Vec::new();
    for levels in 190..=202 {
        for stmt in [doc! {"q": {"_id": 1}, "u": {"$set": {"a": nested(levels)}}, "upsert": true}, doc! {"q": {"a": nested(levels)}, "u": {"$set": {"b": 1}}}] {
            let cmd = doc! {"update": "c", "updates": [stmt]};
            let bytes = cmd.to_vec().unwrap();
            let (mut raw, mut dec) = (fresh(), fresh());
            let a = Document::from_reader(raw.run_command_raw(&bytes).as_slice()).unwrap();
            let b = dec.run_command(&cmd);
            assert_eq!(a, b, "{levels} levels");
            assert_eq!(raw.snapshot(), dec.snapshot(), "{levels} levels");
            answers.push(a.get_f64("ok").unwrap_or(0.0));
        }
    }
    // Both sides of the limit are reached.
    assert!(answers.contains(&1.0) && answers.contains(&0.0), "{answers:?}");
}
