#!/usr/bin/env bash
# AASAKit as a versioned dependency, the way a consumer adds it: the repository's files (as they
# stand, uncommitted changes included) committed into a temporary git repository tagged 1.0.0,
# a separate package with `.package(url: "file://…", from: "1.0.0")`, built, and its executable
# run. The executable is the README's Swift example ("Use it from Swift, C and Python"), extracted from the
# README, so the documented code is the tested code. SwiftPM refuses unsafe build flags in such
# a dependency, which is what this guards. Slow (it compiles AASAKit); skipped without git.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v git >/dev/null || { echo "skipped: git is not installed"; exit 0; }
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir "$work/aasa"
git ls-files -z --cached --others --exclude-standard | (cd "$root" && xargs -0 cp --parents -t "$work/aasa" 2>/dev/null || true)
(
  cd "$work/aasa"
  git init -q
  git add -A
  git -c user.name=test -c user.email=test@example.invalid commit -qm "consumer test"
  git tag 1.0.0
)

mkdir -p "$work/consumer/Sources/consumer"
cat >"$work/consumer/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "consumer",
    dependencies: [.package(url: "file://$work/aasa", from: "1.0.0")],
    targets: [.executableTarget(name: "consumer", dependencies: [.product(name: "AASAKit", package: "aasa")])]
)
SWIFT
# The first swift block after the "Use it from Swift" heading.
awk '/^## Use it from Swift/ { inside = 1 } inside && /^```swift/ { code = 1; next } code && /^```/ { exit } code { print }' \
  README.md >"$work/consumer/Sources/consumer/main.swift"
[ -s "$work/consumer/Sources/consumer/main.swift" ] || { echo "FAIL: no Swift example in README.md" >&2; exit 1; }

if ! swift build --package-path "$work/consumer" >"$work/build.log" 2>&1; then
  tail -n 20 "$work/build.log" >&2
  echo "FAIL: the consumer package does not build" >&2
  exit 1
fi
output=$("$work/consumer/.build/debug/consumer")
expected='https://example.com/buy/42 opens ABCDE12345.com.example.shop (entry 0, rule 1)
https://example.com/buy/help stays on the web'
if [ "$output" != "$expected" ]; then
  printf 'FAIL: the consumer printed\n%s\nexpected\n%s\n' "$output" "$expected" >&2
  exit 1
fi
echo "ok: a package depending on AASAKit from: 1.0.0 builds and decides URLs"
