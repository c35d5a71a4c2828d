#!/usr/bin/env bash
# Installs whatever toolchain piece is missing and skips what is present: the wasm32 target,
# trunk, wasm-bindgen-cli matching Cargo.lock, the npm packages (wasm-opt from npm binaryen,
# esbuild, js-bson, playwright-core, puppeteer-core, ...) and, for the tests, Debian's browsers
# (Chromium, Firefox ESR, WebKitGTK's WebDriver with Xvfb). Quick (about a second) when everything
# is there. Called by `make serve`/`make dist` (with --site: no browsers, they are for the tests
# only), by `make test` and by .ci/run.
#
# On a fresh machine the slow steps overlap (figures measured on 2 cores, README.md):
#   foreground   cargo install trunk, then wasm-bindgen-cli, in one shared target dir, with
#                link-time optimisation off and opt-level 1 (trunk's own profile asks for fat LTO
#                and one codegen unit)
#   background   apt (browsers), npm ci, and the site's first wasm compile (the same cargo commands
#                `make dist` runs later, so they find it done): each logs to build/setup/<step>.log
# Each step says what it does and about how long it takes; a summary lists what each took.
# Only crates.io, npm, PyPI and Debian apt are used: nothing downloads a prebuilt binary or a browser.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO_ROOT="$(pwd)"

MODE=all
[[ "${1:-}" == "--site" ]] && MODE=site

TRUNK_VERSION="0.21.14"          # 0.22 needs a newer rustc than 1.95
# Used only when Cargo.lock does not exist yet; otherwise Cargo.lock decides.
WASM_BINDGEN_FALLBACK_VERSION="0.2.130"
WASM_OPT_MAJOR="132"             # npm `binaryen` (Debian's binaryen 108 corrupts the externref table)
# Debian's browsers for the browser tests (tests/browser/driver.mjs): Chromium (playwright-core),
# Firefox ESR (puppeteer-core, WebDriver BiDi), WebKitGTK's MiniBrowser + WebKitWebDriver on Xvfb.
CHROMIUM="/usr/bin/chromium"
FIREFOX="/usr/bin/firefox-esr"
WEBKIT_DRIVER="/usr/bin/WebKitWebDriver"
MINIBROWSER="/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
XVFB="/usr/bin/Xvfb"
APT_PACKAGES=(chromium firefox-esr webkit2gtk-driver xvfb fonts-dejavu-core)

export DEBIAN_FRONTEND=noninteractive
export TRUNK_SKIP_VERSION_CHECK=true
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
export PATH="$REPO_ROOT/node_modules/.bin:$CARGO_HOME/bin:$PATH"

LOGS="$REPO_ROOT/build/setup"
T0=$SECONDS
SUMMARY=()
say() { [[ "${SETUP_QUIET:-}" == 1 && "$*" != *INSTALLING* && "$*" != *ERROR* && "$*" != *expected* && "$*" != *done* && "$*" != *background* ]] || echo "[setup] $*"; }
took() { SUMMARY+=("$1: $2s"); say "done: $1 in $2s"; }

# ---- background steps: started with `bg NAME WHAT CMD...`, collected with `wait_bg NAME` ------
declare -A BG_PID BG_START
bg() {   # bg NAME WHAT CMD...
    local name="$1" what="$2"; shift 2
    mkdir -p "$LOGS"
    say "INSTALLING in the background: $what (log: build/setup/$name.log)"
    BG_START[$name]=$SECONDS
    ( "$@" ) >"$LOGS/$name.log" 2>&1 &
    BG_PID[$name]=$!
}
wait_bg() {
    local name="$1"
    [[ -n "${BG_PID[$name]:-}" ]] || return 0
    if ! wait "${BG_PID[$name]}"; then
        say "ERROR: $name failed; the end of build/setup/$name.log:"
        tail -n 30 "$LOGS/$name.log" | sed 's/^/    /'
        exit 1
    fi
    took "$name (background)" $((SECONDS - BG_START[$name]))
    unset "BG_PID[$name]"
}
# A failed foreground step does not leave background ones running.
trap 'for p in "${BG_PID[@]}"; do kill "$p" 2>/dev/null || true; done' ERR INT TERM

as_root() { if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi; }

# ---- what is missing -------------------------------------------------------------------------
# wasm32 target (needed before anything compiles for the web)
command -v rustup >/dev/null || { say "ERROR: rustup not found on PATH ($PATH)"; exit 1; }
if rustup target list --installed | grep -qx 'wasm32-unknown-unknown'; then
    say "wasm32-unknown-unknown: present"
else
    say "INSTALLING rust target wasm32-unknown-unknown (a few seconds)"
    t=$SECONDS; rustup target add wasm32-unknown-unknown; took "rust wasm32 target" $((SECONDS - t))
fi

have_trunk="$(trunk --version 2>/dev/null | awk '{print $2}' || true)"
need_trunk=0; [[ "$have_trunk" == "$TRUNK_VERSION" ]] || need_trunk=1

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
elif [[ -n "$TRUNK_TOML_WB" && "$TRUNK_TOML_WB" != "$WASM_BINDGEN_VERSION" ]]; then
    # trunk prefers Trunk.toml's [tools] wasm_bindgen over Cargo.lock, and would try (and fail)
    # to download a CLI that differs from what is installed: keep the two in step.
    say "ERROR: Trunk.toml [tools] wasm_bindgen = \"$TRUNK_TOML_WB\" but Cargo.lock has wasm-bindgen $WASM_BINDGEN_VERSION; update Trunk.toml"
    exit 1
