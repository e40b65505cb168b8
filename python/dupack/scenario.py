"""Scenario documents: load TOML, apply ``-s path=value`` overrides, hash (the
reading and the overrides are the core's, ``scenario::document``).

A :class:`Scenario` is the scenario *document* (nested dicts and lists, as
TOML gives them). Validation is the Rust core's job: :meth:`Scenario.validate`
and :func:`dupack.run` send the document to it as JSON, and it answers with
one :class:`ScenarioError` naming the field, the value and what is allowed.
This module only reports what it can see itself: unreadable TOML, values
JSON cannot carry (or nested too deeply for the core to read), and malformed
overrides.
"""

from __future__ import annotations

import errno
import os
import stat
import sys

# Mapping from the module that defines it, which the interpreter has loaded
# by the time it starts (os imports it): collections.abc is the same class,
# but importing it loads the collections package, a millisecond of every
# command's start-up.
from _collections_abc import Mapping
from os import PathLike

from dupack import _core
from dupack._core import ScenarioError
from dupack._paths import path_is_absolute, path_parent, path_text

# typing for type checkers only (why: dupack/__init__.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path
    from typing import Any

__all__ = ["Scenario", "ScenarioError", "OverrideError", "load", "parse_override", "MAX_DEPTH"]

#: How many levels of tables and arrays a document may have, counting the
#: document itself. Real scenarios need about five. The core's JSON reader
#: stops at 128 levels, and json and copy hit Python's recursion
#: limit a few hundred levels down; anything deeper than this is reported
#: here instead, as the user's mistake, before either can happen.
MAX_DEPTH = 64
_TOO_DEEP = f"nested too deeply: at most {MAX_DEPTH} levels of tables and arrays are allowed"


# A dotted key, bare or quoted parts joined by dots (TOML 1.0, "Keys"), and
# what the scan steps over whole so as never to look inside it: strings
# (multi-line ones too) and comments. The scan stays linear: a chain starts
# only where a bare part cannot have started one character earlier, and
# every part is matched possessively, so no text is read twice.
_PART = r"""(?:[A-Za-z0-9_-]++|"(?:[^"\\\n]|\\.)*+"|'[^'\n]*+')"""
_SKIPPED = (
    r'"""(?:[^"\\]|\\.|"(?!""))*+"""'  # multi-line basic string
    r"|'''(?:[^']|'(?!''))*+'''"  # multi-line literal string
    r"|#[^\n]*+"  # comment
    r'|"(?:[^"\\\n]|\\.)*+"'  # basic string
    r"|'[^'\n]*+'"  # literal string
)
_KEY_SCAN = rf"(?P<chain>(?<![A-Za-z0-9_-]){_PART}(?:[ \t]*+\.[ \t]*+{_PART})++)|{_SKIPPED}"
# The patterns are compiled where they are used (re caches them): only a
# text of more than MAX_DEPTH dots needs them, and compiling them at import
# would cost every `dupack run` half a millisecond.


def _check_dotted_keys(text: str, where: str) -> None:
    """Refuse a dotted key of more than MAX_DEPTH parts before the TOML
    reader sees it: each part is a level of tables (a key of 100,000 parts
    would be 100,000 nested tables), and no scenario needs more than a
    handful. A chain of dot-joined parts outside strings and comments
    counts (a float such as 1.5 is a chain of two), so only absurd chains are
    refused."""
    if text.count(".") <= MAX_DEPTH:
        return
    import re

    for m in re.finditer(_KEY_SCAN, text):
        chain = m.group("chain")
        if chain is not None and chain.count(".") >= MAX_DEPTH:
            parts = len(re.findall(_PART, chain))
            if parts > MAX_DEPTH:
                line = text.count("\n", 0, m.start()) + 1
                raise ScenarioError(
                    where, f"line {line}: a dotted key of {parts} parts ({_cut(chain, 40)}) is {_TOO_DEEP}"
                )


class OverrideError(ScenarioError):
    """A malformed ``path=value`` override. ``path`` is the field path as
    written (may be empty), ``override`` the whole override, ``reason`` what
    is wrong with it."""

    def __init__(self, override: str, path: str, reason: str) -> None:
        super().__init__(path, f"override {_cut(override)!r}: {reason}")
        self.override = override
        self.reason = reason

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (self.override, self.path, self.reason))


def shorten(text: str, limit: int = 80) -> str:
    """``text`` for a message: cut to ``limit`` characters with ``...`` if
    longer, and with control and invisible format characters escaped
    (``\\n``, ``\\x1b``, ``\\u202e``), so that the message stays one
    printable line."""
    return escape(_cut(text, limit))


