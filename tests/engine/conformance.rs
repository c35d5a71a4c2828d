//! Conformance runner (to be written).

/// `../shared/conformance` next to the repository (a worktree under `wt/` looks one level up).
pub fn dir() -> std::path::PathBuf {
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [base.join("../shared/conformance"), base.join("../../shared/conformance")];
    candidates.iter().find(|p| p.is_dir()).cloned().unwrap_or_else(|| candidates[0].clone())
}
