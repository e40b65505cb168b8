"""scenarios/quickstart.toml through the real parser and engine."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import dupack
from dupack.result import FLOW_COLUMNS, LINK_COLUMNS, MEDIUM_COLUMNS, NDUP_COLUMNS
from tests.conftest import QUICKSTART, ROOT, run_cli, run_subprocess

EFR_WLAN = ROOT / "scenarios" / "efr_wlan.toml"


@pytest.fixture(scope="module")
def result() -> dupack.RunResult:
    return dupack.run(QUICKSTART, seed=1)


def test_quickstart_validates():
    dupack.load(QUICKSTART).validate()
    r = run_cli("validate", str(QUICKSTART))
    assert (r.exit_code, r.stdout.splitlines()) == (0, ["ok", r.stdout.splitlines()[1]]), r.stderr
    assert r.stdout.splitlines()[1].startswith("estimate: under 0.1 s of wall-clock time"), r.stdout


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


def test_quickstart_run_info(result):
    # 30 s of greedy flows: the clock, not the flows, ends the run.
    assert result.run["end_reason"] == "time_limit"
    assert result.run["sim_time_s"] == 30


def test_quickstart_links(result):
    links = result.links
    # A dumbbell with four senders: access0..access3 and the bottleneck, each fwd and rev.
    assert len(links) == 10
    names = {f"access{i}" for i in range(4)} | {"bottleneck"}
    assert set(links["link"]) == names
    for name in names:
        assert sorted(links.loc[links["link"] == name, "direction"]) == ["fwd", "rev"], name


def test_quickstart_drops(result):
    flows, links = result.flows, result.links
    fwd = links[(links["link"] == "bottleneck") & (links["direction"] == "fwd")]
    assert len(fwd) == 1
    # Every queue drop happens at the bottleneck's router queue, and each is
    # charged to the flow whose packet it was.
    assert fwd["drops_queue"].iloc[0] > 0
    assert flows["drops_queue"].sum() == fwd["drops_queue"].iloc[0]
    # Only s3's access link has an error model.
    lossy = flows.loc[flows["drops_error"] > 0, "flow"].tolist()
    assert lossy == ["f3"]


def flattened_keys(flow: dict) -> list[str]:
    """A flow's JSON keys in order, with ndup_at_timeout spread over its four columns."""
    out: list[str] = []
    for k in flow:
        out.extend(NDUP_COLUMNS if k == "ndup_at_timeout" else [k])
    return out


def test_core_json_fields_are_exactly_the_columns(result):
    # A field added, removed or renamed in result.rs shows up here, not as a
    # silently empty or extra column.
    for flow in result.raw["flows"]:
        assert len(flow["ndup_at_timeout"]) == len(NDUP_COLUMNS)
        assert flattened_keys(flow) == list(FLOW_COLUMNS)
    for link in result.raw["links"]:
        assert list(link) == list(LINK_COLUMNS)
    assert list(result.flows.columns) == list(FLOW_COLUMNS)
    assert list(result.links.columns) == list(LINK_COLUMNS)
    assert sorted(result.raw) == ["flows", "links", "run", "scenario", "seed"]
    assert sorted(result.raw["run"]) == ["end_reason", "events", "sim_time_s", "wall_time_s"]
    for i, flow in enumerate(result.raw["flows"]):
        assert [result.flows[c].iloc[i] for c in NDUP_COLUMNS] == flow["ndup_at_timeout"]


def test_the_scenario_seed_is_the_default():
    default_seed = dupack.load(QUICKSTART).to_dict()["run"]["seed"]
    assert dupack.run(QUICKSTART).seed == default_seed


def test_overrides_reach_the_core(result):
    res = dupack.run(QUICKSTART, seed=1, overrides=["tcp.variant=sack"])
    assert (res.flows["variant"] == "sack").all()
    assert (result.flows["variant"] == "newreno").all()
    # Same seed, same losses offered; only the recovery differs. If the
    # override stopped at the label, the numbers would be NewReno's.
    columns = ["bytes_delivered", "segments_sent", "retransmitted_segments", "fast_retransmits", "timeouts"]
    assert not res.flows[columns].equals(result.flows[columns])
    assert without_wall_time(res.raw)["flows"] != without_wall_time(result.raw)["flows"]


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


def test_overridden_runs_do_not_overwrite_each_other(tmp_path):
    """Nothing finished is lost: each -s variation gets its own directory."""
    for variant in ("reno", "sack"):
        r = run_subprocess("run", str(QUICKSTART), "-s", f"tcp.variant={variant}", "--quiet", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    dirs = sorted(p.name for p in (tmp_path / "dupack-out").iterdir())
    assert len(dirs) == 2 and all(d.startswith("quickstart-") and d.endswith("-seed1") for d in dirs), dirs
    variants = {json.loads((tmp_path / "dupack-out" / d / "result.json").read_text())["flows"][0]["variant"] for d in dirs}
    assert variants == {"reno", "sack"}


def test_json_via_subprocess_is_only_json(tmp_path):
    r = run_subprocess("run", str(QUICKSTART), "--json", "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert len(doc["flows"]) == 4
    assert "Traceback" not in r.stderr


def test_efr_wlan_reports_the_shared_medium(tmp_path):
    res = dupack.run(EFR_WLAN, seed=1)
    media = res.media
    assert list(media.columns) == list(MEDIUM_COLUMNS)
    assert [list(m) for m in res.raw["media"]] == [list(MEDIUM_COLUMNS)] * len(media)
    assert media["station"].tolist() == ["ap", "mh1", "mh2", "mh3", "mh4"]
    assert (media["medium"] == "wavelan").all()
    assert media["collisions"].sum() > 0
    assert media["drops_error"].sum() == res.flows["drops_error"].sum()
    assert res.flows["goodput_kbps"].sum() < 2000
    out = res.save(tmp_path / "w")
    assert pd.read_parquet(out / "media.parquet")["station"].tolist() == media["station"].tolist()
