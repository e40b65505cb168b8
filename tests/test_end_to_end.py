"""scenarios/quickstart.toml through the real parser and engine.

These need the merged Rust parser and engine: in a worktree with the stubs
they fail with "parser not implemented".
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

import dupack
from tests.conftest import QUICKSTART, run_cli, run_subprocess


@pytest.fixture(scope="module")
def result() -> dupack.RunResult:
    return dupack.run(QUICKSTART, seed=1)


def test_quickstart_validates():
    dupack.load(QUICKSTART).validate()
    r = run_cli("validate", str(QUICKSTART))
    assert (r.exit_code, r.stdout) == (0, "ok\n"), r.stderr


def test_quickstart_result_shape(result):
    flows = result.flows
    assert len(flows) == 4
    assert (flows["goodput_kbps"] > 0).all()
    assert (flows["bytes_delivered"] > 0).all()
    assert (flows["segments_sent"] > 0).all()
    assert len(result.links) >= 2
    assert set(result.links["direction"]) <= {"fwd", "rev"}
    assert result.run["events"] > 0
    assert result.run["end_reason"] in ("time_limit", "all_done")
    assert result.seed == 1
    # N_dup columns partition the timeouts (one entry per expiry).
    assert (flows[["ndup_0", "ndup_1", "ndup_2", "ndup_3plus"]].sum(axis=1) == flows["timeouts"]).all()


def test_the_scenario_seed_is_the_default():
    default_seed = dupack.load(QUICKSTART).to_dict()["run"]["seed"]
    assert dupack.run(QUICKSTART).seed == default_seed


def test_overrides_reach_the_core():
    res = dupack.run(QUICKSTART, seed=1, overrides=["tcp.variant=sack"])
    assert (res.flows["variant"] == "sack").all()


def without_wall_time(doc: dict) -> dict:
    doc = dict(doc)
    doc["run"] = {k: v for k, v in doc["run"].items() if k != "wall_time_s"}
    return doc


def test_same_seed_same_json_cli(tmp_path):
    a = run_cli("run", str(QUICKSTART), "--seed", "3", "--json", "--out", str(tmp_path / "a"))
    b = run_cli("run", str(QUICKSTART), "--seed", "3", "--json", "--out", str(tmp_path / "b"))
    assert a.exit_code == 0 and b.exit_code == 0, a.stderr + b.stderr
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    assert ja["seed"] == 3
    assert without_wall_time(ja) == without_wall_time(jb)


def test_different_seeds_differ():
    a = dupack.run(QUICKSTART, seed=1).raw
    b = dupack.run(QUICKSTART, seed=2).raw
    assert without_wall_time(a) != without_wall_time(b)


def test_out_writes_the_files(tmp_path):
    out = tmp_path / "qs"
    r = run_cli("run", str(QUICKSTART), "--seed", "1", "--out", str(out))
    assert r.exit_code == 0, r.stderr
    assert f"results saved to {out}" in r.stdout
    assert "events" in r.stdout and "simulated" in r.stdout
    for name in ("result.json", "flows.parquet", "links.parquet", "flows.csv", "scenario.json"):
        assert (out / name).is_file(), name
    assert len(pd.read_parquet(out / "flows.parquet")) == 4
    saved = json.loads((out / "result.json").read_text())
    assert saved["seed"] == 1
    assert json.loads((out / "scenario.json").read_text())["hash"] == dupack.load(QUICKSTART).hash()


def test_default_output_directory(tmp_path):
    r = run_subprocess("run", str(QUICKSTART), "--seed", "5", "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and r.stderr == ""
    assert (tmp_path / "dupack-out" / "quickstart-seed5" / "result.json").is_file()


def test_json_via_subprocess_is_only_json(tmp_path):
    r = run_subprocess("run", str(QUICKSTART), "--json", "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert len(doc["flows"]) == 4
    assert "Traceback" not in r.stderr
