"""Classify a Spark DataFrame's URLs with `aasa classify`, one record per row.

The `aasa` binary and the rules (a compiled artifact from `aasa compile`, or a rules directory)
are shipped to the executors with `SparkContext.addFile`. Every row gets its record, error
records included:

    from aasa_spark import classify
    records = classify(df, "link", binary="/opt/aasa/aasa", compiled="/opt/aasa/rules.aasac")

How a row keeps its record and its other columns: each partition reaches Python as Arrow
batches (`mapInArrow`), and only the URL column is read there. The batch's columns go back
beside its records as the Arrow arrays Spark sent, never through Python objects, so a
timestamp, a string that is not UTF-8 or a decimal comes back as it went (a trip through
`Row` objects shifted timestamps by the executor's zone and replaced such strings). A type
Spark cannot hand to Arrow (a year-month interval, a user-defined type) is refused before the
job, naming the column.

Two engines make the records (`engine=`). *pipe*: one `aasa classify` process per partition,
fed NDJSON (`{"url": …, "id": n}`, `--input-format ndjson`, n the row's position in the
partition); each record comes back with n in its `"fields"` and is checked against the row it is
paired with, so a missing or misplaced record fails the task instead of landing on the wrong
row. *inprocess*: the `aasa` Python package (`pip install ./python`, libaasa inside) on every
executor, one call of its batch API (`Rules.classify_ndjson`) per Arrow batch, the records the
same as the pipe's. *auto* (the default) runs one small probe task and takes *inprocess* when
the package imports on an executor and the options are ones it knows (`--limit NAME=VALUE`,
`--domain HOST`), else *pipe*. Both need pyarrow and pandas on the driver and the executors, as
Spark's Arrow functions do. The records are parsed on the JVM by `from_json` with an explicit
schema (`RECORD_SCHEMA`, `FAILFAST`).

The URL column is a string (or binary) column. Spark keeps a string's bytes as it read them,
and they need not be UTF-8 (`spark.read.text` of a log): both engines read a URL's bytes as
Python's UTF-8 decoder does, each invalid sequence as U+FFFD, and classify that text. A null or
blank URL gets the `"empty URL"` error record (and a null `url`).
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import threading
from collections import deque
from typing import Iterable, Iterator, Optional, Sequence, Tuple

from pyspark import SparkFiles
from pyspark.sql import DataFrame, functions as F
from pyspark.sql.types import ArrayType, BinaryType, LongType, NullType, StringType, StructField, StructType

__all__ = ["classify", "choose_engine", "RECORD_SCHEMA", "AasaFailed", "ENGINES"]

#: What `classify(engine=...)` accepts.
ENGINES = ("auto", "inprocess", "pipe")

#: The NDJSON record of `aasa classify`, as this module reads it back (`fields` carries the id).
RECORD_SCHEMA = StructType(
    [
        StructField("url", StringType()),
        StructField("domain", StringType()),
        StructField("apps", ArrayType(StringType())),
        StructField(
            "decisions",
            ArrayType(
                StructType(
                    [
                        StructField("app", StringType()),
                        StructField("decision", StringType()),
                        StructField("entry", LongType()),
                        StructField("rule", LongType()),
                    ]
                )
            ),
        ),
        StructField("error", StringType()),
        StructField("fields", StructType([StructField("id", LongType())])),
    ]
)

_RECORD_COLUMNS = ("url", "domain", "apps", "decisions", "error")
_RECORD = "__aasa_record"


class AasaFailed(RuntimeError):
    """`aasa classify` exited with a non-zero status, or broke the one-record-per-line contract."""


def classify(
    df: DataFrame,
    url_col: str,
    *,
    binary: str = "aasa",
    compiled: Optional[str] = None,
    rules: Optional[str] = None,
    extra_args: Sequence[str] = (),
    engine: str = "auto",
) -> DataFrame:
    """Classifies the URLs of `df[url_col]` and returns one row per input row.

    Args:
        df: the input; any columns of a type Spark hands to Arrow (not intervals of years and
            months, nor user-defined types), any names.
        url_col: the column holding the URLs: strings (or bytes, or nulls only).
        binary: the `aasa` executable on the driver (a path, or a name found on `PATH`).
        compiled: a compiled artifact from `aasa compile` (`classify --compiled`).
        rules: a rules directory (`classify --rules`), shipped whole: a local path with a local
            master only (Spark ships no local directory to a cluster), else an `hdfs://` or
            `s3a://` one. A single document needs `extra_args=["--domain", HOST]`.
            Give exactly one of `compiled` and `rules`.
        extra_args: further `aasa classify` options (e.g. `["--limit", "url-work=100000"]`).
            Each task runs one single-threaded `aasa`: Spark's partitions are the parallelism.
        engine: `"pipe"` (the `aasa` binary per partition), `"inprocess"` (the `aasa` Python
            package on the executors, one library call per Arrow batch) or `"auto"` (in-process
            when `choose_engine` finds the package on an executor, else the pipe). Both give
            the same rows, except near and past the line limit (`line-bytes`, 64 KiB): the
            pipe counts a URL with the JSON line around it (a URL a few dozen bytes under the
            limit is decided in-process and an error through the pipe), and an over-long
            line's error record shows that line.

    Returns:
        The columns url, domain, apps, decisions, error (as `RECORD_SCHEMA`), then the input's
        columns other than `url_col`, their values untouched: one row per input row, in the
        input's partitions and order. A document of a `rules` directory that cannot be used is
        named in its URLs' error records by the path given here, as `aasa classify --rules`
        names it, not by the executor's copy.

    Raises:
        TypeError: `url_col` is not a column's name (a str), or `extra_args` is one str.
        ValueError: both or neither of `compiled` and `rules`; no column `url_col`, or one that
            does not hold strings; a column name clash (compared as Spark compares names:
            without case unless `spark.sql.caseSensitive`); a column of a type Spark cannot
            hand to Arrow; an unknown engine; `"inprocess"` with an option it does not know;
            `--domain` with `compiled` (an artifact names its own domains) or with a local rules
            directory, or a local single rules file without `--domain`.
        FileNotFoundError: `binary`, `compiled` or `rules` does not exist on the driver.
        AasaFailed: (inside the Spark job, so wrapped by Spark's own exception when an action
            runs) `aasa` exited with a non-zero status (a bad option, an unreadable artifact), or
            its output did not have one record per input line.
    """
    # Refused by type, before either is iterated or compared: a Column for url_col failed in
    # `in df.columns` with "Cannot convert column into bool", and a str of options was passed
    # on character by character ("-", "-", "l", …), failing every task with a usage error.
    if not isinstance(url_col, str):
        raise TypeError(f"url_col is the URL column's name (a str), not {type(url_col).__name__}")
    if isinstance(extra_args, (str, bytes)):
        raise TypeError(f"extra_args is a list of arguments ({extra_args.split()!r}), not one str")
    if (compiled is None) == (rules is None):
        raise ValueError("give exactly one of compiled= and rules=")
    if url_col not in df.columns:
        raise ValueError(f"no column {url_col!r} among {df.columns}")
    url_type = df.schema[url_col].dataType
    if not isinstance(url_type, (StringType, BinaryType, NullType)):
        raise ValueError(
            f"the URL column {url_col!r} holds {url_type.simpleString()}, not strings: cast it first "
            f"(df.withColumn({url_col!r}, F.col({url_col!r}).cast('string')))")
    spark = df.sparkSession
    case_sensitive = str(spark.conf.get("spark.sql.caseSensitive", "false")).lower() == "true"
    fold = (lambda name: name) if case_sensitive else str.lower
    reserved = {fold(name) for name in _RECORD_COLUMNS + (_RECORD,)}
    clash = [c for c in df.columns if c != url_col and fold(c) in reserved]
    if clash:
        raise ValueError(f"the input's columns {clash} clash with the record's; rename them first")
    unsupported = _without_arrow_type(df.schema, spark.conf.get("spark.sql.session.timeZone"))
    if unsupported:
        raise ValueError(
            f"the columns {unsupported} have types Spark cannot hand to Python through Arrow; "
            "drop them or cast them (to string, say) first")
    if compiled is not None and _names_domain(extra_args):
        raise ValueError("--domain names a single --rules file's domain; an artifact names its own")
    if rules is not None and "://" not in rules and os.path.exists(rules):
        # Judged here as `aasa classify` judges it: otherwise every task failed, each saying why
        # only in its own traceback (the pipe's status 2; in process "Is a directory", or
        # "cannot list the rules directory" for a single file).
        if os.path.isdir(rules) and _names_domain(extra_args):
            raise ValueError("--domain names a single --rules file's domain; a directory's documents are named by their files")
        if not os.path.isdir(rules) and not _names_domain(extra_args):
            raise ValueError("a single --rules file needs --domain (extra_args=['--domain', HOST]), or give a directory of documents")

    sc = spark.sparkContext
    if compiled is not None:
        rules_path, rules_option = _shippable(compiled, "the compiled artifact"), "--compiled"
    else:
        rules_path, rules_option = _shippable(rules, "the rules"), "--rules"
    settings = _inprocess_settings(extra_args)
    chosen = choose_engine(spark, engine, extra_args)
    if __file__.endswith(".py"):
        # The partition functions below live in this module: the executors import it.
        sc.addPyFile(os.path.abspath(__file__))
    # The executors find shipped files by name: the names travel, the driver's paths do not.
    sc.addFile(rules_path, recursive="://" in rules_path or os.path.isdir(rules_path))
    rules_name = _shipped_name(rules_path)
    # A directory's documents are named in error records as `aasa classify --rules` names them
    # on the driver, not by where the executor keeps its copy.
    shown = None if rules is None else rules.rstrip("/") or rules
    # The columns travel under names of their own (`_aasa_0`, …) and get theirs back at the
    # end: Spark's own mapInArrow cannot name a column holding a backquote, nor tell apart two
    # of the same name.
    fields = df.schema.fields
    url_index = df.columns.index(url_col)
    travelling = df.toDF(*[_travelling(n) for n in range(len(fields))])
    paired_schema = StructType(
        [StructField(_RECORD, StringType(), False), *[StructField(_travelling(n), f.dataType, f.nullable) for n, f in enumerate(fields)]])
    if chosen == "inprocess":
        assert settings is not None  # choose_engine refused "inprocess" otherwise
        paired = _paired_inprocess(travelling, url_index, paired_schema, rules_option, rules_name, shown, settings)
    else:
        paired = _paired_pipe(travelling, url_index, paired_schema, binary, rules_option, rules_name, shown, extra_args)
    record = F.from_json(F.col(_RECORD), RECORD_SCHEMA, {"mode": "FAILFAST"})
    return paired.select(
        # A null URL went as "", for the plain "empty URL" record; its url stays null.
        F.when(F.col(_travelling(url_index)).isNull(), F.lit(None).cast("string")).otherwise(record["url"]).alias("url"),
        *[record[c].alias(c) for c in _RECORD_COLUMNS[1:]],
        *[F.col(_travelling(n)).alias(f.name, metadata=f.metadata) for n, f in enumerate(fields) if n != url_index],
    )


def _travelling(position: int) -> str:
    return f"_aasa_{position}"


def _without_arrow_type(schema: StructType, timezone: str) -> list:
    """The names of the columns Spark cannot convert to Arrow (empty when pyspark's converter
    cannot be imported here: the job then says so itself).

    pyspark 4's converter asserts a time zone for a timestamp, and 3.5's takes no such argument:
    the session's zone goes where the converter names the parameter. Without it, under pyspark
    4, every timestamp column (alone or in an array, map or struct) was named here as one Spark
    cannot hand over."""
    try:
        from pyspark.sql.pandas.types import to_arrow_type
    except ImportError:
        return []
    import inspect

    options = {"timezone": timezone} if "timezone" in inspect.signature(to_arrow_type).parameters else {}
    refused = []
    for field in schema.fields:
        try:
            to_arrow_type(field.dataType, **options)
        except Exception:
            refused.append(field.name)
    return refused


def _names_domain(extra_args: Sequence[str]) -> bool:
    return any(argument == "--domain" or argument.startswith("--domain=") for argument in extra_args)


def choose_engine(spark, engine: str = "auto", extra_args: Sequence[str] = ()) -> str:
    """The engine `classify` uses for `engine` (`"inprocess"` or `"pipe"`).

    `"auto"` runs one probe task: `"inprocess"` when `aasa` (its library loaded) and pyarrow
    import on the executor that runs it and `extra_args` holds only options the in-process
    path knows, else `"pipe"`. Executors of one application share one Python environment, so
    one probe speaks for all of them.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    if engine == "pipe":
        return "pipe"
    known = _inprocess_settings(extra_args) is not None
    if engine == "inprocess":
        if not known:
            raise ValueError(f"engine='inprocess' knows only --limit NAME=VALUE and --domain HOST, not {list(extra_args)}")
        return "inprocess"
    return "inprocess" if known and _probe(spark, _PROBED_MODULES) else "pipe"


