# Two commands do everything on a fresh Debian machine with the Swift toolchain:
#   make demo   install what is missing, build release, classify the bundled corpus
#   make test   install what is missing, run the whole suite
# and `make install PREFIX=DIR` puts libaasa (lib/, lib/pkgconfig/aasa.pc, include/) and the CLI
# (bin/) under DIR.
SWIFT ?= swift
BIN := .build/release
PREFIX ?= /usr/local
PYTHON ?= python3
VENV := .build/venv
# 3.5.x runs on Java 8 to 17 (4.x needs 17 or later); pinned so that every run tests the same Spark.
PYSPARK_VERSION := 3.5.9
PYTEST_VERSION := 8.3.5
# What Spark's Arrow path (mapInArrow, the in-process engine of contrib/spark) needs, pinned too;
# numpy 1.x, as PySpark 3.5 predates numpy 2.
PYARROW_VERSION := 17.0.0
PANDAS_VERSION := 2.2.3
NUMPY_VERSION := 1.26.4
# The test build is a release build (a whole module optimised at once) with every `assert` kept
# and testable imports, in a scratch directory of its own (.build/tests), so that it never
# replaces the release binaries users and the benchmarks run: the tests exercise the code users
# run, invariant checks on. The debug build optimised file by file, which it replaces, does not
# specialise generics across files: its test run took twice as long, for two minutes less
# building (`Benchmarks/Records/2026-12-07-explorer-steps.md`). The test modules themselves are
# not optimised (Package.swift's testModuleSettings): a test's own loops over large outputs belong
# in _AASATestSupport (ByteSearch), which is. Said here rather than in Package.swift, whose unsafe
# flags SwiftPM refuses in a package used as a versioned dependency.
# `swift build --build-tests` makes it once and `swift test --skip-build` runs it (without
# `--build-tests`, the test step compiled the library a second time);
# `swift test --skip-build --filter X $(TEST_FLAGS)` reuses it too (plain
# `swift test --filter X`, a debug build, rebuilds faster after a change).
TEST_FLAGS := -c release -Xswiftc -assert-config -Xswiftc Debug -Xswiftc -enable-testing --scratch-path .build/tests

.PHONY: all deps build install demo test test-python spark-test java bench bench-embed fuzz clean

all: build

