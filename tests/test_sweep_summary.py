"""SweepResult.summary / run_values / compare and the summary `dupack sweep` prints:
statistics over seeds, one aggregation rule per column."""

from __future__ import annotations

import math
import statistics

import pandas as pd
import pytest

import dupack
from dupack.stats import jain, t95
from dupack.sweeps import RUN_METRICS, SweepResult
from tests.conftest import QUICKSTART, run_cli

BASE = ["run.duration=3s", 'topology.bottleneck.fwd_error={ model = "bernoulli", p = 0.0 }']
GRID = {"tcp.variant": ["reno", "sack"], "topology.bottleneck.fwd_error.p": [0.0, 0.02]}
SEEDS = [1, 2, 3]
MIXED = 'flows=[{name="a",from="s0",to="sink",variant="reno"},{name="b",from="s1",to="sink",variant="sack"}]'


@pytest.fixture(scope="module")
def res() -> SweepResult:
    return dupack.sweep(dupack.load(QUICKSTART).with_overrides(BASE), GRID, SEEDS, workers=2)


def test_run_values_combine_each_runs_flows(res: SweepResult) -> None:
    rv = res.run_values()
    assert len(rv) == len(res.runs) == 12
    for _, row in rv.iterrows():
        f = res.flows[res.flows["job"] == row["job"]]
        assert row["flows"] == len(f) == 4
        assert row["goodput_kbps"] == pytest.approx(f["goodput_kbps"].mean())
        for m in ("retransmitted_segments", "fast_retransmits", "timeouts", "ndup_0", "ndup_3plus"):
            assert row[m] == f[m].sum()
        assert row["jain"] == pytest.approx(jain(f["goodput_kbps"].tolist()))


def test_summary_is_mean_sd_ci_and_n_over_seeds(res: SweepResult) -> None:
    s = res.summary()
    assert list(s.columns[:3]) == [*GRID, "n"] and "variant" not in s.columns
    assert len(s) == 4 and (s["n"] == len(SEEDS)).all()
    rv = res.run_values()
    for _, row in s.iterrows():
        at = rv[(rv["tcp.variant"] == row["tcp.variant"]) & (rv["topology.bottleneck.fwd_error.p"] == row["topology.bottleneck.fwd_error.p"])]
        assert sorted(at["seed"]) == SEEDS
        for m in RUN_METRICS:
            xs = at[m].tolist()
            sd = statistics.stdev(xs)
            assert row[f"{m}_mean"] == pytest.approx(statistics.fmean(xs))
            assert row[f"{m}_sd"] == pytest.approx(sd)
            assert row[f"{m}_ci95"] == pytest.approx(t95(len(xs) - 1) * sd / math.sqrt(len(xs)))
    # N_dup follows the counters' rule (summed over flows, averaged over runs),
    # so its four means add up to the timeouts' mean.
    ndup = s[["ndup_0_mean", "ndup_1_mean", "ndup_2_mean", "ndup_3plus_mean"]].sum(axis=1)
    assert ndup.tolist() == pytest.approx(s["timeouts_mean"].tolist())


def test_summary_splits_by_variant_when_a_run_mixes_them() -> None:
    sc = dupack.load(QUICKSTART).with_overrides([*BASE, MIXED])
    res = dupack.sweep(sc, None, [1, 2], workers=1)
    s = res.summary()
    assert list(s["variant"]) == ["reno", "sack"] and (s["n"] == 2).all()
    # One flow per row: Jain's index over one flow is 1.
    assert s["jain_mean"].tolist() == pytest.approx([1.0, 1.0])
    whole = res.summary(by_variant=False)
    assert "variant" not in whole.columns and len(whole) == 1
    rv = res.run_values()
    assert whole["jain_mean"].iloc[0] == pytest.approx(rv["jain"].mean()) and whole["jain_mean"].iloc[0] < 1