#: What an executor must import for the in-process path (a test swaps in a missing name).
_PROBED_MODULES = ("aasa", "pyarrow", "pandas")


def _probe(spark, modules: Sequence[str]) -> bool:
    def importable(_: Iterable) -> Iterator[bool]:
        import importlib

        try:
            for name in modules:
                importlib.import_module(name)
        except Exception:  # ImportError, or a library that does not load (OSError)
            yield False
        else:
            yield True

    return all(spark.sparkContext.parallelize([0], 1).mapPartitions(importable).collect())


def _inprocess_settings(extra_args: Sequence[str]) -> Optional[dict]:
    """`extra_args` as `Rules` arguments (`limits`, `domain`), or None when it holds an option
    the in-process path does not know."""
    limits: dict = {}
    domain = None
    arguments = list(extra_args)
    while arguments:
        option = arguments.pop(0)
        if option in ("--limit", "--domain") and arguments:
            value = arguments.pop(0)
        elif option.startswith(("--limit=", "--domain=")):
            option, value = option.split("=", 1)
        else:
            return None
        if option == "--domain":
            domain = value
            continue
        name, _, number = value.partition("=")
        # As `aasa --limit` reads a value: a whole number, K, M or G for 2^10, 2^20, 2^30.
        shift = {"k": 10, "m": 20, "g": 30}.get(number[-1:].lower(), 0)
        digits = number[:-1] if shift else number
        if not (digits.isascii() and digits.isdigit()):
            return None
        limits[name] = int(digits) << shift
    return {"limits": limits, "domain": domain}