# What is missing from Debian: jemalloc (the allocator), libcurl (fetch and check) and
# python3-venv (make test-python); each installed when it cannot be found.
deps:
	@pkg-config --exists jemalloc 2>/dev/null || { \
	  echo "installing libjemalloc-dev (pkg-config cannot find jemalloc)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq libjemalloc-dev pkg-config; }
	@pkg-config --exists libcurl 2>/dev/null || { \
	  echo "installing libcurl4-openssl-dev (pkg-config cannot find libcurl)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq libcurl4-openssl-dev pkg-config; }
	@python3 -c "import ensurepip, venv" 2>/dev/null || { \
	  echo "installing python3-venv (make test-python makes a venv)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq python3-venv; }

# The CLI, AASAKit and libaasa (.build/release/libaasa-c.so, installed as libaasa.so).
build: deps
	$(SWIFT) build -c release

# libaasa and its header (lib/libaasa.so.1, the link-time name lib/libaasa.so beside it, the
# pkg-config file lib/pkgconfig/aasa.pc, include/aasa.h), and the CLI (bin/aasa).
# LIBAASA_VERSION's major is the soname's (Package.swift: -soname=libaasa.so.1).
LIBAASA_VERSION := 1.0.0
install: build
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN)/libaasa-c.so $(DESTDIR)$(PREFIX)/lib/libaasa.so.1
	ln -sf libaasa.so.1 $(DESTDIR)$(PREFIX)/lib/libaasa.so
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: aasa' 'Description: apple-app-site-association matching (libaasa, the engine of the aasa tool)' \
	  'Version: $(LIBAASA_VERSION)' 'Libs: -L$${libdir} -laasa' 'Cflags: -I$${includedir}' \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/aasa.pc
	install -m 644 Sources/CAASA/include/aasa.h $(DESTDIR)$(PREFIX)/include/aasa.h
	install -m 755 $(BIN)/aasa $(DESTDIR)$(PREFIX)/bin/aasa

# The main job on the bundled corpus: classify every scenario's URLs across all five domains,
# check each scenario against its expectation matrix, and explain one decision.
demo: SHELL := /bin/bash
demo: build
	@set -euo pipefail; aasa=$(BIN)/aasa; \
	echo "== aasa classify: $$(cat corpus/*/urls.txt | wc -l) URLs across $$(ls -d corpus/*/ | wc -l) domains (corpus/) =="; \
	summary=$$(mktemp); \
	cat corpus/*/urls.txt | $$aasa classify --rules corpus --format tsv 2>"$$summary" | head -n 8 \
	  | { if command -v column >/dev/null 2>&1; then column -t -s $$'\t'; else cat; fi; } || true; \
	echo "   …"; cat "$$summary"; rm -f "$$summary"; echo; \
	echo "== aasa test: every scenario against its matrix (both engines) =="; \
	for scenario in corpus/*/; do \
	  domain=$$(basename "$$scenario"); \
	  for engine in dfa reference; do \
	    printf '%-16s %-9s ' "$$domain" "$$engine"; \
	    $$aasa test "$$scenario/apple-app-site-association" --matrix "$$scenario/matrix.json" --domain "$$domain" --engine "$$engine" | tail -n 1; \
	  done; \
	done; echo; \
	echo "== aasa match: Apple's localized-food example, one URL =="; \
	$$aasa match corpus/food.example/apple-app-site-association --domain food.example \
	  'https://food.example/fr_FR/Cr%C3%A8me-Br%C3%BBl%C3%A9e'; echo; \
	echo "== aasa explain: why /fr_CA/samosa/ stays on the web =="; \
	$$aasa explain corpus/food.example/apple-app-site-association --domain food.example \
	  --app F00D5HOP42.example.food.app 'https://food.example/fr_CA/samosa/' | head -n 20

# The fetch tests' loopback server (Tests/FetchServer) runs on a venv holding the `h2` library
# for its HTTP/2 port (libcurl speaks HTTP/2 to origins that offer it); with AASA_TEST_PYTHON
# set, a server without that port fails the HTTP/2 tests instead of skipping them.
FETCHVENV := .build/venv-fetch
FETCHVENV_PACKAGES := h2==4.4.1 hpack==4.2.0 hyperframe==6.1.0
FETCHVENV_MARKER := $(FETCHVENV)/.$(subst ==,-,$(subst $() ,-,$(FETCHVENV_PACKAGES)))
$(FETCHVENV_MARKER):
	@[ -x $(FETCHVENV)/bin/pip ] || $(PYTHON) -m venv $(FETCHVENV)
	$(FETCHVENV)/bin/pip install -q --disable-pip-version-check $(FETCHVENV_PACKAGES)
	@touch $@

test: deps $(FETCHVENV_MARKER)
	$(SWIFT) build --build-tests $(TEST_FLAGS)
	AASA_TEST_PYTHON=$(CURDIR)/$(FETCHVENV)/bin/python $(SWIFT) test --skip-build $(TEST_FLAGS) --parallel --xunit-output .build/xunit.xml
	AASA_FUZZ_OPTIMIZE=-Onone ./Tests/Fuzz/run.sh 5
	$(SWIFT) build -c release
	./Tests/CABI/run.sh
	$(MAKE) --no-print-directory test-python
	./Tests/Consumer/run.sh
	$(BIN)/aasa-bench --quick --baseline Benchmarks/Baselines/quick.json --tolerance 10 --ratio-tolerance 50
	$(MAKE) spark-test

# contrib/spark on a local Spark (local[2]) against the release binary and libaasa: Java and a
# venv under .build/ with pyspark, pyarrow and pytest, each installed only when missing, and the
# aasa package built from this checkout (the in-process engine's executors import it).
# The marker names every pinned version: a venv made before one of them changed is completed.
SPARK_VENV_MARKER := $(VENV)/.pyspark-$(PYSPARK_VERSION)-pyarrow-$(PYARROW_VERSION)-pandas-$(PANDAS_VERSION)
spark-test: deps java $(SPARK_VENV_MARKER)
	$(SWIFT) build -c release --product aasa
	$(VENV)/bin/pip install -q --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps ./python
	AASA_BINARY=$(CURDIR)/$(BIN)/aasa $(VENV)/bin/python -m pytest -q -p no:cacheprovider contrib/spark/tests

java:
	@command -v java >/dev/null 2>&1 || { \
	  echo "installing openjdk-17-jre-headless (no java on PATH, Spark needs it)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq openjdk-17-jre-headless; }

$(SPARK_VENV_MARKER):
	@$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || { \
	  echo "installing python3-venv ($(PYTHON) cannot create a virtual environment)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq python3-venv; }
	@[ -x $(VENV)/bin/pip ] || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check pyspark==$(PYSPARK_VERSION) pytest==$(PYTEST_VERSION) \
	  pyarrow==$(PYARROW_VERSION) pandas==$(PANDAS_VERSION) numpy==$(NUMPY_VERSION) setuptools wheel
	@touch $@

# The Python package (python/) in a venv of its own, made when missing: installed the way a
# user installs it (pip bundles the release libaasa), then its tests against the release CLI.
# pytest and pandas pinned and named in the marker, so that every run tests the same: pandas 3
# here, the 2.x that PySpark 3.5 takes under spark-test, so the helper is tested on both majors.
PYVENV := .build/venv-aasa
PYVENV_PYTEST_VERSION := 9.2.0
PYVENV_PANDAS_VERSION := 3.1.1
PYVENV_MARKER := $(PYVENV)/.pytest-$(PYVENV_PYTEST_VERSION)-pandas-$(PYVENV_PANDAS_VERSION)
$(PYVENV_MARKER):
	@[ -x $(PYVENV)/bin/pip ] || $(PYTHON) -m venv $(PYVENV)
	$(PYVENV)/bin/pip install -q --disable-pip-version-check pytest==$(PYVENV_PYTEST_VERSION) pandas==$(PYVENV_PANDAS_VERSION) setuptools wheel
	@touch $@

test-python: build $(PYVENV_MARKER)
	$(PYVENV)/bin/pip install -q --no-build-isolation --force-reinstall --no-deps ./python
	cd python/tests && AASA_CLI=$(CURDIR)/$(BIN)/aasa $(CURDIR)/$(PYVENV)/bin/python -m pytest -q -p no:cacheprovider .

# Longer fuzzing (60 s per target); findings go to Tests/Regressions/.
fuzz:
	./Tests/Fuzz/build.sh
	./Tests/Fuzz/run.sh 60

# The full harness: aasa-bench (all suites), then the peers suite (RE2::Set and Hyperscan, a
# separate package so that nothing else links them; installs their Debian packages if missing).
bench: build
	$(BIN)/aasa-bench
	@pkg-config --exists re2 2>/dev/null && [ -f /usr/include/hs/hs.h ] || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq libre2-dev libhyperscan-dev; }
	$(SWIFT) run -c release --package-path Benchmarks/Peers aasa-peers

# The embedding targets of issue 22 (Benchmarks/README.md, "Embedding"): Python batches against
# the CLI, and libaasa's per-URL decide from C against the Swift API, on the shared corpus.
bench-embed: build
	$(PYTHON) Benchmarks/Embed/bench_embed.py $(BENCH_EMBED_FLAGS)

clean:
	rm -rf .build
