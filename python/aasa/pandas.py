"""URLs in a pandas Series classified into a DataFrame, one row per URL, in one library call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import Rules, _encode

if TYPE_CHECKING:
    import pandas


def _shown(url):
    """The URL as a column can hold it. A str with a lone surrogate is text no UTF-8 encoder
    takes (pyarrow, behind pandas 3's string columns, refuses it): it goes as ``aasa classify``
    shows an unreadable line, each invalid UTF-8 sequence as U+FFFD."""
    if isinstance(url, str) and not url.isascii():
        try:
            url.encode("utf-8")
        except UnicodeEncodeError:
            return _encode(url).decode("utf-8", "replace")
    return url


def classify(series: "pandas.Series", rules: Rules) -> "pandas.DataFrame":
    """Columns ``url``, ``domain``, ``apps`` (list), ``decisions`` (list of dicts as in the NDJSON
    records), ``error``, missing values as pandas shows them (None or NaN); the index is the
    series' index, so the frame joins back onto its source.

    A missing value (NaN, None, ``pd.NA``, ``NaT``) is classified as an empty URL (an "empty
    line" error) and stays missing in ``url``, as the Spark helper keeps a null URL null. A str
    holding a lone surrogate gets its error record, and ``url`` shows it with U+FFFD for each
    invalid sequence, as the tool's record does. Any other value that is not text (a number, a
    list) raises ``TypeError`` naming its index label, and nothing is classified: convert the
    column first (``series.astype(str)``) or drop those values. A ``series`` that is no Series
    (a DataFrame, a list) or ``rules`` that are no ``Rules`` (a path) raise ``TypeError`` too,
    not the ``AttributeError`` of a method they lack."""
    import pandas

    if not isinstance(series, pandas.Series):
        hint = " (give one column: frame['url'])" if isinstance(series, pandas.DataFrame) else ""
        raise TypeError(f"classify takes a pandas Series of URLs, not {type(series).__name__}{hint}")
    if not isinstance(rules, Rules):
        raise TypeError(f"the rules are aasa.Rules (Rules.from_directory(path), ...), not {type(rules).__name__}")

    def url(label, value):
        if isinstance(value, (str, bytes)):
            return value
        # pandas.isna, not ``value != value``: comparing pd.NA gives pd.NA, whose truth is an
        # error; and only on a scalar, as it answers a list element by element.
        if pandas.api.types.is_scalar(value) and pandas.isna(value):
            return None
        raise TypeError(f"the value at index {label!r} is {type(value).__name__}, not a URL: convert the column first (series.astype(str)) or drop such values")

    urls = [url(label, value) for label, value in zip(series.index, series.tolist())]
    results = rules.classify(["" if u is None else u for u in urls])
    return pandas.DataFrame(
        {
            "url": [_shown(u) for u in urls],
            "domain": [r.domain for r in results],
            "apps": [r.apps for r in results],
            "decisions": [[d.record() for d in r.decisions] for r in results],
            "error": [r.error for r in results],
        },
        index=series.index,
    )