def _cut(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _unprintable(c: str) -> bool:
    o = ord(c)
    return o < 0x20 or 0x7F <= o < 0xA0 or 0x200B <= o <= 0x200F or 0x2028 <= o <= 0x202E or 0x2060 <= o <= 0x2069 or o == 0xFEFF


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}


def escape(text: str) -> str:
    """``text`` with control characters and invisible format characters
    written as escapes (``\\n``, ``\\x1b``, ``\\u202e``); the rest unchanged."""
    if not any(_unprintable(c) for c in text):
        return text
    return "".join(
        _ESCAPES.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}") if _unprintable(c) else c
        for c in text
    )


def _json_copy(value: Any) -> Any:
    """A deep copy of a document of JSON values (dicts, lists, scalars), as
    ``copy.deepcopy`` makes it but without importing ``copy`` (a few ms of a
    command's start-up). What :func:`_check_json_compatible` lets through
    is mappings, lists, tuples and immutable scalars; mappings are copied as
    dicts."""
    if isinstance(value, Mapping):
        return {k: _json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_copy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_json_copy(v) for v in value)
    return value


class Scenario:
    """A scenario document, plus where it came from (for messages and output names).

    The document is never changed once the scenario is made (:func:`load`
    completes it before handing it out), so scenarios derived from one
    without a change share it.
    """

    __slots__ = ("_data", "_source", "_source_text")

    def __init__(self, data: Mapping[str, Any], source: Path | None = None) -> None:
        _check_json_compatible(data, "")
        self._data: dict[str, Any] = _json_copy(dict(data))
        self.source = source

    @classmethod
    def _owned(cls, data: dict[str, Any], source_text: str | None) -> Scenario:
        """A scenario of ``data`` that nothing else holds (just parsed from
        JSON), taken as it is rather than copied; ``source_text`` is the
        file's :func:`~dupack._paths.path_text`, made a ``Path`` when asked for."""
        _check_json_compatible(data, "")
        sc = cls.__new__(cls)
        sc._data, sc._source, sc._source_text = data, None, source_text
        return sc

    def _with_data(self, data: dict[str, Any]) -> Scenario:
        """A :class:`Scenario` of ``data`` (owned, or this one's) from the same file."""
        sc = Scenario.__new__(Scenario)
        sc._data, sc._source, sc._source_text = data, self._source, self._source_text
        return sc

    @property
    def source(self) -> Path | None:
        """The file the scenario was loaded from, if any."""
        if self._source_text is not None:
            from pathlib import Path

            self._source, self._source_text = Path(self._source_text), None
        return self._source

    @source.setter
    def source(self, value: Path | None) -> None:
        self._source, self._source_text = value, None

    # --- construction -------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scenario:
        """Wrap a scenario document given as nested dicts/lists (copied)."""
        if not isinstance(data, Mapping):
            raise ScenarioError("", f"a scenario must be a table (dict), got {type(data).__name__}")
        return cls(data)

    @classmethod
    def from_toml(cls, text: str, source: str | PathLike[str] | None = None) -> Scenario:
        """Parse scenario TOML text. Syntax errors raise :class:`ScenarioError`
        whose path is ``source`` (or ``<string>``)."""
        if source is None:
            return cls._parsed(text, "<string>", None)
        return cls._parsed(text, str(source), path_text(source))

    @classmethod
    def _parsed(cls, text: str, where: str, source_text: str | None) -> Scenario:
        """:meth:`from_toml`: ``where`` names the source in messages,
        ``source_text`` is its :func:`~dupack._paths.path_text`."""
        _check_dotted_keys(text, where)
        try:
            # The core reads TOML (scenario::document): one reader for the
            # command line, the API and the Rust examples.
            data = _core.json_loads(_core.toml_document(text))
        except ScenarioError as e:
            # The file is the error's place; a field inside it is named first.
            raise ScenarioError(where, f"{e.path}: {e.message}" if e.path else e.message) from None
        return cls._owned(data, source_text)

    # --- views --------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the document."""
        return _json_copy(self._data)

    def _document(self) -> dict[str, Any]:
        """The document itself, for reading only (:meth:`to_dict` copies it)."""
        return self._data

    @property
    def name(self) -> str | None:
        """The ``name`` key, if it is a string."""
        v = self._data.get("name")
        return v if isinstance(v, str) else None

    def canonical_json(self) -> str:
        """The document as JSON with sorted keys and no insignificant whitespace.

        Two documents that differ only in key order or TOML layout give the
        same text; this is what the core receives and what :meth:`hash` digests.
        """
        try:
            # json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
            # allow_nan=False) to the character, without importing json (dupack-py json.rs).
            return _core.json_dumps(self._data, sort_keys=True, compact=True)
        except RecursionError:  # unreachable after the depth check in __init__; kept as a guard
            raise ScenarioError("", f"the scenario is {_TOO_DEEP}") from None

    def hash(self) -> str:
        """SHA-256 (hex) of :meth:`canonical_json`: the scenario's identity in result stores."""
        return _sha256(self.canonical_json().encode("utf-8")).hexdigest()

    # --- changes ------------------------------------------------------------

    def with_overrides(self, overrides: Iterable[str] | None) -> Scenario:
        """Return a copy with ``path=value`` overrides applied in order.

        ``path`` is dot-separated; list elements are addressed as
        ``flows[0].variant`` or ``flows.0.variant``. Missing tables on the way
        are created. ``value`` is read as a TOML value (``10``, ``true``,
        ``"x"``, ``[1, 2]``, ``{ p = 0.01 }``) and, if it is not one, taken as
        a plain string, so ``run.duration=10s`` works without quotes.
        """
        if isinstance(overrides, str):
            raise TypeError("overrides must be a list of 'path=value' strings, not a single string")
        items = list(overrides or ())
        for item in items:
            if not isinstance(item, str):
                raise TypeError(f"an override must be a string, got {type(item).__name__}")
        if not items:
            return self._with_data(self._data)
        return self._from_core(_core.apply_overrides(self.canonical_json(), items), items)

    def with_values(self, values: Mapping[str, Any]) -> Scenario:
        """Return a copy with ``path → value`` set, in order: :meth:`with_overrides`
        with the values given as Python objects (numbers, strings, lists,
        dicts) instead of TOML text. ``dupack.sweep`` applies grid points so."""
        if not values:  # a sweep without a grid: nothing to set
            return self._with_data(self._data)
        import json  # for the texts of messages (default=str); the sweep path only

        items: list[str] = []
        pairs: list[tuple[str, str]] = []
        for raw, value in values.items():
            if not isinstance(raw, str):
                raise TypeError(f"a path must be a string, got {type(raw).__name__}")
            item = f"{raw}={value if isinstance(value, str) else json.dumps(value, default=str)}"
            try:
                # What JSON cannot carry is refused here, naming the path;
                # the depth from the top of the document is the core's check.
                _check_json_compatible(value, raw.strip())
            except ScenarioError as e:
                raise OverrideError(item, e.path, e.message) from None
            items.append(item)
            pairs.append((raw, _core.json_dumps(value)))
        if not pairs:
            return self._with_data(self._data)
        return self._from_core(_core.assign_values(self.canonical_json(), pairs), items)

    def _from_core(self, answer: tuple[str | None, tuple[int, str, str] | None], items: list[str]) -> Scenario:
        """The core's answer to a list of overrides: the new scenario, or
        the first override it refused, as an :class:`OverrideError`."""
        doc, failed = answer
        if failed is not None:
            i, path, reason = failed
            raise OverrideError(items[i], path, reason)
        assert doc is not None
        data = _core.json_loads(doc)
        _check_json_compatible(data, "")
        return self._with_data(data)

    def validate(self) -> None:
        """Ask the core whether the scenario is valid; raise :class:`ScenarioError` if not."""
        _core.validate(self.canonical_json())

    # --- dunder -------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self.canonical_json() == other.canonical_json()

    def __hash__(self) -> int:
        return hash(self.canonical_json())

    def __repr__(self) -> str:
        where = f" from {str(self.source)!r}" if self.source else ""
        return f"<Scenario {self.name!r}{where} {self.hash()[:12]}>"

    def _repr_html_(self) -> str:
        """For notebooks: the first line of :meth:`__repr__`, the description,
        and every value of the document as a table of path and value (the
        paths that ``-s`` / :meth:`with_overrides` take)."""
        import html

        rows = _flatten(self._data)
        shown = rows[:_HTML_ROWS]
        body = "".join(
            f"<tr><td style='text-align: left'><code>{html.escape(path)}</code></td>"
            f"<td style='text-align: left'>{html.escape(shorten(value))}</td></tr>"
            for path, value in shown
        )
        more = f"<p>… and {len(rows) - len(shown)} more values</p>" if len(rows) > len(shown) else ""
        desc = self._data.get("description")
        about = f"<p>{html.escape(desc)}</p>" if isinstance(desc, str) and desc else ""
        return (
            f"<p><code>{html.escape(repr(self))}</code></p>{about}"
            f"<table><thead><tr><th>path</th><th>value</th></tr></thead><tbody>{body}</tbody></table>{more}"
        )


