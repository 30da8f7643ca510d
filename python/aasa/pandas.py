"""URLs in a pandas Series classified into a DataFrame, one row per URL, in one library call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import Rules

if TYPE_CHECKING:
    import pandas


def classify(series: "pandas.Series", rules: Rules) -> "pandas.DataFrame":
    """Columns ``url``, ``domain``, ``apps`` (list), ``decisions`` (list of dicts as in the NDJSON
    records), ``error``, missing values as pandas shows them (None or NaN); the index is the series' index, so the frame joins back onto its source.
    A missing value (NaN, None, ``pd.NA``, ``NaT``) is classified as an empty URL (an "empty
    line" error); any other value that is not text (a number, a list) raises ``TypeError``
    naming its index label, and nothing is classified: convert the column first
    (``series.astype(str)``) or drop those values."""
    import pandas

    def url(label, value):
        if isinstance(value, (str, bytes)):
            return value
        # pandas.isna, not ``value != value``: comparing pd.NA gives pd.NA, whose truth is an
        # error; and only on a scalar, as it answers a list element by element.
        if pandas.api.types.is_scalar(value) and pandas.isna(value):
            return ""
        raise TypeError(f"the value at index {label!r} is {type(value).__name__}, not a URL: convert the column first (series.astype(str)) or drop such values")

    urls = [url(label, value) for label, value in zip(series.index, series.tolist())]
    results = rules.classify(urls)
    return pandas.DataFrame(
        {
            "url": [r.url for r in results],
            "domain": [r.domain for r in results],
            "apps": [r.apps for r in results],
            "decisions": [[d.record() for d in r.decisions] for r in results],
            "error": [r.error for r in results],
        },
        index=series.index,
    )
