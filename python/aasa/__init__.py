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

import ctypes
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, List, Mapping, Optional, Sequence, Union

__all__ = ["AASAError", "Decision", "Result", "Rules", "LIMITS"]

#: The limits ``Rules`` accept (``limits={"url-bytes": 1024}``), named as ``aasa --limit``.
LIMITS = (
    "document-bytes", "json-depth", "patterns", "pattern-bytes", "variables", "variable-values",
    "nfa-states", "dfa-cache-bytes", "eager-dfa-states", "variable-positions", "url-work",
    "analysis-work", "analysis-states", "url-bytes", "line-bytes",
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
    }
    for name, (arguments, result) in signatures.items():
        function = getattr(lib, name)
        function.argtypes = arguments
        function.restype = result
    return lib


_lib = _load()
_KINDS = {0: "no_match", 1: "match", 2: "exclude"}


def _check(status: int) -> None:
    if status != 0:
        raise AASAError(status, (_lib.aasa_last_error() or b"").decode("utf-8", "replace"))


def _text(pointer: Optional[int], length: int) -> Optional[str]:
    return None if pointer is None else ctypes.string_at(pointer, length).decode("utf-8", "surrogateescape")


def _encode(url: URLLike) -> bytes:
    # surrogateescape: a str decoded from arbitrary bytes that way goes back as those bytes.
    return url if isinstance(url, bytes) else url.encode("utf-8", "surrogateescape")


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


class _Options:
    def __init__(self, limits: Optional[Mapping[str, int]]) -> None:
        self.handle = _lib.aasa_options_new()
        if not self.handle:
            raise MemoryError("aasa_options_new")
        for name, value in (limits or {}).items():
            # ctypes would wrap a value past 64 bits silently into another value.
            if not isinstance(value, int) or not 0 <= value < 1 << 64:
                _lib.aasa_options_free(self.handle)
                raise AASAError(2, f"the limit {name} needs a whole number from 0 to 2**64 - 1, got {value!r}")
            status = _lib.aasa_options_set_limit(self.handle, name.encode(), value)
            if status != 0:
                _lib.aasa_options_free(self.handle)
                _check(status)

    def __enter__(self) -> int:
        return self.handle

    def __exit__(self, *exc: object) -> None:
        _lib.aasa_options_free(self.handle)


def _batch(urls: Sequence[bytes]):
    count = len(urls)
    pointers = (ctypes.c_char_p * count)(*urls)
    lengths = (ctypes.c_size_t * count)(*(len(u) for u in urls))
    return pointers, lengths, count


class Rules:
    """Loaded rules: one or many domains' documents, compiled. Share one among threads; close
    it (or use ``with``) to free it before the garbage collector does."""

    def __init__(self, handle: int) -> None:
        self._handle: Optional[int] = handle

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
        return cls._open(_lib.aasa_rules_open_directory, os.fsencode(path), limits=limits)

    @classmethod
    def from_artifact(cls, path: Union[str, os.PathLike], limits: Optional[Mapping[str, int]] = None) -> "Rules":
        """An artifact written by ``aasa compile`` (``aasa classify --compiled FILE``)."""
        return cls._open(_lib.aasa_rules_open_artifact, os.fsencode(path), limits=limits)

    @classmethod
    def from_document(cls, document: Union[str, bytes], domain: str, limits: Optional[Mapping[str, int]] = None) -> "Rules":
        """One document's JSON for one domain (``aasa classify --rules FILE --domain D``)."""
        data = document.encode("utf-8") if isinstance(document, str) else bytes(document)
        return cls._open(_lib.aasa_rules_open_document, data, len(data), domain.encode("utf-8"), limits=limits)

    def _live(self) -> int:
        if self._handle is None:
            raise ValueError("the rules are closed")
        return self._handle

    def decide(self, url: URLLike) -> Result:
        """One URL's result. A URL that is not one (invalid UTF-8, too long, blank) gets a
        result with ``error`` set; it never raises for that."""
        return self.classify([url])[0]

    def classify(self, urls: Iterable[URLLike]) -> List[Result]:
        """A result per URL, in order, from one call into the library."""
        given = list(urls)
        encoded = [_encode(u) for u in given]
        pointers, lengths, count = _batch(encoded)
        results = ctypes.c_void_p()
        _check(_lib.aasa_classify(self._live(), pointers, lengths, count, ctypes.byref(results)))
        try:
            out = []
            for index, url in enumerate(given):
                item = _lib.aasa_results_at(results, index).contents
                decisions = []
                for a in range(item.app_count):
                    app = item.apps[a]
                    kind = _KINDS[app.decision]
                    decisions.append(Decision(
                        _text(app.app, app.app_length) or "", kind,
                        None if app.entry < 0 else app.entry, None if app.rule < 0 else app.rule))
                out.append(Result(url, _text(item.domain, item.domain_length), decisions, _text(item.error, item.error_length)))
            return out
        finally:
            _lib.aasa_results_free(results)

    def classify_ndjson(self, urls: Iterable[URLLike]) -> bytes:
        """The NDJSON records ``aasa classify --blank-lines record`` writes for these URLs as
        lines, byte for byte."""
        encoded = [_encode(u) for u in urls]
        pointers, lengths, count = _batch(encoded)
        output, length = ctypes.c_void_p(), ctypes.c_size_t()
        _check(_lib.aasa_classify_ndjson(self._live(), pointers, lengths, count, ctypes.byref(output), ctypes.byref(length)))
        try:
            return ctypes.string_at(output, length.value)
        finally:
            _lib.aasa_free(output)

    def close(self) -> None:
        if self._handle is not None:
            _lib.aasa_rules_free(self._handle)
            self._handle = None

    def __enter__(self) -> "Rules":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # At interpreter exit the module's globals may already be gone.
        if _lib is not None:
            self.close()
