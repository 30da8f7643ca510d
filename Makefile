# Two commands do everything on a fresh Debian machine with the Swift toolchain:
#   make demo   install what is missing, build release, classify the bundled corpus
#   make test   install what is missing, run the whole suite
SWIFT ?= swift
BIN := .build/release
PYTHON ?= python3
VENV := .build/venv
# 3.5.x runs on Java 8 to 17 (4.x needs 17 or later); pinned so that every run tests the same Spark.
PYSPARK_VERSION := 3.5.9
PYTEST_VERSION := 8.3.5

.PHONY: deps build demo test spark-test java bench fuzz clean

# The C libraries, from Debian: jemalloc (the allocator) and libcurl (fetch and check); each is
# installed when pkg-config cannot find it.
deps:
	@pkg-config --exists jemalloc 2>/dev/null || { \
	  echo "installing libjemalloc-dev (pkg-config cannot find jemalloc)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq libjemalloc-dev pkg-config; }
	@pkg-config --exists libcurl 2>/dev/null || { \
	  echo "installing libcurl4-openssl-dev (pkg-config cannot find libcurl)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq libcurl4-openssl-dev pkg-config; }

build: deps
	$(SWIFT) build -c release

demo: build
	@./scripts/demo.sh $(BIN)/aasa

test: deps
	$(SWIFT) build
	$(SWIFT) test
	./Fuzz/run.sh 5
	$(SWIFT) build -c release
	$(BIN)/aasa-bench --quick --baseline Benchmarks/Baselines/quick.json --tolerance 10 --ratio-tolerance 50
	$(MAKE) spark-test

# contrib/spark on a local Spark (local[2]) against the release binary: Java and a venv under
# .build/ with pyspark and pytest, each installed only when missing.
spark-test: deps java $(VENV)/.pyspark-$(PYSPARK_VERSION)
	$(SWIFT) build -c release --product aasa
	AASA_BINARY=$(CURDIR)/$(BIN)/aasa $(VENV)/bin/python -m pytest -q -p no:cacheprovider contrib/spark/tests

java:
	@command -v java >/dev/null 2>&1 || { \
	  echo "installing openjdk-17-jre-headless (no java on PATH, Spark needs it)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq openjdk-17-jre-headless; }

$(VENV)/.pyspark-$(PYSPARK_VERSION):
	@$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || { \
	  echo "installing python3-venv ($(PYTHON) cannot create a virtual environment)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq python3-venv; }
	@[ -x $(VENV)/bin/pip ] || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check pyspark==$(PYSPARK_VERSION) pytest==$(PYTEST_VERSION)
	@touch $@

# Longer fuzzing (60 s per target); findings go to Tests/Regressions/.
fuzz:
	./Fuzz/build.sh
	./Fuzz/run.sh 60

# The full harness: aasa-bench (all suites), then the peers suite (RE2::Set and Hyperscan, a
# separate package so that nothing else links them; installs their Debian packages if missing).
bench: build
	$(BIN)/aasa-bench
	@pkg-config --exists re2 2>/dev/null && [ -f /usr/include/hs/hs.h ] || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq libre2-dev libhyperscan-dev; }
	$(SWIFT) run -c release --package-path Benchmarks/Peers aasa-peers

clean:
	rm -rf .build
