"""The Python package against the CLI: records byte-identical to ``aasa classify``, values equal
to the records' fields, on the bundled corpus and (when present) the shared corpora.

Needs ``AASA_CLI`` (the built ``aasa``; ``make test`` sets it)."""

from __future__ import annotations

import gzip
import json
import os
import shlex
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import aasa

ROOT = Path(__file__).resolve().parents[2]
CLI = os.environ.get("AASA_CLI", str(ROOT / ".build" / "release" / "aasa"))
SHARED = ROOT.parent / "shared" / "corpus"

# Lines that are not URLs, next to URLs: invalid UTF-8, blank, CRLF, JSON, over-long, padded.
ODD = [b"https://museum.example/\xff/x", b"", b"  \t", b"https://food.example/fr_FR/menu\r", b'{"url": 1}',
       b"https://museum.example/" + b"a" * 70000, b"  https://ride.example/ride/1  ", "https://museum.example/caf\u00e9".encode()]


def cli(*arguments: str, input: bytes) -> bytes:
    return subprocess.run([CLI, "classify", *arguments], input=input, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, check=False).stdout


def corpora():
    bundled = [line for path in sorted((ROOT / "corpus").glob("*/urls.txt")) for line in path.read_bytes().split(b"\n")]
    yield pytest.param(ROOT / "corpus", bundled + ODD, id="bundled")
    lists = sorted((SHARED / "urls").glob("*.txt"))
    if (SHARED / "domains").is_dir() and lists:
        # Every URL of every list (the combined one holds the others' hosts).
        urls = [line for path in lists for line in path.read_bytes().split(b"\n")[:-1]]
        yield pytest.param(SHARED / "domains", urls + ODD, id="shared")
    else:
        yield pytest.param(None, None, id="shared", marks=pytest.mark.skip(reason="no ../shared/corpus"))


@pytest.mark.parametrize("rules_dir, urls", list(corpora()))
def test_records_equal_the_cli(rules_dir, urls, tmp_path):
    """Every URL's NDJSON record is the CLI's, from the directory and the artifact; the values
    of `classify` say what the records say (on the first 20 000 URLs and the odd lines)."""
    expected = cli("--rules", str(rules_dir), "--blank-lines", "record", input=b"\n".join(urls) + b"\n")
    artifact = tmp_path / "rules.aasac"
    subprocess.run([CLI, "compile", str(rules_dir), "-o", str(artifact)], check=True, stderr=subprocess.DEVNULL)
    sample = urls[:20000] + ODD
    with aasa.Rules.from_directory(rules_dir) as rules, aasa.Rules.from_artifact(artifact) as compiled:
        assert rules.classify_ndjson(urls) == expected
        assert compiled.classify_ndjson(urls) == expected
        results = rules.classify(sample)
        sample_expected = cli("--rules", str(rules_dir), "--blank-lines", "record", input=b"\n".join(sample) + b"\n")
    records = [json.loads(line) for line in sample_expected.decode().splitlines()]
    assert len(results) == len(records) == len(sample)
    for url, result, record in zip(sample, results, records):
        assert result.url == url
        record.pop("url")
        assert result.record() == record
    assert any(r.apps for r in results) and any(r.error for r in results)


def case_groups():
    """The case suite's URLs grouped by (document, domain), with the document's bytes; cases
    that change a limit are left to the Swift suites."""
    groups = {}
    for path in sorted((ROOT / "Tests" / "Cases").glob("*.json")):
        area = json.loads(path.read_bytes())
        for case in area["cases"]:
            if "max_document_bytes" in case or "url_work" in case or "\n" in case["url"]:
                continue
            if "document_text" in case:
                text = case["document_text"].encode()
            else:
                named = case["document"]
                text = json.dumps(named if isinstance(named, dict) else area["documents"][named]).encode()
            key = (text, case.get("domain", "example.com"))
            groups.setdefault(key, []).append(case["url"].encode())
    return groups