def _paired_pipe(df, url_index, paired_schema, binary, rules_option, rules_name, shown, extra_args) -> DataFrame:
    """`(record, *columns)` batches from one `aasa classify` process per partition."""
    spark = df.sparkSession
    binary_path = _shippable(shutil.which(binary) or binary, "the aasa binary")
    spark.sparkContext.addFile(binary_path)
    binary_name = _shipped_name(binary_path)
    options = ["--input-format", "ndjson", "--blank-lines", "record", "--jobs", "1", "--quiet", *extra_args]

    def run_partition(batches):
        batches = iter(batches)
        first = next(batches, None)
        if first is None:
            return
        # Resolved here, on the executor, where the shipped files are.
        shipped = SparkFiles.get(rules_name)
        arguments = [rules_option, shipped, *options]
        paths = None if shown is None else (shipped, shown)
        yield from _run_aasa(SparkFiles.get(binary_name), arguments, itertools.chain([first], batches), url_index, paths)

    return df.mapInArrow(run_partition, paired_schema)


def _paired_inprocess(df, url_index, paired_schema, rules_option, rules_name, shown, settings) -> DataFrame:
    """`(record, *columns)` batches from the `aasa` package on the executors: per Arrow batch,
    one `Rules.classify_ndjson` call."""

    def run_batches(batches):
        shipped = SparkFiles.get(rules_name)
        rules = _executor_rules(rules_option, shipped, settings)
        paths = None if shown is None else (shipped, shown)
        for batch in batches:
            yield _paired(_records_inprocess(rules, _urls(batch, url_index)), batch, paths)

    return df.mapInArrow(run_batches, paired_schema)


