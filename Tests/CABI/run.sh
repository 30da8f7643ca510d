#!/usr/bin/env bash
# libaasa as a C program sees it: installs the release build into a temporary prefix (make
# install), checks that the library needs no Swift runtime from the system, compiles
# test_aasa.c with the system cc against the installed header and library, and runs it on the
# bundled corpus and, when present, on ../shared/corpus/domains with its first 20 000 URLs. The
# NDJSON it checks against is what the installed `aasa classify` writes for the same lines.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
make -s install PREFIX="$prefix" >/dev/null
lib=$prefix/lib/libaasa.so.1
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != libaasa.so.1 ] || [ "$(readlink "$prefix/lib/libaasa.so")" != libaasa.so.1 ]; then
  echo "FAIL: $lib has soname '$soname', or lib/libaasa.so is not a link to it" >&2
  exit 1
fi
if ldd "$lib" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|ICU' >&2; then
  echo "FAIL: $lib needs the Swift runtime above from the system" >&2
  exit 1
fi
echo "ok: $lib (soname $soname, $(du -k "$lib" | cut -f1) KB) needs only: $(ldd "$lib" | awk '{print $1}' | tr '\n' ' ')"
cc -std=gnu11 -O1 -Wall -Wextra -Werror -pthread -I"$prefix/include" Tests/CABI/test_aasa.c \
  -L"$prefix/lib" -laasa -Wl,-rpath,"$prefix/lib" -o "$work/test_aasa"

# The README's C example ("Use it from Swift, C and Python"), as documented.
awk '/^## Use it from Swift, C and Python/ { inside = 1 } inside && /^```c/ { code = 1; next } code && /^```/ { exit } code { print }' \
  README.md >"$work/example.c"
cc -std=c11 -Wall -Werror -I"$prefix/include" "$work/example.c" -L"$prefix/lib" -laasa -Wl,-rpath,"$prefix/lib" -o "$work/example"
example=$("$work/example")
if [ "$example" != $'MUSE4EX123.org.example.museum opens\nMUSE4EX123.org.example.museum.guide opens' ]; then
  printf 'FAIL: the README example printed\n%s\n' "$example" >&2
  exit 1
fi
echo "ok: the README's C example"

# The same example built the way a consumer's build finds libaasa: pkg-config on the prefix.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046 # pkg-config's output is a list of flags
cc -std=c11 -Wall -Werror "$work/example.c" $(pkg-config --cflags --libs aasa) -o "$work/example-pc"
if [ "$(LD_LIBRARY_PATH=$prefix/lib "$work/example-pc")" != "$example" ] || [ "$(pkg-config --modversion aasa)" = "" ]; then
  echo "FAIL: the example built with pkg-config --cflags --libs aasa" >&2
  exit 1
fi
echo "ok: pkg-config --cflags --libs aasa ($(pkg-config --modversion aasa)): $(pkg-config --cflags --libs aasa)"

run() { # RULES_DIR URLS
  "$prefix/bin/aasa" compile "$1" -o "$work/rules.aasac" 2>/dev/null
  # Status 0: error records (the lines that are not URLs) are data, without --strict.
  local status=0
  "$prefix/bin/aasa" classify --rules "$1" --blank-lines record --input "$2" >"$work/cli.ndjson" 2>"$work/cli.stderr" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "FAIL: aasa classify --rules $1 --input $2 exited with status $status:" >&2
    tail -n 20 "$work/cli.stderr" >&2
    exit 1
  fi
  # A bare environment: nothing but the rpath finds the library's dependencies.
  env -i "$work/test_aasa" "$1" "$work/rules.aasac" "$2" "$work/cli.ndjson"
}

# The bundled scenarios' URLs and lines that are not URLs (invalid UTF-8, blank, CRLF, JSON,
# over-long, whitespace around a URL, a last line without its newline).
{
  cat corpus/*/urls.txt
  printf 'https://museum.example/\xff\xfe/x\n\n   \t\nhttps://food.example/fr_FR/menu\r\n{"url": "https://museum.example/"}\n'
  printf '  https://ride.example/ride/1  \nhttps://museum.example/%070000d\n' 0
  # What is kept as it is (a blank or control byte inside, non-ASCII, a BOM, U+00A0 at the end)
  # next to what is trimmed (a blank before a CR, a leading tab).
  printf 'https://museum.example/a b\nhttps://museum.example/\001x\nhttps://museum.example/caf\303\251\302\240\n'
  printf '\357\273\277https://museum.example/\nhttps://museum.example/x \r\n\thttps://museum.example/t\n'
  printf 'HTTPS://MUSEUM.EXAMPLE/exhibitions/fr\nhttps://museum.example:443/exhibitions/fr\nhttps://user@museum.example/x\n'
  printf 'https://legacy.example/no-newline'
} >"$work/bundled.txt"
run corpus "$work/bundled.txt"

shared=../shared/corpus
if [ -d "$shared/domains" ] && [ -f "$shared/urls/combined_http_dedup.txt" ]; then
  head -n 20000 "$shared/urls/combined_http_dedup.txt" >"$work/shared.txt"
  run "$shared/domains" "$work/shared.txt"
else
  echo "skipped: the shared corpus ($shared) is absent"
fi
