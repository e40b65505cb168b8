"""Override parsing and application (``-s path=value``)."""

from __future__ import annotations

import pickle

import pytest

from dupack import Scenario, ScenarioError
from dupack.scenario import OverrideError, parse_override

BASE = {
    "name": "t",
    "run": {"duration": "5s", "seed": 1},
    "tcp": {"variant": "reno"},
    "flows": [{"variant": "reno"}, {"variant": "sack", "tcp": {"mss": "536B"}}],
}


@pytest.mark.parametrize(
    ("item", "path", "value"),
    [
        ("run.duration=10s", ["run", "duration"], "10s"),
        ("run.duration=10", ["run", "duration"], 10),
        ("run.duration = 2.5", ["run", "duration"], 2.5),
        ("tcp.timestamps=true", ["tcp", "timestamps"], True),
        ("tcp.variant=newreno", ["tcp", "variant"], "newreno"),
        ('tcp.variant="newreno"', ["tcp", "variant"], "newreno"),
        ("name='a = b'", ["name"], "a = b"),
        ("name=a=b", ["name"], "a=b"),
        ("name=", ["name"], ""),
        ("flows[0].variant=sack", ["flows", 0, "variant"], "sack"),
        ("flows.1.variant=sack", ["flows", 1, "variant"], "sack"),
        ("flows[1].tcp.mss=1460B", ["flows", 1, "tcp", "mss"], "1460B"),
        ("x.list=[1, 2]", ["x", "list"], [1, 2]),
        ("x.t={ p = 0.01 }", ["x", "t"], {"p": 0.01}),
        ("m[0][1]=x", ["m", 0, 1], "x"),
        ("a-b.c_d=1e3", ["a-b", "c_d"], 1000.0),
        ("x=1\ny = 2", ["x"], "1\ny = 2"),  # two TOML keys: not a single value, so text
    ],
)
def test_parse_override(item, path, value):
    assert parse_override(item) == (path, value)


@pytest.mark.parametrize(
    ("item", "fragment"),
    [
        ("run.duration", "expected path=value"),
        ("=5", "path before '=' is empty"),
        ("  =5", "path before '=' is empty"),
        ("run..duration=5", "empty path segment"),
        (".run=5", "empty path segment"),
        ("run.=5", "empty path segment"),
        ("flows[x].variant=a", "not a non-negative integer"),
        ("flows[-1].variant=a", "not a non-negative integer"),
        ("fl ows=a", "invalid key"),
    ],
)
def test_parse_override_rejects_malformed(item, fragment):
    with pytest.raises(OverrideError) as exc:
        parse_override(item)
    assert fragment in str(exc.value)
    assert item in str(exc.value)  # the message names the override
    assert isinstance(exc.value, ScenarioError) and isinstance(exc.value, ValueError)


def test_with_overrides_applies_in_order_and_copies():
    sc = Scenario.from_dict(BASE)
    new = sc.with_overrides(["run.duration=10s", "flows[0].variant=newreno", "flows.1.tcp.mss=1460B", "run.duration=20s"])
    d = new.to_dict()
    assert d["run"]["duration"] == "20s"
    assert d["flows"][0]["variant"] == "newreno"
    assert d["flows"][1]["tcp"]["mss"] == "1460B"
    # The original is unchanged.
    assert sc.to_dict() == BASE
    assert sc.with_overrides(None) == sc
    assert sc.with_overrides([]) == sc


def test_with_overrides_creates_missing_tables():
    d = Scenario.from_dict(BASE).with_overrides(["receiver.ack.mode=delayed", "tcp.rto.min=200ms"]).to_dict()
    assert d["receiver"] == {"ack": {"mode": "delayed"}}
    assert d["tcp"]["rto"] == {"min": "200ms"}


@pytest.mark.parametrize(
    ("item", "fragment"),
    [
        ("flows[2].variant=reno", "index 2 is out of range: flows has 2 element(s)"),
        ("flows.5=reno", "index 5 is out of range"),
        ("flows.variant=reno", "flows is a list"),
        ("tcp[0]=x", "tcp is a table, not a list"),
        ("name[0]=x", "name is a string"),
        ("run.duration.unit=s", "run.duration is a string"),
        ("run.seed.x=1", "run.seed is an integer"),
        ("nothere[0].x=1", "nothere does not exist"),
    ],
)
def test_with_overrides_rejects_bad_targets(item, fragment):
    with pytest.raises(OverrideError) as exc:
        Scenario.from_dict(BASE).with_overrides([item])
    assert fragment in str(exc.value)
    assert exc.value.override == item
    assert f"override {item!r}" in str(exc.value)


def test_override_error_pickles():
    e = OverrideError("a=b", "a", "why")
    back = pickle.loads(pickle.dumps(e))
    assert (type(back), back.override, back.path, back.reason, str(back)) == (OverrideError, "a=b", "a", "why", str(e))


def test_a_single_string_is_not_a_list_of_overrides():
    with pytest.raises(TypeError):
        Scenario.from_dict(BASE).with_overrides("run.duration=1s")  # type: ignore[arg-type]


def test_override_values_must_be_json_compatible():
    with pytest.raises(ScenarioError, match="dates and times"):
        Scenario.from_dict(BASE).with_overrides(["run.start=1979-05-27"])
    with pytest.raises(ScenarioError, match="finite"):
        Scenario.from_dict(BASE).with_overrides(["x=nan"])


@pytest.mark.parametrize("levels", [130, 3000])
def test_deeply_nested_override_values_are_override_errors(levels):
    item = "run.x=" + "[" * levels + "]" * levels
    with pytest.raises(OverrideError) as exc:
        Scenario.from_dict(BASE).with_overrides([item])
    assert exc.value.override == item
    assert exc.value.path == "run.x"
    assert "the value is nested too deeply" in exc.value.reason
    assert len(str(exc.value)) < 300  # the override is quoted shortened


def test_nesting_counts_from_the_top_of_the_document():
    from dupack.scenario import MAX_DEPTH

    path = ".".join(["t"] * 10)
    ok = MAX_DEPTH - 10  # the document and nine tables hold the tenth key, whose value is the lists
    Scenario.from_dict({}).with_overrides([f"{path}=" + "[" * ok + "]" * ok])
    with pytest.raises(OverrideError, match="nested too deeply"):
        Scenario.from_dict({}).with_overrides([f"{path}=" + "[" * (ok + 1) + "]" * (ok + 1)])