def test_case_suite_records_equal_the_cli(tmp_path):
    """Every case of `Tests/Cases` gets from a one-document handle the record the CLI writes for
    it; a document the CLI refuses is refused here too."""
    groups = case_groups()
    assert len(groups) > 40
    document = tmp_path / "document.json"
    for (text, domain), urls in groups.items():
        document.write_bytes(text)
        run = subprocess.run([CLI, "classify", "--rules", str(document), "--domain", domain, "--blank-lines", "record"],
                             input=b"\n".join(urls) + b"\n", stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
        try:
            rules = aasa.Rules.from_document(text, domain)
        except aasa.AASAError:
            assert run.returncode != 0, (text, domain)
            continue
        with rules:
            assert run.returncode == 0, (text, domain)
            assert rules.classify_ndjson(urls) == run.stdout, (text, domain)


def test_str_bytes_and_line_feeds_take_the_same_path_to_the_same_results():
    # str URLs are joined and encoded in slices; a URL holding a line feed sends the whole batch
    # with explicit ends instead. Every form must give what the NDJSON call (a separate path)
    # writes for each URL alone.
    lines = [line for path in sorted((ROOT / "corpus").glob("*/urls.txt")) for line in path.read_bytes().split(b"\n")] + ODD
    texts = [line.decode("utf-8", "surrogateescape") for line in lines]
    with aasa.Rules.from_directory(ROOT / "corpus") as rules:
        for batch in (lines, texts, texts + ["https://museum.example/a\nb"], [b"https://museum.example/\n", *texts], []):
            results = rules.classify(batch)
            expected = [json.loads(rules.classify_ndjson([url])) for url in batch]
            assert len(results) == len(batch)
            for url, result, record in zip(batch, results, expected):
                assert result.url is url
                record.pop("url")
                assert result.record() == record
        results = rules.classify(iter(texts))
    assert results[-1] == results[len(texts) - 1] and results[1:3] == [results[1], results[2]]
    assert results.domains == [r.domain for r in results] and results.errors == [r.error for r in results]
    with pytest.raises(IndexError):
        results[len(texts)]


def test_threads_share_one_rules():
    urls = [u for p in sorted((ROOT / "corpus").glob("*/urls.txt")) for u in p.read_text().splitlines()] + ["x", ""]
    with aasa.Rules.from_directory(ROOT / "corpus") as rules:
        expected = rules.classify(urls)
        got = [None] * 8

        def work(index: int) -> None:
            got[index] = [rules.classify(urls) for _ in range(5)] + [[rules.decide(u) for u in urls]]

        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert all(run == expected for runs in got for run in runs)


def test_lone_surrogates_get_an_error_result_not_an_exception():
    with aasa.Rules.from_directory(ROOT / "corpus") as rules:
        for url in ("https://museum.example/\ud800", "https://museum.example/\udfff/x", "\ud800"):
            (result,) = rules.classify([url])
            assert result.error == "the line is not valid UTF-8", url
            assert rules.decide(url).error == result.error
            assert json.loads(rules.classify_ndjson([url]))["error"] == result.error
        mixed = rules.classify(["https://museum.example/exhibitions/x", "https://museum.example/\ud800"])
        assert mixed[0].error is None and mixed[1].error == "the line is not valid UTF-8"


def test_closing_rules_while_another_thread_classifies_waits_for_the_call():
    # The call holds the library handle, so close() on another thread only drops this object's
    # reference: the rules are freed after the call returns, never under it.
    urls = [u for p in sorted((ROOT / "corpus").glob("*/urls.txt")) for u in p.read_text().splitlines()] * 200
    for _ in range(5):
        rules = aasa.Rules.from_directory(ROOT / "corpus")
        outcome = []

        def work() -> None:
            try:
                outcome.append(len(rules.classify(urls)))
            except ValueError:  # closed before the call began
                outcome.append(0)

        thread = threading.Thread(target=work)
        thread.start()
        rules.close()
        thread.join()
        assert outcome[0] in (0, len(urls))


def test_a_domain_no_host_can_be_is_refused():
    document = '{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.shop"], "components": [{"/": "*"}]}]}}'
    for domain in ("https://example.com/", "", "example.com:443", " example.com"):
        with pytest.raises(aasa.AASAError, match="host name"):
            aasa.Rules.from_document(document, domain)


def test_limits_are_the_cli_limits_and_each_is_accepted():
    help_text = subprocess.run([CLI, "classify", "--help"], stdout=subprocess.PIPE, text=True, check=True).stdout
    listed = help_text.split("\nLIMITS", 1)[1].splitlines()[1:]
    names = [line.split()[0] for line in listed if line.startswith("  ") and "(default " in line]
    assert tuple(names) == aasa.LIMITS
    document = '{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.shop"], "paths": ["/buy/*"]}]}}'
    for name in aasa.LIMITS:
        with aasa.Rules.from_document(document, "example.com", limits={name: 4096 if name == "json-depth" else 1 << 20}) as rules:
            assert rules.classify(["https://example.com/buy/1"])[0].apps == ["ABCDE12345.com.example.shop"], name


def test_document_decisions_and_limits():
    document = ('{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.shop"], '
                '"components": [{"/": "/buy/help", "exclude": true}, {"/": "/buy/*"}]}]}}')
    with aasa.Rules.from_document(document, "example.com", limits={"url-bytes": 40}) as rules:
        buy, help_, long_, other = rules.classify(
            ["https://example.com/buy/42", "https://Example.com/buy/help", "https://example.com/buy/" + "x" * 40, "https://b.example/"])
    assert (buy.domain, buy.apps, buy.decisions[0].entry, buy.decisions[0].rule) == ("example.com", ["ABCDE12345.com.example.shop"], 0, 1)
    assert help_.decisions == [aasa.Decision("ABCDE12345.com.example.shop", "exclude", 0, 0)] and help_.apps == []
    assert "url-bytes" in long_.error
    assert other.domain is None and other.error is None and other.decisions == []
    with pytest.raises(aasa.AASAError, match="unknown limit"):
        aasa.Rules.from_document(document, "example.com", limits={"no-such": 1})
    with pytest.raises(aasa.AASAError, match="2\\*\\*64"):
        aasa.Rules.from_document(document, "example.com", limits={"url-bytes": 1 << 70})
    with pytest.raises(aasa.AASAError, match="url-bytes takes a value from 1"):
        aasa.Rules.from_document(document, "example.com", limits={"url-bytes": 0})
    with pytest.raises(aasa.AASAError, match="example.com"):
        aasa.Rules.from_document(b"{", "example.com")
    with pytest.raises(aasa.AASAError):
        aasa.Rules.from_directory("/nonexistent")


def test_copies_share_the_rules_and_pickling_is_refused():
    import copy
    import pickle

    with aasa.Rules.from_directory(ROOT / "corpus") as rules:
        results = rules.classify(["https://museum.example/"])
        for copied in (copy.copy(rules), copy.deepcopy(rules)):
            assert copied.decide("https://museum.example/").domain == "museum.example"
        # Results are read-only: a copy, deep or not, is the very object.
        assert copy.copy(results) is results and copy.deepcopy(results) is results
        with pytest.raises(TypeError, match="cannot be pickled"):
            pickle.dumps(rules)
        # The copies and the failed pickle own nothing: the rules still work.
        assert rules.decide("https://museum.example/").domain == "museum.example"


def test_results_do_not_follow_the_list_they_were_made_from():
    with aasa.Rules.from_directory(ROOT / "corpus") as rules:
        batch = ["https://museum.example/", "https://food.example/"]
        results = rules.classify(batch)
        batch.clear()
        batch.append("https://elsewhere.example/")
        assert len(results) == 2 and [r.url for r in results] == ["https://museum.example/", "https://food.example/"]
        for one in ("https://museum.example/", b"https://museum.example/"):
            with pytest.raises(TypeError, match="decide"):
                rules.classify(one)


def test_a_value_that_is_no_url_is_a_type_error_naming_it_not_an_attribute_error():
    with aasa.Rules.from_directory(ROOT / "corpus") as rules:
        for value in (None, 42, 1.5, ["https://museum.example/"]):
            with pytest.raises(TypeError, match=f"URL 1 is {type(value).__name__}"):
                rules.classify(["https://museum.example/", value])
            with pytest.raises(TypeError, match=f"URL 1 is {type(value).__name__}"):
                rules.classify_ndjson([b"https://museum.example/", value])
            with pytest.raises(TypeError, match=type(value).__name__):
                rules.decide(value)
        # A good batch after a refused one: nothing was left half done.
        assert rules.decide("https://museum.example/").domain == "museum.example"


def test_nul_in_a_path_domain_or_limit_name_is_refused_not_cut():
    document = '{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.shop"], "components": [{"/": "*"}]}]}}'
    with pytest.raises(ValueError, match="null byte"):
        aasa.Rules.from_directory(str(ROOT / "corpus") + "\0/nonexistent")
    with pytest.raises(ValueError, match="null byte"):
        aasa.Rules.from_document(document, "museum.example\0.attacker.example")
    with pytest.raises(ValueError, match="null byte"):
        aasa.Rules.from_document(document, "museum.example", limits={"url-bytes\0x": 10})


def test_python_m_aasa_refuses_bad_limits_as_usage_errors():
    for limit in ("no-such=1", "url-bytes=\u00b2", "url-bytes=\u0661\u0660", "url-bytes=0", "url-bytes=99999999999999999999999"):
        run = subprocess.run([sys.executable, "-m", "aasa", "--rules", str(ROOT / "corpus"), "--limit", limit],
                             input=b"", stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        assert run.returncode == 2, (limit, run.stderr)
        assert b"Traceback" not in run.stderr


def test_python_m_aasa_exits_with_the_cli_status_for_the_same_cause(tmp_path):
    """Each status checked against the tool's, for the cause the tool finds first: usage (2),
    then the input and output (5), then the rules (3). The module loaded the rules first, read a
    missing --rules path as a missing --domain, a bad --domain as bad rules, and ended a failed
    write with a traceback (1)."""
    document = ROOT / "corpus" / "museum.example" / "apple-app-site-association"
    urls = tmp_path / "urls.txt"
    urls.write_bytes(b"https://museum.example/\n")
    packed = tmp_path / "urls.txt.gz"
    packed.write_bytes(gzip.compress(urls.read_bytes()))
    (tmp_path / "bad.json").write_bytes(b"{")
    missing = str(tmp_path / "missing")
    cases = [
        (["--rules", missing], 3),
        (["--rules", str(document)], 2),
        (["--rules", str(document), "--domain", "a/b"], 2),
        (["--rules", missing, "--domain", "a/b"], 2),
        (["--rules", str(ROOT / "corpus"), "--domain", "museum.example"], 2),
        (["--rules", str(tmp_path / "bad.json"), "--domain", "x.example"], 3),
        (["--rules", str(document), "--domain", "museum.example", "--output", "/dev/full"], 5),
        (["--rules", str(ROOT / "corpus"), "--input", missing], 5),
        (["--rules", missing, "--input", missing], 5),
        (["--rules", missing, "--output", str(tmp_path / "no-folder" / "out")], 5),
        (["--rules", str(ROOT / "corpus"), "--input", str(packed)], 5),
        (["--rules", str(ROOT / "corpus"), "--input", str(urls), "--output", str(urls)], 2),
        (["--rules", str(ROOT / "corpus"), "--input", str(urls), "--output", str(ROOT / "corpus" / "new.json")], 2),
        (["--rules", str(document), "--domain", "museum.example", "--input", str(urls)], 0),
        # An option given twice is refused, and -o is --output, as the tool has them.
        (["--rules", str(ROOT / "corpus"), "--rules", str(ROOT / "corpus")], 2),
        (["--rules", str(ROOT / "corpus"), "--input", str(urls), "-o", str(tmp_path / "o.ndjson")], 0),
    ]
    for arguments, status in cases:
        given = {"input": b"https://museum.example/\n", "stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "check": False}
        tool = subprocess.run([CLI, "classify", "--quiet", *arguments], **given)
        module = subprocess.run([sys.executable, "-m", "aasa", *arguments], **given)
        assert (module.returncode, tool.returncode) == (status, status), (arguments, module.stderr)
        assert b"Traceback" not in module.stderr, arguments
        assert module.stdout == tool.stdout, arguments
    assert urls.read_bytes() == b"https://museum.example/\n" and not (ROOT / "corpus" / "new.json").exists()
    # A byte order mark alone is an empty input, even with a record per line; closed standard
    # streams are input and output failures (5), not tracebacks.
    corpus = ["--rules", str(ROOT / "corpus")]
    for stdin, extra, redirect in ((b"\xef\xbb\xbf", ["--blank-lines", "record"], ""), (b"", [], "<&-"), (b"", [], ">&-")):
        line = " ".join(shlex.quote(a) for a in corpus + extra)
        tool = subprocess.run(f"{shlex.quote(str(CLI))} classify --quiet {line} {redirect}", shell=True, input=stdin, capture_output=True)
        module = subprocess.run(f"{shlex.quote(sys.executable)} -m aasa {line} {redirect}", shell=True, input=stdin, capture_output=True)
        assert (module.returncode, module.stdout) == (tool.returncode, tool.stdout), (redirect, module.stderr)
        assert b"Traceback" not in module.stderr, redirect


def test_python_m_aasa_refused_leaves_an_existing_output_as_it_was_and_creates_none(tmp_path):
    kept = tmp_path / "kept.ndjson"
    kept.write_bytes(b"earlier records\n")
    for output in (kept, tmp_path / "new.ndjson"):
        run = subprocess.run([sys.executable, "-m", "aasa", "--rules", str(tmp_path / "missing"), "--output", str(output)],
                             input=b"https://museum.example/\n", stderr=subprocess.PIPE, check=False)
        assert run.returncode == 3, run.stderr
    assert kept.read_bytes() == b"earlier records\n" and not (tmp_path / "new.ndjson").exists()


def test_python_m_aasa_ends_quietly_with_0_when_its_reader_goes_away(tmp_path):
    """`| head -n 1`: the tool exits 0 without a word; the module ended with a BrokenPipeError
    traceback and status 1. The records pass the pipe's buffer, so the write meets the closed
    end whatever the timing."""
    urls = tmp_path / "urls.txt"
    urls.write_bytes(b"".join(b"https://museum.example/exhibitions/%d\n" % n for n in range(20000)))
    for command in ([CLI, "classify", "--quiet"], [sys.executable, "-m", "aasa"]):
        process = subprocess.Popen([*command, "--rules", str(ROOT / "corpus"), "--input", str(urls)],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout.readline().startswith(b'{"url": "https://museum.example/exhibitions/0"')
        process.stdout.close()
        stderr = process.stderr.read()
        assert process.wait() == 0, (command, stderr)
        assert stderr == b"", command


def test_python_m_aasa_mirrors_classify(tmp_path):
    lines = b"\xef\xbb\xbf" + b"\n".join([b"https://museum.example/", *ODD, b"", b"https://old.example/x"]) + b"\n"
    # The last line without its LF: a CR ending it is content, alone or after a URL.
    for text in (lines, lines + b"https://museum.example/x\r", lines + b"\r", lines[:-1]):
        for blank in ("skip", "record"):
            expected = cli("--rules", str(ROOT / "corpus"), "--blank-lines", blank, input=text)
            got = subprocess.run([sys.executable, "-m", "aasa", "--rules", str(ROOT / "corpus"), "--blank-lines", blank],
                                 input=text, stdout=subprocess.PIPE, check=True).stdout
            assert got == expected, (text[-40:], blank)


def test_pandas():
    pandas = pytest.importorskip("pandas")
    import aasa.pandas

    series = pandas.Series(["https://museum.example/", None, "https://nowhere.example/"], index=[10, 20, 30])
    with aasa.Rules.from_directory(ROOT / "corpus") as rules:
        frame = aasa.pandas.classify(series, rules)
        # pandas' own missing value, in its string dtype, is a missing URL too.
        typed = aasa.pandas.classify(pandas.Series(["https://museum.example/", pandas.NA], dtype="string"), rules)
    assert pandas.isna(typed["error"][0]) and typed["error"][1] == "empty line"
    assert list(frame.columns) == ["url", "domain", "apps", "decisions", "error"]
    assert list(frame.index) == [10, 20, 30]
    assert frame.loc[10, "domain"] == "museum.example" and frame.loc[20, "error"] == "empty line"
    assert pandas.isna(frame.loc[30, "domain"])
    # A missing URL stays missing, as the Spark helper keeps a null URL null.
    assert pandas.isna(frame.loc[20, "url"]) and pandas.isna(typed["url"][1])
    # A value that is not text, and not missing, is named by its index label.
    with aasa.Rules.from_directory(ROOT / "corpus") as rules:
        for value in (42, 1.5, ["https://museum.example/"]):
            with pytest.raises(TypeError, match="index 'b' is " + type(value).__name__):
                aasa.pandas.classify(pandas.Series(["https://museum.example/", value], index=["a", "b"], dtype=object), rules)


def test_pandas_gives_a_lone_surrogate_its_error_record_and_the_text_the_tool_shows():
    """pandas 3 keeps strings in Arrow, which refuses a lone surrogate: the helper raised
    UnicodeEncodeError where `Rules.classify` gives an error record."""
    pandas = pytest.importorskip("pandas")
    import aasa.pandas

    urls = ["https://museum.example/\udcff", "https://museum.example/\ud800x", "https://museum.example/caf\u00e9"]
    with aasa.Rules.from_directory(ROOT / "corpus") as rules:
        frame = aasa.pandas.classify(pandas.Series(urls, dtype=object), rules)
        expected = [json.loads(line) for line in rules.classify_ndjson(urls).decode().splitlines()]
    assert list(frame["error"][:2]) == ["the line is not valid UTF-8"] * 2
    # \udcff goes to the library as the byte FF (surrogateescape), \ud800 as ED A0 80: the url
    # column holds what the tool's record shows for those bytes.
    assert list(frame["url"]) == [record["url"] for record in expected]
    assert frame["url"][0] == "https://museum.example/\ufffd" and frame["url"][1] == "https://museum.example/\ufffd\ufffd\ufffdx"
    assert frame["url"][2] == urls[2] and pandas.isna(frame["error"][2]) and "error" not in expected[2]


def test_readme_example():
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Use it from Swift, C and Python"):]
    code = section[section.index("```python\n") + 10:]
    code = code[:code.index("```")]
    printed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True, check=True).stdout
    assert printed.splitlines() == [
        "museum.example ['MUSE4EX123.org.example.museum', 'MUSE4EX123.org.example.museum.guide'] None",
        'None [] no scheme: a URL must start with a scheme such as "https:"',
    ]


def test_an_artifact_with_one_damaged_body_fails_only_that_domain_as_in_the_cli(tmp_path):
    """Bodies are checked when their domain is first met, as `classify --compiled` does: one
    damaged body gives its domain's URLs error results and the other domains still decide
    (opening the artifact decoded every body and refused it whole)."""
    rules_dir = tmp_path / "rules"
    for domain in ("museum.example", "food.example"):
        (rules_dir / domain).mkdir(parents=True)
        (rules_dir / domain / "apple-app-site-association").write_bytes(
            (ROOT / "corpus" / domain / "apple-app-site-association").read_bytes())
    artifact = tmp_path / "rules.aasac"
    subprocess.run([CLI, "compile", str(rules_dir), "-o", str(artifact)], check=True, stderr=subprocess.DEVNULL)
    damaged = bytearray(artifact.read_bytes())
    damaged[-5] ^= 0x40  # a byte of the last body
    (tmp_path / "damaged.aasac").write_bytes(bytes(damaged))
    urls = [b"https://museum.example/exhibitions/x", b"https://food.example/en_US/menu"]
    expected = cli("--compiled", str(tmp_path / "damaged.aasac"), input=b"\n".join(urls) + b"\n")
    with aasa.Rules.from_artifact(tmp_path / "damaged.aasac") as rules:
        assert rules.classify_ndjson(urls) == expected
        results = rules.classify(urls)
    assert [bool(r.error) for r in results].count(True) == 1
    assert any(r.error and "checksum" in r.error for r in results)


def test_a_batch_whose_results_pass_a_gib_is_an_error_not_an_abort():
    """A result lists every app of its document, and a batch returns its results whole: 12 000
    URLs of a document naming 10 000 apps asked for 8 GB and aborted the interpreter. Past
    1 GiB the call fails (status 4, AASA_ERROR_MEMORY) and says how many URLs fitted."""
    document = json.dumps({"applinks": {"details": [{"appIDs": [f"T{i}.a" for i in range(10000)], "components": [{}]}]}})
    with aasa.Rules.from_document(document, "x.example") as rules:
        urls = [b"https://x.example/%d" % i for i in range(1500)]
        with pytest.raises(aasa.AASAError) as raised:
            rules.classify_ndjson(urls)
        assert raised.value.status == 4
        assert "pass 1024 MiB after 14" in str(raised.value) and "of its 1500 URLs" in str(raised.value)
        with pytest.raises(aasa.AASAError) as raised:
            rules.classify([b"https://x.example/%d" % i for i in range(12000)])
        assert raised.value.status == 4 and "of its 12000 URLs" in str(raised.value)
        assert len(rules.classify(urls[:100])) == 100


def test_classify_passes_a_batch_again_only_for_a_url_holding_a_line_feed(monkeypatch):
    """The second pass with explicit ends is for URLs holding a line feed; a batch refused as too
    large was classified whole a second time before the error was raised."""
    calls = []
    columns = aasa._lib.aasa_classify_columns

    def counted(*arguments):
        calls.append(arguments[3] is not None)  # whether the pass gave explicit ends
        return columns(*arguments)

    monkeypatch.setattr(aasa._lib, "aasa_classify_columns", counted)
    document = json.dumps({"applinks": {"details": [{"appIDs": [f"T{i}.a" for i in range(10000)], "components": [{}]}]}})
    with aasa.Rules.from_document(document, "x.example") as rules:
        with pytest.raises(aasa.AASAError) as raised:
            rules.classify([b"https://x.example/%d" % i for i in range(12000)])
        assert raised.value.status == 4 and calls == [False]
        calls.clear()
        assert [r.error for r in rules.classify(["https://x.example/a\nb", "https://x.example/"])] == [None, None]
        assert calls == [False, True]


def test_arguments_of_the_wrong_type_are_type_errors_and_bad_limits_refused_before_the_library():
    document = (ROOT / "corpus" / "museum.example" / "apple-app-site-association").read_bytes()
    for limits in ([("url-bytes", 5)], "url-bytes=5", {1: 5}, {b"url-bytes": 5}):
        with pytest.raises(TypeError):
            aasa.Rules.from_document(document, "museum.example", limits=limits)
    for value in (True, -1, 1 << 64, 1.5, "5"):
        with pytest.raises(aasa.AASAError) as raised:
            aasa.Rules.from_document(document, "museum.example", limits={"url-bytes": value})
        assert raised.value.status == 2
    for domain in (None, b"museum.example"):
        with pytest.raises(TypeError):
            aasa.Rules.from_document(document, domain)
    with pytest.raises(TypeError):
        aasa.Rules.from_document(1 << 20, "museum.example")
    with pytest.raises(ValueError):
        aasa.Rules.from_document(document, "museum.example", limits={"url-\ud800bytes": 5})


def test_a_limit_given_as_a_numpy_integer_is_that_number():
    """A limit read from a DataFrame or a config is numpy's int64: it was refused as "needs a
    whole number ..., got 5". numpy's bool is no count, as Python's is not."""
    numpy = pytest.importorskip("numpy")
    document = (ROOT / "corpus" / "museum.example" / "apple-app-site-association").read_bytes()
    url = "https://museum.example/" + "a" * 40
    with aasa.Rules.from_document(document, "museum.example", limits={"url-bytes": 40}) as rules:
        expected = rules.decide(url).error
    assert expected is not None
    for value in (numpy.int64(40), numpy.uint64(40), numpy.int32(40)):
        with aasa.Rules.from_document(document, "museum.example", limits={"url-bytes": value}) as rules:
            assert rules.decide(url).error == expected
    for value in (numpy.True_, numpy.int64(-1), numpy.float64(40)):
        with pytest.raises(aasa.AASAError) as raised:
            aasa.Rules.from_document(document, "museum.example", limits={"url-bytes": value})
        assert raised.value.status == 2


def test_pandas_classify_of_no_series_or_no_rules_is_a_type_error_not_an_attribute_error():
    pandas = pytest.importorskip("pandas")
    import aasa.pandas

    urls = ["https://museum.example/"]
    with aasa.Rules.from_directory(ROOT / "corpus") as rules:
        for given in (urls, pandas.DataFrame({"url": urls}), "https://museum.example/"):
            with pytest.raises(TypeError, match="pandas Series"):
                aasa.pandas.classify(given, rules)
        with pytest.raises(TypeError, match="frame\\['url'\\]"):
            aasa.pandas.classify(pandas.DataFrame({"url": urls}), rules)
    for given_rules in (str(ROOT / "corpus"), ROOT / "corpus", None):
        with pytest.raises(TypeError, match="aasa.Rules"):
            aasa.pandas.classify(pandas.Series(urls), given_rules)
