"""Classify a Spark DataFrame's URLs with `aasa classify`, one record per row.

The `aasa` binary and the rules (a compiled artifact from `aasa compile`, or a rules directory)
are shipped to the executors with `SparkContext.addFile`; each partition is piped through one
`aasa classify` process. Every row gets its record, error records included:

    from aasa_spark import classify
    records = classify(df, "link", binary="/opt/aasa/aasa", compiled="/opt/aasa/rules.aasac")

How a row keeps its record: each partition's rows go to `aasa` as NDJSON (`{"url": …, "id": n}`,
`--input-format ndjson`, n the row's position in the partition) and come back in the same order,
one record per row, with n in the record's `"fields"`. The partition function pairs each row
with the record at its position and checks that n: a record that is missing or out of place
fails the task instead of landing on the wrong row. The record is then parsed on the JVM by
`from_json` with an explicit schema (`RECORD_SCHEMA`, Spark's JSON reader, `FAILFAST`). A join
by a generated row id would evaluate the input twice, and an input whose rows come out in
another order the second time (a round-robin `repartition`, say) would pair rows with the
wrong records.

Two engines do the work (`engine=`). *pipe*, the above: any executor that can run the `aasa`
binary. *inprocess*: the `aasa` Python package (`pip install ./python`, libaasa inside) on every
executor; each Arrow batch of a partition (`mapInArrow`) is classified by one call of its batch
API (`Rules.classify_ndjson`), the records the same as the pipe's. *auto* (the default) runs
one small probe task and takes *inprocess* when the package and pyarrow import on an
executor and the options are ones it knows (`--limit NAME=VALUE`, `--domain HOST`), else
*pipe*.

Spark holds strings as text, so invalid UTF-8 in the input was already replaced by U+FFFD
when Spark read it: `aasa` classifies the text Spark holds. A null or blank URL gets the
`"empty URL"` error record (and a null `url`).
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import threading
from collections import deque
from typing import Iterable, Iterator, Optional, Sequence

from pyspark import SparkFiles
from pyspark.sql import DataFrame, Row, functions as F
from pyspark.sql.types import ArrayType, LongType, StringType, StructField, StructType

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
        df: the input; any columns.
        url_col: the column holding the URLs (strings).
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
        columns other than `url_col`: one row per input row, in the input's partitions and order.

    Raises:
        ValueError: both or neither of `compiled` and `rules`, a column name clash, an unknown
            engine, or `"inprocess"` with an option it does not know.
        FileNotFoundError: `binary`, `compiled` or `rules` does not exist on the driver.
        AasaFailed: (inside the Spark job, so wrapped by Spark's own exception when an action
            runs) `aasa` exited with a non-zero status (a bad option, an unreadable artifact), or
            its output did not have one record per input line.
    """
    if (compiled is None) == (rules is None):
        raise ValueError("give exactly one of compiled= and rules=")
    clash = [c for c in df.columns if c != url_col and c in _RECORD_COLUMNS + (_RECORD,)]
    if clash:
        raise ValueError(f"the input's columns {clash} clash with the record's; rename them first")

    spark = df.sparkSession
    sc = spark.sparkContext
    if compiled is not None:
        rules_path, rules_option = _shippable(compiled, "the compiled artifact"), "--compiled"
    else:
        rules_path, rules_option = _shippable(rules, "the rules"), "--rules"
    settings = _inprocess_settings(extra_args)
    chosen = choose_engine(spark, engine, extra_args)
    if __file__.endswith(".py"):
        # The partition function below lives in this module: the executors import it.
        sc.addPyFile(os.path.abspath(__file__))
    # The executors find shipped files by name: the names travel, the driver's paths do not.
    sc.addFile(rules_path, recursive="://" in rules_path or os.path.isdir(rules_path))
    rules_name = _shipped_name(rules_path)
    paired_schema = StructType([StructField(_RECORD, StringType(), False), *df.schema.fields])
    if chosen == "inprocess":
        assert settings is not None  # choose_engine refused "inprocess" otherwise
        paired = _paired_inprocess(df, url_col, paired_schema, rules_option, rules_name, settings)
    else:
        paired = _paired_pipe(df, url_col, paired_schema, binary, rules_option, rules_name, extra_args)
    record = F.from_json(F.col(_RECORD), RECORD_SCHEMA, {"mode": "FAILFAST"})
    return paired.select(
        # A null URL went as "", for the plain "empty URL" record; its url stays null.
        F.when(F.col(url_col).isNull(), F.lit(None).cast("string")).otherwise(record["url"]).alias("url"),
        *[record[c].alias(c) for c in _RECORD_COLUMNS[1:]],
        *[F.col(c) for c in df.columns if c != url_col],
    )


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
        if not number.isdigit():
            return None
        limits[name] = int(number)
    return {"limits": limits, "domain": domain}


def _paired_pipe(df, url_col, paired_schema, binary, rules_option, rules_name, extra_args) -> DataFrame:
    """`(record, *row)` rows from one `aasa classify` process per partition."""
    spark = df.sparkSession
    binary_path = _shippable(shutil.which(binary) or binary, "the aasa binary")
    spark.sparkContext.addFile(binary_path)
    binary_name = _shipped_name(binary_path)
    options = ["--input-format", "ndjson", "--blank-lines", "record", "--jobs", "1", "--quiet", *extra_args]
    url_index = df.columns.index(url_col)

    def run_partition(rows: Iterable[Row]) -> Iterator[tuple]:
        rows = iter(rows)
        first = next(rows, None)
        if first is None:
            return iter(())
        # Resolved here, on the executor, where the shipped files are.
        arguments = [rules_option, SparkFiles.get(rules_name), *options]
        return _run_aasa(SparkFiles.get(binary_name), arguments, itertools.chain([first], rows), url_index)

    return spark.createDataFrame(df.rdd.mapPartitions(run_partition), paired_schema, verifySchema=False)


