#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 10) from its checked-in seed corpus. A crash or a
# disagreement stops the run with libFuzzer's report; keep the input in Tests/Regressions/.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-10}
[ -x .build/fuzz/aasa-fuzz ] || ./Tests/Fuzz/build.sh
for target in document pattern url artifact differential; do
  work=$(mktemp -d)
  cp Tests/Fuzz/Corpus/$target/* "$work"/
  echo "fuzz $target for ${seconds}s"
  # libFuzzer reports a crash itself; Swift's backtracer would hold the pipe to grep open for
  # minutes after the crash.
  SWIFT_BACKTRACE=enable=no AASA_FUZZ_TARGET=$target .build/fuzz/aasa-fuzz "$work" -max_total_time="$seconds" -max_len=4096 \
    -rss_limit_mb=4096 -timeout=20 -artifact_prefix=".build/fuzz/$target-" 2>&1 | grep -E "^Done |ERROR|SUMMARY|disagreement" || true
  rm -rf "$work"
  if ls .build/fuzz/$target-* >/dev/null 2>&1; then echo "fuzz $target found a problem: $(ls .build/fuzz/$target-*)"; exit 1; fi
done
