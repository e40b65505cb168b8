"""Scenario documents: loading, TOML errors, canonical JSON and hashing."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dupack
from dupack import Scenario, ScenarioError, load
from dupack._core import ScenarioError as CoreScenarioError

PINNED = {
    "name": "pinned",
    "run": {"duration": "10s", "seed": 7},
    "flows": [{"variant": "reno", "bytes": "1MB"}],
    "tcp": {"timestamps": True, "mss": "1460B"},
    "x": 1.5,
}
# If this changes, every stored result keyed by scenario hash is orphaned:
# change the canonical form only on purpose.
PINNED_JSON = (
    '{"flows":[{"bytes":"1MB","variant":"reno"}],"name":"pinned","run":{"duration":"10s","seed":7},'
    '"tcp":{"mss":"1460B","timestamps":true},"x":1.5}'
)
PINNED_HASH = "16f483edcbb75d75eb0d88fc538a6e4f461953e9eaaf2bf9d6c209d1417956fa"


def test_canonical_json_and_hash_are_pinned():
    sc = Scenario.from_dict(PINNED)
    assert sc.canonical_json() == PINNED_JSON
    assert sc.hash() == PINNED_HASH


def test_hash_ignores_key_order_and_toml_layout():
    a = Scenario.from_toml('name = "pinned"\nx = 1.5\n[run]\nduration = "10s"\nseed = 7\n'
                           '[tcp]\nmss = "1460B"\ntimestamps = true\n[[flows]]\nvariant = "reno"\nbytes = "1MB"\n')
    b = Scenario.from_toml('tcp = { timestamps = true, mss = "1460B" }\nflows = [{ bytes = "1MB", variant = "reno" }]\n'
                           'run.seed = 7\nrun.duration = "10s"  # comment\nx = 1.5\nname = "pinned"\n')
    assert a.hash() == b.hash() == PINNED_HASH
    assert a == b


def test_hash_changes_with_content():
    sc = Scenario.from_dict(PINNED)
    assert sc.with_overrides(["run.seed=8"]).hash() != sc.hash()
    assert sc.with_overrides(["run.seed=7"]).hash() == sc.hash()


json_scalars = st.one_of(st.booleans(), st.integers(-(2**63), 2**64 - 1), st.floats(allow_nan=False, allow_infinity=False), st.text())
docs = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(min_size=1, max_size=8), inner, max_size=4)),
    max_leaves=20,
).map(lambda v: {"v": v})


@given(docs)
def test_hash_is_a_function_of_content(doc):
    sc = Scenario.from_dict(doc)
    again = Scenario.from_dict(dict(reversed(list(doc.items()))))
    assert sc.hash() == again.hash()
    assert Scenario.from_dict(sc.to_dict()).hash() == sc.hash()
    assert len(sc.hash()) == 64


def test_from_dict_copies_and_to_dict_copies():
    d = {"run": {"seed": 1}}
    sc = Scenario.from_dict(d)
    d["run"]["seed"] = 2
    assert sc.to_dict() == {"run": {"seed": 1}}
    sc.to_dict()["run"]["seed"] = 3
    assert sc.to_dict() == {"run": {"seed": 1}}


def test_from_dict_rejects_non_tables_and_non_json_values():
    with pytest.raises(ScenarioError):
        Scenario.from_dict([1, 2])  # type: ignore[arg-type]
    with pytest.raises(ScenarioError) as exc:
        Scenario.from_dict({"run": {"duration": float("inf")}})
    assert exc.value.path == "run.duration"


def test_scenario_error_is_the_core_class_and_a_value_error():
    assert ScenarioError is CoreScenarioError is dupack.ScenarioError
    e = ScenarioError("topology.bottleneck.rate", "bad rate")
    assert isinstance(e, ValueError)
    assert e.args == ("topology.bottleneck.rate", "bad rate")
    assert (e.path, e.message) == ("topology.bottleneck.rate", "bad rate")
    assert str(e) == "topology.bottleneck.rate: bad rate"
    assert str(pickle.loads(pickle.dumps(e))) == str(e)
    assert issubclass(dupack.RunError, RuntimeError)


def test_load_reads_toml(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text('name = "n"\n[run]\nseed = 3\n', encoding="utf-8")
    sc = load(p)
    assert sc.to_dict() == {"name": "n", "run": {"seed": 3}}
    assert sc.source == p
    assert sc.name == "n"
    assert load(str(p)) == sc


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('name = "unterminated\n', "TOML syntax error at line 1, column"),
        ("[run]\nseed = \n", "TOML syntax error at line 2, column 8"),
        ("[run]\n[run]\n", "TOML syntax error at line 2"),
        ("a = [1,\n", "TOML syntax error at the end of the file"),
    ],
)
def test_toml_syntax_errors_name_file_line_and_column(tmp_path, text, fragment):
    p = tmp_path / "bad.toml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        load(p)
    assert exc.value.path == str(p)
    assert str(exc.value).startswith(f"{p}: ")
    assert fragment in str(exc.value)


def test_load_reports_non_utf8_and_missing_files(tmp_path):
    p = tmp_path / "latin1.toml"
    p.write_bytes('name = "caf\xe9"\n'.encode("latin-1"))
    with pytest.raises(ScenarioError, match="not UTF-8"):
        load(p)
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "missing.toml")


def test_from_toml_without_a_source():
    with pytest.raises(ScenarioError) as exc:
        Scenario.from_toml("x = ")
    assert exc.value.path == "<string>"