def _urls(batch, url_index: int) -> list:
    """The batch's URLs as text (None for a null), each invalid UTF-8 sequence read as U+FFFD by
    Python's decoder: the same text for both engines."""
    import pyarrow

    column = batch.column(url_index)
    if pyarrow.types.is_null(column.type):
        return [None] * len(column)
    # Spark's strings are its bytes, not always UTF-8: read as bytes, decoded here.
    if pyarrow.types.is_large_string(column.type):
        column = column.cast(pyarrow.large_binary())
    elif pyarrow.types.is_string(column.type):
        column = column.cast(pyarrow.binary())
    return [None if url is None else url.decode("utf-8", "replace") for url in column.to_pylist()]


def _paired(records: list, batch, paths: Optional[Tuple[str, str]] = None):
    """The records beside the batch's own columns, which pass through as Spark sent them.

    `paths`: the rules directory where this executor has it and as the caller named it. A
    document that could not be loaded is named in its URLs' error records by the caller's path,
    as `aasa classify --rules` names it: by the executor's copy, a Spark temporary directory,
    the same error read differently on every executor and in every run."""
    import pyarrow

    if paths is not None and paths[0] != paths[1]:
        loaded = '"error": "the document could not be loaded: '
        shipped, given = (loaded + json.dumps(path, ensure_ascii=False)[1:-1] + "/" for path in paths)
        records = [record.replace(shipped, given, 1) if shipped in record else record for record in records]

    return pyarrow.RecordBatch.from_arrays(
        [pyarrow.array(records, pyarrow.string()), *batch.columns], names=[_RECORD, *batch.schema.names])


