"""Scenario documents: loading, TOML errors, canonical JSON and hashing."""

from __future__ import annotations

import pickle
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dupack
from dupack import Scenario, ScenarioError, load
from dupack._core import ScenarioError as CoreScenarioError
from tests.conftest import ROOT, run_cli

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


def test_a_byte_order_mark_is_read_as_editors_mean_it():
    # The TOML reader skips a leading UTF-8 BOM; the scenario is the same as without it.
    from tests.conftest import ROOT

    path = ROOT / "tests" / "scenario_with_bom.toml"
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    with_bom = load(path)
    without = Scenario.from_toml(path.read_bytes()[3:].decode("utf-8"))
    assert with_bom == without
    with_bom.validate()


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
keys = st.text(min_size=1, max_size=8)
values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=20,
)
# A scenario is a table at the top, with tables and lists at any depth below.
docs = st.dictionaries(keys, values, max_size=5)


def reverse_keys(v):
    """The same value with the key order of every table, at every depth, reversed."""
    if isinstance(v, dict):
        return {k: reverse_keys(x) for k, x in reversed(list(v.items()))}
    if isinstance(v, list):
        return [reverse_keys(x) for x in v]
    return v


def key_orders(v):
    """Every table's key order, outermost first (to see that reversing did something)."""
    if isinstance(v, dict):
        return [list(v), *(o for x in v.values() for o in key_orders(x))]
    if isinstance(v, list):
        return [o for x in v for o in key_orders(x)]
    return []


def test_reverse_keys_reaches_nested_tables():
    doc = {"a": 1, "b": {"c": [{"d": 1, "e": 2}], "f": {"g": 1, "h": 2}}}
    assert key_orders(reverse_keys(doc)) == [["b", "a"], ["f", "c"], ["h", "g"], ["e", "d"]]
    assert reverse_keys(doc) == doc


@given(docs)
def test_hash_is_a_function_of_content(doc):
    sc = Scenario.from_dict(doc)
    reordered = reverse_keys(doc)
    again = Scenario.from_dict(reordered)
    assert sc.hash() == again.hash()
    assert sc.canonical_json() == again.canonical_json()
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
        ("a = [1,\n", "TOML syntax error at line 1, column 8, the end of the file"),
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


TRACED = """
[topology]
kind = "chain"
[[topology.hops]]
delay = "1ms"
fwd_trace = { file = "traces/down.trace" }
rev_trace = { file = "ABSOLUTE", mtu = "1504B" }
[[topology.hops]]
delay = "5ms"
fwd_trace = { file = "../up.trace" }
rev_trace = { file = "down-again.trace" }
"""


