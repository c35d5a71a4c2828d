//! The bson-corpus valid cases (../shared/conformance/bson_sizes.jsonl): each canonical Extended
//! JSON parses, encodes to exactly `bsonSize` bytes, the canonical BSON round-trips, and
//! `value::bson_size` computes the same size without encoding; a collection's record of it holds
//! the canonical bytes and decodes back to them.

use bson::{Bson, Document};
use pattern_playground::value;

fn corpus_path() -> std::path::PathBuf {
    crate::conformance::dir().join("bson_sizes.jsonl")
}

fn hex_decode(s: &str) -> Option<Vec<u8>> {
    (0..s.len()).step_by(2).map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect()
}

/// Checks one case; `Err` says why it failed.
fn check_case(case: &serde_json::Value) -> Result<(), String> {
    let ext = case["canonical_extjson"].as_str().ok_or("no canonical_extjson")?;
    let expected = case["bsonSize"].as_u64().ok_or("no bsonSize")? as usize;
    let json: serde_json::Value = serde_json::from_str(ext).map_err(|e| format!("JSON: {e}"))?;
    let doc = match Bson::try_from(json).map_err(|e| format!("extjson: {e}"))? {
        Bson::Document(d) => d,
        other => return Err(format!("not a document: {other:?}")),
    };
    let bytes = doc.to_vec().map_err(|e| format!("encode: {e}"))?;
    if bytes.len() != expected {
        return Err(format!("encoded {} bytes, expected {expected}", bytes.len()));
    }
    let computed = value::bson_size(&doc);
    if computed != expected {
        return Err(format!("value::bson_size = {computed}, expected {expected}"));
    }
    // The canonical bytes decode and re-encode unchanged. (Extended JSON cannot carry every
    // bit of a NaN payload, so the bytes encoded from JSON may differ there; the size may not.)
    let canonical = case["canonical_bson"].as_str().and_then(hex_decode).ok_or("bad canonical_bson")?;
    let decoded = Document::from_reader(canonical.as_slice()).map_err(|e| format!("decode: {e}"))?;
    if decoded.to_vec().map_err(|e| format!("re-encode: {e}"))? != canonical {
        return Err("canonical bytes do not round-trip".into());
    }
    // A collection stores exactly these bytes (its own encoder) and decodes them back (its own
    // decoder) to the same document.
    let rec = pattern_playground::db::Record::encode(&decoded).map_err(|e| format!("store: {e:?}"))?;
    if rec.bytes() != canonical.as_slice() {
        return Err("stored bytes differ from the canonical bytes".into());
    }
    let back = rec.doc().map_err(|e| format!("stored decode: {e:?}"))?;
    if back.to_vec().map_err(|e| format!("re-encode stored: {e}"))? != canonical {
        return Err("the stored document does not decode to the canonical bytes".into());
    }
    Ok(())
}

#[test]
fn bson_corpus_sizes() {
    let text = std::fs::read_to_string(corpus_path()).expect("bson_sizes.jsonl is readable");
    let mut passed = 0;
    let mut failures = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
        let name = format!("{}: {}", case["file"].as_str().unwrap_or("?"), case["description"].as_str().unwrap_or("?"));
        match check_case(&case) {
            Ok(()) => passed += 1,
            Err(why) => failures.push(format!("{name}: {why}")),
        }
    }
    eprintln!("bson corpus: {passed} passed, {} failed", failures.len());
    for f in &failures {
        eprintln!("  FAIL {f}");
    }
    assert_eq!(passed, 728, "every valid bson-corpus case passes");
    assert!(failures.is_empty());
}
