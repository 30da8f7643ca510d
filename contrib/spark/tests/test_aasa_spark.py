"""`aasa_spark.classify` on a local Spark (`local[2]`), checked against plain `aasa classify` runs.

The rules are a small directory written here, and, when `../shared` is there, the real
documents of `../shared/corpus/domains` with a sample of `../shared/corpus/urls`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest
from pyspark.sql import functions as F

import aasa_spark
from aasa_spark import RECORD_SCHEMA, choose_engine, classify
from conftest import REPOSITORY

SHARED = REPOSITORY.parent / "shared" / "corpus"
RECORD_KEYS = ("url", "domain", "apps", "decisions", "error")

SHOP_DOCUMENT = {
    "applinks": {
        "details": [
            {
                "appIDs": ["ABCDE12345.com.example.shop", "ABCDE12345.com.example.shop.beta"],
                "components": [
                    {"/": "/products/secret", "exclude": True},
                    {"/": "/products/*"},
                    {"/": "/cart", "?": {"coupon": "?*"}},
                ],
            }
        ]
    }
}
NEWS_DOCUMENT = {
    "applinks": {"apps": [], "details": [{"appID": "NEWS123456.org.example.news", "paths": ["NOT /news/draft/*", "/news/*"]}]}
}

SYNTHETIC_URLS = [
    "https://shop.example/products/42",
    "https://shop.example/products/secret",
    "https://shop.example/cart?coupon=SPRING",
    "https://shop.example/cart",
    "https://news.example/news/today",
    "https://news.example/news/draft/x",
    "https://nobody.example/products/42",
    "  https://shop.example/products/padded\t",
    "https://shop.example/produits/cr%C3%A8me",
    "https://shop.example/products/crème",
    "not a url",
    "ftp://shop.example/products/1",
    'https://shop.example/products/"quoted"\\',
    '{"url": "https://shop.example/products/1"}',
    "https://shop.example/" + "p/" * 5000,
]


def write_small_rules(folder: Path) -> Path:
    """Both directory layouts: DOMAIN.json and DOMAIN/.well-known/apple-app-site-association."""
    folder.mkdir()
    (folder / "shop.example.json").write_text(json.dumps(SHOP_DOCUMENT))
    well_known = folder / "news.example" / ".well-known"
    well_known.mkdir(parents=True)
    (well_known / "apple-app-site-association").write_text(json.dumps(NEWS_DOCUMENT))
    return folder


@pytest.fixture(scope="module")
def small_rules(tmp_path_factory) -> Path:
    return write_small_rules(tmp_path_factory.mktemp("aasa") / "rules-small")


@pytest.fixture(scope="module")
def small_compiled(aasa, small_rules, tmp_path_factory) -> Path:
    return compile_rules(aasa, small_rules, tmp_path_factory.mktemp("aasa") / "small.aasac")


def compile_rules(aasa: str, rules: Path, output: Path) -> Path:
    subprocess.run([aasa, "compile", str(rules), "-o", str(output)], check=True, capture_output=True)
    return output


def plain_records(aasa: str, rules: Path, lines: list[str], tmp_path: Path) -> list[dict]:
    """What `aasa classify --rules` prints for `lines`, one record per line, parsed."""
    path = tmp_path / "plain-input.txt"
    path.write_bytes(b"".join(line.encode("utf-8") + b"\n" for line in lines))
    run = subprocess.run(
        [aasa, "classify", "--rules", str(rules), "--input", str(path), "--blank-lines", "record", "--quiet"],
        capture_output=True,
        check=True,
    )
    records = [json.loads(line) for line in run.stdout.decode("utf-8").splitlines()]
    assert len(records) == len(lines)
    return records


def record_of(row) -> dict:
    """A Spark row (or its `asDict`) as `aasa`'s NDJSON record (absent keys are None)."""
    decisions = row["decisions"]
    if decisions is not None:
        decisions = [{k: v for k, v in (d if isinstance(d, dict) else d.asDict()).items() if v is not None} for d in decisions]
    return {"url": row["url"], "domain": row["domain"], "apps": row["apps"], "decisions": decisions, "error": row["error"]}


def normalised(record: dict) -> dict:
    return {key: record.get(key) for key in RECORD_KEYS}


