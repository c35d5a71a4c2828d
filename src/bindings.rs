//! The engine's JavaScript face (feature `wasm`): the only file that touches `JsValue`.
//!
//! Commands cross the boundary as BSON bytes in both directions, so the JavaScript side (js-bson)
//! builds and reads values exactly as mongosh does, and no value is converted twice:
//!
//! ```js
//! const engine = new wasm_bindgen.Engine();
//! const reply = BSON.deserialize(engine.command(BSON.serialize({ insert: "c", documents: [{ a: 1 }] })));
//! engine.lastCost();   // { docsExamined, keysExamined, docsReturned, bytesRead, bytesWritten }
//! engine.lastWriteReport();   // [{ collection, id, beforeSize, afterSize, changedPaths, op }]
//! ```
//!
//! Bytes that are not a BSON document get the server's `InvalidBSON` reply, never a panic.
//!
//! Named time zones need the time-zone file (`wasm_bindgen.loadTimeZones(bytes)`, once per
//! module); `wasm_bindgen.timeZonesMissed()` tells whether a command asked for one before it.

use wasm_bindgen::prelude::*;

use crate::db::Database;

/// One in-memory database, driven by server commands in BSON.
#[wasm_bindgen]
pub struct Engine {
    db: Database,
    /// The import in progress (`importBegin` .. `importEnd`), if any.
    import: Option<crate::import::Import>,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

#[wasm_bindgen]
impl Engine {
    /// An empty database whose clock (`$$NOW`, generated ObjectIds) is the browser's `Date.now()`,
    /// run as the one member of a replica set (as an Atlas cluster is: transactions work).
    #[wasm_bindgen(constructor)]
    pub fn new() -> Engine {
        let mut db = Database::new();
        db.set_topology(crate::db::Topology::ReplicaSet);
        db.set_clock(js_now);
        Engine { db, import: None }
    }

    /// Fixes the clock at `millis` since the epoch (reproducible lessons and tests).
    #[wasm_bindgen(js_name = setFixedTime)]
    pub fn set_fixed_time(&mut self, millis: f64) {
        self.db.set_fixed_time(millis as i64);
    }

    /// Seeds the random part of generated ObjectIds and UUIDs (reproducible lessons and tests).
    #[wasm_bindgen(js_name = setSeed)]
    pub fn set_seed(&mut self, seed: f64) {
        self.db.set_seed(seed as u64);
    }

    /// Runs one command (a BSON document) and returns the server's reply as BSON: `{ ..., ok: 1 }`
    /// or `{ ok: 0, errmsg, code, codeName }`.
    pub fn command(&mut self, bytes: &[u8]) -> Vec<u8> {
        reserve_headroom(bytes.len(), 4);
        // A command between an import's slices cancels it (the UI sends none: a stray one must
        // not see half an import, nor write where a later cancel would cut).
        self.cancel_import();
        self.db.run_command_raw(bytes)
    }

    /// Says that commands of `bytes` bytes in all are coming (the batches of one bulk write,
    /// all serialized before the first is sent): the memory they will need is made room for in
    /// one step (see [`reserve_headroom`]) rather than in one step per batch. Every step the
    /// memory grows counts against the JavaScript engine's budget of outside memory, and each
    /// time that budget runs out it collects its whole heap: an `insertMany` of a million
    /// documents paid that five times.
    pub fn reserve(&mut self, bytes: f64) {
        if bytes.is_finite() && bytes > 0.0 {
            reserve_headroom(bytes as usize, 3);
        }
    }

    /// The whole database as bytes (see `Database::snapshot`).
    pub fn snapshot(&self) -> Vec<u8> {
        self.db.snapshot()
    }

    /// Replaces the database by one rebuilt from `snapshot()` bytes. Throws an `Error` whose
    /// message is the engine's when the bytes are not a snapshot; the database is then unchanged.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), JsError> {
        match Database::restore(bytes) {
            Ok(mut db) => {
                db.set_clock(js_now);
                db.set_topology(self.db.topology());
                self.db = db;
                self.import = None;
                Ok(())
            }
            Err(e) => Err(JsError::new(&e.message)),
        }
    }

