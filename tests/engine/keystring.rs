//! Index keys as byte strings (`db::keystring`): for random values of every BSON type and random
//! key patterns (compound, ascending and descending fields), one byte-wise comparison of two
//! encoded keys gives the order `value::compare` gives their values field by field, and a key
//! decodes to values equal to the ones encoded.

use std::cmp::Ordering;

use bson::{oid::ObjectId, spec::BinarySubtype, Binary, Bson, DateTime, Decimal128, Document, JavaScriptCodeWithScope, Regex, Timestamp};
use pattern_playground::db::keystring;
use pattern_playground::value;
use proptest::prelude::*;

fn decimal() -> impl Strategy<Value = Bson> {
    prop_oneof![
        (any::<bool>(), 0u64..1_000_000, -8i32..8).prop_map(|(neg, c, e)| format!("{}{c}E{e}", if neg { "-" } else { "" })),
        (any::<bool>(), "[1-9][0-9]{15,33}", -40i32..40).prop_map(|(neg, c, e)| format!("{}{c}E{e}", if neg { "-" } else { "" })),
        (any::<bool>(), 1u32..10, prop::sample::select(vec![-6176i32, -400, 300, 6111])).prop_map(|(neg, c, e)| format!("{}{c}E{e}", if neg { "-" } else { "" })),
        (any::<f64>(), -1i32..2).prop_map(|(f, delta)| near(f, delta)),
        // Between two longs, where doubles are sparser than longs.
        (any::<i64>(), prop::sample::select(vec!["5", "25", "000000001", "999999999999999"])).prop_map(|(i, frac)| format!("{i}.{frac}")),
        prop::sample::select(vec!["NaN", "Infinity", "-Infinity", "-0", "0E+5", "0.1000000000000000055511151231257827", "9007199254740993", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "9007199254740992.5", "1E-400", "1.7976931348623157E+308", "1.797693134862315708145274237317044E+308", "1.797693134862315708145274237317045E+308", "4.940656458412465441765687928682213E-324", "2E-324", "1E+400"])
            .prop_map(String::from),
    ]
    .prop_map(|s| Bson::Decimal128(s.parse::<Decimal128>().unwrap_or_else(|_| "0".parse().unwrap())))
}

/// A decimal next to double `f`: its 34-digit rounding (equal to it for the engine) and, with
/// `delta` of -1 or 1, the decimal one unit of the last digit away.
fn near(f: f64, delta: i32) -> String {
    if !f.is_finite() {
        return "0".into();
    }
    let text = format!("{f:.33e}");
    let (digits, exp) = text.split_once('e').unwrap_or((&text, "0"));
    let neg = digits.starts_with('-');
    let digits: String = digits.chars().filter(|c| c.is_ascii_digit()).collect();
    let c: u128 = digits.parse::<u128>().unwrap_or(0).saturating_add_signed(delta as i128);
    format!("{}{c}E{}", if neg { "-" } else { "" }, exp.parse::<i32>().unwrap_or(0) - 33)
}

fn number() -> impl Strategy<Value = Bson> {
    let edges: Vec<f64> = vec![0.0, -0.0, 0.1, 0.5, -1.5, 1.0, 9_007_199_254_740_992.0, 9_007_199_254_740_994.0, 9.223_372_036_854_775_808e18, -9.223_372_036_854_775_808e18, 1e300, 5e-324, f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
    prop_oneof![
        (-3i32..4).prop_map(Bson::Int32),
        any::<i32>().prop_map(Bson::Int32),
        any::<i64>().prop_map(Bson::Int64),
        prop::sample::select(vec![i64::MIN, i64::MAX, 9_007_199_254_740_993, -9_007_199_254_740_993, 1 << 62]).prop_map(Bson::Int64),
        (-3i64..4).prop_map(|i| Bson::Double(i as f64 / 2.0)),
        any::<f64>().prop_map(Bson::Double),
        prop::sample::select(edges).prop_map(Bson::Double),
        decimal(),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec!["", "a", "a\u{0}", "a\u{0}b", "a\u{1}", "\u{1}\u{0}", "ab", "b", "é", "\u{10FFFF}"]).prop_map(String::from),
        "[\u{0}\u{1}\u{2}aé]{0,3}",
    ]
}

