"""``python -m aasa``: ``aasa classify`` for NDJSON output, through libaasa.

    python -m aasa --rules DIR [--input FILE] [--output FILE] [--blank-lines skip|record] [--limit NAME=VALUE]...
    python -m aasa --compiled FILE ...
    python -m aasa --rules FILE --domain DOMAIN ...

The records are the tool's, byte for byte: lines are read as it reads them (a leading byte order
mark dropped, blank lines skipped unless ``--blank-lines record``) and handed to the library in
batches. Exit status as the tool's, and for the same cause when several apply, as the checks run
in its order: 2 for bad arguments (a bad ``--limit`` or ``--domain``, ``--domain`` beside a
directory or an artifact, a single ``--rules`` file without ``--domain``, an output that is the
input or inside the rules); 5 for an input that cannot be opened or is compressed, or an output
that cannot be opened or written; 3 for rules that cannot be used; else 0, also when the reader of
the output goes away (``| head``). Unlike the tool, a line is held whole while it is read: for
input whose lines may be huge, use ``aasa classify``.
"""

from __future__ import annotations

import argparse
import errno
import itertools
import os
import re
import stat
import sys
from typing import BinaryIO, Iterator, List, Optional, Tuple

from . import AASAError, Rules, _Options

BATCH = 4096

