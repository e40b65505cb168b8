"""The extension's JSON text is Python's `json` text to the character.

`dupack run` reads and writes JSON through `_core.json_dumps` and
`_core.json_loads` so that it never imports `json` (and `re`, which `json`
imports). A scenario's hash is a digest of its canonical JSON, so the text
must be exactly what `json.dumps(..., sort_keys=True, separators=(",", ":"),
ensure_ascii=False, allow_nan=False)` wrote before: any difference would give
every stored result a new identity."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dupack
from dupack import _core

ROOT = Path(__file__).resolve().parent.parent

# Every kind of scalar json writes differently: ints of every size, floats in
# and out of repr's fixed-point range, -0.0 and the extremes, strings with
# quotes, backslashes, every control character and non-ASCII text.
def scalars_with(integers):
    return (
        st.none()
        | st.booleans()
        | integers
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.sampled_from([0.0, -0.0, 1e16, 1e-5, 1e-4, 1234567890123456.0, 5e-324, 1.7976931348623157e308, 0.1 + 0.2])
        | st.text(alphabet=st.characters(codec="utf-8"), max_size=12)
        | st.text(alphabet=st.sampled_from(['"', "\\", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f", "é", "€", "😀", "a"]))
    )


def documents_with(integers):
    return st.recursive(
        scalars_with(integers),
        lambda inner: st.lists(inner, max_size=4)
        | st.dictionaries(st.text(alphabet=st.characters(codec="utf-8"), max_size=6), inner, max_size=4),
        max_leaves=25,
    )


documents = documents_with(st.integers(min_value=-(2**70), max_value=2**70))
# What the core writes: its integers are i64 or u64 (beyond them, serde_json,
# like the core itself, reads a number as a float).
core_documents = documents_with(st.integers(min_value=-(2**63), max_value=2**64 - 1))

STYLES = [
    dict(),
    dict(sort_keys=True, compact=True),
    dict(indent=2),
    dict(indent=2, sort_keys=True),
    dict(indent=0),
]


def python_text(doc, indent=None, sort_keys=False, compact=False):
    separators = (",", ":") if compact else None
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, indent=indent, sort_keys=sort_keys, separators=separators)


@settings(max_examples=400, deadline=None)
@given(documents)
def test_dumps_writes_what_json_writes(doc):
    for style in STYLES:
        assert _core.json_dumps(doc, **style) == python_text(doc, **style)


@settings(max_examples=400, deadline=None)
@given(core_documents)
def test_loads_reads_what_json_reads(doc):
    text = python_text(doc)
    ours = _core.json_loads(text)
    theirs = json.loads(text)
    assert ours == theirs
    # In the same order, with the same types (1 and 1.0 and True compare equal).
    assert _core.json_dumps(ours) == text


def test_non_string_keys_tuples_and_int_subclasses_as_json_writes_them():
    import enum

    class Level(enum.IntEnum):
        HIGH = 3

    doc = {1: "a", 1.5: (1, 2), None: [Level.HIGH], True: {}, "k": ()}
    assert _core.json_dumps(doc) == json.dumps(doc, ensure_ascii=False)


def test_what_json_refuses_is_refused():
    for bad in (math.nan, math.inf, -math.inf, [1.0, {"x": math.nan}]):
        with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
            _core.json_dumps(bad)
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        _core.json_dumps({"a": {1}})
    with pytest.raises(TypeError, match="keys must be str"):
        _core.json_dumps({(1, 2): 1})
    for text in ("", "{", "[1,]", "{\"a\" 1}", "nan", "1 2"):
        with pytest.raises(ValueError, match="not valid JSON"):
            _core.json_loads(text)


def test_loads_keeps_key_order_and_the_last_duplicate():
    assert list(_core.json_loads('{"b": 1, "a": 2, "c": 3}')) == ["b", "a", "c"]
    assert _core.json_loads('{"a": 1, "b": 2, "a": 3}') == json.loads('{"a": 1, "b": 2, "a": 3}')


def test_every_shipped_scenario_keeps_its_canonical_text_and_hash():
    files = sorted(ROOT.glob("scenarios/**/*.toml")) + sorted(ROOT.glob("bench/scenarios/*.toml"))
    assert len(files) > 10
    for path in files:
        text = path.read_text(encoding="utf-8")
        sc = dupack.Scenario.from_toml(text)
        doc = sc.to_dict()
        canonical = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        assert sc.canonical_json() == canonical, path
        # The document the core handed over, read by json, is the same.
        assert json.loads(_core.toml_document(text)) == doc, path