#: Rules opened by this Python worker, by what they were opened from: a reused worker (Spark's
#: default) opens them once, not once per task.
_RULES_CACHE: dict = {}


def _executor_rules(option: str, path: str, settings: dict):
    import aasa

    # The file's identity is part of the key: a job that ships a new artifact under the same
    # name (`spark.files.overwrite`) must not be answered by the rules read before.
    info = os.stat(path)
    identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    where = (option, path, tuple(sorted(settings["limits"].items())), settings["domain"])
    rules = _RULES_CACHE.get(where + (identity,))
    if rules is None:
        limits = settings["limits"] or None
        if option == "--compiled":
            rules = aasa.Rules.from_artifact(path, limits)
        elif settings["domain"] is not None:
            with open(path, "rb") as file:
                rules = aasa.Rules.from_document(file.read(), settings["domain"], limits)
        else:
            rules = aasa.Rules.from_directory(path, limits)
        for stale in [key for key in _RULES_CACHE if key[:-1] == where]:
            del _RULES_CACHE[stale]
        _RULES_CACHE[where + (identity,)] = rules
    return rules


# The pipe sends each URL as an NDJSON record (`--input-format ndjson`); libaasa takes each URL
# as a line. Two URLs get a different error for that: a blank one ("empty line" for a line,
# "empty URL" for a record's url) and one starting with a brace (for a line, the hint to read
# JSON lines; in a record, the URL splitter's "no scheme", as no scheme starts with a brace).
_LINE_ERRORS = (
    ('"error": "empty line"}', '"error": "empty URL"}'),
    ('"error": "not a URL: the line is a JSON object (read JSON lines with --input-format ndjson)"}',
     '"error": "no scheme: a URL must start with a scheme such as \\"https:\\""}'),
)


def _records_inprocess(rules, urls: list) -> list:
    """The pipe's record for each URL (None as ""), from one library call."""
    # A line's last CR is its terminator's, a record's is part of its url: a space after it
    # keeps it (the space is then trimmed as a record's url is), so both read the same URL.
    given = ["" if url is None else url + " " if url.endswith("\r") else url for url in urls]
    lines = rules.classify_ndjson(given).decode("utf-8").split("\n")
    lines.pop()  # after the last record's line feed
    if len(lines) != len(given):
        raise AasaFailed(f"libaasa gave {len(lines)} records for {len(given)} URLs")
    for index, line in enumerate(lines):
        for line_error, record_error in _LINE_ERRORS:
            if line.endswith(line_error):
                lines[index] = line[: -len(line_error)] + record_error
    return lines


def _shippable(path: Optional[str], what: str) -> str:
    """A local path made absolute, checked to exist; a URI (hdfs://, s3a://) as given, for
    `addFile` to fetch."""
    if path is not None and "://" in path:
        return path
    if path is None or not os.path.exists(path):
        raise FileNotFoundError(f"{what} not found: {path}")
    return os.path.abspath(path)


def _shipped_name(path: str) -> str:
    return os.path.basename(path.rstrip("/"))