    /// Imports one file (`mongoexport` JSON, a `mongodump` `.bson`, CSV or TSV) into
    /// `db.collection` with the engine's importer (`crate::import`): `format` is `json`,
    /// `jsonl`, `jsonArray`, `bson`, `csv` or `tsv` (empty: from the file name), `db` and
    /// `collection` may be empty (`test`, the file's name), `options` is JSON text
    /// (`{ stopOnError, batchSize, columnsHaveTypes, parseGrace, ignoreBlanks, metadata }`).
    /// Returns `{ file, db, collection, read, inserted, failed, indexes, errors: [{ file, line,
    /// offset, message }], stopped }`.
    #[wasm_bindgen(js_name = importData)]
    pub fn import_data(&mut self, file: &str, bytes: Vec<u8>, format: &str, db: &str, collection: &str, options: &str) -> JsValue {
        self.cancel_import();
        to_js(&crate::import::import_request(&mut self.db, file, bytes, format, db, collection, options))
    }

    /// [`Engine::import_data`] in slices, so that the worker stays responsive and a Cancel can
    /// come between them: begins importing `bytes` (the engine keeps them) and returns the
    /// progress `{ file, db, collection, read, inserted, failed, bytesDone, bytesTotal, done, stopped }`.
    /// An import still open is cancelled first.
    #[wasm_bindgen(js_name = importBegin)]
    pub fn import_begin(&mut self, file: &str, bytes: Vec<u8>, format: &str, db: &str, collection: &str, options: &str) -> JsValue {
        self.cancel_import();
        let job = crate::import::begin_request(&mut self.db, file, bytes, format, db, collection, options);
        let progress = job.progress();
        self.import = Some(job);
        to_js(&progress)
    }

    /// Reads and inserts the next slice of the open import (at most `maxDocs` documents or about
    /// `maxBytes` bytes of the file); its progress (`done: true` once the file is read). Throws
    /// when no import is open.
    #[wasm_bindgen(js_name = importStep)]
    pub fn import_step(&mut self, max_docs: u32, max_bytes: u32) -> Result<JsValue, JsError> {
        let Some(job) = self.import.as_mut() else { return Err(JsError::new("no import is in progress")) };
        reserve_headroom((max_bytes as usize).min(job.progress().bytes_total as usize), 48);
        Ok(to_js(&job.step(&mut self.db, max_docs as usize, max_bytes as usize)))
    }

    /// Ends the open import: with `keep`, the rest of the file is imported and the import stays
    /// (unless an error stopped it under stopOnError); without, the database is put back as it
    /// was before `importBegin` (Cancel). Returns its report (as [`Engine::import_data`]'s).
    #[wasm_bindgen(js_name = importEnd)]
    pub fn import_end(&mut self, keep: bool) -> Result<JsValue, JsError> {
        let Some(job) = self.import.take() else { return Err(JsError::new("no import is in progress")) };
        Ok(to_js(&job.finish(&mut self.db, keep)))
    }

    fn cancel_import(&mut self) {
        if let Some(job) = self.import.take() {
            job.finish(&mut self.db, false);
        }
    }

    /// `db.collection` as `mongoexport` or `mongodump` write it (`crate::export`): `format` is
    /// `json` (relaxed Extended JSON lines), `canonical` (canonical Extended JSON lines), `bson`
    /// (a `.bson` stream) or `metadata` (its `.metadata.json`).
    #[wasm_bindgen(js_name = exportData)]
    pub fn export_data(&self, db: &str, collection: &str, format: &str) -> Result<Vec<u8>, JsError> {
        crate::export::export_request(&self.db, db, collection, format).map_err(|e| JsError::new(&e))
    }

    /// The cost counters of the last command:
    /// `{ docsExamined, keysExamined, docsReturned, bytesRead, bytesWritten }`.
    #[wasm_bindgen(js_name = lastCost)]
    pub fn last_cost(&self) -> JsValue {
        to_js(&self.db.last_cost())
    }

