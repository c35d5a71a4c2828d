#!/usr/bin/env bash
# Installs whatever toolchain piece is missing and skips what is present: the wasm32 target,
# trunk, wasm-bindgen-cli matching Cargo.lock, Debian's Chromium, the npm packages (wasm-opt from
# npm binaryen, esbuild, js-bson, playwright-core, ...). Called by `make serve`, `make test` and
# .ci/run; takes a second when everything is there, ~16 minutes on a fresh machine.
# Only crates.io, npm, PyPI and Debian apt are used: nothing downloads a prebuilt binary or a browser.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO_ROOT="$(pwd)"

TRUNK_VERSION="0.21.14"          # 0.22 needs a newer rustc than 1.95
# Used only when Cargo.lock does not exist yet; otherwise Cargo.lock decides.
WASM_BINDGEN_FALLBACK_VERSION="0.2.130"
WASM_OPT_MAJOR="132"             # npm `binaryen` (Debian's binaryen 108 corrupts the externref table)
CHROMIUM="/usr/bin/chromium"

export DEBIAN_FRONTEND=noninteractive
export TRUNK_SKIP_VERSION_CHECK=true
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
export PATH="$REPO_ROOT/node_modules/.bin:$CARGO_HOME/bin:$PATH"

PHASE_NAME=""
PHASE_START=$SECONDS
phase() {   # phase NAME : ends the previous phase (printing its time), starts NAME
    if [[ -n "$PHASE_NAME" && $((SECONDS - PHASE_START)) -gt 1 ]]; then
        echo "[setup] '$PHASE_NAME' took $((SECONDS - PHASE_START))s"
    fi
    PHASE_NAME="$1"
    PHASE_START=$SECONDS
    return 0
}
say() { [[ "${SETUP_QUIET:-}" == 1 && "$*" != *INSTALLING* && "$*" != *ERROR* && "$*" != *expected* ]] || echo "[setup] $*"; }

# ---- wasm32 target -------------------------------------------------------------
phase "rust wasm32 target"
command -v rustup >/dev/null || { say "rustup not found on PATH ($PATH)"; exit 1; }
if rustup target list --installed | grep -qx 'wasm32-unknown-unknown'; then
    say "wasm32-unknown-unknown: present"
else
    say "INSTALLING rust target wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
fi

# ---- trunk ---------------------------------------------------------------------
phase "trunk"
have_trunk="$(trunk --version 2>/dev/null | awk '{print $2}' || true)"
if [[ "$have_trunk" == "$TRUNK_VERSION" ]]; then
    say "trunk $TRUNK_VERSION: present"
else
    say "INSTALLING trunk $TRUNK_VERSION (found: '${have_trunk:-none}'; takes ~8 min on 2 cores)"
    CARGO_TARGET_DIR=/tmp/ci-cargo-install-trunk \
        cargo install trunk --version "$TRUNK_VERSION" --locked --force
    rm -rf /tmp/ci-cargo-install-trunk
fi

# ---- wasm-bindgen-cli ------------------------------------------------------------
phase "wasm-bindgen-cli"
WASM_BINDGEN_VERSION=""
if [[ -f Cargo.lock ]]; then
    WASM_BINDGEN_VERSION="$(awk '
        $0 == "name = \"wasm-bindgen\"" { found = 1; next }
        found && /^version = / { gsub(/"/, "", $3); print $3; exit }
        /^\[\[package\]\]/ { found = 0 }' Cargo.lock)"
fi
TRUNK_TOML_WB=""
if [[ -f Trunk.toml ]]; then
    TRUNK_TOML_WB="$(sed -n 's/^[[:space:]]*wasm_bindgen[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' Trunk.toml | head -n1)"
fi
if [[ -z "$WASM_BINDGEN_VERSION" ]]; then
    WASM_BINDGEN_VERSION="${TRUNK_TOML_WB:-$WASM_BINDGEN_FALLBACK_VERSION}"
    say "wasm-bindgen not in Cargo.lock (or no Cargo.lock): using pinned $WASM_BINDGEN_VERSION"
else
    say "Cargo.lock pins wasm-bindgen $WASM_BINDGEN_VERSION"
    # trunk prefers Trunk.toml's [tools] wasm_bindgen over Cargo.lock, and would try (and fail)
    # to download a CLI that differs from what is installed: keep the two in step.
    if [[ -n "$TRUNK_TOML_WB" && "$TRUNK_TOML_WB" != "$WASM_BINDGEN_VERSION" ]]; then
        say "ERROR: Trunk.toml [tools] wasm_bindgen = \"$TRUNK_TOML_WB\" but Cargo.lock has wasm-bindgen $WASM_BINDGEN_VERSION; update Trunk.toml"
        exit 1
    fi
fi
have_wb="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
if [[ "$have_wb" == "$WASM_BINDGEN_VERSION" ]]; then
    say "wasm-bindgen-cli $WASM_BINDGEN_VERSION: present"
else
    say "INSTALLING wasm-bindgen-cli $WASM_BINDGEN_VERSION (found: '${have_wb:-none}')"
    # No --locked: the registry snapshot lacks one of its locked dependencies.
    CARGO_TARGET_DIR=/tmp/ci-cargo-install-wasm-bindgen \
        cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
    rm -rf /tmp/ci-cargo-install-wasm-bindgen
fi
export WASM_BINDGEN_VERSION

# ---- chromium --------------------------------------------------------------------
phase "chromium"
if [[ -x "$CHROMIUM" && -x /usr/bin/chromedriver ]]; then
    say "chromium: present"
else
    say "INSTALLING chromium + chromium-driver via apt"
    apt-get update
    apt-get install -y chromium chromium-driver fonts-dejavu-core
fi

# ---- npm packages ------------------------------------------------------------------
phase "npm"
if [[ ! -d node_modules || ! -f node_modules/.package-lock.json \
      || package-lock.json -nt node_modules/.package-lock.json \
      || package.json -nt node_modules/.package-lock.json ]]; then
    say "INSTALLING npm packages (npm ci)"
    npm ci --no-audit --no-fund
else
    say "node_modules: up to date"
fi
wasm_opt_version="$(wasm-opt --version)"
say "wasm-opt: $(command -v wasm-opt): $wasm_opt_version"
if [[ "$wasm_opt_version" != *"version $WASM_OPT_MAJOR"* ]]; then
    say "expected wasm-opt version $WASM_OPT_MAJOR from node_modules/.bin"
    exit 1
fi

say "tools: $(trunk --version), $(wasm-bindgen --version), node $(node --version)"

phase ""
