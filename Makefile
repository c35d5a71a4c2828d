# The command contract (see README.md). Targets whose feature is not built yet say so and fail.
SHELL := /bin/bash
export PATH := $(CURDIR)/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)

.PHONY: setup serve test script dist bench test-engine test-runtime test-lessons build/engine

# Installs whatever is missing (wasm32 target, trunk, wasm-bindgen-cli, Chromium, npm packages);
# quick when everything is present.
setup:
	@SETUP_QUIET=1 bash tools/setup.sh

test: setup test-engine test-runtime test-lessons

test-engine:
	cargo test --release --all-targets
	@cargo test --release --test engine -q -- --nocapture --exact conformance::conformance_crud_cases bson_corpus::bson_corpus_sizes 2>&1 | grep -oE '(conformance|bson corpus): [0-9]+ passed, [0-9]+ failed'

# ---- the engine as WebAssembly, and the mongosh runtime bundle (www/runtime) -------------------
# build/engine/engine.js is wasm-bindgen's no-modules glue (a global `wasm_bindgen`): a classic
# worker loads it with importScripts and tools/run-script.mjs evaluates it in a vm context.
ENGINE_SRC := $(shell find src -name '*.rs') Cargo.toml Cargo.lock
ENGINE_WASM := target/wasm32-unknown-unknown/release/pattern_playground.wasm
WASM_FEATURES := --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
	--enable-mutable-globals --enable-reference-types --enable-multivalue

build/engine: build/engine/engine_bg.wasm

build/engine/engine_bg.wasm: $(ENGINE_SRC)
	cargo build --lib --release --target wasm32-unknown-unknown --features wasm
	wasm-bindgen --target no-modules --no-typescript --out-dir build/engine --out-name engine $(ENGINE_WASM)
	node_modules/.bin/wasm-opt -Oz $(WASM_FEATURES) -o build/engine/engine_bg.wasm build/engine/engine_bg.wasm
	@touch build/engine/engine_bg.wasm

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

build/runtime.js: $(wildcard www/runtime/*.js) tools/build-runtime.mjs tools/runtime-shims.js node_modules/.package-lock.json
	node tools/build-runtime.mjs

# make script FILE="a.js b.js" [TIMEOUT=ms]: mongosh scripts run headless (tools/run-script.mjs)
script: build/engine/engine_bg.wasm build/runtime.js
	@node tools/run-script.mjs $(if $(TIMEOUT),--timeout=$(TIMEOUT)) $(FILE)

test-runtime: build/engine/engine_bg.wasm build/runtime.js
	node --test tests/runtime/

# Every lesson (lessons/*/lesson.md) parsed and run headless; `node tools/run-lessons.mjs -v [id]`
# shows each step's output.
test-lessons: build/engine/engine_bg.wasm build/runtime.js
	node --test tests/lessons/

serve:
	@echo "make serve: the site build is not wired yet" >&2; exit 1

dist:
	@echo "make dist: the site build is not wired yet" >&2; exit 1

bench:
	@echo "make bench: benchmarks are not built yet" >&2; exit 1
