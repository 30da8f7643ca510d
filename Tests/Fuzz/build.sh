#!/usr/bin/env bash
# Builds the libFuzzer binary: the library's sources and the fuzz entry points, with
# -sanitize=fuzzer,address, as one module named AASAKit (the library qualifies some names
# with it). Output: .build/fuzz/aasa-fuzz
#
# Incremental: the binary is rebuilt only when its inputs changed (the sources' names and bytes,
# this script, the compiler, the optimisation level), as .build/fuzz/aasa-fuzz.inputs records them, so that run.sh can
# call this every time and never fuzz a binary older than the sources.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .build/fuzz
sources=$(find Sources/AASAKit -name '*.swift' | sort)
# shellcheck disable=SC2086 # $sources is a list of paths without spaces
# AASA_FUZZ_OPTIMIZE: -O (the default, for long runs) or -Onone (make test's 5-second pass: a
# quarter of the build time, and every `assert` on).
optimize=${AASA_FUZZ_OPTIMIZE:--O}
case "$optimize" in -O | -Onone) ;; *) echo "AASA_FUZZ_OPTIMIZE must be -O or -Onone, not $optimize" >&2; exit 2 ;; esac
inputs=$({ swiftc --version 2>&1; echo "$optimize"; sha256sum $sources Tests/Fuzz/FuzzTargets.swift Tests/Fuzz/build.sh; } | sha256sum | cut -d' ' -f1)
if [ -x .build/fuzz/aasa-fuzz ] && [ "$(cat .build/fuzz/aasa-fuzz.inputs 2>/dev/null)" = "$inputs" ]; then
  echo "fuzz binary up to date (.build/fuzz/aasa-fuzz)"
  exit 0
fi
rm -f .build/fuzz/aasa-fuzz.inputs
echo "building the fuzz binary (.build/fuzz/aasa-fuzz)"
# One frontend job a core (-j): swiftc alone runs one. On a 2-core machine the -O build took
# 210 s, 97 s with -j 2; -Onone with -j 2 takes 27 s.
# shellcheck disable=SC2086
swiftc -j "$(nproc)" -sanitize=fuzzer,address -parse-as-library "$optimize" -module-name AASAKit \
  $sources Tests/Fuzz/FuzzTargets.swift -o .build/fuzz/aasa-fuzz
echo "$inputs" >.build/fuzz/aasa-fuzz.inputs