# The tool's (Sources/aasa/Classify/InputStart.swift): read as lines, a compressed stream gives
# a "not valid UTF-8" record per line and no hint why. None of them holds a line feed, so the
# input's first line holds the whole signature.
_COMPRESSED = [(b"\x1f\x8b", "gzip", "zcat"), (b"\x28\xb5\x2f\xfd", "zstd", "zstdcat"), (b"\xfd7zXZ\x00", "xz", "xzcat")] + [
    # bzip2's "BZh", a block size digit and the magic of a first block or of an empty stream's
    # end: "BZh" alone starts ordinary text.
    (b"BZh" + bytes([level]) + magic, "bzip2", "bzcat")
    for level in b"123456789"
    for magic in (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")
]
_ARTIFACT_MAGIC = b"AASAFSA\0"
# A document every host name may serve: opened only to have the library judge --domain.
_PROBE_DOCUMENT = b'{"applinks": {"details": []}}'


class _Failed(Exception):
    """A run that stops with the tool's status, its message already printed."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _say(message: str) -> None:
    print(f"python -m aasa: {message}", file=sys.stderr)


def _blank(line: bytes) -> bool:
    # As the tool judges a line: leading blanks, then the terminator's CR, then trailing blanks.
    kept = line.lstrip(b" \t")
    if kept.endswith(b"\r"):
        kept = kept[:-1]
    return not kept.rstrip(b" \t")


def _lines(stream: BinaryIO, name: str) -> Iterator[bytes]:
    lines = iter(stream)
    first = True
    while True:
        try:
            line = next(lines)
        except StopIteration:
            return
        except OSError as error:
            _say(f"cannot read the input: {error.strerror or error}")
            raise _Failed(5) from None
        if first:
            for signature, format, command in _COMPRESSED:
                if line.startswith(signature):
                    _say(f"the input is {format}-compressed; decompress it first: {command} {'FILE' if name == '-' else name} | python -m aasa ...")
                    raise _Failed(5)
            if line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
                # A byte order mark alone is an empty input, as the tool reads it, not a line.
                if not line:
                    return
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


def _is_artifact(path: str) -> bool:
    try:
        # Non-blocking: a FIFO named as the rules must not hang the check.
        descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(descriptor).st_mode) and os.read(descriptor, len(_ARTIFACT_MAGIC)) == _ARTIFACT_MAGIC
    except OSError:
        return False
    finally:
        os.close(descriptor)


class _ReadFiles:
    """What the run reads, by identity, so that an output naming one of them under any name is
    refused before it is emptied (``--input in.txt --output in.txt`` destroyed the input), as
    the tool refuses it. A rules directory counts whole: its documents are read when their
    domains are first met, long after the output was opened."""

    def __init__(self) -> None:
        self.files: List[Tuple[int, int, str]] = []
        self.directories: List[Tuple[str, str]] = []

    def add(self, info: os.stat_result, name: str, path: Optional[str] = None) -> None:
        if stat.S_ISREG(info.st_mode):
            self.files.append((info.st_dev, info.st_ino, name))
        elif stat.S_ISDIR(info.st_mode) and path is not None:
            self.directories.append((os.path.realpath(path), name))

    def clash(self, path: str) -> Optional[str]:
        try:
            info: Optional[os.stat_result] = os.stat(path)
        except OSError:
            info = None
        for device, inode, name in self.files:
            if info is not None and (info.st_dev, info.st_ino) == (device, inode):
                return name
        landing = os.path.realpath(path if info is not None else (os.path.dirname(path) or "."))
        for directory, name in self.directories:
            if landing == directory or landing.startswith(directory.rstrip("/") + "/"):
                return f"inside {name} directory"
        if info is not None and stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            # A hard link elsewhere to a document: the same file under another name.
            for directory, name in self.directories:
                if self._holds(directory, info):
                    return f"a document of {name} directory (a hard link to it)"
        return None

    @staticmethod
    def _holds(directory: str, info: os.stat_result) -> bool:
        try:
            names = os.listdir(directory)
        except OSError:
            return False
        for entry in names:
            base = os.path.join(directory, entry)
            for candidate in (base, os.path.join(base, "apple-app-site-association"), os.path.join(base, ".well-known", "apple-app-site-association")):
                try:
                    found = os.stat(candidate)
                except OSError:
                    continue
                if (found.st_dev, found.st_ino) == (info.st_dev, info.st_ino):
                    return True
        return False


class _Output:
    """The records' destination. A named file is opened at once, so that a path that cannot be
    written is reported before the rules load, but emptied only when the run begins: a run
    refused before then leaves an existing file as it was, and removes one it created."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.created = False
        if path == "-":
            # Standard output closed (`>&-`): as the tool, a run that writes nothing succeeds
            # and the first record fails (status 5).
            self.stream: BinaryIO = sys.stdout.buffer if sys.stdout is not None else _ClosedOutput()
            return
        # A symbolic link to nothing would create a file elsewhere, and removing it on a refusal
        # would remove the link.
        if os.path.islink(path) and not os.path.exists(path):
            raise OSError(f"cannot write {path}: a symbolic link to nothing")
        existed = os.path.exists(path)
        if path.endswith("/") or os.path.isdir(path):
            raise OSError(f"cannot write {path}: Is a directory")
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o666)
        except OSError as error:
            raise OSError(f"cannot write {path}: {error.strerror}") from None
        self.created = not existed
        self.stream = os.fdopen(descriptor, "wb")

    def begin(self) -> None:
        if self.path != "-" and stat.S_ISREG(os.fstat(self.stream.fileno()).st_mode):
            self.stream.truncate(0)

    def discard(self) -> None:
        if self.path != "-":
            self.stream.close()
            if self.created:
                os.unlink(self.path)

    def write(self, data: bytes) -> None:
        try:
            self.stream.write(data)
        except BrokenPipeError:
            raise
        except OSError as error:
            self._failed(error)

    def finish(self) -> None:
        try:
            self.stream.flush()
            if self.path != "-":
                self.stream.close()
        except BrokenPipeError:
            raise
        except OSError as error:
            self._failed(error)

    def _failed(self, error: OSError) -> None:
        where = "the output" if self.path == "-" else self.path
        _say(f"cannot write {where}: {error.strerror or error}; the output is incomplete")
        self.abandon()
        raise _Failed(5)

    def abandon(self) -> None:
        """Drops what is still buffered: the interpreter would write it again on its way out,
        fail again, and print a traceback (and exit 120 for standard output)."""
        if isinstance(self.stream, _ClosedOutput):
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self.stream.fileno())
        os.close(devnull)


class _ClosedOutput:
    """Standard output that was closed before the process started: writing fails as writing to
    descriptor 1 would (EBADF); writing nothing does not."""

    def write(self, data: bytes) -> int:
        if data:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        return 0

    def flush(self) -> None:
        pass


def main(argv: Optional[List[str]] = None) -> int:
    try:
        return _main(argv)
    except _Failed as failed:
        return failed.status