    /// What the last command wrote, one entry per document, for its first 1 000 documents
    /// (`db::MAX_WRITE_REPORTS`): `[{ collection, id, beforeSize, afterSize, changedPaths, op }]`
    /// (see `db::WriteReport`; `id` in relaxed extended JSON, e.g. `{ $oid: "…" }`).
    #[wasm_bindgen(js_name = lastWriteReport)]
    pub fn last_write_report(&self) -> JsValue {
        to_js(self.db.last_write_report())
    }
}

/// Makes the WebAssembly memory grow in few large steps rather than many small ones. The
/// allocator grows the memory by what each allocation lacks (64 KiB pages), and every
/// `memory.grow` costs the JavaScript engine work that grows with its heap (V8 collects garbage
/// on growth): one insert of 100 000 small documents took 5 000 steps and 32 s, 4 s once the
/// memory was there. So, before a command, a block of the headroom it may need (`factor` times
/// its bytes: 4 for a command, as an insert, whose documents are stored as the bytes they came
/// in, peaks at 2.5x, see `benches/memory.rs`; 48 for an import's slice, whose documents are
/// decoded from text; at least an eighth of the memory, so growth is geometric) is allocated
/// and freed at once: when the
/// allocator has no free block that large, the memory grows once, by that much, and the
/// command's allocations come from it. A failed reservation changes nothing.
fn reserve_headroom(command_bytes: usize, factor: usize) {
    #[cfg(target_arch = "wasm32")]
    let memory = core::arch::wasm32::memory_size(0).saturating_mul(65_536);
    #[cfg(not(target_arch = "wasm32"))]
    let memory = 0usize;
    let want = command_bytes.saturating_mul(factor).max(memory / 8);
    let reserve = || {
        let mut block: Vec<u8> = Vec::new();
        if block.try_reserve_exact(want).is_ok() {
            // Kept from being optimized away: the point is the allocator's memory, not the block.
            std::hint::black_box(&mut block);
        }
    };
    // The step is sized here: the allocator adds no quarter of its own to it.
    #[cfg(target_arch = "wasm32")]
    geometric::reserving(reserve);
    #[cfg(not(target_arch = "wasm32"))]
    reserve();
}

/// The engine's allocator in WebAssembly: the standard one (dlmalloc), which grows the memory by
/// what each allocation lacks, made to grow it geometrically: whenever an allocation grew the
/// memory, a block of a quarter of the memory is allocated and freed at once, so the allocations
/// that follow come from it and the memory grows in O(log n) steps rather than in as many steps
/// as the work needs pages. Each `memory.grow` costs the browser a garbage collection of the
/// page's JavaScript heap: a `$sort` of a million documents that grew the memory page by page
/// spent two minutes in the collector. [`reserve_headroom`] sizes the first step of a command.
#[cfg(target_arch = "wasm32")]
mod geometric {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicBool, Ordering};

    pub struct Geometric;

    /// Set while the reservation runs (its own allocation must not start another).
    static RESERVING: AtomicBool = AtomicBool::new(false);

    fn pages() -> usize {
        core::arch::wasm32::memory_size(0)
    }

    /// Runs `f` (a reservation sized by its caller) without the quarter added when an
    /// allocation grows the memory.
    pub fn reserving(f: impl FnOnce()) {
        if RESERVING.swap(true, Ordering::Relaxed) {
            return f();
        }
        f();
        RESERVING.store(false, Ordering::Relaxed);
    }

    /// Allocates and frees a quarter of the memory (when it can: a failed reservation changes
    /// nothing).
    fn reserve() {
        if RESERVING.swap(true, Ordering::Relaxed) {
            return;
        }
        let want = pages().saturating_mul(65_536) / 4;
        if let Ok(layout) = Layout::from_size_align(want, 8) {
            // SAFETY: a non-zero-sized layout, freed with the same layout right away.
            unsafe {
                let p = System.alloc(layout);
                if !p.is_null() {
                    System.dealloc(p, layout);
                }
            }
        }
        RESERVING.store(false, Ordering::Relaxed);
    }

    // SAFETY: every call is passed on to the standard allocator unchanged; `reserve` only adds
    // an allocation freed at once.
    unsafe impl GlobalAlloc for Geometric {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let before = pages();
            let p = System.alloc(layout);
            if pages() != before {
                reserve();
            }
            p
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            let before = pages();
            let p = System.alloc_zeroed(layout);
            if pages() != before {
                reserve();
            }
            p
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            System.dealloc(ptr, layout)
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let before = pages();
            let p = System.realloc(ptr, layout, new_size);
            if pages() != before {
                reserve();
            }
            p
        }
    }
}

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: geometric::Geometric = geometric::Geometric;