def _paired_inprocess(df, url_col, paired_schema, rules_option, rules_name, settings) -> DataFrame:
    """`(record, *row)` rows from the `aasa` package on the executors: per Arrow batch, one
    `Rules.classify_ndjson` call; the batch's own columns pass through untouched."""

    def run_batches(batches):
        import pyarrow

        rules = _executor_rules(rules_option, SparkFiles.get(rules_name), settings)
        for batch in batches:
            column = batch.column(url_col)
            # Spark's strings are its bytes, not always UTF-8 (`spark.read.text` keeps what the
            # file held); the pipe gets them decoded by the JVM, invalid bytes as U+FFFD, and
            # so do these.
            raw = column.cast(pyarrow.large_binary() if pyarrow.types.is_large_string(column.type) else pyarrow.binary())
            urls = [None if url is None else url.decode("utf-8", "replace") for url in raw.to_pylist()]
            records = _records_inprocess(rules, urls)
            yield pyarrow.RecordBatch.from_arrays(
                [pyarrow.array(records, pyarrow.string()), *batch.columns], names=[_RECORD, *batch.schema.names])

    return df.mapInArrow(run_batches, paired_schema)


#: Rules opened by this Python worker, by what they were opened from: a reused worker (Spark's
#: default) opens them once, not once per task.
_RULES_CACHE: dict = {}


def _executor_rules(option: str, path: str, settings: dict):
    import aasa

    key = (option, path, tuple(sorted(settings["limits"].items())), settings["domain"])
    rules = _RULES_CACHE.get(key)
    if rules is None:
        limits = settings["limits"] or None
        if option == "--compiled":
            rules = aasa.Rules.from_artifact(path, limits)
        elif settings["domain"] is not None:
            with open(path, "rb") as file:
                rules = aasa.Rules.from_document(file.read(), settings["domain"], limits)
        else:
            rules = aasa.Rules.from_directory(path, limits)
        _RULES_CACHE[key] = rules
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


def _run_aasa(binary: str, options: list[str], rows: Iterable[Row], url_index: int) -> Iterator[tuple]:
    """Pipes one partition through `aasa classify`; yields `(record, *row)` per row, in order.

    Written rather than `RDD.pipe(command, checkCode=True)` because the command must name the
    files where this executor has them (`SparkFiles.get` on the driver gives the driver's
    directory, which on a cluster is not the executor's), and because each record must be
    paired with its row. The exit status is checked as `checkCode=True` would, with `aasa`'s
    message in the exception.
    """
    # Spark's file fetch sets the executable bit, but a local-mode copy may not keep it.
    if not os.access(binary, os.X_OK):
        os.chmod(binary, os.stat(binary).st_mode | 0o111)
    process = subprocess.Popen(
        [binary, "classify", *options], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    # Rows written and not yet paired: as many as `aasa` and the pipes hold at once.
    pending: deque[tuple] = deque()
    failure: list[BaseException] = []
    stderr_tail: deque[bytes] = deque(maxlen=20)

    def write() -> None:
        try:
            for number, row in enumerate(rows):
                url = row[url_index]
                if url is None:
                    url = ""
                elif isinstance(url, (bytes, bytearray)):
                    url = bytes(url).decode("utf-8", "replace")
                elif not isinstance(url, str):
                    url = str(url)
                # Queued before it is written: its record may come back before the next write.
                pending.append(tuple(row))
                line = json.dumps({"url": url, "id": number}, ensure_ascii=False)
                process.stdin.write(line.encode("utf-8", "surrogatepass") + b"\n")
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
    try:
        for number, raw in enumerate(process.stdout):
            record = raw.decode("utf-8").rstrip("\n")
            if not pending:
                raise AasaFailed(f"aasa wrote a record for no input line: {record[:200]}")
            yield (_with_id(record, number), *pending.popleft())
        writer.join()
        status = process.wait()
        reader.join()
        finished = True
        if failure:
            raise failure[0]
        message = b"".join(stderr_tail).decode("utf-8", "replace").strip()
        if status != 0:
            raise AasaFailed(f"aasa classify exited with status {status}: {message}")
        if pending:
            raise AasaFailed(f"aasa classify wrote no record for {len(pending)} input lines: {message}")
    finally:
        if not finished:
            # The consumer stopped early (a limit, a failed task): no orphan process.
            process.kill()
            process.wait()


def _with_id(record: str, expected: int) -> str:
    """The record, checked to carry `expected` in its fields.

    A line `aasa` could not read as JSON (one over its line limit) gets an error record without
    fields; the id is known from the record's position, so it is added here.
    """
    suffix = f'"fields": {{"id":{expected}}}}}'
    if record.endswith(suffix):
        return record
    if '"fields": ' in record or not record.endswith("}"):
        raise AasaFailed(f"record out of place: expected the line with id {expected}, got {record[:200]}")
    return record[:-1] + ", " + suffix