#: Values shown by Scenario._repr_html_; the rest are counted.
_HTML_ROWS = 80


def _sha256(data: bytes) -> Any:
    """SHA-256 of ``data`` from CPython's own small module where there is
    one: hashlib's OpenSSL binding would add 3 MiB to the peak memory of a
    whole ``dupack run``. The digest is the same."""
    # Each interpreter's own module first: a failed import searches the whole path.
    first, second = ("_sha256", "_sha2") if sys.version_info < (3, 12) else ("_sha2", "_sha256")
    for name in (first, second):
        try:
            return __import__(name).sha256(data)
        except ImportError:
            pass
    from hashlib import sha256

    return sha256(data)


def _flatten(node: Any, prefix: str = "") -> list[tuple[str, str]]:
    """(path, value as TOML-like text) for every leaf of a document; lists of
    tables are indexed (``flows[0].name``), other lists are values."""
    if isinstance(node, Mapping):
        if not node and prefix:
            return [(prefix, "{}")]
        out: list[tuple[str, str]] = []
        for k, v in node.items():
            if not prefix and k == "description":  # shown above the table
                continue
            out.extend(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(node, list) and node and all(isinstance(x, Mapping) for x in node):
        return [row for i, x in enumerate(node) for row in _flatten(x, f"{prefix}[{i}]")]
    import json  # default=str: any value, for display

    return [(prefix, json.dumps(node, ensure_ascii=False, default=str))]


#: Largest scenario file :func:`load` reads, in bytes, unless the
#: environment variable ``DUPACK_MAX_SCENARIO_BYTES`` says otherwise.
DEFAULT_MAX_SCENARIO_BYTES = 16 << 20


def max_scenario_bytes() -> int:
    """The size limit for scenario files: ``DUPACK_MAX_SCENARIO_BYTES`` if it
    is a whole number of bytes, else :data:`DEFAULT_MAX_SCENARIO_BYTES`."""
    text = os.environ.get("DUPACK_MAX_SCENARIO_BYTES", "").strip()
    return int(text) if text.isdigit() else DEFAULT_MAX_SCENARIO_BYTES


class NotARegularFileError(OSError):
    """A scenario path names something that is not a regular file (a FIFO,
    a device, a socket), or a file over the size limit. ``strerror`` says
    which, in words fit for ``cannot read scenario file 'X': ...``."""


def _file_kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


def _read_regular_file(p: str, limit: int) -> bytes:
    """The bytes of ``p``, if it is a regular file of at most ``limit`` bytes.

    The type and size are checked with ``os.stat`` before opening, so that a
    FIFO is never opened (which would wait for a writer) and ``/dev/zero`` is
    never read; the open file is checked again (it may have been replaced)
    and read no further than the limit (it may be growing). Directories raise
    :class:`IsADirectoryError`, as ``open`` would.
    """

    def check(st: os.stat_result) -> None:
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(p))
        if not stat.S_ISREG(st.st_mode):
            kind = _file_kind(st.st_mode)
            raise NotARegularFileError(errno.EINVAL, f"it is {kind}; scenario files must be regular files", str(p))
        if st.st_size > limit:
            raise too_big(f"{st.st_size} bytes")

    def too_big(size: str) -> NotARegularFileError:
        return NotARegularFileError(
            errno.EFBIG,
            f"it is too large ({size}); scenario files may be at most {limit} bytes "
            "(set DUPACK_MAX_SCENARIO_BYTES to raise the limit)",
            str(p),
        )

    check(os.stat(p))
    # O_NONBLOCK: should the path have become a FIFO since the check, opening
    # it must not wait for a writer (the check below then refuses it).
    fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as f:
        check(os.fstat(fd))
        raw = f.read(limit + 1)
    if len(raw) > limit:
        raise too_big("it grew while being read")
    return raw


