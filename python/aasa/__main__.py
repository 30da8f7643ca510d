"""``python -m aasa``: ``aasa classify`` for NDJSON output, through libaasa.

    python -m aasa --rules DIR [--input FILE] [--output FILE] [--blank-lines skip|record] [--limit NAME=VALUE]...
    python -m aasa --compiled FILE ...
    python -m aasa --rules FILE --domain DOMAIN ...

The records are the tool's, byte for byte: lines are read as it reads them (a leading byte order
mark dropped, blank lines skipped unless ``--blank-lines record``) and handed to the library in
batches. Exit status as the tool's: 0, 2 for bad arguments (a bad ``--limit`` included), 3 for
rules that cannot be used, 5 for an input or output that cannot be opened. Unlike the tool, a
line is held whole while it is read: for input whose lines may be huge, use ``aasa classify``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import BinaryIO, Iterator, List, Optional

from . import AASAError, Rules, _Options

BATCH = 4096


def _blank(line: bytes) -> bool:
    # As the tool judges a line: leading blanks, then the terminator's CR, then trailing blanks.
    kept = line.lstrip(b" \t")
    if kept.endswith(b"\r"):
        kept = kept[:-1]
    return not kept.rstrip(b" \t")


def _lines(stream: BinaryIO) -> Iterator[bytes]:
    first = True
    for line in stream:
        if first and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        first = False
        if line.endswith(b"\n"):
            yield line[:-1]
        elif line.endswith(b"\r"):
            # The input's last line, without its LF: its final CR is no terminator (LF or
            # CRLF) but content, as the tool reads it. The library takes each line as ended and
            # would drop that CR; a blank after it keeps it, and blanks at the end are trimmed.
            yield line + b" "
        else:
            yield line


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m aasa", description="aasa classify (NDJSON) through libaasa")
    parser.add_argument("--rules", help="a rules directory, or one document with --domain")
    parser.add_argument("--compiled", help="an artifact from aasa compile")
    parser.add_argument("--domain", help="the domain of a single --rules document")
    parser.add_argument("--input", default="-", help="URLs, one per line (default: standard input)")
    parser.add_argument("--output", default="-", help="records (default: standard output)")
    parser.add_argument("--blank-lines", choices=["skip", "record"], default="skip")
    parser.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    if (args.rules is None) == (args.compiled is None):
        parser.error("give --rules or --compiled")
    limits = {}
    for item in args.limit:
        # As the tool: a whole number, optionally K, M or G (binary multiples).
        name, _, value = item.partition("=")
        shift = {"k": 10, "m": 20, "g": 30}.get(value[-1:].lower(), 0)
        digits = value[:-1] if shift else value
        # ASCII digits only, as the tool reads them ("²" and "١٠" are digits to str.isdigit).
        if not re.fullmatch(r"[0-9]+", digits):
            parser.error(f"--limit needs NAME=VALUE with a whole number (K, M, G suffixes allowed), got {item!r}")
        limits[name] = int(digits) << shift
    # A limit the library refuses is a usage error (2), as the tool's, not unusable rules (3).
    try:
        with _Options(limits):
            pass
    except (AASAError, ValueError) as error:
        parser.error(str(error))
    try:
        if args.compiled:
            rules = Rules.from_artifact(args.compiled, limits)
        elif os.path.isdir(args.rules):
            rules = Rules.from_directory(args.rules, limits)
        else:
            if not args.domain:
                parser.error("a single --rules file needs --domain")
            with open(args.rules, "rb") as file:
                rules = Rules.from_document(file.read(), args.domain, limits)
    except (AASAError, OSError) as error:
        print(f"python -m aasa: {error}", file=sys.stderr)
        return 3
    try:
        source = sys.stdin.buffer if args.input == "-" else open(args.input, "rb")
        target = sys.stdout.buffer if args.output == "-" else open(args.output, "wb")
    except OSError as error:
        print(f"python -m aasa: {error}", file=sys.stderr)
        return 5
    with rules:
        batch: List[bytes] = []
        for line in _lines(source):
            if args.blank_lines == "skip" and _blank(line):
                continue
            batch.append(line)
            if len(batch) == BATCH:
                target.write(rules.classify_ndjson(batch))
                batch = []
        if batch:
            target.write(rules.classify_ndjson(batch))
    target.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