def test_compare_pairs_by_seed(res: SweepResult) -> None:
    c = res.compare("goodput_kbps", a="sack", b="reno", by="topology.bottleneck.fwd_error.p")
    assert list(c["topology.bottleneck.fwd_error.p"]) == [0.0, 0.02]
    assert (c["method"] == "paired").all() and (c["a_n"] == 3).all()
    rv = res.run_values()
    for _, row in c.iterrows():
        at = rv[rv["topology.bottleneck.fwd_error.p"] == row["topology.bottleneck.fwd_error.p"]]
        a = at[at["tcp.variant"] == "sack"].set_index("seed")["goodput_kbps"]
        b = at[at["tcp.variant"] == "reno"].set_index("seed")["goodput_kbps"]
        d = (a - b).tolist()
        assert row["diff"] == pytest.approx(statistics.fmean(d))
        assert row["diff_ci95"] == pytest.approx(t95(2) * statistics.stdev(d) / math.sqrt(3))
        assert row["rel"] == pytest.approx(a.mean() / b.mean() - 1)
        assert row["rel_low"] < row["rel"] < row["rel_high"]
    # The same with the columns spelled out.
    same = res.compare("goodput_kbps", a={"tcp.variant": "sack"}, b={"tcp.variant": "reno"}, by=["topology.bottleneck.fwd_error.p"])
    pd.testing.assert_frame_equal(c, same)


def test_compare_uses_welch_when_the_seeds_differ(res: SweepResult) -> None:
    # Drop sack's seed 3: the sides no longer share their seeds.
    drop = set(res.runs[(res.runs["tcp.variant"] == "sack") & (res.runs["seed"] == 3)]["job"])
    tables = {t: df[~df["job"].isin(drop)].reset_index(drop=True) for t, df in res.tables.items()}
    part = SweepResult(tables, res.scenario, res.grid, res.seeds)
    c = part.compare("timeouts", a="sack", b="reno", by="topology.bottleneck.fwd_error.p")
    assert (c["method"] == "welch").all() and (c["a_n"] == 2).all() and (c["b_n"] == 3).all()


def test_compare_refuses_to_pool_grid_points(res: SweepResult) -> None:
    with pytest.raises(ValueError, match="several runs per seed.*topology.bottleneck.fwd_error.p"):
        res.compare("goodput_kbps", a="sack", b="reno")
    with pytest.raises(KeyError, match="unknown metric"):
        res.compare("nope", a="sack", b="reno")
    with pytest.raises(ValueError, match="no grid column"):
        res.compare("goodput_kbps", a="cubic-ish", b="reno")


def test_sweep_result_html_shows_the_summary(res: SweepResult) -> None:
    page = res._repr_html_()
    assert page.count("<tr") == 1 + 4  # the header and one row per grid point
    assert "Jain" in page and "±" in page and "95 %" in page


def test_cli_prints_the_statistics_per_point(tmp_path) -> None:
    args = [a for o in BASE for a in ("-s", o)]
    r = run_cli(
        "sweep", str(QUICKSTART), *args, "--vary", "tcp.variant=reno,sack", "--seeds", "1..3", "-o", str(tmp_path / "sw")
    )
    assert r.exit_code == 0, r.stderr
    out = r.stdout
    assert "mean ± half-width of the 95 % Student-t interval (sd)" in out
    for header in ("goodput kbit/s", "(flows' mean)", "(flows' sum)", "Jain"):
        assert header in out
    rows = [line.split() for line in out.splitlines() if line.split()[:1] in (["reno"], ["sack"])]
    assert [r[:2] for r in rows] == [["reno", "3"], ["sack", "3"]]
    s = SweepResult.load(tmp_path / "sw").summary()
    assert f"{s['goodput_kbps_mean'].iloc[0]:.1f} ± {s['goodput_kbps_ci95'].iloc[0]:.1f}" in " ".join(rows[0])


def test_cli_resuming_with_other_seeds_says_so_in_words(tmp_path) -> None:
    args = [a for o in BASE for a in ("-s", o)]
    out = str(tmp_path / "sw")
    assert run_cli("sweep", str(QUICKSTART), *args, "--vary", "tcp.variant=reno", "--seeds", "1..3", "-o", out).exit_code == 0
    r = run_cli("sweep", str(QUICKSTART), *args, "--vary", "tcp.variant=reno", "-o", out)
    assert r.exit_code == 2
    msg = r.stderr.strip()
    assert msg.count("\n") == 0 and "null" not in msg and "[" not in msg
    assert "seeds 1..3 (3 seeds)" in msg and "only the scenario's own seed (run.seed = 1)" in msg
    assert "add --seeds 1..3 to resume it" in msg
    # The hint is right: with it, the sweep resumes (nothing left to run).
    r = run_cli("sweep", str(QUICKSTART), *args, "--vary", "tcp.variant=reno", "--seeds", "1..3", "-o", out)
    assert r.exit_code == 0 and "0 now, 3 already stored" in r.stdout
