"""Apple's apple-app-site-association (AASA) matching: the engine of the ``aasa`` command line
tool, through libaasa and ctypes.

Open rules once, then decide URLs::

    import aasa
    rules = aasa.Rules.from_directory("corpus")      # DOMAIN.json, DOMAIN/apple-app-site-association, ...
    result = rules.decide("https://museum.example/exhibits/42")
    result.domain, result.apps, result.decisions, result.error

A batch (``Rules.classify``) is one call into the library, which releases the GIL: threads
sharing one ``Rules`` run in parallel, each call on its own DFA caches.
"""

from __future__ import annotations

import array
import ctypes
import itertools
import operator
import os
import struct
from collections.abc import Mapping as MappingABC
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union, overload

__all__ = ["AASAError", "Decision", "Result", "Results", "Rules", "LIMITS"]

#: The limits ``Rules`` accept (``limits={"url-bytes": 1024}``), named as ``aasa --limit``.
LIMITS = (
    "document-bytes", "json-depth", "patterns", "pattern-bytes", "variables", "variable-values",
    "nfa-states", "dfa-cache-bytes", "loaded-bytes", "eager-dfa-states", "eager-dfa-work", "variable-positions", "url-work",
    "analysis-work", "analysis-states", "analysis-pairs", "url-bytes", "line-bytes",
)

URLLike = Union[str, bytes]


