//! The written invariants (ARCHITECTURE.md), checked on the source: only `src/bindings.rs` names
//! `JsValue`; the engine's native dependency tree has no web crate; no `unwrap`/`expect` outside
//! tests in the engine's source except the few listed below (each on a value the code itself
//! made, never on user input).

use std::path::{Path, PathBuf};

/// The engine's source files: `src/` without the UI (`src/app/`, `src/main.rs`).
fn engine_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                if !p.ends_with("app") {
                    walk(&p, out);
                }
            } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("main.rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut out);
    out.sort();
    out
}

fn relative(p: &Path) -> String {
    p.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(p).to_string_lossy().replace('\\', "/")
}

#[test]
fn only_the_bindings_name_jsvalue() {
    let files = engine_files();
    assert!(files.len() > 50, "the engine's source was not found");
    let naming: Vec<String> = files
        .iter()
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|s| s.contains("JsValue")))
        .map(|p| relative(p))
        .collect();
    assert_eq!(naming, vec!["src/bindings.rs"]);
}

/// `unwrap`/`expect` allowed outside tests: (file, count, why).
const ALLOWED_UNWRAPS: &[(&str, usize, &str)] = &[
    ("src/value/compare.rs", 1, "hash key of a value just matched as a number"),
    ("src/value/number.rs", 1, "the literal \"NaN\" parses as a Decimal128"),
];

#[test]
fn no_unwrap_outside_tests_but_the_listed_ones() {
    let mut found = Vec::new();
    for p in engine_files() {
        let Ok(text) = std::fs::read_to_string(&p) else { continue };
        // A file's tests come last, after `#[cfg(test)]`; comments (doc examples) do not count.
        let code: usize = text
            .lines()
            .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
            .filter(|l| !l.trim_start().starts_with("//"))
            .map(|l| l.matches(".unwrap()").count() + l.matches(".expect(").count())
            .sum();
        if code > 0 {
            found.push((relative(&p), code));
        }
    }
    let allowed: Vec<(String, usize)> = ALLOWED_UNWRAPS.iter().map(|(f, n, _)| (f.to_string(), *n)).collect();
    assert_eq!(found, allowed, "unwrap/expect outside tests: handle the error, or list the call in ALLOWED_UNWRAPS with why it cannot fail");
}

#[test]
fn no_web_crate_in_the_native_dependency_tree() {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["tree", "--offline", "-e", "normal,build", "--prefix", "none", "--format", "{p}"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    let Ok(out) = out else { panic!("cargo tree did not run") };
    assert!(out.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&out.stderr));
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(tree.contains("bson v"), "unexpected cargo tree output: {tree}");
    let web = ["wasm-bindgen", "js-sys", "web-sys", "leptos", "gloo", "serde-wasm-bindgen", "wasm-bindgen-futures"];
    let found: Vec<&str> = tree.lines().filter(|l| web.iter().any(|w| l.split(' ').next() == Some(*w))).collect();
    assert!(found.is_empty(), "web crates in the engine's native dependencies: {found:?}");
}
