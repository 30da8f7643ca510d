#!/usr/bin/env python3
"""Speed of the embedded engine (issue 22, part 4), printed as Markdown tables.

1. Batches from Python: ``Rules.classify`` on the real URLs of the shared corpus against the 250
   real documents on their hosts, one thread, next to ``aasa classify --jobs 1`` on the same URLs
   and rules (rounds interleaved). Target: at least 2 M URLs/s from Python.
2. One URL per call: libaasa's ``aasa_decide`` from C (``decide_bench.c``) against the Swift API's
   ``DFAMatcher.decide(_:app:)`` (``aasa-bench-decide``) on the same real documents and URLs,
   the two processes alternating, each round paired. Target: C within 10% of Swift.

Run from the package root after ``swift build -c release`` (``make bench-embed`` does both).
Needs the shared corpus (``--shared``, default ``../shared``); says so and exits 0 without it.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def median(values):
    return statistics.median(values)


def rate(count: float, ns: float) -> str:
    return f"{count / ns * 1e3:.2f} M/s"


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_cli(binary: Path, rules: Path, urls: Path) -> tuple:
    """(wall seconds, CPU seconds) of one `aasa classify --jobs 1` run, NDJSON to /dev/null."""
    cpu0, wall0 = child_cpu(), time.perf_counter()
    subprocess.run([str(binary), "classify", "--rules", str(rules), "--input", str(urls), "--jobs", "1"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - wall0, child_cpu() - cpu0


def batches(args, build: Path, say) -> bool:
    os.environ["AASA_LIBRARY"] = str(build / "libaasa-c.so")
    sys.path.insert(0, str(ROOT / "python"))
    import aasa  # noqa: E402  (the library path above must be set first)

    rules_dir = args.shared / "corpus" / "domains"
    url_file = args.shared / "corpus" / "urls" / "combined_http_dedup.txt"
    text = url_file.read_bytes().decode("utf-8", "surrogateescape")
    urls = text.split("\n")
    if urls and urls[-1] == "":
        urls.pop()
    count = len(urls)
    empty = Path(tempfile.mkstemp(suffix=".txt")[1])
    rows = {"python": [], "python-domains": [], "cli": [], "cli-empty": []}
    with aasa.Rules.from_directory(rules_dir) as rules:
        rules.classify(urls)  # warm-up: every domain met once, DFA states built
        run_cli(build / "aasa", rules_dir, url_file)
        for _ in range(args.rounds):
            wall0, cpu0 = time.perf_counter(), time.thread_time()
            results = rules.classify(urls)
            rows["python"].append((time.perf_counter() - wall0, time.thread_time() - cpu0))
            wall0, cpu0 = time.perf_counter(), time.thread_time()
            domains = rules.classify(urls).domains
            rows["python-domains"].append((time.perf_counter() - wall0, time.thread_time() - cpu0))
            rows["cli"].append(run_cli(build / "aasa", rules_dir, url_file))
            rows["cli-empty"].append(run_cli(build / "aasa", rules_dir, empty))
        assert len(results) == count and len(domains) == count
        served = sum(d is not None for d in domains)
    empty.unlink()
    start_wall = median([w for w, _ in rows["cli-empty"]])
    start_cpu = median([c for _, c in rows["cli-empty"]])

    def line(name, samples, minus_wall=0.0, minus_cpu=0.0):
        wall = median([w for w, _ in samples]) - minus_wall
        cpu = median([c for _, c in samples]) - minus_cpu
        return f"| {name} | {wall * 1e3:.1f} ms | **{rate(count, wall * 1e9)}** | {cpu * 1e3:.1f} ms | {rate(count, cpu * 1e9)} |"

    say(f"### Batches from Python vs the CLI: {count:,} real URLs (`combined_http_dedup.txt`) × the 250 real documents on "
        f"their hosts ({served:,} URLs served), one thread, median of {args.rounds} interleaved rounds\n")
    say("| path | wall time | **URLs/s** | CPU time | URLs per CPU-second |")
    say("| :--- | ---: | ---: | ---: | ---: |")
    say(line("Python `rules.classify(urls)`", rows["python"]))
    say(line("Python `rules.classify(urls).domains`", rows["python-domains"]))
    say(line("`aasa classify --jobs 1`, end to end", rows["cli"]))
    say(line("`aasa classify --jobs 1`, after start-up", rows["cli"], start_wall, start_cpu))
    say("")
    python_rate = count / median([w for w, _ in rows["python"]]) / 1e6
    say(f"Python: `urls` a list of `str` (the file decoded with surrogateescape), `rules` from `aasa.Rules.from_directory"
        f"({rules_dir})`; wall time by `time.perf_counter`, CPU time by `time.thread_time`. `.domains` also reads every "
        "URL's domain (no `Result` objects; those are made when read). CLI: `aasa classify --rules DIR --input FILE --jobs 1 "
        "> /dev/null`, wall time around the process, CPU time its user + system time (all its threads: the reader too); "
        f"*after start-up* subtracts the median run on an empty input ({start_wall * 1e3:.1f} ms).\n")
    holds = python_rate >= 2.0
    say(f"Claim (#22): `rules.classify` from Python with one thread ≥ 2 M URLs/s: **{python_rate:.2f} M/s**, "
        f"{'holds' if holds else '**does not hold**'}.\n")
    return holds


REWRITE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://[^/?#]*(.*)$", re.S)


def decides(args, build: Path, say) -> bool:
    documents = sorted((args.shared / "corpus" / "aasa" / "real").glob("*.json"))
    if args.quick:
        documents = documents[:50]
    lines = (args.shared / "corpus" / "urls" / "combined_http_dedup.txt").read_bytes().split(b"\n")
    wanted = 500 if args.quick else 2000
    step = max(1, len(lines) // wanted)
    urls = []
    for raw in lines[::step]:
        match = REWRITE.match(raw.decode("utf-8", "surrogateescape"))
        if match and "\r" not in raw.decode("utf-8", "surrogateescape"):
            urls.append(f"{match.group(1)}://example.com{match.group(2)}")
        if len(urls) == wanted:
            break
    work = Path(tempfile.mkdtemp())
    try:
        (work / "manifest.tsv").write_text("".join(f"{d}\texample.com\n" for d in documents))
        (work / "urls.txt").write_bytes("".join(u + "\n" for u in urls).encode("utf-8", "surrogateescape"))
        # libaasa-c.so's soname is libaasa.so.1, the name it is installed under (with
        # libaasa.so, the link-time name, beside it).
        (work / "libaasa.so.1").symlink_to(build / "libaasa-c.so")
        (work / "libaasa.so").symlink_to(build / "libaasa-c.so")
        subprocess.run(["cc", "-O2", "-std=c11", "-I", str(ROOT / "Sources" / "CAASA" / "include"),
                        str(ROOT / "Benchmarks" / "Embed" / "decide_bench.c"), "-L", str(work), "-laasa",
                        f"-Wl,-rpath,{work}", "-o", str(work / "decide_bench")], check=True)
        sides = {"C `aasa_decide`": [str(work / "decide_bench")], "Swift `DFAMatcher.decide(_:app:)`": [str(build / "aasa-bench-decide")]}
        repetitions = "2" if args.quick else "3"
        runs = {name: [] for name in sides}
        for round_ in range(args.rounds):
            order = list(sides) if round_ % 2 == 0 else list(reversed(sides))
            for name in order:
                out = subprocess.run(sides[name] + [str(work / "manifest.tsv"), str(work / "urls.txt"), repetitions],
                                     stdout=subprocess.PIPE, text=True, check=True).stdout.split()
                runs[name].append(dict(zip(out[::2], map(int, out[1::2]))))
        counted = instructions(work, sides, documents, urls) if shutil.which("valgrind") else None
    finally:
        shutil.rmtree(work)
    c_name, swift_name = list(sides)
    first = runs[c_name][0]
    agree = all(r["checksum"] == first["checksum"] and r["documents"] == first["documents"] for rs in runs.values() for r in rs)
    say(f"### One URL per call: libaasa from C vs the Swift API, {first['documents']} real documents (`corpus/aasa/real`) × "
        f"{first['urls']:,} real URLs (host rewritten to example.com), {repetitions} passes each after a warm-up, "
        f"median of {args.rounds} rounds, sides alternating\n")
    say("| per-URL decide | ns/URL (wall) | ns/URL (CPU) | C ÷ Swift (CPU, median of per-round ratios) |")
    say("| :--- | ---: | ---: | ---: |")
    ratios = [c["cpu_ns"] / s["cpu_ns"] for c, s in zip(runs[c_name], runs[swift_name])]
    for name in sides:
        wall = median([r["wall_ns"] / r["decides"] for r in runs[name]])
        cpu = median([r["cpu_ns"] / r["decides"] for r in runs[name]])
        say(f"| {name} | {wall:.1f} | {cpu:.1f} | {'**%.3f×**' % median(ratios) if name == c_name else ''} |")
    say("")
    say(f"C: `decide_bench` (Benchmarks/Embed/decide_bench.c, `cc -O2` against `libaasa-c.so`), per URL `aasa_decide`, "
        "`aasa_results_at`, `aasa_results_free`; each document opened with `aasa_rules_open_document`. Swift: `aasa-bench-decide` "
        "(release, no jemalloc, as the C program runs on glibc's malloc), per URL `try matcher.decide(url, app: nil)` on a "
        "`DFAMatcher` over `CompiledDocument(document:domain:)`, URLs as `String`. CPU time is the thread's "
        "(`CLOCK_THREAD_CPUTIME_ID`) over the timed passes only. Both sides' checksums (apps opened + errors, warm-up pass) "
        f"{'agree' if agree else '**disagree**'}: {first['checksum']}.\n")
    if counted:
        (c_count, swift_count), sample = counted
        say(f"Instructions per decide (callgrind; every 10th document, {sample}): C **{c_count:,.0f}**, Swift "
            f"**{swift_count:,.0f}**, C ÷ Swift **{c_count / swift_count:.3f}×**. Unlike time, this does not depend on what "
            "else the machine runs.\n")
    ratio = median(ratios)
    holds = ratio <= 1.10 and agree
    say(f"Claim (#22): the C ABI's per-URL decide within 10% of the Swift API's: **{ratio:.3f}×** in CPU time, "
        f"{'holds' if holds else '**does not hold**'}"
        + (f"; {counted[0][0] / counted[0][1]:.3f}× in instructions" if counted else "") + ".\n")
    return holds


def instructions(work: Path, sides: dict, documents: list, urls: list):
    """Per side, instructions per decide under callgrind: (3 passes − 1 pass) ÷ decides, on
    every 10th document and the first 500 URLs (callgrind runs some 50 times slower)."""
    subset = documents[::10]
    (work / "manifest-sub.tsv").write_text("".join(f"{d}\texample.com\n" for d in subset))
    (work / "urls-sub.txt").write_bytes("".join(u + "\n" for u in urls[:500]).encode("utf-8", "surrogateescape"))
    counts = []
    for command in sides.values():
        refs = {}
        for passes in ("1", "3"):
            run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command,
                                  str(work / "manifest-sub.tsv"), str(work / "urls-sub.txt"), passes],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
            found = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
            if not found:
                return None
            refs[passes] = int(found.group(1).replace(",", ""))
        decided = dict(zip(run.stdout.split()[::2], map(int, run.stdout.split()[1::2])))
        counts.append((refs["3"] - refs["1"]) / (decided["documents"] * decided["urls"] * 2))
    return tuple(counts), f"{decided['documents']} documents × {decided['urls']} URLs, 3 passes minus 1"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared", help="folder holding corpus/ (default ../shared)")
    parser.add_argument("--build", type=Path, default=ROOT / ".build" / "release", help="release build folder")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default 7)")
    parser.add_argument("--quick", action="store_true", help="50 documents × 500 URLs for the decide pairing, 3 rounds")
    parser.add_argument("--record", type=Path, help="also write the tables to this file")
    args = parser.parse_args()
    if args.quick and args.rounds == 7:
        args.rounds = 3
    args.shared = args.shared.resolve()
    build = args.build.resolve()
    needed = [args.shared / "corpus" / p for p in ("domains", "aasa/real", "urls/combined_http_dedup.txt")]
    missing = [str(p) for p in needed if not p.exists()]
    if missing:
        print(f"skipped: the shared corpus is absent ({', '.join(missing)})")
        return 0
    for binary in ("aasa", "aasa-bench-decide", "libaasa-c.so"):
        if not (build / binary).exists():
            print(f"bench_embed: {build / binary} is missing; run swift build -c release first", file=sys.stderr)
            return 2
    out = []

    def say(text: str) -> None:
        print(text, flush=True)
        out.append(text)

    say(f"## Embedding: Python batches and C per-URL decides ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"load average {os.getloadavg()[0]:.2f})\n")
    batches(args, build, say)
    decides(args, build, say)
    say(f"_load average after the run: {os.getloadavg()[0]:.2f}_")
    if args.record:
        args.record.write_text("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