class AASAError(Exception):
    """A call libaasa refused: rules that cannot be used, a bad limit, a bad argument."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _AppDecision(ctypes.Structure):
    _fields_ = [
        ("app", ctypes.c_void_p), ("app_length", ctypes.c_size_t), ("decision", ctypes.c_int),
        ("entry", ctypes.c_int64), ("rule", ctypes.c_int64),
    ]


class _Result(ctypes.Structure):
    _fields_ = [
        ("domain", ctypes.c_void_p), ("domain_length", ctypes.c_size_t),
        ("error", ctypes.c_void_p), ("error_length", ctypes.c_size_t),
        ("apps", ctypes.POINTER(_AppDecision)), ("app_count", ctypes.c_size_t), ("opened", ctypes.c_size_t),
    ]


class _Columns(ctypes.Structure):
    _fields_ = [
        ("count", ctypes.c_size_t), ("domain", ctypes.c_void_p), ("error", ctypes.c_void_p), ("first", ctypes.c_void_p),
        ("decision_count", ctypes.c_size_t), ("decision", ctypes.c_void_p), ("entry", ctypes.c_void_p),
        ("rule", ctypes.c_void_p), ("error_count", ctypes.c_size_t), ("error_text", ctypes.c_void_p),
        ("error_ends", ctypes.c_void_p),
    ]


def _load() -> ctypes.CDLL:
    # The library bundled by pip, or one named explicitly (a development build).
    given = os.environ.get("AASA_LIBRARY")
    path = Path(given) if given else Path(__file__).with_name("libaasa.so")
    lib = ctypes.CDLL(str(path))
    p, size, status = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
    signatures = {
        "aasa_last_error": ([], ctypes.c_char_p),
        "aasa_options_new": ([], p),
        "aasa_options_free": ([p], None),
        "aasa_options_set_limit": ([p, ctypes.c_char_p, ctypes.c_uint64], status),
        "aasa_rules_open_directory": ([ctypes.c_char_p, p, ctypes.POINTER(p)], status),
        "aasa_rules_open_artifact": ([ctypes.c_char_p, p, ctypes.POINTER(p)], status),
        "aasa_rules_open_document": ([ctypes.c_char_p, size, ctypes.c_char_p, p, ctypes.POINTER(p)], status),
        "aasa_rules_free": ([p], None),
        "aasa_classify": ([p, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(size), size, ctypes.POINTER(p)], status),
        "aasa_results_count": ([p], size),
        "aasa_results_at": ([p, size], ctypes.POINTER(_Result)),
        "aasa_results_free": ([p], None),
        "aasa_classify_ndjson": (
            [p, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(size), size, ctypes.POINTER(p), ctypes.POINTER(size)], status),
        "aasa_free": ([p], None),
        "aasa_classify_columns": ([p, ctypes.c_char_p, size, p, size, ctypes.POINTER(p)], status),
        "aasa_batch_columns": ([p], ctypes.POINTER(_Columns)),
        "aasa_batch_free": ([p], None),
        "aasa_rules_domain": ([p, size, ctypes.POINTER(size)], p),
        "aasa_rules_app_count": ([p, size], size),
        "aasa_rules_app": ([p, size, size, ctypes.POINTER(size)], p),
    }
    for name, (arguments, result) in signatures.items():
        function = getattr(lib, name)
        function.argtypes = arguments
        function.restype = result
    return lib


_lib = _load()
_KINDS = {0: "no_match", 1: "match", 2: "exclude"}
#: AASA_ERROR_ARGUMENT of aasa.h.
_ERROR_ARGUMENT = 1


def _check(status: int) -> None:
    if status != 0:
        raise AASAError(status, (_lib.aasa_last_error() or b"").decode("utf-8", "replace"))


def _text(pointer: Optional[int], length: int) -> Optional[str]:
    return None if pointer is None else ctypes.string_at(pointer, length).decode("utf-8", "surrogateescape")


def _c_text(text: str, what: str) -> bytes:
    """``text`` as the C string the library reads: a NUL would end it early, so that
    "museum.example\\0.other" named museum.example; refused as ``open()`` refuses it."""
    if not isinstance(text, str):
        raise TypeError(f"the {what} is a str, not {type(text).__name__}")
    encoded = text.encode("utf-8")
    if b"\0" in encoded:
        raise ValueError(f"embedded null byte in the {what}")
    return encoded


def _path(path: Union[str, os.PathLike]) -> bytes:
    encoded = os.fsencode(path)
    if b"\0" in encoded:
        raise ValueError("embedded null byte in the path")
    return encoded


def _encode(url: URLLike) -> bytes:
    # surrogateescape: a str decoded from arbitrary bytes that way goes back as those bytes.
    # Any other lone surrogate is written as its (invalid) UTF-8 bytes, which the library
    # answers with an error result, as it does for other text that is not UTF-8.
    if isinstance(url, bytes):
        return url
    if not isinstance(url, str):
        raise TypeError(f"a URL is a str or bytes, not {type(url).__name__}")
    try:
        return url.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return url.encode("utf-8", "surrogatepass")


def _not_a_url(urls: Sequence[Any], error: TypeError) -> TypeError:
    """The first value of ``urls`` that is no URL, named by its position (looked for only once
    encoding failed, so that a good batch pays nothing for it)."""
    for index, url in enumerate(urls):
        if not isinstance(url, (str, bytes)):
            return TypeError(f"URL {index} is {type(url).__name__}, not str or bytes (give \"\" for a missing URL)")
    return error


@dataclass(frozen=True)
class Decision:
    """What one app of the document decides for a URL, and the rule that decided it."""

    app: str
    #: ``"match"`` (the URL opens the app), ``"exclude"`` or ``"no_match"``.
    decision: str
    #: The deciding entry's index in ``applinks.details`` and rule's index in it; ``None`` for
    #: ``no_match``.
    entry: Optional[int] = None
    rule: Optional[int] = None

    def record(self) -> dict:
        """As in an NDJSON record of ``aasa classify``."""
        out: dict = {"app": self.app, "decision": self.decision}
        if self.entry is not None:
            out["entry"], out["rule"] = self.entry, self.rule
        return out


@dataclass(frozen=True)
class Result:
    """One URL's outcome: the fields of its ``aasa classify`` record."""

    url: URLLike
    #: The domain whose document serves the URL's host; ``None`` when none does.
    domain: Optional[str]
    #: Every app of the document, in its order (empty without a domain or with an error).
    decisions: List[Decision] = field(default_factory=list)
    #: Why the URL got no decisions; ``None`` when it got them.
    error: Optional[str] = None

    @property
    def apps(self) -> List[str]:
        """The apps the URL opens."""
        return [d.app for d in self.decisions if d.decision == "match"]

    def record(self) -> dict:
        """The record's fields other than ``url`` (``aasa classify`` shows an unreadable line's
        text there, not the bytes given)."""
        if self.error is not None:
            return {"domain": self.domain, "error": self.error}
        return {"domain": self.domain, "apps": self.apps, "decisions": [d.record() for d in self.decisions]}


