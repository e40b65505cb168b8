"""Long runs: the cost estimate, the progress line, --max-wall and partial
results. Wall-clock limits here are generous and nothing asserts a speed:
a run that would take days is stopped after a second or two."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import dupack
import dupack.api
from dupack import RunResult
from dupack.cli.progress import RunProgress, human_seconds
from tests.conftest import QUICKSTART, run_cli, run_subprocess
from tests.test_result import RAW

#: Quickstart made to last for days.
FOREVER = ["-s", "run.duration=1000000000s"]

FAST_LINK = """
name = "fast"
[run]
duration = "{duration}"
[topology]
kind = "custom"
nodes = [{{ name = "a" }}, {{ name = "b" }}]
links = [{{ name = "l", a = "a", b = "b", rate = "1Gbps", delay = "10ms" }}]
[receiver]
window = "64MiB"
[[flows]]
from = "a"
to = "b"
"""


def fast_link(tmp_path: Path, duration: str) -> Path:
    p = tmp_path / "fast.toml"
    p.write_text(FAST_LINK.format(duration=duration), encoding="utf-8")
    return p


# --- the estimate --------------------------------------------------------------


def test_a_long_run_at_a_gigabit_is_estimated_at_hours_to_days(tmp_path):
    est = dupack.estimate(fast_link(tmp_path, "10000000s"))
    assert 3600 < est.wall_s < 30 * 86400, est
    # 1 Gbit/s of 1500-byte packets for 10^7 s.
    assert est.packets == pytest.approx(1e9 / (8 * 1500) * 1e7, rel=0.05)
    assert est.events > est.packets


def test_quickstart_is_estimated_at_well_under_a_second():
    est = dupack.estimate(QUICKSTART)
    assert 0 < est.wall_s < 0.1, est
    assert dupack.estimate(QUICKSTART, ["run.duration=60s"]).events == pytest.approx(2 * est.events)


@pytest.mark.parametrize("scenario", sorted(p.name for p in (Path(__file__).parent.parent / "scenarios").glob("*.toml")))
def test_every_shipped_scenario_runs_fewer_events_than_estimated(scenario):
    """The estimate errs on the high side (engine::estimate): no shipped
    scenario, with its own seed and duration, runs more events than
    estimated. (The segments it sends may exceed the packets estimated:
    those are what the bottlenecks can carry, and retransmissions and
    packets dropped on the way come on top.) A change to the engine that
    adds events per packet shows here before users' estimates become too
    short."""
    path = Path(__file__).parent.parent / "scenarios" / scenario
    est = dupack.estimate(path)
    r = dupack.run(path)
    assert est.packets > 0
    assert 0 < r.run["events"] <= est.events, (r.run["events"], est)


def test_validate_prints_the_estimate(tmp_path):
    r = run_subprocess("validate", str(fast_link(tmp_path, "10000000s")))
    assert r.returncode == 0, r.stderr
    ok, line = r.stdout.splitlines()
    assert ok == "ok"
    assert line.startswith("estimate: about ") and line.split()[3] in ("h", "days"), line
    assert r.stderr == ""


def test_run_warns_before_a_run_estimated_to_be_long(tmp_path, monkeypatch):
    scenario = fast_link(tmp_path, "10000000s")

    def fake(scenario, seed=None, *args, estimated=None, **kw):
        if estimated is not None:
            estimated(200_000.0, 1.6e12, 8e11)
        return RunResult(dict(RAW), scenario)

    monkeypatch.setattr(dupack.api, "run_checked", fake)
    r = run_cli("run", str(scenario), "-o", str(tmp_path / "o"))
    assert r.exit_code == 0, r.output
    (line,) = r.stderr.splitlines()
    assert line.startswith("warning: this run may take about 2.3 days of wall-clock time"), line
    assert "--max-wall" in line and "run.duration" in line
    # Not with -q, nor when --max-wall already limits it.
    for extra in (["-q"], ["--max-wall", "1h"]):
        r = run_cli("run", str(scenario), "-o", str(tmp_path / "o"), *extra)
        assert (r.exit_code, r.stderr) == (0, ""), (extra, r.output)


# --- --max-wall and partial results ---------------------------------------------


def test_max_wall_stops_a_long_run_and_saves_its_partial_results(tmp_path):
    out = tmp_path / "o"
    r = run_subprocess("run", str(QUICKSTART), *FOREVER, "--max-wall", "1.5", "-o", str(out), cwd=tmp_path)
    assert r.returncode == 4, r.stderr
    assert "Traceback" not in r.stderr
    (line,) = r.stderr.splitlines()  # no progress line: stderr is not a terminal
    assert line.startswith("warning: partial result: --max-wall 1.5 s reached at "), line
    assert f"s of 1e+09 s simulated; the results so far are saved in {out}/" in line
    assert "partial result: the run was stopped by the wall-clock limit" in r.stdout
    assert "(wall_limit)" in r.stdout and f"results saved to {out}/" in r.stdout

    saved = json.loads((out / "result.json").read_text())
    assert saved["partial"] is True
    assert saved["duration_s"] == 1e9
    assert saved["run"]["end_reason"] == "wall_limit"
    assert 0 < saved["run"]["sim_time_s"] < 1e9
    assert saved["run"]["wall_time_s"] >= 1.5
    assert all(f["bytes_delivered"] > 0 for f in saved["flows"])
    for table in ("flows", "links"):
        meta = pq.read_schema(out / f"{table}.parquet").metadata
        assert meta[b"dupack_partial"] == b"true"
        assert meta[b"dupack_end_reason"] == b"wall_limit"
        assert float(meta[b"dupack_sim_time_s"]) == saved["run"]["sim_time_s"]
        assert (out / f"{table}.csv").is_file()


def test_max_wall_with_json_and_quiet(tmp_path):
    out = tmp_path / "o"
    r = run_subprocess("run", str(QUICKSTART), *FOREVER, "--max-wall=1s", "--json", "-q", "-o", str(out), cwd=tmp_path)
    assert r.returncode == 4, r.stderr
    doc = json.loads(r.stdout)
    assert doc["partial"] is True and doc["run"]["end_reason"] == "wall_limit"
    assert r.stderr.startswith("warning: partial result: --max-wall 1 s reached") and r.stderr.count("\n") == 1


def test_a_max_wall_not_reached_changes_nothing(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    plain = run_subprocess("run", str(QUICKSTART), "-o", str(a), cwd=tmp_path)
    limited = run_subprocess("run", str(QUICKSTART), "--max-wall", "1h", "--progress", "-o", str(b), cwd=tmp_path)
    for r in (plain, limited):
        assert (r.returncode, r.stderr) == (0, ""), r.stderr  # a short run shows no progress line, even forced
        assert "partial" not in r.stdout
    for out in (a, b):
        saved = json.loads((out / "result.json").read_text())
        assert "partial" not in saved and "duration_s" not in saved
        assert saved["run"]["end_reason"] == "time_limit"
        assert b"dupack_partial" not in pq.read_schema(out / "flows.parquet").metadata
    ra, rb = (json.loads((d / "result.json").read_text()) for d in (a, b))
    assert ra["flows"] == rb["flows"] and ra["run"]["events"] == rb["run"]["events"]


def test_progress_is_shown_when_forced_on_a_non_terminal(tmp_path):
    r = run_subprocess("run", str(QUICKSTART), *FOREVER, "--max-wall", "3", "--progress", "-q", "-o", str(tmp_path / "o"))
    assert r.returncode == 4, r.stderr
    lines = r.stderr.splitlines()
    shown = [x for x in lines if x.startswith("simulated ")]
    assert shown, r.stderr
    assert "\r" not in r.stderr and "\x1b" not in r.stderr  # plain lines in a log
    for x in shown:
        assert " s of 1e+09 s (0%) · eta " in x and " M events/s · " in x and x.endswith(" elapsed"), x
    assert lines[-1].startswith("warning: partial result"), r.stderr


def _on_a_terminal(args: list[str], cwd: Path) -> tuple[int, str, str]:
    """Run ``python -m dupack ARGS`` with stderr on a pseudo-terminal: (exit code, stdout, what the terminal got)."""
    import os
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "DUPACK_DEBUG"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "dupack", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        cwd=cwd,
        env=env,
    )
    os.close(slave)
    seen = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        seen.append(data)
    os.close(master)
    stdout, _ = proc.communicate(timeout=120)
    return proc.returncode, stdout.decode(), b"".join(seen).decode()


def test_progress_appears_by_itself_on_a_terminal_unless_quiet(tmp_path):
    code, stdout, terminal = _on_a_terminal(["run", str(QUICKSTART), *FOREVER, "--max-wall", "2", "-o", "o"], tmp_path)
    assert code == 4, terminal
    assert "\rsimulated " in terminal and " · eta " in terminal, terminal
    assert "\r\x1b[K" in terminal  # cleared at the end
    assert "partial result" in stdout
    code, _, terminal = _on_a_terminal(["run", str(QUICKSTART), *FOREVER, "--max-wall", "1.2", "-q", "-o", "o"], tmp_path)
    assert code == 4 and "simulated " not in terminal.replace("s simulated", ""), terminal


def test_library_max_wall_returns_a_partial_result():
    res = dupack.run(QUICKSTART, overrides=["run.duration=1000000000s"], max_wall=1.0)
    assert res.partial
    assert res.run["end_reason"] == "wall_limit"
    assert 0 < res.run["sim_time_s"] < 1e9
    assert res.raw["duration_s"] == 1e9
    assert "partial result" in repr(res)
    assert not dupack.run(QUICKSTART, max_wall=3600).partial


@pytest.mark.parametrize(
    ("value", "error"),
    [(-1, ValueError), (0, ValueError), (math.nan, ValueError), ("10", TypeError), (True, TypeError)],
)
def test_library_max_wall_must_be_a_positive_number(value, error):
    with pytest.raises(error, match="max_wall must be a positive number of seconds"):
        dupack.run(QUICKSTART, max_wall=value)


def test_progress_callback_sees_the_run_go_by_without_changing_it():
    over = ["topology.bottleneck.rate=100Mbps", "topology.access.rate=100Mbps", "receiver.window=64MiB", "run.duration=40s"]
    calls: list[tuple[float, float, int, float]] = []
    watched = dupack.run(QUICKSTART, overrides=over, progress=lambda *a: calls.append(a))
    plain = dupack.run(QUICKSTART, overrides=over)
    assert watched.raw["flows"] == plain.raw["flows"]
    assert watched.run["events"] == plain.run["events"]
    assert len(calls) >= 2, calls
    assert all(d == 40.0 for _, d, _, _ in calls)
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)
    assert [c[2] for c in calls] == sorted(c[2] for c in calls) and calls[-1][2] < plain.run["events"]


def test_what_the_progress_callback_raises_ends_the_run():
    def stop(*_: object) -> None:
        raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        dupack.run(QUICKSTART, overrides=["run.duration=1000000000s"], progress=stop)


def test_the_progress_line_and_durations_for_people():
    line = RunProgress.line(25.0, 100.0, 5_000_000, 2.0)
    assert line == "simulated 25.0 s of 100 s (25%) · eta 6.0 s · 2.5 M events/s · 2.0 s elapsed"
    assert "· eta ? ·" in RunProgress.line(0.0, 100.0, 0, 0.5)
    assert [human_seconds(s) for s in (0.01, 4.25, 42, 720, 3 * 3600, 2.5 * 86400)] == [
        "under 0.1 s", "4.2 s", "42 s", "12 min", "3.0 h", "2.5 days",
    ]