def is_plain_line(url: Optional[str]) -> bool:
    """A URL that a plain run reads as it is: one line (a DataFrame value may hold newlines),
    and not a JSON object (which, on line input only, gets a hint to use NDJSON input)."""
    if url is None or "\n" in url or "\r" in url:
        return False
    trimmed = url.strip(" \t")
    return trimmed != "" and not trimmed.startswith("{")


def check_against_plain_run(spark, aasa, plain_rules: Path, urls: list[Optional[str]], tmp_path: Path, **where) -> None:
    """Every row comes back once, with its own columns and the record a plain run gives its URL."""
    rows = [(n, url, f"tag-{n}") for n, url in enumerate(urls)]
    df = spark.createDataFrame(rows, "n long, link string, tag string").repartition(3)
    result = classify(df, "link", binary=aasa, **where)
    check_rows(result, aasa, plain_rules, urls, tmp_path)


def check_rows(result, aasa, plain_rules: Path, urls: list[Optional[str]], tmp_path: Path) -> None:
    assert result.columns == ["url", "domain", "apps", "decisions", "error", "n", "tag"]
    out = result.collect()
    assert len(out) == len(urls), "rows in = rows out"
    by_number = {row["n"]: row for row in out}
    assert sorted(by_number) == list(range(len(urls))), "each input row exactly once"
    for n, row in by_number.items():
        assert row["tag"] == f"tag-{n}"

    plain_lines = [url for url in urls if is_plain_line(url)]
    expected = iter(plain_records(aasa, plain_rules, plain_lines, tmp_path))
    for n, url in enumerate(urls):
        row = by_number[n]
        if is_plain_line(url):
            assert record_of(row) == normalised(next(expected)), f"row {n}: {url[:100]!r}"
        elif url is None or url.strip(" \t") == "":
            assert row["error"] == "empty URL" and row["url"] == (None if url is None else ""), row
        else:
            # No plain line to compare with; the record must still be this row's.
            assert row["url"] == url.strip(" \t"), row


@pytest.mark.parametrize("engine", ["pipe", "inprocess"])
def test_compiled_artifact_gives_the_records_of_a_plain_run(spark, aasa, small_rules, small_compiled, tmp_path, engine):
    urls = SYNTHETIC_URLS + [None, "", "   ", "https://shop.example/products/a\nb"] + SYNTHETIC_URLS[:3]
    check_against_plain_run(spark, aasa, small_rules, urls, tmp_path, compiled=str(small_compiled), engine=engine)


@pytest.mark.parametrize("engine", ["pipe", "inprocess"])
def test_rules_directory_is_shipped_whole(spark, aasa, small_rules, tmp_path, engine):
    check_against_plain_run(spark, aasa, small_rules, SYNTHETIC_URLS + [None, ""], tmp_path, rules=str(small_rules), engine=engine)


def rows_by_number(result) -> dict:
    return {row["n"]: row.asDict(recursive=True) for row in result.collect()}


def test_inprocess_gives_the_rows_of_the_pipe(spark, aasa, small_rules, small_compiled, tmp_path):
    """The in-process engine (the aasa package on the executors, mapInArrow) against the pipe,
    on local[2]: the same rows, every column, for every URL, including those a line and an
    NDJSON record treat differently (blank, a leading brace, a last CR) and with limits and
    --domain."""
    urls = SYNTHETIC_URLS + [None, "", "   ", "\t", "https://shop.example/products/a\nb", "{", " {x", "https://shop.example/{",
                             "https://shop.example/products/a\r", "\r", " https://shop.example/products/a \r"]
    if (SHARED / "domains").is_dir():
        urls += corpus_sample(3000)
    df = spark.createDataFrame([(n, url, f"tag-{n}") for n, url in enumerate(urls)], "n long, link string, tag string")
    df = df.repartition(3)
    single = tmp_path / "shop.json"
    single.write_text(json.dumps(SHOP_DOCUMENT))
    cases = [
        {"compiled": str(small_compiled)},
        {"rules": str(small_rules)},
        {"rules": str(small_rules), "extra_args": ["--limit", "url-bytes=40", "--limit=url-work=100000"]},
        {"rules": str(small_rules), "extra_args": ["--limit", "url-bytes=1K"]},
        {"rules": str(single), "extra_args": ["--domain", "shop.example"]},
    ]
    if (SHARED / "domains").is_dir():
        cases.append({"compiled": str(compile_rules(aasa, SHARED / "domains", tmp_path / "corpus.aasac"))})
    for where in cases:
        pipe = rows_by_number(classify(df, "link", binary=aasa, engine="pipe", **where))
        inprocess = rows_by_number(classify(df, "link", engine="inprocess", **where))
        assert sorted(pipe) == list(range(len(urls)))
        for n in pipe:
            assert inprocess[n] == pipe[n], (where, urls[n])
        assert any(row["apps"] for row in pipe.values()) and any(row["error"] for row in pipe.values())


