#!/usr/bin/env bash
# Builds the libFuzzer binary: the library's sources and the fuzz entry points, with
# -sanitize=fuzzer,address, as one module named AASAKit (the library qualifies some names
# with it). Output: .build/fuzz/aasa-fuzz
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .build/fuzz
sources=$(find Sources/AASAKit -name '*.swift' | sort)
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name AASAKit \
  $sources Tests/Fuzz/FuzzTargets.swift -o .build/fuzz/aasa-fuzz