class _Once(argparse.Action):
    """An option given twice is a usage error, as the tool's (argparse keeps the last one)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, "_given_" + self.dest, False):
            parser.error(f"{option_string} given twice")
        setattr(namespace, "_given_" + self.dest, True)
        setattr(namespace, self.dest, values)


def _main(argv: Optional[List[str]]) -> int:
    parser = argparse.ArgumentParser(prog="python -m aasa", description="aasa classify (NDJSON) through libaasa")
    parser.add_argument("--rules", action=_Once, help="a rules directory, or one document with --domain")
    parser.add_argument("--compiled", action=_Once, help="an artifact from aasa compile")
    parser.add_argument("--domain", action=_Once, help="the domain of a single --rules document")
    parser.add_argument("--input", action=_Once, default="-", help="URLs, one per line (default: standard input)")
    parser.add_argument("--output", "-o", action=_Once, default="-", help="records (default: standard output)")
    parser.add_argument("--blank-lines", action=_Once, choices=["skip", "record"], default="skip")
    parser.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)

    # Usage first, as the tool checks it: nothing is opened for a command line that is wrong.
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
    if args.domain is not None:
        # The library judges a domain as the tool does; one it refuses is a usage error too.
        try:
            Rules.from_document(_PROBE_DOCUMENT, args.domain).close()
        except (AASAError, ValueError) as error:
            parser.error(f"--domain: {error}")
        if args.compiled is not None:
            parser.error("--domain names a single --rules file's domain; an artifact names its own")
        if os.path.isdir(args.rules):
            parser.error("--domain names a single --rules file's domain; a directory's documents are named by their files")
    if args.rules is not None and _is_artifact(args.rules):
        parser.error(f"{args.rules} is a compiled artifact, not AASA documents: use --compiled {args.rules}")

    # Then every file named, before the rules load: a typo in --output must not wait for them.
    try:
        if args.input == "-" and sys.stdin is None:
            # Standard input closed (`<&-`): nothing to read, as the tool says of it.
            raise OSError(9, "Bad file descriptor")
        source = sys.stdin.buffer if args.input == "-" else open(args.input, "rb")
    except OSError as error:
        _say(f"cannot read the input {args.input}: {error.strerror or error}")
        return 5
    read = _ReadFiles()
    read.add(os.fstat(source.fileno()), "the input")
    for path, name in ((args.compiled, "the compiled artifact"), (args.rules, "the rules")):
        if path is not None and os.path.exists(path):
            read.add(os.stat(path), name, path)
    if args.output != "-":
        clash = read.clash(args.output)
        if clash is not None:
            parser.error(f"{args.output} is {clash}; refusing to write over it")
    try:
        target = _Output(args.output)
    except OSError as error:
        _say(str(error))
        return 5

    # Last the rules, as the tool loads them: only a file that is there needs --domain.
    try:
        if args.compiled:
            rules = Rules.from_artifact(args.compiled, limits)
        elif not os.path.exists(args.rules):
            raise OSError(f"cannot read the rules {args.rules}: No such file or directory")
        elif os.path.isdir(args.rules):
            rules = Rules.from_directory(args.rules, limits)
        elif args.domain is None:
            target.discard()
            parser.error("a single --rules file needs --domain (or give a directory of documents)")
        else:
            with open(args.rules, "rb") as file:
                rules = Rules.from_document(file.read(), args.domain, limits)
    except (AASAError, OSError) as error:
        _say(str(error))
        target.discard()
        return 3

    lines = _lines(source, args.input)
    try:
        # The first line tells a compressed input, refused before the output is emptied.
        first = next(lines, None)
    except _Failed:
        rules.close()
        target.discard()
        raise
    target.begin()
    try:
        with rules:
            batch: List[bytes] = []
            try:
                for line in itertools.chain([] if first is None else [first], lines):
                    if args.blank_lines == "skip" and _blank(line):
                        continue
                    batch.append(line)
                    if len(batch) == BATCH:
                        target.write(rules.classify_ndjson(batch))
                        batch = []
            except _Failed:
                # An input that fails midway: the records of the lines before it stay written.
                target.finish()
                raise
            if batch:
                target.write(rules.classify_ndjson(batch))
        target.finish()
    except BrokenPipeError:
        # The reader went away (`| head`): it has what it wanted, and the tool ends with 0 then.
        target.abandon()
    return 0


if __name__ == "__main__":
    sys.exit(main())