fn other() -> impl Strategy<Value = Bson> {
    prop_oneof![
        any::<bool>().prop_map(Bson::Boolean),
        (0u8..3).prop_map(|b| Bson::ObjectId(ObjectId::from_bytes([b; 12]))),
        (prop::sample::select(vec![0u8, 4, 0x80]), prop::collection::vec(0u8..3, 0..3))
            .prop_map(|(s, bytes)| Bson::Binary(Binary { subtype: BinarySubtype::from(s), bytes })),
        prop::sample::select(vec![i64::MIN, -1, 0, 1, i64::MAX]).prop_map(|t| Bson::DateTime(DateTime::from_millis(t))),
        (0u32..3, 0u32..3).prop_map(|(time, increment)| Bson::Timestamp(Timestamp { time, increment })),
        (prop::sample::select(vec!["", "a", "a\u{1}", "ab"]), prop::sample::select(vec!["", "i", "im"]))
            .prop_map(|(p, o)| Bson::RegularExpression(Regex { pattern: p.to_string().try_into().unwrap(), options: o.to_string().try_into().unwrap() })),
        text().prop_map(Bson::JavaScriptCode),
        (text(), 0i32..2).prop_map(|(code, x)| {
            let mut scope = Document::new();
            scope.insert("x", x);
            Bson::JavaScriptCodeWithScope(JavaScriptCodeWithScope { code, scope })
        }),
        prop::sample::select(vec!["a", "b"]).prop_map(|ns| {
            let json = serde_json::json!({"$dbPointer": {"$ref": ns, "$id": {"$oid": "000000000000000000000001"}}});
            Bson::try_from(json).unwrap_or(Bson::Null)
        }),
    ]
}

fn scalar() -> impl Strategy<Value = Bson> {
    prop_oneof![
        4 => number(),
        2 => text().prop_map(Bson::String),
        1 => text().prop_map(Bson::Symbol),
        1 => prop::sample::select(vec![Bson::Null, Bson::Undefined, Bson::MinKey, Bson::MaxKey]),
        4 => other(),
    ]
}

fn value() -> impl Strategy<Value = Bson> {
    scalar().prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Bson::Array),
            prop::collection::vec((prop::sample::select(vec!["", "a", "a\u{1}", "ab", "b"]), inner), 0..3).prop_map(|kv| {
                let mut d = Document::new();
                for (k, v) in kv {
                    d.insert(k, v);
                }
                Bson::Document(d)
            }),
        ]
    })
}