fi
export WASM_BINDGEN_VERSION
have_wb="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
need_wb=0; [[ "$have_wb" == "$WASM_BINDGEN_VERSION" ]] || need_wb=1

need_npm=0
if [[ ! -d node_modules || ! -f node_modules/.package-lock.json \
      || package-lock.json -nt node_modules/.package-lock.json \
      || package.json -nt node_modules/.package-lock.json ]]; then
    need_npm=1
fi

need_apt=0
if [[ $MODE == all ]]; then
    for f in "$CHROMIUM" "$FIREFOX" "$WEBKIT_DRIVER" "$MINIBROWSER" "$XVFB"; do [[ -x "$f" ]] || need_apt=1; done
fi

# ---- background: browsers, npm packages, the site's first compile --------------------------------
if [[ $need_apt == 1 ]]; then
    bg apt "Debian's Chromium, Firefox ESR, WebKitGTK driver and Xvfb for the tests (apt, ~275 MB; about 4 min)" \
        bash -c "$(declare -f as_root); as_root apt-get -o DPkg::Lock::Timeout=900 update && as_root apt-get -o DPkg::Lock::Timeout=900 install -y ${APT_PACKAGES[*]}"
else
    [[ $MODE == all ]] && say "browsers (chromium, firefox-esr, WebKitWebDriver, Xvfb): present"
fi
if [[ $need_npm == 1 ]]; then
    bg npm "the npm packages (npm ci; about 1-2 min)" npm ci --no-audit --no-fund
else
    say "node_modules: up to date"
fi
if [[ $need_trunk == 1 || $need_wb == 1 ]]; then
    # The tools take minutes to compile; the site's own wasm compiles meanwhile (the commands
    # `make dist` runs, so they find it done; the engine's is the Makefile's ENGINE_WASM rule).
    # It needs only rustc; cargo's lock on target/ makes any later build wait for it.
    bg site-compile "the site's first wasm compile, beside the tools (cargo; about 6 min)" bash -c '
        cargo rustc --lib --profile engine --target wasm32-unknown-unknown --features wasm --crate-type cdylib &&
        cargo build --target=wasm32-unknown-unknown --manifest-path "$PWD/Cargo.toml" --bin pattern-playground --release --features app'
fi

# ---- foreground: the two cargo installs ------------------------------------------------------------
# One target dir for both (they share many dependencies), and a quicker profile than the crates'
# own: trunk asks for fat LTO with one codegen unit, whose single-threaded optimisation of the whole
# program is minutes of the install on 2 cores; opt-level 1 halves LLVM's share of the rest. Neither
# is noticed in use: trunk mostly waits for cargo, and wasm-bindgen takes seconds on the UI's wasm.
INSTALL_TARGET="${TMPDIR:-/tmp}/pp-cargo-install"
install_tool() {   # install_tool NAME VERSION ESTIMATE [cargo install flags...]
    local name="$1" version="$2" estimate="$3"; shift 3
    say "INSTALLING $name $version (cargo install; about $estimate on 2 cores)"
    local t=$SECONDS
    CARGO_TARGET_DIR="$INSTALL_TARGET" CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_OPT_LEVEL=1 \
        CARGO_PROFILE_RELEASE_DEBUG=false CARGO_PROFILE_RELEASE_INCREMENTAL=false \
        cargo install "$name" --version "$version" --force "$@"
    took "$name" $((SECONDS - t))
}
if [[ $need_trunk == 1 ]]; then
    # No default features: they are TLS (rustls and ring) and the crates.io update check, for
    # downloading tools and serving https; trunk here never downloads (Trunk.toml pins the tools
    # on PATH) and `make serve` serves dist/ itself.
    install_tool trunk "$TRUNK_VERSION" "5 min (9.6 with its own profile)" --locked --no-default-features
else
    say "trunk $TRUNK_VERSION: present"
fi
if [[ $need_wb == 1 ]]; then
    # No --locked: the registry snapshot lacks one of its locked dependencies.
    install_tool wasm-bindgen-cli "$WASM_BINDGEN_VERSION" "5 min (7 with its own profile)"
else
    say "wasm-bindgen-cli $WASM_BINDGEN_VERSION: present"
fi
rm -rf "$INSTALL_TARGET"

# ---- collect the background steps --------------------------------------------------------------
wait_bg npm
wasm_opt_version="$(wasm-opt --version)"
say "wasm-opt: $(command -v wasm-opt): $wasm_opt_version"
if [[ "$wasm_opt_version" != *"version $WASM_OPT_MAJOR"* ]]; then
    say "expected wasm-opt version $WASM_OPT_MAJOR from node_modules/.bin"
    exit 1
fi
wait_bg apt
if [[ $MODE == all ]]; then
    for f in "$CHROMIUM" "$FIREFOX" "$WEBKIT_DRIVER" "$MINIBROWSER" "$XVFB"; do
        [[ -x "$f" ]] || { say "ERROR: $f missing after apt-get install ${APT_PACKAGES[*]}"; exit 1; }
    done
fi
if [[ -n "${BG_PID[site-compile]:-}" ]]; then
    # Not waited for: `make` goes on, and its first cargo command waits on target/'s lock.
    say "the site's first compile goes on in the background (build/setup/site-compile.log); the build waits for it"
    disown "${BG_PID[site-compile]}" 2>/dev/null || true
fi

say "tools: $(trunk --version), $(wasm-bindgen --version), node $(node --version)"
if [[ ${#SUMMARY[@]} -gt 0 ]]; then
    echo "[setup] set-up took $((SECONDS - T0))s: $(IFS=';'; echo "${SUMMARY[*]}" | sed 's/;/, /g')"
fi