/// `memcmp` and `bcmp` for the WebAssembly build, a word at a time ([`crate::value::bytes`]):
/// WebAssembly has no instruction for them, and the standard library's fallback
/// (compiler-builtins, linked weakly, so these strong definitions replace it) compares one byte
/// per loop turn. Every byte-string comparison goes through them: index keys, the B-tree
/// searches of the leaves, the sorts of key moves and of `$sort` keys, the equality checks of
/// hash maps (an `updateMany` of 100 000 documents through the Node runner: 0.91 s with the
/// fallback, 0.66 s with these).
#[cfg(target_arch = "wasm32")]
mod compare {
    use crate::value::bytes;

    /// SAFETY: as C's `memcmp`: both pointers readable for `n` bytes.
    #[no_mangle]
    pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
        if n == 0 {
            return 0;
        }
        // SAFETY: the caller's promise; `n` > 0, so neither pointer is null.
        let (a, b) = unsafe { (std::slice::from_raw_parts(a, n), std::slice::from_raw_parts(b, n)) };
        bytes::compare(a, b)
    }

    /// SAFETY: as C's `bcmp`: both pointers readable for `n` bytes.
    #[no_mangle]
    pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
        if n == 0 {
            return 0;
        }
        // SAFETY: as in `memcmp`.
        let (a, b) = unsafe { (std::slice::from_raw_parts(a, n), std::slice::from_raw_parts(b, n)) };
        i32::from(!bytes::equal(a, b))
    }
}

fn js_now() -> i64 {
    js_sys::Date::now() as i64
}

fn to_js<T: serde::Serialize + ?Sized>(value: &T) -> JsValue {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    value.serialize(&serializer).unwrap_or(JsValue::NULL)
}

/// Hands the engine the time-zone file (`tz/zones.tzdb`; see `tzdb`): named time zones work once
/// it is loaded. Throws an `Error` when the bytes are not such a file. A second file changes nothing.
#[wasm_bindgen(js_name = loadTimeZones)]
pub fn load_time_zones(bytes: Vec<u8>) -> Result<(), JsError> {
    crate::tzdb::load_time_zones(bytes).map_err(|e| JsError::new(&e))
}

/// Whether a named time zone was asked for, since the last call, before the time-zone file was
/// loaded (clears the flag). The worker asks after each request: such a request's answer is
/// not the server's (its zone was neither found nor unknown), so it is not given; the page loads
/// the file, restores the database and sends the request again.
#[wasm_bindgen(js_name = timeZonesMissed)]
pub fn time_zones_missed() -> bool {
    crate::tzdb::take_missed()
}

/// Parses a lesson file (`lessons/<id>/lesson.md`) with the site's one parser (`crate::lesson`):
/// the lesson as JSON text, or a thrown `Error` whose message is `file:line: what is wrong`.
#[wasm_bindgen(js_name = parseLesson)]
pub fn parse_lesson(file: &str, text: &str) -> Result<String, JsError> {
    let lesson = crate::lesson::parse(file, text).map_err(|e| JsError::new(&e.to_string()))?;
    serde_json::to_string(&lesson).map_err(|e| JsError::new(&e.to_string()))
}