/// The order of two keys as the index orders them: field by field, descending fields reversed.
fn key_order(a: &[Bson], b: &[Bson], descending: &[bool]) -> Ordering {
    for ((x, y), desc) in a.iter().zip(b).zip(descending) {
        let o = value::compare(x, y);
        let o = if *desc { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, max_shrink_iters: 500, ..ProptestConfig::default() })]

    #[test]
    fn byte_order_is_value_order(a in value(), b in value(), desc in any::<bool>()) {
        let (ea, eb) = (keystring::encode_key([&a], &[desc]), keystring::encode_key([&b], &[desc]));
        let expected = if desc { value::compare(&a, &b).reverse() } else { value::compare(&a, &b) };
        prop_assert_eq!(ea.cmp(&eb), expected, "{:?} vs {:?}", a, b);
    }

    #[test]
    fn compound_keys_order_field_by_field(
        pattern in prop::collection::vec(any::<bool>(), 1..4),
        a in prop::collection::vec(value(), 3),
        b in prop::collection::vec(value(), 3),
        shared in 0usize..3,
    ) {
        let n = pattern.len();
        // Keys that agree on a prefix, so later fields (and their directions) decide.
        let mut b = b;
        for i in 0..shared.min(n) {
            b[i] = a[i].clone();
        }
        let (a, b) = (&a[..n], &b[..n]);
        let (ea, eb) = (keystring::encode_key(a, &pattern), keystring::encode_key(b, &pattern));
        prop_assert_eq!(ea.cmp(&eb), key_order(a, b, &pattern), "{:?} vs {:?} on {:?}", a, b, pattern);
        // The key splits into its fields and decodes to equal values.
        let parts = keystring::components(&ea, &pattern).expect("splits");
        prop_assert_eq!(parts.concat(), ea.clone());
        let back = keystring::decode_key(&ea, &pattern).expect("decodes");
        prop_assert_eq!(key_order(&back, a, &pattern), Ordering::Equal, "{:?} decoded as {:?}", a, back);
        prop_assert_eq!(keystring::encode_key(&back, &pattern), ea);
    }

    #[test]
    fn a_value_read_in_place_encodes_as_decoded(a in value(), desc in any::<bool>()) {
        // (`append_raw_dir` takes the kinds it can encode from the bytes; the others are decoded)
        let bytes = bson::doc! {"k": a.clone()}.to_vec().expect("encodes");
        let raw = bson::RawDocument::from_bytes(&bytes).expect("reads");
        let v = raw.get("k").expect("reads").expect("present");
        let mut out = vec![7];
        if keystring::append_raw_dir(v, desc, &mut out) {
            let decoded = pattern_playground::value::raw::decode_value(v).expect("decodes");
            let mut expected = vec![7];
            keystring::append_dir(&decoded, desc, &mut expected);
            prop_assert_eq!(out, expected, "{:?}", a);
        } else {
            prop_assert_eq!(out, vec![7]);
            prop_assert!(!matches!(a, Bson::String(_) | Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_)), "{:?} was not encoded in place", a);
        }
    }

    #[test]
    fn strings_order_by_bytes(a in text(), b in text(), desc in any::<bool>()) {
        let (x, y) = (Bson::String(a), Bson::String(b));
        let (ex, ey) = (keystring::encode_key([&x, &Bson::Int32(1)], &[desc, false]), keystring::encode_key([&y, &Bson::Int32(0)], &[desc, false]));
        let o = value::compare(&x, &y);
        let expected = if o == Ordering::Equal { Ordering::Greater } else if desc { o.reverse() } else { o };
        prop_assert_eq!(ex.cmp(&ey), expected, "{:?} vs {:?}", x, y);
    }

    #[test]
    fn decimals_next_to_doubles_and_longs(f in any::<f64>(), delta in -1i32..2, i in any::<i64>(), frac in prop::sample::select(vec!["5", "000000001", "999999999999999"])) {
        let check = |a: Bson, b: Bson| (keystring::encode(&a).cmp(&keystring::encode(&b)), value::compare(&a, &b));
        let d = Bson::Decimal128(near(f, delta).parse().unwrap());
        let (got, want) = check(d.clone(), Bson::Double(f));
        prop_assert_eq!(got, want, "{:?} vs {}", d, f);
        let between = Bson::Decimal128(format!("{i}.{frac}").parse().unwrap());
        for long in [i.saturating_sub(1), i, i.saturating_add(1)] {
            let (got, want) = check(between.clone(), Bson::Int64(long));
            prop_assert_eq!(got, want, "{:?} vs {}", between, long);
            let (got, want) = check(between.clone(), Bson::Double(long as f64));
            prop_assert_eq!(got, want, "{:?} vs {}", between, long as f64);
        }
    }

    #[test]
    fn numbers_order_by_value_across_types(a in number(), b in number()) {
        prop_assert_eq!(keystring::encode(&a).cmp(&keystring::encode(&b)), value::compare(&a, &b), "{:?} vs {:?}", a, b);
    }
}
