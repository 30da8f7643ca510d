#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 10) from its checked-in seed corpus. A crash or a
# disagreement stops the run with libFuzzer's report; keep the input in Tests/Regressions/.
# The binary is (re)built first by build.sh, which does nothing when it is up to date.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-10}
./Tests/Fuzz/build.sh
for target in document pattern url artifact differential; do
  work=$(mktemp -d)
  cp Tests/Fuzz/Corpus/$target/* "$work"/
  echo "fuzz $target for ${seconds}s"
  # libFuzzer reports a crash itself; Swift's backtracer would hold the pipe to grep open for
  # minutes after the crash. The status is the fuzzer's (pipefail; grep finding no line is no
  # failure): 0 when it ran its time out, anything else a crash, a timeout, an out-of-memory or
  # a fuzzer that could not run.
  status=0
  SWIFT_BACKTRACE=enable=no AASA_FUZZ_TARGET=$target .build/fuzz/aasa-fuzz "$work" -max_total_time="$seconds" -max_len=4096 \
    -rss_limit_mb=4096 -timeout=20 -artifact_prefix=".build/fuzz/$target-" 2>&1 | { grep -E "^Done |ERROR|SUMMARY|disagreement" || true; } ||
    status=$?
  rm -rf "$work"
  if ls .build/fuzz/$target-* >/dev/null 2>&1; then echo "fuzz $target found a problem: $(ls .build/fuzz/$target-*)"; exit 1; fi
  if [ "$status" -ne 0 ]; then echo "fuzz $target failed: the fuzzer exited with status $status"; exit 1; fi
done