def load(path: str | PathLike[str]) -> Scenario:
    """Read a scenario TOML file.

    Raises :class:`OSError` if the file cannot be read, also if it is not a
    regular file or is larger than :func:`max_scenario_bytes` (then a
    :class:`NotARegularFileError`, whose ``strerror`` says so), and
    :class:`ScenarioError` (path = the file name) if it is not UTF-8 or not
    valid TOML. The content is not validated here: see
    :meth:`Scenario.validate`.

    Trace files (the ``file`` of every ``fwd_trace``/``rev_trace`` table) are
    named relative to the scenario file's folder, while the core opens paths
    as given; relative ones are therefore made absolute here.
    """
    p = path_text(path)
    raw = _read_regular_file(p, max_scenario_bytes())
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(p, f"not UTF-8 text (byte {e.start}): TOML files must be UTF-8") from None
    sc = Scenario._parsed(text, p, p)
    _absolute_trace_files(sc._data, path_parent(p))
    return sc


#: Link keys whose table names a trace file.
TRACE_KEYS = ("fwd_trace", "rev_trace")


def _absolute_trace_files(node: Any, base: str) -> None:
    """Rewrite, in place, each relative string ``file`` of a trace table
    anywhere in ``node`` to an absolute path under ``base``. Anything else
    (a missing or non-string ``file``) is left for the core to report."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in TRACE_KEYS and isinstance(value, dict):
                f = value.get("file")
                if isinstance(f, str) and f and not path_is_absolute(f):
                    value["file"] = os.path.abspath(os.path.join(base, f))
            else:
                _absolute_trace_files(value, base)
    elif isinstance(node, list):
        for item in node:
            _absolute_trace_files(item, base)


# --- overrides ---------------------------------------------------------------

Segment = str | int


def parse_override(item: str) -> tuple[list[Segment], Any]:
    """Split ``"path=value"`` into path segments and a value, as the core
    reads overrides (``scenario::document``): keys are strings, ``[N]`` and
    all-digit dotted segments are integers (list indices; an all-digit
    segment applied to a table is used as a key)."""
    if not isinstance(item, str):
        raise TypeError(f"an override must be a string, got {type(item).__name__}")
    parsed, path, reason = _core.parse_override(item)
    if parsed is None:
        raise OverrideError(item, path, reason)
    segments, value = _core.json_loads(parsed)
    return segments, value


def parse_value(text: str) -> Any:
    """The value of an override written ``text``: a TOML value if it is
    exactly one, else the text itself (``10s``). Raises
    :class:`OverrideError` for a value no scenario can hold."""
    return parse_override(f"v={text}")[1]


# --- helpers -------------------------------------------------------------------

_TRAILING_INDICES = r"(?:\[\d+\])+$"


def _deep_path(path: str) -> str:
    """Where a too-deep value is, for the message: the field that holds it
    (``x`` rather than ``x[0][0]…[0]``), shortened if still long."""
    import re

    path = re.sub(_TRAILING_INDICES, "", path) or path
    return shorten(path)


_INF = float("inf")
#: Integers the core reads: i64 and u64.
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1
_INT_RANGE = "integers in a scenario must fit in 64 bits (-2^63 to 2^64-1)"


def _show_int(v: int) -> str:
    """``v`` for a message: its digits, or how many there are (shortened)."""
    if v.bit_length() > 200:  # str() stops at 4300 digits; nobody reads 60
        return f"{'-' if v < 0 else ''}of about {int(v.bit_length() * 0.30103)} digits"
    return shorten(str(v))


def _check_json_compatible(v: Any, path: str, depth: int = 0) -> None:
    """The core reads JSON: reject what JSON cannot carry, naming the field.

    ``depth`` is how many tables and arrays enclose ``v``; past
    :data:`MAX_DEPTH` the value is rejected before anything recurses into it.
    """
    try:
        _check_value(v, path, depth)
    except RecursionError:  # only if the caller's stack was already deep
        raise ScenarioError(_deep_path(path), _TOO_DEEP) from None


def _check_value(v: Any, path: str, depth: int) -> None:
    if isinstance(v, Mapping | list | tuple) and depth >= MAX_DEPTH:
        raise ScenarioError(_deep_path(path), _TOO_DEEP)
    if isinstance(v, Mapping):
        for k, x in v.items():
            if not isinstance(k, str):
                raise ScenarioError(path, f"keys must be strings, got {k!r}")
            _check_value(x, f"{path}.{k}" if path else k, depth + 1)
    elif isinstance(v, list | tuple):
        for i, x in enumerate(v):
            _check_value(x, f"{path}[{i}]", depth + 1)
    elif isinstance(v, int) and not isinstance(v, bool) and not _INT_MIN <= v <= _INT_MAX:
        raise ScenarioError(path, f"the integer {_show_int(v)} is out of range; {_INT_RANGE}")
    elif isinstance(v, float) and (v != v or v in (_INF, -_INF)):
        raise ScenarioError(path, f"{v} is not allowed: numbers must be finite")
    elif (dt := sys.modules.get("datetime")) is not None and isinstance(v, dt.date | dt.time):
        # No date or time exists unless datetime was imported, so the check
        # does not import it (3-4 ms of every `dupack run`).
        raise ScenarioError(path, f"dates and times are not supported (got {v}); write durations as strings like \"200ms\"")
    elif v is not None and not isinstance(v, str | int | float | bool):
        raise ScenarioError(path, f"unsupported value of type {type(v).__name__}")