def test_auto_picks_inprocess_when_the_package_imports_on_the_executors(spark, monkeypatch):
    assert choose_engine(spark) == "inprocess"
    assert choose_engine(spark, "auto", ["--limit", "url-bytes=40"]) == "inprocess"
    assert choose_engine(spark, "auto", ["--limit", "url-bytes=1K", "--limit=url-work=2M"]) == "inprocess"
    # An option only the binary knows, or an executor without the package: the pipe.
    assert choose_engine(spark, "auto", ["--no-such-option"]) == "pipe"
    monkeypatch.setattr(aasa_spark, "_PROBED_MODULES", ("aasa", "aasa_not_installed_anywhere"))
    assert choose_engine(spark) == "pipe"
    assert choose_engine(spark, "inprocess") == "inprocess"
    with pytest.raises(ValueError, match="inprocess"):
        choose_engine(spark, "inprocess", ["--no-such-option"])
    with pytest.raises(ValueError, match="engine"):
        choose_engine(spark, "threads")


def corpus_sample(count: int) -> list[str]:
    path = SHARED / "urls" / "combined_http_dedup.txt"
    lines = path.read_bytes().split(b"\n")
    step = max(1, len(lines) // count)
    return [line.decode("utf-8", "replace") for line in lines[::step][:count]]


@pytest.mark.skipif(not (SHARED / "domains").is_dir(), reason="../shared/corpus is not there")
def test_real_corpus_sample_gives_the_records_of_a_plain_run(spark, aasa, tmp_path):
    rules = SHARED / "domains"
    compiled = compile_rules(aasa, rules, tmp_path / "corpus.aasac")
    urls = corpus_sample(3000) + SYNTHETIC_URLS + ["", None]
    check_against_plain_run(spark, aasa, rules, urls, tmp_path, compiled=str(compiled))
    check_against_plain_run(spark, aasa, rules, urls, tmp_path, rules=str(rules))


def test_blank_and_invalid_lines_of_a_text_file_stay_aligned(spark, aasa, small_rules, small_compiled, tmp_path):
    lines = [
        b"https://shop.example/products/1",
        b"",
        b"   ",
        b"https://shop.example/products/caf\xe9",
        b"\xff\xfe not utf-8",
        b"not a url",
        b"https://shop.example/products/" + b"x" * 70_000,
        b"https://news.example/news/today",
    ]
    path = tmp_path / "lines.txt"
    path.write_bytes(b"\n".join(lines) + b"\n")
    # One file, one partition: the row number is the line number.
    df = spark.read.text(str(path)).coalesce(1).withColumn("line", F.monotonically_increasing_id())
    out = {row["line"]: row for row in classify(df, "value", binary=aasa, compiled=str(small_compiled)).collect()}
    assert sorted(out) == list(range(len(lines)))
    # Spark keeps the file's bytes; both engines read invalid UTF-8 as U+FFFD (Python's decoder)
    # and classify that text.
    texts = [line.decode("utf-8", "replace") for line in lines]
    plain = plain_records(aasa, small_rules, texts, tmp_path)
    for n, text in enumerate(texts):
        row = record_of(out[n])
        if text.strip() == "":
            assert row["error"] == "empty URL" and row["url"] == "", row
        elif len(text) > 65_536:
            # Over the line limit as NDJSON too: an error record, still on its own row.
            assert row["error"] is not None and row["error"].startswith("line of "), row["error"]
            assert plain[n]["error"].startswith("line of "), plain[n]
        else:
            assert row == normalised(plain[n]), (n, text)
    assert out[0]["apps"] == ["ABCDE12345.com.example.shop", "ABCDE12345.com.example.shop.beta"]
    assert out[7]["apps"] == ["NEWS123456.org.example.news"]


@pytest.mark.parametrize("engine", ["pipe", "inprocess"])
def test_a_url_over_the_line_limit_gets_its_error_record_through_either_engine(spark, aasa, small_compiled, engine):
    """`aasa classify` gives a line over its limit an error record with empty fields
    (`"fields": {}`): the pipe must put the row's id there, not fail the task as if the record
    were out of place (every URL over 64 KiB failed its whole job)."""
    long = "https://shop.example/products/" + "x" * 70_000
    urls = ["https://shop.example/products/1", long, "https://shop.example/products/2", long + "y"]
    df = spark.createDataFrame([(n, url) for n, url in enumerate(urls)], "n long, link string").coalesce(1)
    out = rows_by_number(classify(df, "link", binary=aasa, compiled=str(small_compiled), engine=engine))
    assert sorted(out) == list(range(len(urls)))
    for n in (1, 3):
        assert out[n]["error"].startswith("line of ") and "over the limit of 65536 bytes" in out[n]["error"], out[n]
        assert out[n]["domain"] is None and out[n]["apps"] is None
    for n in (0, 2):
        assert out[n]["error"] is None and out[n]["url"] == urls[n]
        assert out[n]["apps"] == ["ABCDE12345.com.example.shop", "ABCDE12345.com.example.shop.beta"]


@pytest.mark.parametrize("engine", ["pipe", "inprocess"])
def test_a_document_that_cannot_be_loaded_is_named_by_the_rules_path_given_as_the_cli_names_it(spark, aasa, small_rules, tmp_path, engine):
    """Its URLs' error records named the executor's copy (a Spark temporary directory): another
    text on every executor and in every run, and not the CLI's."""
    rules = tmp_path / "rules"
    shutil.copytree(small_rules, rules)
    (rules / "broken.example.json").write_text('{"applinks": {"details": [')
    urls = ["https://broken.example/x", "https://shop.example/products/1", "https://broken.example/y"]
    expected = plain_records(aasa, rules, urls, tmp_path)
    assert expected[0]["error"].startswith(f"the document could not be loaded: {rules}/broken.example.json: ")
    df = spark.createDataFrame([(n, url) for n, url in enumerate(urls)], "n long, link string").repartition(2)
    for given in (str(rules), str(rules) + "/"):
        out = rows_by_number(classify(df, "link", binary=aasa, rules=given, engine=engine))
        assert [record_of(out[n]) for n in range(len(urls))] == [normalised(record) for record in expected], given


def test_error_records_do_not_fail_the_job(spark, aasa, small_compiled):
    # The URL column may itself be called "url": the record's url takes its place.
    df = spark.createDataFrame([("not a url", 1), ("", 2), ("ftp://x", 3)], "url string, n int")
    out = classify(df, "url", binary=aasa, compiled=str(small_compiled)).collect()
    assert [(row["url"], row["n"]) for row in out] == [("not a url", 1), ("", 2), ("ftp://x", 3)]
    assert all(row["error"] for row in out)


@pytest.mark.parametrize("engine, message", [("pipe", "exited with status 3"), ("inprocess", "cannot load")])
def test_unreadable_artifact_fails_the_job(spark, aasa, tmp_path, engine, message):
    corrupt = tmp_path / "corrupt.aasac"
    corrupt.write_bytes(b"not an artifact\n")
    df = spark.createDataFrame([("https://shop.example/products/1",)], "link string")
    with pytest.raises(Exception, match=message):
        classify(df, "link", binary=aasa, compiled=str(corrupt), engine=engine).collect()


def test_missing_artifact_or_rules_fail_before_the_job(spark, aasa, tmp_path):
    df = spark.createDataFrame([("https://shop.example/products/1",)], "link string")
    with pytest.raises(FileNotFoundError):
        classify(df, "link", binary=aasa, compiled=str(tmp_path / "missing.aasac"))
    with pytest.raises(FileNotFoundError):
        classify(df, "link", binary=aasa, rules=str(tmp_path / "missing-rules"))
    with pytest.raises(FileNotFoundError):
        classify(df, "link", binary=str(tmp_path / "no-aasa"), rules=str(tmp_path), engine="pipe")


def test_bad_option_fails_the_job(spark, aasa, small_compiled):
    df = spark.createDataFrame([("https://shop.example/products/1",)], "link string")
    with pytest.raises(Exception, match="exited with status 2"):
        classify(df, "link", binary=aasa, compiled=str(small_compiled), extra_args=["--no-such-option"]).collect()


def test_exactly_one_source_of_rules_and_no_column_clash(spark, aasa, small_rules, small_compiled):
    df = spark.createDataFrame([("https://shop.example/products/1", "x")], "link string, domain string")
    with pytest.raises(ValueError, match="exactly one"):
        classify(df.select("link"), "link", binary=aasa)
    with pytest.raises(ValueError, match="exactly one"):
        classify(df.select("link"), "link", binary=aasa, compiled=str(small_compiled), rules=str(small_rules))
    with pytest.raises(ValueError, match="clash"):
        classify(df, "link", binary=aasa, compiled=str(small_compiled))


def test_a_column_for_url_col_or_a_str_of_options_is_a_type_error_before_the_job(spark, aasa, small_compiled):
    """`df.link` for the name failed with "Cannot convert column into bool"; a str of options
    went to aasa character by character and failed every task with a usage error."""
    df = spark.createDataFrame([("https://shop.example/products/1",)], "link string")
    with pytest.raises(TypeError, match="url_col"):
        classify(df, df.link, binary=aasa, compiled=str(small_compiled))
    for engine in ("auto", "pipe", "inprocess"):
        with pytest.raises(TypeError, match="extra_args is a list"):
            classify(df, "link", binary=aasa, compiled=str(small_compiled), extra_args="--limit url-bytes=40", engine=engine)


@pytest.mark.parametrize("engine", ["pipe", "inprocess"])
def test_domain_beside_a_rules_directory_or_missing_for_a_single_file_fails_before_the_job(spark, aasa, small_rules, tmp_path, engine):
    """As `aasa classify` refuses them (status 2), on the driver: every task failed instead,
    in process with "Is a directory" or "cannot list the rules directory"."""
    df = spark.createDataFrame([("https://shop.example/products/1",)], "link string")
    single = tmp_path / "shop.json"
    single.write_text(json.dumps(SHOP_DOCUMENT))
    with pytest.raises(ValueError, match="a directory's documents are named by their files"):
        classify(df, "link", binary=aasa, rules=str(small_rules), extra_args=["--domain", "shop.example"], engine=engine)
    with pytest.raises(ValueError, match="needs --domain"):
        classify(df, "link", binary=aasa, rules=str(single), engine=engine)
    # Rightly given, the single file decides.
    row = classify(df, "link", binary=aasa, rules=str(single), extra_args=["--domain=shop.example"], engine=engine).collect()[0]
    assert row["apps"] == ["ABCDE12345.com.example.shop", "ABCDE12345.com.example.shop.beta"]


@pytest.mark.parametrize("engine", ["pipe", "inprocess"])
def test_other_columns_come_back_untouched(spark, aasa, small_compiled, engine):
    """Values a trip through Python objects would change or refuse: timestamps at the ends of
    the calendar, a string that is not UTF-8, a wide decimal, bytes, nested types."""
    df = spark.sql("""
        select n, link,
               timestamp_micros(-62135596800000000) as early,
               timestamp_micros(253402300799000000) as late,
               timestamp_micros(1636266600000000) as autumn,
               cast(unhex('FFFE43E9') as string) as payload,
               cast('12345678901234567890.123456789012345678' as decimal(38, 18)) as amount,
               unhex('00FF10') as blob,
               map('k', n) as tags,
               array(named_struct('a', n, 'b', 'x')) as nested,
               date'0001-01-01' as day
        from values (1, 'https://shop.example/products/1'), (2, null), (3, 'not a url') as t(n, link)""").repartition(2)
    shown = ("n", "unix_micros(early)", "unix_micros(late)", "unix_micros(autumn)", "hex(payload)",
             "cast(amount as string)", "hex(blob)", "to_json(tags)", "to_json(nested)", "cast(day as string)")
    expected = sorted(tuple(row) for row in df.selectExpr(*shown).collect())
    result = classify(df, "link", binary=aasa, compiled=str(small_compiled), engine=engine)
    assert sorted(tuple(row) for row in result.selectExpr(*shown).collect()) == expected
    assert expected[0][4] == "FFFE43E9"
    # (Collected without the timestamps, which the driver's own Python could not hold either.)
    assert {row["n"]: row["apps"] for row in result.select("n", "apps").collect()}[1] == ["ABCDE12345.com.example.shop", "ABCDE12345.com.example.shop.beta"]


@pytest.mark.parametrize("engine", ["pipe", "inprocess"])
def test_timestamp_columns_alone_or_nested_are_accepted_and_come_back_untouched(spark, aasa, small_compiled, engine):
    """pyspark 4's Arrow converter needs the session's time zone for a timestamp: asked
    without one, the check before the job refused every timestamp column, nested ones too."""
    df = spark.sql("""
        select link, timestamp_micros(1636266600000000 + n) as ts, array(timestamp_micros(n)) as stamps,
               named_struct('at', timestamp_micros(n), 'n', n) as event, map('k', timestamp_micros(n)) as marks
        from values (1, 'https://shop.example/products/1'), (2, 'not a url') as t(n, link)""")
    shown = ("unix_micros(ts)", "to_json(transform(stamps, s -> unix_micros(s)))", "unix_micros(event.at)", "unix_micros(marks['k'])")
    expected = sorted(tuple(row) for row in df.selectExpr(*shown).collect())
    result = classify(df, "link", binary=aasa, compiled=str(small_compiled), engine=engine)
    assert result.columns == ["url", "domain", "apps", "decisions", "error", "ts", "stamps", "event", "marks"]
    assert sorted(tuple(row) for row in result.selectExpr(*shown).collect()) == expected
    assert expected[0] == (1636266600000001, "[1]", 1, 1)


def test_columns_spark_cannot_hand_to_arrow_are_named_before_the_job(spark, aasa, small_compiled):
    df = spark.sql("select 'https://shop.example/products/1' as link, interval '2' year as term")
    with pytest.raises(ValueError, match="term"):
        classify(df, "link", binary=aasa, compiled=str(small_compiled))


@pytest.mark.parametrize("engine", ["pipe", "inprocess"])
def test_url_column_of_strings_bytes_or_nulls_only(spark, aasa, small_compiled, engine):
    where = {"binary": aasa, "compiled": str(small_compiled), "engine": engine}
    with pytest.raises(ValueError, match="bigint"):
        classify(spark.createDataFrame([(1, 42)], "n long, link long"), "link", **where)
    with pytest.raises(ValueError, match="no column"):
        classify(spark.createDataFrame([(1, "x")], "n long, link string"), "links", **where)
    as_bytes = spark.sql("select 1 as n, cast('https://shop.example/products/1' as binary) as link")
    assert classify(as_bytes, "link", **where).first()["apps"] == ["ABCDE12345.com.example.shop", "ABCDE12345.com.example.shop.beta"]
    nulls = spark.sql("select 1 as n, null as link")
    row = classify(nulls, "link", **where).first()
    assert row["error"] == "empty URL" and row["url"] is None


def test_both_engines_read_invalid_utf8_alike(spark, aasa, small_compiled, tmp_path):
    """UTF-8-encoded surrogates (CESU-8 data): the JVM's decoder makes one U+FFFD of them,
    Python's three; both engines classify Python's reading."""
    lines = [b"https://shop.example/products/\xed\xa0\x80x", b"https://shop.example/produits/\xed\xb2\x80", b"\xff\xfe", b"caf\xe9"]
    path = tmp_path / "cesu.txt"
    path.write_bytes(b"\n".join(lines) + b"\n")
    df = spark.read.text(str(path)).coalesce(1).withColumn("line", F.monotonically_increasing_id())
    rows = {
        engine: {row["line"]: row.asDict(recursive=True) for row in classify(df, "value", binary=aasa, compiled=str(small_compiled), engine=engine).collect()}
        for engine in ("pipe", "inprocess")
    }
    assert rows["pipe"] == rows["inprocess"]
    assert rows["pipe"][0]["url"] == lines[0].decode("utf-8", "replace") and rows["pipe"][0]["apps"]


def test_inprocess_rules_follow_an_artifact_replaced_under_the_same_name(aasa, small_rules, tmp_path):
    """A reused Python worker keeps the rules it opened, by path and by the file's identity: a
    new artifact shipped under the old name (`spark.files.overwrite`) is opened again."""
    pytest.importorskip("aasa.pandas")  # the package (the fixture `aasa` is the binary's path)
    artifact = compile_rules(aasa, small_rules, tmp_path / "rules.aasac")
    settings = {"limits": {}, "domain": None}
    before = aasa_spark._executor_rules("--compiled", str(artifact), settings)
    assert aasa_spark._executor_rules("--compiled", str(artifact), settings) is before
    assert before.decide("https://shop.example/products/1").apps
    changed = tmp_path / "rules-changed"
    changed.mkdir()
    document = json.loads(json.dumps(SHOP_DOCUMENT))
    document["applinks"]["details"][0]["components"] = [{"/": "/products/*", "exclude": True}]
    (changed / "shop.example.json").write_text(json.dumps(document))
    replacement = compile_rules(aasa, changed, tmp_path / "new.aasac")
    os.replace(replacement, artifact)
    after = aasa_spark._executor_rules("--compiled", str(artifact), settings)
    assert after is not before and after.decide("https://shop.example/products/1").apps == []
    assert sum(1 for key in aasa_spark._RULES_CACHE if key[1] == str(artifact)) == 1


def test_any_column_name_passes_through_and_clashes_are_found_as_spark_compares_names(spark, aasa, small_rules, small_compiled):
    df = spark.createDataFrame([("https://shop.example/products/1", "mail", "z")], "`link.url` string, `utm.source` string, `a``b` string")
    row = classify(df, "link.url", binary=aasa, compiled=str(small_compiled)).first()
    assert row["utm.source"] == "mail" and row["a`b"] == "z" and row["apps"]
    clashing = spark.createDataFrame([("https://shop.example/products/1", "x")], "link string, Domain string")
    with pytest.raises(ValueError, match="clash"):
        classify(clashing, "link", binary=aasa, compiled=str(small_compiled))
    # An artifact names its own domains: --domain with it is refused whatever the engine.
    for engine in ("pipe", "inprocess", "auto"):
        with pytest.raises(ValueError, match="--domain"):
            classify(df, "link.url", binary=aasa, compiled=str(small_compiled), extra_args=["--domain", "shop.example"], engine=engine)


def test_record_schema_reads_every_key_aasa_writes(aasa, small_rules):
    """The explicit schema must not drop a key: every key of a real record is a schema field."""
    run = subprocess.run(
        [aasa, "classify", "--rules", str(small_rules), "--input-format", "ndjson", "--quiet"],
        input=b'{"url": "https://shop.example/products/secret", "id": 1}\n{"url": "x", "id": 2}\n',
        capture_output=True,
        check=True,
    )
    names = set(RECORD_SCHEMA.fieldNames())
    decision_names = set(RECORD_SCHEMA["decisions"].dataType.elementType.fieldNames())
    for line in run.stdout.decode().splitlines():
        record = json.loads(line)
        assert set(record) <= names, record
        for decision in record.get("decisions", []):
            assert set(decision) <= decision_names, decision


def test_on_a_cluster_the_executors_find_the_shipped_files(aasa, small_rules, small_compiled, tmp_path):
    """Executors in JVMs of their own (`local-cluster`): their shipped-files directory is not
    the driver's, so the paths must be resolved on the executor."""
    import pyspark

    urls = SYNTHETIC_URLS[:10] + [""]
    urls_file = tmp_path / "urls.txt"
    urls_file.write_text("\n".join(urls) + "\n")
    environment = dict(os.environ)
    # A standalone worker starts its executors from SPARK_HOME and works in SPARK_WORKER_DIR.
    environment.setdefault("SPARK_HOME", str(Path(pyspark.__file__).parent))
    environment["SPARK_WORKER_DIR"] = str(tmp_path / "work")
    environment["PYSPARK_PYTHON"] = sys.executable
    run = subprocess.run(
        [sys.executable, str(Path(__file__).parent / "cluster_job.py"), aasa, str(small_compiled), str(small_rules), str(urls_file)],
        capture_output=True,
        env=environment,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr.decode()[-3000:]
    result = json.loads(run.stdout.decode().strip().splitlines()[-1])
    assert result["executor_root"] != result["driver_root"]
    rows = {row["n"]: row for row in result["rows"]}
    assert sorted(rows) == list(range(len(urls)))
    plain = plain_records(aasa, small_rules, urls[:-1], tmp_path)
    rows_inprocess = {row["n"]: row for row in result["rows_inprocess"]}
    for n, expected in enumerate(plain):
        assert record_of(rows[n]) == normalised(expected), urls[n]
        assert rows_inprocess[n] == rows[n], urls[n]
    assert rows[len(urls) - 1]["error"] == "empty URL"
    # Spark ships a local directory only with a local master: the module says so by failing.
    assert result["rules_refusal"] is not None and "local directory" in result["rules_refusal"], result["rules_refusal"]