def _run_aasa(binary: str, options: list[str], batches: Iterable, url_index: int, paths: Optional[Tuple[str, str]] = None) -> Iterator:
    """Pipes one partition's Arrow batches through `aasa classify`; yields each batch with its
    records beside it, in order.

    Written rather than `RDD.pipe(command, checkCode=True)` because the command must name the
    files where this executor has them (`SparkFiles.get` on the driver gives the driver's
    directory, which on a cluster is not the executor's), and because each record must be
    paired with its row. The exit status is checked as `checkCode=True` would, with `aasa`'s
    message in the exception. `paths` as `_paired` takes them.
    """
    # Spark's file fetch sets the executable bit, but a local-mode copy may not keep it.
    if not os.access(binary, os.X_OK):
        os.chmod(binary, os.stat(binary).st_mode | 0o111)
    process = subprocess.Popen(
        [binary, "classify", *options], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    # Batches written and not yet given all their records: as many as `aasa` and the pipes
    # hold at once.
    pending: deque = deque()
    failure: list[BaseException] = []
    stderr_tail: deque[bytes] = deque(maxlen=20)

    def write() -> None:
        try:
            number = 0
            for batch in batches:
                urls = _urls(batch, url_index)
                # Queued before its lines are written: their records may come back before the
                # next write.
                pending.append(batch)
                for url in urls:
                    line = json.dumps({"url": "" if url is None else url, "id": number}, ensure_ascii=False)
                    process.stdin.write(line.encode("utf-8") + b"\n")
                    number += 1
        except BrokenPipeError:
            pass  # aasa exited early; its status says why.
        except BaseException as error:  # re-raised by the reading side
            failure.append(error)
        finally:
            try:
                process.stdin.close()
            except BrokenPipeError:
                pass

    def drain_stderr() -> None:
        for line in process.stderr:
            stderr_tail.append(line)

    writer = threading.Thread(target=write, daemon=True)
    reader = threading.Thread(target=drain_stderr, daemon=True)
    writer.start()
    reader.start()
    finished = False
    records: list[str] = []
    try:
        number = 0
        for raw in process.stdout:
            # A batch without rows has no record to wait for.
            while pending and len(records) == pending[0].num_rows:
                yield _paired(records, pending.popleft(), paths)
                records = []
            record = raw.decode("utf-8").rstrip("\n")
            if not pending:
                raise AasaFailed(f"aasa wrote a record for no input line: {record[:200]}")
            records.append(_with_id(record, number))
            number += 1
            if len(records) == pending[0].num_rows:
                yield _paired(records, pending.popleft(), paths)
                records = []
        writer.join()
        status = process.wait()
        reader.join()
        finished = True
        if failure:
            raise failure[0]
        message = b"".join(stderr_tail).decode("utf-8", "replace").strip()
        if status != 0:
            raise AasaFailed(f"aasa classify exited with status {status}: {message}")
        while pending and len(records) == pending[0].num_rows:
            yield _paired(records, pending.popleft(), paths)
            records = []
        if pending:
            missing = sum(batch.num_rows for batch in pending) - len(records)
            raise AasaFailed(f"aasa classify wrote no record for {missing} input lines: {message}")
    finally:
        if not finished:
            # The consumer stopped early (a limit, a failed task): no orphan process.
            process.kill()
            process.wait()


def _with_id(record: str, expected: int) -> str:
    """The record, checked to carry `expected` in its fields.

    A line `aasa` could not read as JSON (one over its line limit) gets an error record with
    empty fields (`"fields": {}`, as every unreadable line of an NDJSON input does); the id is
    known from the record's position, so it is put there. (Taken for a record out of place,
    such a record failed the task: any URL over 64 KiB failed its whole job through the pipe.)
    """
    suffix = f'"fields": {{"id":{expected}}}}}'
    if record.endswith(suffix):
        return record
    # Inside a JSON string every quote is escaped: `"fields": ` is only ever the record's key.
    unread = '"fields": {}}'
    if record.endswith(unread) and record.count('"fields": ') == 1:
        return record[: -len(unread)] + suffix
    raise AasaFailed(f"record out of place: expected the line with id {expected}, got {record[:200]}")