def _whole(value: Any) -> Optional[int]:
    """``value`` as an int when it is an integer (Python's or numpy's), else None; a bool of
    either is no count."""
    if isinstance(value, bool) or type(value).__name__ in ("bool", "bool_"):  # numpy 1 and 2
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


class _Options:
    def __init__(self, limits: Optional[Mapping[str, int]]) -> None:
        # Every name and value checked before the handle exists, so that a refusal leaks nothing.
        if limits is not None and not isinstance(limits, MappingABC):
            raise TypeError(f"limits is a mapping of limit names to numbers, not {type(limits).__name__}")
        checked = []
        for name, value in (limits or {}).items():
            # ctypes would wrap a value past 64 bits silently into another value, and True is
            # an int to Python but no count. Any integer type counts (`operator.index`): a
            # limit read from a DataFrame or a config is numpy's int64, which was refused as
            # "needs a whole number ..., got 5".
            number = _whole(value)
            if number is None or not 0 <= number < 1 << 64:
                raise AASAError(2, f"the limit {name} needs a whole number from 0 to 2**64 - 1, got {value!r}")
            checked.append((_c_text(name, "limit name"), number))
        self.handle = _lib.aasa_options_new()
        if not self.handle:
            raise MemoryError("aasa_options_new")
        for encoded, value in checked:
            status = _lib.aasa_options_set_limit(self.handle, encoded, value)
            if status != 0:
                _lib.aasa_options_free(self.handle)
                _check(status)

    def __enter__(self) -> int:
        return self.handle

    def __exit__(self, *exc: object) -> None:
        _lib.aasa_options_free(self.handle)


def _joined(urls: List[URLLike]) -> bytes:
    """The URLs joined by line feeds, in C-speed passes. Joined and encoded in slices: a single
    URL beyond ASCII makes Python widen everything joined with it, so it only costs its slice."""
    step = 1024
    try:
        return b"\n".join(
            "\n".join(urls[start:start + step]).encode("utf-8", "surrogateescape")  # type: ignore[arg-type]
            for start in range(0, len(urls), step))
    except (TypeError, UnicodeEncodeError):  # bytes among the URLs, or a lone surrogate
        return b"\n".join(_encode(u) for u in urls)


def _ended(urls: List[URLLike]) -> Tuple[bytes, "ctypes.Array[ctypes.c_size_t]"]:
    """The URLs end to end with their ends: for URLs holding a line feed."""
    encoded = [_encode(u) for u in urls]
    return b"".join(encoded), (ctypes.c_size_t * len(encoded))(*itertools.accumulate(map(len, encoded)))


def _column(pointer: Optional[int], count: int, code: str) -> memoryview:
    """A C array copied in one piece, read as a sequence of numbers."""
    size = struct.calcsize(code)
    return memoryview(ctypes.string_at(pointer, count * size) if count else b"").cast(code)


def _made(cls, **fields):
    """A frozen dataclass instance without its `__init__`, which sets each field through
    `object.__setattr__`. PERF: iterating the `Results` of 425 425 real URLs (reading `.apps`)
    went from 2.9 to 1.5 µs a URL (`time.thread_time`, the corpus of `make bench-embed`)."""
    item = object.__new__(cls)
    item.__dict__.update(fields)
    return item


