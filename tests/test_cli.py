"""The CLI's behaviour that does not depend on the simulator: help, version,
exit codes, output routing. The core's ``run`` is replaced by a stub that
returns a fixed result, so these pass without the engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import dupack
import dupack.api
from dupack import RunError, RunResult
from tests.conftest import QUICKSTART, ROOT, run_cli, run_subprocess, sigint_default
from tests.test_result import RAW

SCENARIO = 'name = "stub"\n[run]\nseed = 42\n'


@pytest.fixture
def scenario_file(tmp_path):
    p = tmp_path / "stub.toml"
    p.write_text(SCENARIO, encoding="utf-8")
    return p


@pytest.fixture
def fake_run(monkeypatch):
    """Replace the simulator call; record what the CLI passed."""
    calls = []

    def fake(scenario, seed=None, *observe, overrides=None, **options):
        calls.append((scenario, seed, overrides))
        raw = dict(RAW, seed=42 if seed is None else seed)
        return RunResult(raw, dupack.api.as_scenario(scenario).with_overrides(overrides))

    monkeypatch.setattr(dupack.api, "run_checked", fake)
    return calls


def assert_one_error_line(stderr: str, *fragments: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: "), stderr
    assert "Traceback" not in stderr
    for f in fragments:
        assert f in lines[0], (f, stderr)


def test_help_lists_commands():
    r = run_cli("--help")
    assert r.exit_code == 0
    assert "run" in r.stdout and "validate" in r.stdout
    r = run_cli("run", "--help")
    assert r.exit_code == 0
    for opt in ("--seed", "--set", "-s", "--out", "--json", "--quiet"):
        assert opt in r.stdout


def test_version():
    r = run_cli("--version")
    assert r.exit_code == 0
    assert r.stdout.strip() == f"dupack {dupack.__version__}"
    assert dupack.__version__ == dupack._core.__version__


def test_no_arguments_shows_help_and_exits_2():
    r = run_cli()
    assert r.exit_code == 2
    assert "Usage" in r.output


def test_run_prints_a_summary_and_saves(scenario_file, fake_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run_cli("run", str(scenario_file), "-s", "run.duration=10s", "--seed", "7")
    assert r.exit_code == 0, r.output
    assert r.stderr == ""
    for text in ("flow", "variant", "goodput", "812.5", "sack", "1/0/1/0", "0/0/0/3", "7/5", "123,456 events", "all_done"):
        assert text in r.stdout, (text, r.stdout)
    # With -s overrides the directory carries the scenario's hash.
    (out,) = (tmp_path / "dupack-out").iterdir()
    hash8 = json.loads((out / "scenario.json").read_text())["hash"][:8]
    assert out.name == f"stub-{hash8}-seed7"
    assert f"results saved to {out.relative_to(tmp_path)}" in r.stdout
    assert sorted(p.name for p in out.iterdir()) == [
        "flows.csv", "flows.parquet", "links.csv", "links.parquet", "result.json", "scenario.json",
    ]
    scenario, seed, _ = fake_run[0]
    assert seed == 7
    assert scenario.to_dict()["run"] == {"seed": 42, "duration": "10s"}
    saved = json.loads((out / "scenario.json").read_text())
    assert saved["scenario"]["run"]["duration"] == "10s"


def test_the_summary_of_a_run_of_many_flows_shows_the_first_and_a_line_about_them_all(tmp_path):
    # A row each for the first SUMMARY_FLOWS flows, then where every flow's
    # row is and one line over them all, with the totals of flows.csv.
    import pandas as pd

    from dupack.cli.run import SUMMARY_FLOWS
    from dupack.stats import jain

    n = SUMMARY_FLOWS + 12
    out = tmp_path / "o"
    r = run_cli("run", str(ROOT / "bench" / "scenarios" / "scaling.toml"), "-s", f"topology.senders={n}",
                "-s", 'run.duration="3s"', "-o", str(out))
    assert r.exit_code == 0, r.output
    rows = [line.split()[0] for line in r.stdout.splitlines() if line.startswith("f") and line.split()[0][1:].isdigit()]
    assert rows == [f"f{i}" for i in range(SUMMARY_FLOWS)]
    assert f"… and 12 more flows; {out / 'flows.csv'} has a row for each" in r.stdout
    flows = pd.read_csv(out / "flows.csv")
    assert len(flows) == n
    line = next(x for x in r.stdout.splitlines() if x.startswith(f"all {n} flows: "))
    assert f"{flows.goodput_kbps.sum():,.1f} kbit/s goodput" in line
    assert f"Jain's index {jain(flows.goodput_kbps):.3f}" in line
    assert f"{flows.retransmitted_segments.sum():,} segments retransmitted" in line
    assert f"{flows.fast_retransmits.sum():,} fast retransmits, {flows.timeouts.sum():,} RTOs" in line


def test_default_seed_names_the_output_directory(scenario_file, fake_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run_cli("run", str(scenario_file), "--quiet")
    assert r.exit_code == 0, r.output
    assert fake_run[0][1] is None
    assert (tmp_path / "dupack-out" / "stub-seed42" / "result.json").exists()


def test_json_prints_only_json_on_stdout(scenario_file, fake_run, tmp_path):
    r = run_cli("run", str(scenario_file), "--json", "--out", str(tmp_path / "o"))
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == dict(RAW, seed=42)
    assert "results saved to" in r.stderr
    assert (tmp_path / "o" / "flows.parquet").exists()


def test_quiet_prints_nothing(scenario_file, fake_run, tmp_path):
    r = run_cli("run", str(scenario_file), "--quiet", "--out", str(tmp_path / "o"))
    assert r.exit_code == 0
    assert r.stdout == "" and r.stderr == ""
    assert (tmp_path / "o" / "result.json").exists()
    r = run_cli("run", str(scenario_file), "--quiet", "--json", "--out", str(tmp_path / "o"))
    assert json.loads(r.stdout)["seed"] == 42 and r.stderr == ""


def test_run_error_exits_3(scenario_file, monkeypatch, tmp_path):
    def fail(*a, **k):
        raise RunError("event queue went backwards")

    monkeypatch.setattr(dupack.api, "run_checked", fail)
    r = run_cli("run", str(scenario_file), "--out", str(tmp_path / "o"))
    assert r.exit_code == 3
    assert_one_error_line(r.stderr, "simulation", "event queue went backwards")


def test_internal_bug_exits_1_without_traceback(scenario_file, monkeypatch, tmp_path):
    def bug(*a, **k):
        raise KeyError("oops")

    monkeypatch.setattr(dupack.api, "run_checked", bug)
    r = run_cli("run", str(scenario_file), "--out", str(tmp_path / "o"))
    assert r.exit_code == 1
    assert_one_error_line(r.stderr, "internal error", "KeyError", "DUPACK_DEBUG=1")
    r = run_cli("run", str(scenario_file), "--out", str(tmp_path / "o"), env={"DUPACK_DEBUG": "1"})
    assert r.exit_code == 1
    assert "Traceback" in r.stderr and "KeyError" in r.stderr


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, EOFError])
def test_ctrl_c_exits_130_with_one_line(scenario_file, monkeypatch, tmp_path, interrupt):
    def stop(*a, **k):
        raise interrupt()

    monkeypatch.setattr(dupack.api, "run_checked", stop)
    r = run_cli("run", str(scenario_file), "--out", str(tmp_path / "o"))
    assert r.exit_code == 130, (r.exit_code, r.stderr)
    assert_one_error_line(r.stderr, "aborted")
    assert r.stdout == ""


def test_broken_pipe_in_process_is_quiet(scenario_file, monkeypatch, tmp_path):
    def gone(*a, **k):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(dupack.api, "run_checked", gone)
    r = run_cli("run", str(scenario_file), "--out", str(tmp_path / "o"))
    assert r.exit_code == 141
    assert r.stderr == ""


@pytest.mark.parametrize("value", ["", " "])
def test_empty_out_is_rejected(scenario_file, fake_run, tmp_path, monkeypatch, value):
    monkeypatch.chdir(tmp_path)
    r = run_cli("run", str(scenario_file), "--out", value)
    assert r.exit_code == 2
    assert_one_error_line(r.stderr, "--out", "empty path")
    assert fake_run == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stub.toml"]


def test_cli_seed_goes_through_the_library_check(scenario_file, fake_run, tmp_path, monkeypatch):
    seen = []
    real = dupack.api.check_seed

    def spy(seed):
        seen.append(seed)
        return real(seed)

    monkeypatch.setattr(dupack.api, "check_seed", spy)
    r = run_cli("run", str(scenario_file), "--seed", " 18446744073709551615 ", "--quiet", "--out", str(tmp_path / "o"))
    assert r.exit_code == 0, r.stderr
    assert fake_run[0][1] == 2**64 - 1
    for bad in ("18446744073709551616", "-1", "abc", "1.5"):
        r = run_cli("run", str(scenario_file), "--seed", bad, "--out", str(tmp_path / "o"))
        assert r.exit_code == 2
        assert_one_error_line(r.stderr, "--seed", "between 0 and 18446744073709551615", repr(bad))
    assert seen == [2**64 - 1, 2**64, -1, "abc", "1.5"]


def test_unwritable_output_is_a_user_error(scenario_file, fake_run, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = run_cli("run", str(scenario_file), "--out", str(blocker / "sub"))
    assert r.exit_code == 2
    assert_one_error_line(r.stderr, "cannot write results", str(blocker / "sub"))


def test_validate_reports_core_errors_with_the_file_name(tmp_path, monkeypatch):
    # Whatever the core says about the document, the CLI prefixes the file
    # and exits 2 (here: a stub that rejects everything).
    def reject(_json):
        raise dupack.ScenarioError("topology.bottleneck.rate", "rate must be positive, got '0Mbps'")

    monkeypatch.setattr(dupack._core, "validate", reject)
    p = tmp_path / "s.toml"
    p.write_text(SCENARIO)
    r = run_cli("validate", str(p))
    assert r.exit_code == 2
    assert_one_error_line(r.stderr, f"{p}: topology.bottleneck.rate: rate must be positive, got '0Mbps'")


def test_validate_ok(tmp_path, monkeypatch):
    monkeypatch.setattr(dupack._core, "validate", lambda _json: None)
    monkeypatch.setattr(dupack._core, "estimate", lambda _json: (0.01, 1000.0, 100.0))
    p = tmp_path / "s.toml"
    p.write_text(SCENARIO)
    r = run_cli("validate", str(p), "-s", "run.seed=3")
    assert r.exit_code == 0
    assert r.stdout.splitlines() == ["ok", "estimate: under 0.1 s of wall-clock time to run (1e+03 events, 1e+02 data packets; estimated on the high side)"]


# --- as a real process ---------------------------------------------------------


def test_subprocess_version_and_help():
    r = run_subprocess("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"dupack {dupack.__version__}"
    r = run_subprocess("run", "--help")
    assert r.returncode == 0 and "--seed" in r.stdout


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["run", "no-such-file.toml"], ["no-such-file.toml", "No such file"]),
        (["run", str(QUICKSTART), "--seed", "-1"], ["--seed", "'-1'"]),
        (["run", str(QUICKSTART), "--no-such-option"], ["--no-such-option"]),
        (["validate", str(QUICKSTART), "-s", "topology.access_override[99].senders=[0]"], ["access_override[99]", "out of range"]),
        (["frobnicate"], ["frobnicate"]),
    ],
)
def test_subprocess_user_errors_exit_2_without_traceback(args, fragments):
    r = run_subprocess(*args)
    assert r.returncode == 2, r.stderr
    assert_one_error_line(r.stderr, *fragments)
    assert r.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["run", str(QUICKSTART), "--json", "--seed", "2"], id="run-json"),
        pytest.param(["run", str(QUICKSTART), "--seed", "2"], id="run-summary"),
        pytest.param(["--help"], id="help"),
        pytest.param(["--version"], id="version"),
    ],
)
def test_subprocess_closed_stdout_is_quiet(args, tmp_path):
    """`dupack run --json | head`: the reader leaves before dupack writes.
    Exit 141 (as if killed by SIGPIPE), nothing on stderr, and not 1 (a bug)."""
    env = {k: v for k, v in os.environ.items() if k != "DUPACK_DEBUG"}
    out = ["--out", str(tmp_path / "o")] if args[0] == "run" else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "dupack", *args, *out],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=env,
    )
    proc.stdout.close()  # the reader is gone before anything is written
    stderr = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=600) == 141, stderr
    assert stderr == ""
    if args[0] == "run":
        assert (tmp_path / "o" / "result.json").is_file()  # saved before printing


def test_subprocess_ctrl_c_exits_130_with_one_line(tmp_path):
    """A real SIGINT in the middle of a long run: the core hands it back to
    Python between slices of events, the run stops where it is, and the CLI
    saves what it simulated, marked partial, and reports it as one line."""
    import signal
    import time

    env = {k: v for k, v in os.environ.items() if k != "DUPACK_DEBUG"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "dupack", "run", str(QUICKSTART), "-s", "run.duration=1000000000s", "--out", str(tmp_path / "o"), "-q"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=env,
        text=True,
        preexec_fn=sigint_default,
    )
    time.sleep(3)  # past start-up and into the simulation (which would take hours)
    assert proc.poll() is None, proc.communicate()
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert stderr.startswith("error: aborted at ") and stderr.count("\n") == 1, stderr
    assert f"s of 1e+09 s simulated; the partial results are saved in {tmp_path / 'o'}/" in stderr
    assert stdout == ""
    assert time.monotonic() - started < 30
    saved = json.loads((tmp_path / "o" / "result.json").read_text())
    assert saved["partial"] is True and saved["run"]["end_reason"] == "interrupted"
    assert 0 < saved["run"]["sim_time_s"] < 1e9


def test_run_summarises_each_shared_medium(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wlan = QUICKSTART.parent / "efr_wlan.toml"
    r = run_cli("run", str(wlan), "--out", str(tmp_path / "o"))
    assert r.exit_code == 0, r.output
    res = RunResult.from_json((tmp_path / "o" / "result.json").read_text())
    sent, collided = int(res.media["frames_sent"].sum()), int(res.media["collisions"].sum())
    events = int(res.media["medium_collision_events"].iloc[0])
    assert f"medium wavelan: {sent:,} frames sent, {collided:,} collided ({events:,} collisions)" in r.stdout
    assert (tmp_path / "o" / "media.parquet").exists()
