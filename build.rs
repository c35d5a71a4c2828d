//! Embeds the lessons into the UI build (feature `app` only): writes `$OUT_DIR/lessons.rs`, a
//! table of `(id, include_str!(lesson.md))` for every `lessons/<id>/lesson.md`, sorted by id.
//! Engine builds (no `app` feature) do nothing here.

use std::{env, fs, path::PathBuf};

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if env::var_os("CARGO_FEATURE_APP").is_none() {
        return;
    }
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let dir = root.join("lessons");
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut lessons: Vec<(String, PathBuf)> = fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path().join("lesson.md")))
                .filter(|(_, p)| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    lessons.sort();
    let mut out = String::from("/// Every lesson: (folder name, lesson.md text).\npub const LESSONS: &[(&str, &str)] = &[\n");
    for (id, path) in &lessons {
        println!("cargo::rerun-if-changed={}", path.display());
        out.push_str(&format!("    ({id:?}, include_str!({:?})),\n", path.display().to_string()));
    }
    out.push_str("];\n");
    let dest = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("lessons.rs");
    fs::write(dest, out).expect("write lessons.rs");
}
