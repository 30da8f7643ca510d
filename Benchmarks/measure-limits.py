#!/usr/bin/env python3
"""Measures how aasa's memory grows with document size and with the DFA cache budget.

Usage: Benchmarks/measure-limits.py [path/to/release/aasa]   (default .build/release/aasa)

Prints the markdown tables of docs/limits.md. Peak memory is the child's ru_maxrss from
os.wait4 (what `/usr/bin/time -v` calls "Maximum resident set size"); time is wall time.
Everything is generated from fixed seeds, so reruns measure the same work.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import time

AASA = sys.argv[1] if len(sys.argv) > 1 else ".build/release/aasa"
DOMAIN = "bench.example"
WORDS = ["shop", "item", "user", "post", "news", "help", "docs", "blog", "tag", "media", "v1", "v2"]


def run(arguments, stdin_path=None):
    """Runs aasa; returns (seconds, peak RSS in MiB, exit status)."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    start = time.monotonic()
    process = subprocess.Popen([AASA] + arguments, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - start
    return seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def rule(rng, index, hard):
    """A path rule: literal segments, and with `hard` a leading or mid-path `*` (the shapes
    that make subset construction build many states)."""
    parts = [rng.choice(WORDS) for _ in range(rng.randint(1, 3))] + [str(index)]
    if hard and index % 2 == 0:
        parts.insert(rng.randint(0, len(parts) - 1), "*")
    path = "/" + "/".join(parts)
    if index % 3 == 0:
        path += "/*"
    return {"/": path, "comment": "rule %d" % index}


def document(rules, hard, seed=7):
    rng = random.Random(seed)
    details = [{"appIDs": ["ABCDE12345.com.example.app"], "components": [rule(rng, i, hard) for i in range(rules)]}]
    return json.dumps({"applinks": {"details": details}}, separators=(",", ":"))


def urls(count, rules, seed=11):
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        parts = [rng.choice(WORDS) for _ in range(rng.randint(1, 4))] + [str(rng.randrange(rules * 2))]
        lines.append("https://%s/%s" % (DOMAIN, "/".join(parts)))
    return "\n".join(lines) + "\n"


def main():
    folder = tempfile.mkdtemp(prefix="aasa-limits-")
    print("Document size (one entry of path rules, half with a leading or mid-path `*`); "
          "`aasa match` of one URL, i.e. parse + compile + one decision:\n")
    print("| rules | document bytes | peak RSS (MiB) | time (s) |")
    print("|---:|---:|---:|---:|")
    for rules in [100, 1_000, 10_000, 100_000]:
        path = os.path.join(folder, "doc-%d.json" % rules)
        with open(path, "w") as handle:
            handle.write(document(rules, hard=True))
        size = os.path.getsize(path)
        seconds, rss, status = run(["match", path, "--domain", DOMAIN, "--limit", "document-bytes=1G",
                                    "--limit", "patterns=1000000", "https://%s/shop/1" % DOMAIN])
        assert status == 0, status
        print("| %d | %d | %.1f | %.2f |" % (rules, size, rss, seconds))

    rules = 10_000
    doc_dir = os.path.join(folder, "rules")
    os.makedirs(doc_dir)
    with open(os.path.join(doc_dir, DOMAIN + ".json"), "w") as handle:
        handle.write(document(rules, hard=True))
    url_path = os.path.join(folder, "urls.txt")
    with open(url_path, "w") as handle:
        handle.write(urls(20_000, rules))
    print("\nDFA cache budget: `aasa classify --jobs 1` of 20 000 generated URLs against the "
          "10 000-rule document above:\n")
    print("| dfa-cache-bytes | peak RSS (MiB) | time (s) |")
    print("|---:|---:|---:|")
    for budget in ["1M", "8M", "32M", "128M", "1G"]:
        seconds, rss, status = run(["classify", "--rules", doc_dir, "--input", url_path, "--jobs", "1",
                                    "--limit", "document-bytes=16M", "--limit", "dfa-cache-bytes=" + budget])
        assert status in (0, 1), status
        print("| %s | %.1f | %.2f |" % (budget, rss, seconds))


if __name__ == "__main__":
    main()
