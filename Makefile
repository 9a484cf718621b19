# dcbsim: `make quickstart` installs and runs the quickstart; `make test` runs every test.

VENV ?= .venv
PY := $(VENV)/bin/python
SOURCES := $(shell find crates python -name '*.rs' -o -name '*.py' -o -name '*.pyi' -o -name Cargo.toml) pyproject.toml Cargo.toml

.PHONY: install test lint lint-python lint-rust golden test-rust test-python test-wheel wheel quickstart bench goals pgo reproduction clean

$(VENV)/.installed: $(SOURCES)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

test: lint test-rust golden test-python

lint: lint-rust lint-python

# rustfmt (rustfmt.toml) and clippy with every warning an error.
lint-rust:
	rustup component add rustfmt clippy 2>/dev/null || true
	cargo fmt --all --check
	cargo clippy --quiet --workspace --all-targets -- -D warnings

# Every shipped scenario's report digest against tests/golden/digests.txt: a change
# of results shows as a diff (rewrite with --write and say why in the commit).
golden:
	cargo run --release --quiet -p dcbsim-bench --example digest -- --check tests/golden/digests.txt

# ruff, configured in pyproject.toml (installed with the test extra).
lint-python: install
	$(VENV)/bin/ruff check python tests benches

test-rust:
	cargo test --quiet

test-python: install
	$(PY) -m pytest -q

# A wheel for CPython >= 3.11 (abi3) in dist/, shipped scenarios inside; prints its size.
wheel: install
	rm -f dist/dcbsim-*.whl
	$(VENV)/bin/maturin build --quiet --out dist
	$(PY) -c "import glob, os; [print(f'{w}: {os.path.getsize(w) / 2**20:.1f} MiB') for w in glob.glob('dist/dcbsim-*.whl')]"

# The wheel built, installed into a fresh virtual environment and run from an empty
# directory (slow: a release build and the dependencies' install).
test-wheel: install
	$(PY) -m pytest -q -m slow tests/test_wheel.py

reproduction: install
	$(PY) -m dcbsim.papers --out docs/reproduction

quickstart: install
	$(VENV)/bin/dcbsim run quickstart --out out/quickstart

BENCH := cargo run --release --quiet -p dcbsim-bench --

goals: install
	cargo build --release --quiet -p dcbsim-bench
	python3 benches/goals.py --rounds 8

# The engine built with profile-guided optimization, checked against the plain build's
# reports: target/pgo/release/dcbsim-bench (needs llvm-profdata of rustc's LLVM).
pgo:
	python3 benches/pgo.py --check

bench:
	$(BENCH) python/dcbsim/scenarios/bench/dumbbell_10g.toml --repeat 5
	$(BENCH) python/dcbsim/scenarios/bench/dumbbell_10g.toml --repeat 5 --set 'flows[0].jitter=0.1'
	$(BENCH) python/dcbsim/scenarios/bench/dumbbell_10g_cc.toml --repeat 5
	$(BENCH) python/dcbsim/scenarios/bench/incast_jitter.toml --repeat 3
	$(BENCH) python/dcbsim/scenarios/bench/incast_jitter.toml --repeat 3 --set topology.servers=64 --set 'flows[0].rate_gbps=0.1953125'
	$(BENCH) python/dcbsim/scenarios/bench/incast_jitter.toml --repeat 3 --set topology.servers=512 --set 'flows[0].rate_gbps=0.0244140625'
	$(BENCH) python/dcbsim/scenarios/bench/incast_jitter.toml --repeat 3 --set topology.servers=4096 --set 'flows[0].rate_gbps=0.0030517578125'
	$(BENCH) python/dcbsim/scenarios/bench/incast_jitter.toml --repeat 3 --set run.sample_interval_us=100000
	$(BENCH) python/dcbsim/scenarios/bench/incast_jitter.toml --repeat 3 --set topology.servers=4096 --set 'flows[0].rate_gbps=0.0030517578125' --set run.sample_interval_us=100000
	$(BENCH) python/dcbsim/scenarios/bench/long_run.toml --repeat 2
	$(BENCH) python/dcbsim/scenarios/bench/fat_tree_k8.toml --repeat 2
	$(BENCH) python/dcbsim/scenarios/bench/fat_tree_k8_dctcp.toml --repeat 2
	$(BENCH) python/dcbsim/scenarios/bench/fat_tree_k16_dctcp.toml --repeat 2
	python3 benches/threads.py python/dcbsim/scenarios/bench/fat_tree_k8_dctcp.toml --rounds 2
	python3 benches/threads.py python/dcbsim/scenarios/bench/fat_tree_k16_dctcp.toml --rounds 2
	$(BENCH) python/dcbsim/scenarios/bench/hpcc_16.toml --repeat 3
	$(BENCH) python/dcbsim/scenarios/bench/fat_tree_k8.toml --repeat 2 --set 'pfc.priorities=[3]' --set 'flows[0].priority=3'
	python3 benches/threads.py python/dcbsim/scenarios/bench/fat_tree_k8.toml --rounds 2 --set 'pfc.priorities=[3]' --set 'flows[0].priority=3'
	$(BENCH) python/dcbsim/scenarios/bench/dctcp_16.toml --repeat 5

clean:
	rm -rf $(VENV) target out
