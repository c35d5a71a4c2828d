# The command contract (see README.md). Targets whose feature is not built yet say so and fail.
SHELL := /bin/bash
export PATH := $(CURDIR)/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)

.PHONY: setup serve test script dist bench test-engine

# Installs whatever is missing (wasm32 target, trunk, wasm-bindgen-cli, Chromium, npm packages);
# quick when everything is present.
setup:
	@SETUP_QUIET=1 bash tools/setup.sh

test: setup test-engine

test-engine:
	cargo test --release --all-targets
	@cargo test --release --test engine -q -- --nocapture --exact conformance::conformance_crud_cases bson_corpus::bson_corpus_sizes 2>&1 | grep -oE '(conformance|bson corpus): [0-9]+ passed, [0-9]+ failed'

serve:
	@echo "make serve: the site build is not wired yet" >&2; exit 1

script:
	@echo "make script: the Node runner is not built yet" >&2; exit 1

dist:
	@echo "make dist: the site build is not wired yet" >&2; exit 1

bench:
	@echo "make bench: benchmarks are not built yet" >&2; exit 1
