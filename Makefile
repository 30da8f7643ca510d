# Two commands do everything on a fresh Debian machine with the Swift toolchain:
#   make demo   install what is missing, build release, classify the bundled corpus
#   make test   install what is missing, run the whole suite
SWIFT ?= swift
BIN := .build/release

.PHONY: deps build demo test bench fuzz clean

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