def test_load_makes_trace_paths_absolute_against_the_scenario_folder(tmp_path, monkeypatch):
    (tmp_path / "sc" / "traces").mkdir(parents=True)
    for f in ("sc/traces/down.trace", "up.trace", "sc/down-again.trace"):
        (tmp_path / f).write_text("1\n2\n", encoding="utf-8")
    absolute = str(tmp_path / "up.trace")
    p = tmp_path / "sc" / "traced.toml"
    p.write_text(TRACED.replace("ABSOLUTE", absolute.replace("\\", "\\\\")), encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the current directory must not matter
    hops = load(Path("..") / "sc" / "traced.toml").to_dict()["topology"]["hops"]
    assert hops[0]["fwd_trace"] == {"file": str(tmp_path / "sc" / "traces" / "down.trace")}
    assert hops[0]["rev_trace"] == {"file": absolute, "mtu": "1504B"}, "absolute paths are kept"
    assert hops[1]["fwd_trace"]["file"] == str(tmp_path / "up.trace"), "'..' is normalised"
    assert hops[1]["rev_trace"]["file"] == str(tmp_path / "sc" / "down-again.trace")
    assert hops[0]["delay"] == "1ms", "other strings are untouched"
    load(Path("..") / "sc" / "traced.toml").validate()
    # A document given as a dict is taken as is: paths stay relative to the current directory.
    with pytest.raises(ScenarioError) as exc:
        Scenario.from_toml(TRACED.replace("ABSOLUTE", absolute)).validate()
    assert exc.value.path == "topology.hops[0].fwd_trace.file"
    assert 'cannot read trace file "traces/down.trace"' in exc.value.message


def test_shipped_trace_scenario_runs_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = dupack.run(ROOT / "scenarios" / "cellular-trace.toml", overrides=["run.duration=5s"])
    assert r.flows["bytes_delivered"].iloc[0] > 0
    hop1 = r.links[(r.links["link"] == "hop1") & (r.links["direction"] == "fwd")]
    assert hop1["rate_bps"].iloc[0] == 1101 * 1500 * 8, "the trace's mean rate: 1101 opportunities per second"


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


# --- nesting depth ---------------------------------------------------------------


def nested_list(levels: int) -> list:
    v: list = []
    for _ in range(levels - 1):
        v = [v]
    return v


def nested_toml(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_nesting_up_to_the_limit_reaches_the_core():
    # The document table is level 1, so `x` may hold MAX_DEPTH - 1 levels of lists.
    from dupack.scenario import MAX_DEPTH

    sc = Scenario.from_dict({"x": nested_list(MAX_DEPTH - 1)})
    assert sc.canonical_json().count("[") == MAX_DEPTH - 1
    with pytest.raises(ScenarioError) as exc:
        sc.validate()
    assert "unknown key 'x'" in str(exc.value)  # the core read it; it only dislikes the key
    with pytest.raises(ScenarioError, match="nested too deeply") as exc:
        Scenario.from_dict({"x": nested_list(MAX_DEPTH)})
    assert exc.value.path == "x"


@pytest.mark.parametrize("levels", [130, 3000, 100_000])
def test_deep_nesting_is_a_scenario_error(levels, tmp_path):
    # From a dict: no RecursionError, whatever the depth.
    with pytest.raises(ScenarioError, match="nested too deeply") as exc:
        dupack.run({"run": {"x": nested_list(levels)}})
    assert exc.value.path == "run.x"
    with pytest.raises(ScenarioError, match="nested too deeply"):
        Scenario.from_dict({"t": {"t": {"t": {}}}}).with_overrides([f"t.t.t={nested_toml(min(levels, 3000))}"])


@pytest.mark.parametrize("levels", [130, 3000])
def test_deeply_nested_toml_names_the_file(levels, tmp_path):
    p = tmp_path / "deep.toml"
    p.write_text(f"x = {nested_toml(levels)}\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="nested too deeply") as exc:
        load(p)
    # The file is the place; the field and the line are named in the message.
    assert exc.value.path == str(p)
    assert exc.value.message.startswith("x: nested too deeply") and "(line 1)" in exc.value.message
    with pytest.raises(ScenarioError, match="nested too deeply"):
        Scenario.from_toml(f"[a]\nb = {{ c = {nested_toml(levels)} }}\n")


def test_a_key_of_100000_parts_and_a_1mb_string_are_refused_at_once(tmp_path):
    # tomllib's time grows with the square of a dotted key's parts; the key
    # is refused before tomllib reads it (it took minutes and gigabytes).
    key = ".".join(f"k{i}" for i in range(100_000))
    text = '[run]\nduration = "1s"\nname = "' + "x." * 500_000 + '"\n' + key + " = 1\n"
    started = time.perf_counter()
    with pytest.raises(ScenarioError, match=r"line 4: a dotted key of 100000 parts \(k0\.k1\.") as exc:
        Scenario.from_toml(text, "big.toml")
    assert time.perf_counter() - started < 1.0  # about 0.05 s; the bound is the issue's, with a wide margin
    assert exc.value.path == "big.toml" and len(str(exc.value)) < 300
    p = tmp_path / "big.toml"
    p.write_text(text, encoding="utf-8")
    r = run_cli("validate", str(p))
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "nested too deeply" in r.stderr


@pytest.mark.parametrize(
    "text",
    [
        'name = "' + "x." * 500 + '"\n',  # dots inside a string
        'name = """\n' + "x." * 500 + '\n"""\n',  # inside a multi-line string
        "# " + "y." * 500 + "\nname = 'q'\n",  # inside a comment
        "a.b.c = 1\nx = [" + ", ".join(["1.5"] * 500) + "]\n",  # floats and a short dotted key
    ],
)
def test_dots_outside_keys_are_not_a_deep_key(text):
    Scenario.from_toml(text)  # no error: only a dotted key of more than MAX_DEPTH parts is refused