class _Handle:
    """A rules handle of the library and the names read through it, freed when neither its
    ``Rules`` nor any ``Results`` made from them hold it."""

    def __init__(self, pointer: int) -> None:
        self.pointer = pointer
        # Names by index, read from the library once each (batches give indices).
        self.domains: Dict[int, str] = {}
        self.apps: Dict[int, Tuple[str, ...]] = {}

    def domain(self, index: int) -> str:
        name = self.domains.get(index)
        if name is None:
            length = ctypes.c_size_t()
            name = _text(_lib.aasa_rules_domain(self.pointer, index, ctypes.byref(length)), length.value) or ""
            self.domains[index] = name
        return name

    def app_ids(self, domain: int) -> Tuple[str, ...]:
        apps = self.apps.get(domain)
        if apps is None:
            length = ctypes.c_size_t()
            apps = tuple(
                _text(_lib.aasa_rules_app(self.pointer, domain, app, ctypes.byref(length)), length.value) or ""
                for app in range(_lib.aasa_rules_app_count(self.pointer, domain)))
            self.apps[domain] = apps
        return apps

    # One owner frees the library's rules once: a copy shares this handle, and a pickle (which
    # would carry the raw pointer into another process, or free it twice here) is refused.
    def __copy__(self) -> "_Handle":
        return self

    def __deepcopy__(self, memo: Dict[int, Any]) -> "_Handle":
        return self

    def __reduce__(self) -> Any:
        raise TypeError(
            "aasa.Rules hold the library's memory and cannot be pickled: ship the artifact "
            "(aasa compile) and open it where it is used (Rules.from_artifact)")

    def __del__(self) -> None:
        # At interpreter exit the module's globals may already be gone.
        if _lib is not None:
            _lib.aasa_rules_free(self.pointer)


