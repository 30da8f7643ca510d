#!/usr/bin/env bash
# The main job on the bundled corpus: classify every scenario's URLs across all five domains,
# check each scenario against its expectation matrix, and explain one decision.
set -euo pipefail
aasa=${1:-.build/release/aasa}
cd "$(dirname "$0")/.."

echo "== aasa classify: $(cat corpus/*/urls.txt | wc -l) URLs across $(ls -d corpus/*/ | wc -l) domains (corpus/) =="
table() { if command -v column >/dev/null 2>&1; then column -t -s $'\t'; else cat; fi; }
summary=$(mktemp)
cat corpus/*/urls.txt | "$aasa" classify --rules corpus --format tsv 2>"$summary" | head -n 8 | table || true
echo "   …"
cat "$summary"; rm -f "$summary"
echo

echo "== aasa test: every scenario against its matrix (both engines) =="
for scenario in corpus/*/; do
  domain=$(basename "$scenario")
  for engine in dfa reference; do
    printf '%-16s %-9s ' "$domain" "$engine"
    "$aasa" test "$scenario/apple-app-site-association" --matrix "$scenario/matrix.json" --domain "$domain" --engine "$engine" | tail -n 1
  done
done
echo

echo "== aasa match: Apple's localized-food example, one URL =="
"$aasa" match corpus/food.example/apple-app-site-association --domain food.example \
  'https://food.example/fr_FR/Cr%C3%A8me-Br%C3%BBl%C3%A9e'
echo

echo "== aasa explain: why /fr_CA/samosa/ stays on the web =="
"$aasa" explain corpus/food.example/apple-app-site-association --domain food.example \
  --app F00D5HOP42.example.food.app 'https://food.example/fr_CA/samosa/' | head -n 20