class Results(SequenceABC):
    """The results of one ``Rules.classify`` call, in input order; each ``Result`` is made
    when read. Holds copies of the library's arrays, not the library's memory."""

    def __init__(self, rules: _Handle, urls: List[URLLike], columns: "_Columns") -> None:
        count = columns.count
        self._rules = rules
        self._urls = urls
        self._domain = _column(columns.domain, count, "i")
        self._error = _column(columns.error, count, "i")
        self._first = _column(columns.first, count + 1, "I")
        decisions = columns.decision_count
        self._kind = _column(columns.decision, decisions, "B")
        self._entry = _column(columns.entry, decisions, "i")
        self._rule = _column(columns.rule, decisions, "i")
        self._error_ends = _column(columns.error_ends, columns.error_count, "N")
        self._error_text = ctypes.string_at(columns.error_text, self._error_ends[-1]) if columns.error_count else b""

    def __len__(self) -> int:
        return len(self._urls)

    # Read-only: a copy is this object (its arrays are never written).
    def __copy__(self) -> "Results":
        return self

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Results":
        return self

    def _make(self, index: int) -> Result:
        url = self._urls[index]
        domain_index, error_index = self._domain[index], self._error[index]
        domain = None if domain_index < 0 else self._rules.domain(domain_index)
        if error_index >= 0:
            start = self._error_ends[error_index - 1] if error_index else 0
            error = self._error_text[start:self._error_ends[error_index]].decode("utf-8", "surrogateescape")
            return _made(Result, url=url, domain=domain, decisions=[], error=error)
        first, end = self._first[index], self._first[index + 1]
        decisions = []
        if first != end:
            apps = self._rules.app_ids(domain_index)
            for app, position in enumerate(range(first, end)):
                entry = self._entry[position]
                decisions.append(_made(
                    Decision, app=apps[app], decision=_KINDS[self._kind[position]], entry=None if entry < 0 else entry,
                    rule=None if entry < 0 else self._rule[position]))
        return _made(Result, url=url, domain=domain, decisions=decisions, error=None)

    @overload
    def __getitem__(self, index: int) -> Result: ...

    @overload
    def __getitem__(self, index: slice) -> List[Result]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union[Result, List[Result]]:
        if isinstance(index, slice):
            return [self._make(i) for i in range(*index.indices(len(self)))]
        count = len(self)
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError("result index out of range")
        return self._make(index)

    def __iter__(self) -> Iterator[Result]:
        return (self._make(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Results, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __repr__(self) -> str:
        return f"<aasa.Results of {len(self)} URLs>"

    @property
    def domains(self) -> List[Optional[str]]:
        """Each URL's domain (``None`` where no document serves its host), without making
        ``Result`` objects."""
        names: Dict[int, Optional[str]] = {-1: None}
        out = []
        for index in self._domain.tolist():
            name = names.get(index, _MISSING)
            if name is _MISSING:
                name = names[index] = self._rules.domain(index)
            out.append(name)
        return out

    @property
    def errors(self) -> List[Optional[str]]:
        """Each URL's error text, ``None`` where it got decisions."""
        ends = self._error_ends.tolist()
        texts = [self._error_text[(ends[i - 1] if i else 0):ends[i]].decode("utf-8", "surrogateescape") for i in range(len(ends))]
        return [None if e < 0 else texts[e] for e in self._error.tolist()]


_MISSING: Any = object()


#: An `array` type code as wide as a pointer and a `size_t` (both 8 bytes on the platforms
#: Swift builds for), or None: then `_batch` fills `ctypes` arrays element by element.
_WORD = next((code for code in "LQ" if array.array(code).itemsize == ctypes.sizeof(ctypes.c_void_p) == ctypes.sizeof(ctypes.c_size_t)), None)


def _batch(urls: Sequence[bytes]):
    """Pointer and length arrays for `aasa_classify_ndjson`, and what must outlive the call.

    PERF: the URLs joined in one buffer and the arrays filled by `array` from integers, then
    viewed as `ctypes` arrays, instead of `ctypes` converting each `bytes`: 960 → 340 ns a URL
    to build them (200 000 real URLs, `time.thread_time`)."""
    count = len(urls)
    if count == 0 or _WORD is None:
        pointers = (ctypes.c_char_p * count)(*urls)
        lengths = (ctypes.c_size_t * count)(*(len(u) for u in urls))
        return pointers, lengths, count, urls
    data = b"".join(urls)
    base = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value or 0
    sizes = array.array(_WORD, map(len, urls))
    starts = array.array(_WORD, itertools.accumulate(sizes, initial=base))
    starts.pop()
    pointers = (ctypes.c_char_p * count).from_buffer(starts)
    lengths = (ctypes.c_size_t * count).from_buffer(sizes)
    return pointers, lengths, count, (data, starts, sizes)


class Rules:
    """Loaded rules: one or many domains' documents, compiled. Share one among threads; close
    it (or use ``with``) to free it before the garbage collector does."""

    def __init__(self, handle: int) -> None:
        self._owner: Optional[_Handle] = _Handle(handle)

    @classmethod
    def _open(cls, opener, *arguments, limits: Optional[Mapping[str, int]]) -> "Rules":
        handle = ctypes.c_void_p()
        with _Options(limits) as options:
            _check(opener(*arguments, options, ctypes.byref(handle)))
        return cls(handle.value)

    @classmethod
    def from_directory(cls, path: Union[str, os.PathLike], limits: Optional[Mapping[str, int]] = None) -> "Rules":
        """Documents named after their domain: ``DOMAIN.json``, ``DOMAIN/apple-app-site-association``
        or ``DOMAIN/.well-known/apple-app-site-association`` (``aasa classify --rules DIR``)."""
        return cls._open(_lib.aasa_rules_open_directory, _path(path), limits=limits)

    @classmethod
    def from_artifact(cls, path: Union[str, os.PathLike], limits: Optional[Mapping[str, int]] = None) -> "Rules":
        """An artifact written by ``aasa compile`` (``aasa classify --compiled FILE``)."""
        return cls._open(_lib.aasa_rules_open_artifact, _path(path), limits=limits)

    @classmethod
    def from_document(cls, document: Union[str, bytes], domain: str, limits: Optional[Mapping[str, int]] = None) -> "Rules":
        """One document's JSON for one domain (``aasa classify --rules FILE --domain D``)."""
        if not isinstance(document, (str, bytes, bytearray, memoryview)):
            raise TypeError(f"the document is str or bytes, not {type(document).__name__}")
        data = document.encode("utf-8") if isinstance(document, str) else bytes(document)
        return cls._open(_lib.aasa_rules_open_document, data, len(data), _c_text(domain, "domain"), limits=limits)

    def _live(self) -> "_Handle":
        """The handle, held by the caller for the whole library call: `close()` on another
        thread then only drops this object's reference, and the library's rules are freed
        after the call returns, never under it."""
        owner = self._owner
        if owner is None:
            raise ValueError("the rules are closed")
        return owner

    def decide(self, url: URLLike) -> Result:
        """One URL's result. A URL that is not one (invalid UTF-8, too long, blank) gets a
        result with ``error`` set; it never raises for that. A value that is neither ``str`` nor
        ``bytes`` (``None`` included) raises ``TypeError``."""
        if not isinstance(url, (str, bytes)):
            raise TypeError(f"a URL is a str or bytes, not {type(url).__name__}")
        return self.classify([url])[0]

    def classify(self, urls: Iterable[URLLike]) -> "Results":
        """A result per URL, in order, from one call into the library: a read-only sequence
        (``len``, indexing, slicing, iteration, ``==`` with a list) whose ``Result`` objects
        are made as they are read, so a large batch costs little until its results are used.
        A value that is neither ``str`` nor ``bytes`` (``None`` included) raises ``TypeError``
        naming its position, and nothing is classified."""
        if isinstance(urls, (str, bytes)):
            # Iterating one URL would classify each of its characters.
            raise TypeError("classify takes an iterable of URLs; for one URL, use decide()")
        # A copy, even of a list: the results must not change when the caller reuses the list.
        given = list(urls)
        owner, batch = self._live(), ctypes.c_void_p()
        handle = owner.pointer
        try:
            data = _joined(given)
        except TypeError as error:
            raise _not_a_url(given, error) from None
        # The library counts the line feeds as it cuts: more than the URLs' separators means a
        # URL holds one, refused as a bad argument, and the batch is passed again with explicit
        # ends. Any other failure (a batch too large, status 4) would fail again after classifying
        # the whole batch a second time: raised at once.
        status = _lib.aasa_classify_columns(handle, data, len(data), None, len(given), ctypes.byref(batch))
        if status == _ERROR_ARGUMENT:
            data, ends = _ended(given)
            status = _lib.aasa_classify_columns(handle, data, len(data), ends, len(given), ctypes.byref(batch))
        _check(status)
        try:
            return Results(owner, given, _lib.aasa_batch_columns(batch).contents)
        finally:
            _lib.aasa_batch_free(batch)

    def classify_ndjson(self, urls: Iterable[URLLike]) -> bytes:
        """The NDJSON records ``aasa classify --blank-lines record`` writes for these URLs as
        lines, byte for byte, one record per URL: a URL holding a line feed stays one URL
        (the tool would read two lines), and a byte order mark is part of the URL (the tool
        drops one at the start of its input)."""
        if isinstance(urls, (str, bytes)):
            raise TypeError("classify_ndjson takes an iterable of URLs, not one URL")
        given = list(urls)
        try:
            encoded = [_encode(u) for u in given]
        except TypeError as error:
            raise _not_a_url(given, error) from None
        pointers, lengths, count, keep = _batch(encoded)
        output, length = ctypes.c_void_p(), ctypes.c_size_t()
        owner = self._live()
        _check(_lib.aasa_classify_ndjson(owner.pointer, pointers, lengths, count, ctypes.byref(output), ctypes.byref(length)))
        del keep, owner  # the buffers the pointers point into, and the rules, alive until here
        try:
            return ctypes.string_at(output, length.value)
        finally:
            _lib.aasa_free(output)

    def close(self) -> None:
        """Frees the rules, once no ``Results`` read from them remain (they name domains and
        apps through them)."""
        self._owner = None

    def __enter__(self) -> "Rules":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

