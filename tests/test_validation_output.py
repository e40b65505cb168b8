"""validation/run.py replaces the committed docs/validation.md only after a full
run of everything; partial runs write elsewhere (nothing is simulated here)."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

from validation import run as vrun
from validation import runcache
from validation.peers import PEERS

OTHERS = [n for n in PEERS if n != "dupack"]


@pytest.fixture(autouse=True)
def kept_runs(tmp_path: Path, monkeypatch) -> Path:
    """Peer runs kept in a directory of the test's own, not in target/."""
    monkeypatch.setattr(vrun, "KEPT_RUNS", tmp_path / "peer-runs")
    monkeypatch.setattr(vrun, "KEPT_WITH_FILES", tmp_path / "peer-runs-with-files")
    return tmp_path / "peer-runs"


def chosen(argv: list[str]) -> Path:
    args = vrun.parse(argv)
    return vrun.report_path(args.out, args.full, args.only, args.peers)


def test_only_a_full_run_of_everything_writes_the_committed_report() -> None:
    assert chosen(["--full"]) == vrun.FULL_REPORT == vrun.ROOT / "docs" / "validation.md"
    assert chosen(["--full", "--seeds", "3"]) == vrun.FULL_REPORT
    assert chosen(["--full", *(a for s in vrun.SCENARIOS for a in ("--only", s))]) == vrun.FULL_REPORT
    assert chosen(["--full", "--peers", ",".join(OTHERS)]) == vrun.FULL_REPORT


def test_partial_runs_write_elsewhere() -> None:
    partial = vrun.ROOT / "target" / "validation" / "partial.md"
    assert vrun.PARTIAL_REPORT == partial
    assert chosen([]) == partial  # the quick subset
    assert chosen(["--quick"]) == partial
    assert chosen(["--only", "1"]) == partial
    assert chosen(["--full", "--only", "1"]) == partial
    assert len(OTHERS) >= 2 and chosen(["--full", "--peers", OTHERS[0]]) == partial


def test_out_says_where(tmp_path: Path) -> None:
    assert chosen(["--only", "1", "--out", str(tmp_path / "x.md")]) == tmp_path / "x.md"
    assert chosen(["--full", "--out", str(tmp_path / "y.md")]) == tmp_path / "y.md"


def test_render_of_a_partial_run_does_not_touch_the_committed_report(tmp_path: Path, monkeypatch) -> None:
    saved = tmp_path / "saved.pickle"
    settings = {"quick": False, "seeds": 2, "only": {"1"}, "elapsed": 1.0, "argv": ["--full", "--only", "1"]}
    saved.write_bytes(pickle.dumps({"results": {}, "missing": {}, "settings": settings, "peers": ["dupack", *OTHERS]}))
    written: list[Path] = []
    monkeypatch.setattr(vrun, "PARTIAL_REPORT", tmp_path / "partial.md")
    monkeypatch.setattr(vrun.report, "render", lambda *a, **k: "page\n")
    monkeypatch.setattr(Path, "write_text", lambda self, text, *a, **k: written.append(self) or len(text))
    assert vrun.main(["--render", str(saved)]) == 0
    assert written == [tmp_path / "partial.md"]


def test_jobs_run_scenarios_side_by_side_with_the_same_results(tmp_path: Path) -> None:
    # Two cheap scenarios of the quick subset, in one process and in two:
    # every run is seeded, so the saved results are equal, float for float
    # (compared by repr: NaN is unequal to itself, and pickle's bytes depend
    # on which objects happen to be shared).
    saved = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        argv = ["--only", "6", "--only", "1", "--jobs", jobs, "--out", str(out.with_suffix(".md")), "--save", str(out)]
        assert vrun.main(argv) == 0
        saved.append(pickle.loads(out.read_bytes()))
    one, two = saved
    assert set(one["results"]) == set(two["results"]) == {"1", "6"}
    assert repr(one["results"]) == repr(two["results"])
    assert (tmp_path / "jobs2.md").read_text().count("## ") == (tmp_path / "jobs1.md").read_text().count("## ")


def test_merge_reruns_scenarios_into_a_saved_run_and_names_both(tmp_path: Path, monkeypatch) -> None:
    # A saved run (scenario 6 of the quick subset, recorded as a run of every
    # scenario at commit c0) takes scenario 1 run now; the report is given
    # both results and both runs' dates and commits.
    base = tmp_path / "base.pickle"
    assert vrun.main(["--only", "6", "--out", str(tmp_path / "base.md"), "--save", str(base)]) == 0
    saved = pickle.loads(base.read_bytes())
    saved["settings"]["only"] = set(vrun.SCENARIOS)
    saved["machine"] = {**saved["machine"], "date": "D0", "commit": "c0"}
    base.write_bytes(pickle.dumps(saved))
    given: dict = {}
    monkeypatch.setattr(vrun.report, "render", lambda results, *a, **k: given.update(results=results, **k) or "page\n")
    merged = tmp_path / "merged.pickle"
    argv = ["--only", "1", "--merge", str(base), "--out", str(tmp_path / "merged.md"), "--save", str(merged)]
    assert vrun.main(argv) == 0
    assert set(given["results"]) == {"1", "6"} and repr(given["results"]["6"]) == repr(saved["results"]["6"])
    assert [r["scenarios"] for r in given["rerun"]] == [["1"]] and given["base_machine"]["commit"] == "c0"
    assert given["elapsed"] == saved["settings"]["elapsed"]
    # The header names both runs (and not the saved file's path).
    lines = vrun.report.header({}, {}, True, 2, 60.0, ["--full"], given["rerun"], given["base_machine"])
    text = "\n".join(lines)
    assert "- date: D0; dupack commit c0" in text and "scenario 1 ran again on" in text
    assert f"dupack commit {given['rerun'][0]['machine']['commit']}" in text and str(base) not in text
    # A second merge into the merged results keeps the first rerun on record.
    assert vrun.main(["--only", "6", "--merge", str(merged), "--out", str(tmp_path / "merged2.md")]) == 0
    assert [r["scenarios"] for r in given["rerun"]] == [["1"], ["6"]] and given["base_machine"]["commit"] == "c0"
    text = "\n".join(vrun.report.header({}, {}, True, 2, 60.0, ["--full"], given["rerun"], given["base_machine"]))
    assert "scenario 1 ran again on" in text and "scenario 6 ran again on" in text
    # What it cannot merge into is refused, with a reason and exit code 2.
    assert vrun.main(["--merge", str(base)]) == 2  # no --only
    assert vrun.main(["--only", "1", "--seeds", "3", "--merge", str(base)]) == 2  # other seeds
    saved["settings"]["only"] = {"6"}
    base.write_bytes(pickle.dumps(saved))
    assert vrun.main(["--only", "1", "--merge", str(base)]) == 2  # not a run of every scenario


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_failed_scenario_keeps_the_others_results_for_a_merge(tmp_path: Path, monkeypatch, capsys, jobs: str) -> None:
    # Scenario 6 fails (a check of the suite's own: no peer's fault); scenario
    # 1 finishes all the same, its results are saved and no report is written.
    # With --jobs 2 the failure happens in a worker process.
    unfinished = tmp_path / "unfinished.pickle"
    monkeypatch.setattr(vrun, "UNFINISHED", unfinished)
    vegas = vrun.s6_vegas.run

    def broken(*a, **k):
        raise AssertionError("a check that failed")

    monkeypatch.setattr(vrun.s6_vegas, "run", broken)
    report = tmp_path / "report.md"
    assert vrun.main(["--only", "6", "--only", "1", "--jobs", jobs, "--out", str(report)]) == 3
    assert not report.exists()
    saved = pickle.loads(unfinished.read_bytes())
    assert set(saved["results"]) == {"1"} and set(saved["settings"]["failed"]) == {"6"}
    assert "AssertionError: a check that failed" in saved["settings"]["failed"]["6"]
    err = capsys.readouterr().err
    assert "Traceback" in err and "scenario 6 failed: AssertionError: a check that failed" in err
    resume = f"--only 6 --merge {unfinished} --out {report}"
    assert resume in err
    # Not rendered as it is, nor merged into by a run that leaves scenario 6 out.
    assert vrun.main(["--render", str(unfinished)]) == 2
    assert vrun.main(["--only", "1", "--merge", str(unfinished)]) == 2
    assert "--only 6" in capsys.readouterr().err
    # Once fixed, the command it gave finishes the run: both scenarios in the report.
    monkeypatch.setattr(vrun.s6_vegas, "run", vegas)
    given: dict = {}
    monkeypatch.setattr(vrun.report, "render", lambda results, *a, **k: given.update(results=results, **k) or "page\n")
    assert vrun.main(resume.split()) == 0
    assert report.read_text() == "page\n"
    assert set(given["results"]) == {"1", "6"} and "failed" not in given and given["only"] == {"1", "6"}
    assert repr(given["results"]["1"]) == repr(saved["results"]["1"])


def test_the_ns3_ssthresh_control_sits_beside_its_row() -> None:
    # Scenario 2's control rows (dupack alone with loss_ssthresh = "pipe")
    # are read against the ns-3 column of the row they repeat, and kept out
    # of the main table.
    from validation import report, s2_lossy
    from validation.common import Estimate

    def row(dupack: float, ns3: float | None, arith: bool) -> s2_lossy.Row:
        peers = {"dupack": dupack} | ({"ns3": ns3} if ns3 else {})
        e = {k: Estimate(v, 0.0, 2) for k, v in peers.items()}
        return s2_lossy.Row("rfc6675+lt", 0.03, 100, 950.0, dict(e), dict(e), 400.0, 500.0, retransmitted=dict(e),
                            fast_retransmits=dict(e), arith=arith)

    main, control = row(110.0, 100.0, False), row(95.0, None, True)
    text = "\n".join(report.s2_ns3_arith([main], [control]))
    assert "| rfc6675+lt | 0.03 | 100 | +10.0 → -5.0 | +10.0 → -5.0 | +10.0 → -5.0 | +10.0 → -5.0 |" in text
    assert report.s2_ns3_arith([main], []) == []
    section = "\n".join(report.s2_section([main, control], {"dupack": None, "ns3": None}))
    main_table, control_table = section.split("The control of `ns3_pipe_ssthresh`")
    assert main_table.count("| rfc6675+lt | 0.03 | 100 |") == 1
    assert control_table.count("| rfc6675+lt | 0.03 | 100 |") == 1


def test_each_event_gap_to_ns2_is_named_by_the_ns2_arithmetic_control() -> None:
    # Scenario 2's event counts outside ±10 % of ns-2 get a cause from the
    # control row (dupack alone, ns-2's window arithmetic, same seeds): the
    # arithmetic where the control is within, the draws where the control
    # cannot be told from ns-2 and the same-loss transfers counted alike,
    # "not traced" otherwise. Control rows stay out of the main table.
    from validation import report, s2_lossy
    from validation.common import Estimate

    def row(p: float, d: tuple[float, float], n: tuple[float, float] | None, ns2_arith: bool = False,
            same: list | None = None) -> s2_lossy.Row:
        e = {"dupack": Estimate(d[0], d[1], 10)} | ({"ns2": Estimate(n[0], n[1], 10)} if n else {})
        good = {k: Estimate(1000.0, 1.0, 10) for k in e}
        return s2_lossy.Row("newreno", p, 100, 950.0, good, dict(e), 400.0, 500.0, retransmitted=dict(e),
                            fast_retransmits=dict(e), ns2_arith=ns2_arith,
                            same_losses={"ns2": [0.0] * len(same)} if same is not None else {},
                            same_events={"ns2": same} if same is not None else {})

    equal = [((3, 300, 310), (3, 300, 310))] * 3
    rows = [
        row(0.001, (130.0, 5.0), (100.0, 5.0), same=equal),  # outside; the control within: arithmetic
        row(0.003, (13.0, 4.0), (10.0, 4.0), same=equal),  # unresolved, control unresolved: the draws
        row(0.01, (150.0, 5.0), (100.0, 5.0), same=equal),  # outside, control outside: not traced
        row(0.03, (101.0, 5.0), (100.0, 5.0), same=equal),  # within
    ]
    controls = [row(0.001, (104.0, 5.0), None, True), row(0.003, (12.5, 4.0), None, True),
                row(0.01, (140.0, 5.0), None, True), row(0.03, (101.0, 5.0), None, True)]
    same = report.same_events_equal(rows)
    assert same == (12, 12)
    causes = [report.s2_cause(r, c, "timeouts", same) for r, c in report.s2_controls(rows, controls)]
    assert causes == ["arithmetic", "draws", "untraced", None]
    # One transfer that counted otherwise, and an unresolved gap is no longer the draws.
    rows[1].same_events["ns2"] = [((3, 300, 310), (4, 300, 311))]
    assert report.s2_cause(rows[1], controls[1], "timeouts", report.same_events_equal(rows)) == "untraced"
    assert report.same_losses(rows[0]).endswith("counts equal in 3 of 3")
    text = "\n".join(report.s2_ns2_control(rows, controls))
    assert "in 9 of 10 same-loss transfers" in text and "no gap below is put down to the luck" in text
    assert "| newreno | 0.001 | 100 | timeouts | 130.0 ± 5.0 | 104.0 ± 5.0 | 100.0 ± 5.0 | +30.0 % | +4.0 % | ns-2's window arithmetic |" in text
    assert "| newreno | 0.03 | 100 | timeouts |" not in text
    section = "\n".join(report.s2_section(rows + controls, {"dupack": None, "ns2": None}))
    assert section.count("| newreno | 0.001 | 100 | 950 |") == 1


def test_each_event_gap_on_the_dumbbell_is_named_through_its_remedy_and_arithmetic_rows() -> None:
    # Scenario 3: a row without the phase-effect remedy is judged through its
    # remedy row (p = 0: overhead 1 ms; N = 200: overhead 1 µs), and a row
    # whose control with ns-2's window arithmetic is within has that cause.
    from validation import report, s3_dumbbell
    from validation.common import Estimate

    def row(n, p, timeouts, ns2, overhead=0.0, arith=False):
        def m(t):
            return {"timeouts": Estimate(t[0], t[1], 10), "fast_retransmits": Estimate(100.0, 1.0, 10),
                    "retransmitted": Estimate(300.0, 1.0, 10)}
        return s3_dumbbell.Row(n, p, "newreno", 200.0, {"dupack": m(timeouts), "ns2": m(ns2)}, overhead, arith)

    one_ms, one_us = s3_dumbbell.OVERHEAD, s3_dumbbell.TIEBREAK
    rows = [
        row(10, 0.0, (26.0, 4.0), (15.0, 0.0)),  # plain p = 0: through its 1 ms row
        row(10, 0.0, (30.0, 5.0), (17.0, 2.0), one_ms),  # outside, within with ns-2's arithmetic
        row(10, 0.0, (16.0, 2.0), (17.0, 2.0), one_ms, arith=True),
        row(40, 0.0, (30.0, 1.0), (20.0, 1.0)),  # plain p = 0: its 1 ms row is within
        row(40, 0.0, (20.0, 1.0), (20.0, 1.0), one_ms),
        row(200, 0.01, (120.0, 30.0), (100.0, 30.0), one_us),  # unresolved, no control
        row(200, 0.01, (200.0, 5.0), (100.0, 5.0)),  # plain N = 200: takes its 1 µs row's cause
        row(40, 0.05, (200.0, 5.0), (100.0, 5.0)),  # nothing explains it
    ]
    causes = [report.s3_cause(r, rows, "timeouts") for r in rows]
    assert causes == ["arithmetic", "arithmetic", None, "trajectory", None, "unresolved", "unresolved", "untraced"]
    assert report.s3_cause(rows[0], rows, "fast_retransmits") is None
    line = report.s3_causes_line(rows)
    assert line.startswith("timeouts: 1 without the remedy") and "2 ns-2's window arithmetic" in line
    assert "2 unresolved" in line and "1 not traced" in line


def test_the_cubic_control_sits_beside_its_row() -> None:
    # Scenario 2's SACK CUBIC rows are read against ns-3 as they are and with
    # ns-3's CUBIC arithmetic in dupack (a dupack-alone row), which stays out
    # of the CUBIC table.
    from validation import report, s2_lossy
    from validation.common import Estimate

    def row(goodput: float, ns3: float | None, control: bool) -> s2_lossy.Row:
        peers = {"dupack": goodput} | ({"ns3": ns3} if ns3 else {})
        e = {k: Estimate(v, 0.0, 10) for k, v in peers.items()}
        win = {k: {"mean": Estimate(v / 100, 0.0, 10), "at_fr": Estimate(v / 80, 0.0, 10)} for k, v in peers.items()}
        return s2_lossy.Row("rfc6675+lt+cc=cubic", 0.01, 20, 330.0, dict(e), dict(e), 400.0, 500.0,
                            retransmitted=dict(e), fast_retransmits=dict(e), window=win, cubic_ns3=control)

    main, control = row(1130.0, 1000.0, False), row(1020.0, None, True)
    results = {"2": [main, control]}
    assert report.cubic_rows(results, "2") == [main]
    pairs = report.cubic_controls(results)
    assert pairs == [(main, control)]
    table = "\n".join(report.cubic_control_table(pairs))
    assert "| rfc6675+lt+cc=cubic | 0.01 | 20 | +13.0 → +2.0 ✓ |" in table
    line = report.cubic_control_line(pairs)
    assert "goodput 0 → 1 of 1" in line and "mean cwnd 0 → 1 of 1" in line
    assert report.cubic_controls({"2": [main]}) == []
    # The dumbbell's: keyed by N, p and variant.
    from validation import s3_dumbbell

    def row3(goodput: float, ns3: float | None, control: bool) -> s3_dumbbell.Row:
        m = lambda v: {"goodput": Estimate(v, 0.0, 10), "timeouts": Estimate(v / 10, 0.0, 10)}  # noqa: E731
        metrics = {"dupack": m(goodput)} | ({"ns3": m(ns3)} if ns3 else {})
        return s3_dumbbell.Row(10, 0.01, "rfc6675+lt+cc=cubic", 200.0, metrics, cubic_ns3=control)

    main3, control3 = row3(1100.0, 1000.0, False), row3(1000.0, None, True)
    pairs3 = report.cubic_controls({"3": [main3, control3]}, "3")
    assert pairs3 == [(main3, control3)]
    table3 = "\n".join(report.cubic_control_table(pairs3, "N | p | variant"))
    assert "| 10 | 0.01 | rfc6675+lt+cc=cubic | +10.0 → +0.0 ✓ | +10.0 → +0.0 ✓ |" in table3


def test_the_small_dumbbells_newreno_and_sack_rows_take_more_seeds_in_a_full_run() -> None:
    # Their few timeouts need them to decide ±10 % (validation/s3_dumbbell.py, SMALL_N_SEEDS).
    from validation import s3_dumbbell as s3

    assert s3.seeds_for(10, "newreno", 10, quick=False) == s3.SMALL_N_SEEDS
    assert s3.seeds_for(10, "sack", 400, quick=False) == 400
    assert s3.seeds_for(10, "rfc6675+lt", 10, quick=False) == 10
    assert s3.seeds_for(40, "sack", 10, quick=False) == 10
    assert s3.seeds_for(10, "sack", 2, quick=True) == 2


def test_each_event_gap_to_ns3_is_named() -> None:
    # Against ns-3: NewReno's gaps are ns-3's SACK-less recovery, sack is not
    # ns-3's SACK, a gap the control with ns-3's ssthresh closes is that
    # ssthresh, a p = 0 or N = 200 row is a single trajectory of ns-3's.
    from validation import report, s3_dumbbell
    from validation.common import Estimate

    def row(n, p, variant, timeouts, ns3, ns3_arith=False):
        def m(t):
            return {"timeouts": Estimate(t[0], t[1], 10), "fast_retransmits": Estimate(100.0, 1.0, 10),
                    "retransmitted": Estimate(300.0, 1.0, 10)}
        return s3_dumbbell.Row(n, p, variant, 200.0, {"dupack": m(timeouts), "ns3": m(ns3)}, ns3_arith=ns3_arith)

    rows = [
        row(10, 0.01, "newreno", (20.0, 1.0), (40.0, 1.0)),
        row(10, 0.01, "sack", (20.0, 1.0), (40.0, 1.0)),
        row(10, 0.01, "rfc6675+lt", (20.0, 1.0), (40.0, 1.0)),  # the control below closes it
        row(10, 0.0, "rfc6675+prr+lt", (20.0, 1.0), (40.0, 0.0)),  # p = 0
        row(40, 0.05, "rfc6675+prr+lt", (20.0, 1.0), (40.0, 1.0)),  # nothing explains it
        row(40, 0.05, "rfc6675+lt", (20.0, 9.0), (25.0, 9.0)),  # unresolved
        row(40, 0.01, "rfc6675+lt", (40.0, 1.0), (40.0, 1.0)),  # within
    ]
    control = [row(10, 0.01, "rfc6675+lt", (39.0, 1.0), (40.0, 1.0), ns3_arith=True)]
    text = report.s3_ns3_causes(rows, rows + control)
    assert text.startswith("timeouts: 1 ns-3's SACK-less recovery")
    for part in ("1 not ns-3's SACK", "1 ns-3's ssthresh", "1 single trajectories", "1 unresolved", "1 not traced"):
        assert part in text, part
    assert "fast retransmits" not in text
    assert report.ns3_cause("in", "newreno", None, True) is None


def test_each_cubic_event_gap_to_ns3_is_named() -> None:
    # The CUBIC rows: newreno+cc=cubic's gaps are ns-3's SACK-less recovery,
    # a gap the control (ns-3's CUBIC and PRR arithmetic in dupack) closes is
    # that arithmetic, a p = 0 dumbbell row is a single trajectory of ns-3's.
    from validation import report, s3_dumbbell
    from validation.common import Estimate

    def row(n, p, variant, timeouts, ns3, cubic_ns3=False):
        def m(t):
            return {"goodput": Estimate(2800.0, 1.0, 10), "timeouts": Estimate(t[0], t[1], 10),
                    "fast_retransmits": Estimate(100.0, 1.0, 10), "retransmitted": Estimate(300.0, 1.0, 10)}
        return s3_dumbbell.Row(n, p, variant, 200.0, {"dupack": m(timeouts), "ns3": m(ns3)}, cubic_ns3=cubic_ns3)

    rows = [
        row(10, 0.01, "newreno+cc=cubic", (20.0, 1.0), (40.0, 1.0)),
        row(10, 0.01, "rfc6675+lt+cc=cubic", (20.0, 1.0), (40.0, 1.0)),  # the control below closes it
        row(10, 0.0, "rfc6675+prr+lt+cc=cubic", (20.0, 1.0), (40.0, 0.0)),  # p = 0
        row(40, 0.05, "rfc6675+lt+cc=cubic", (20.0, 1.0), (40.0, 1.0)),  # nothing explains it
        row(40, 0.01, "rfc6675+lt+cc=cubic", (40.0, 1.0), (40.0, 1.0)),  # within
    ]
    control = row(10, 0.01, "rfc6675+lt+cc=cubic", (39.0, 1.0), (40.0, 1.0), cubic_ns3=True)
    text = report.cubic_causes_line(rows, [(rows[1], control)])
    assert text.startswith("timeouts: 1 ns-3's SACK-less recovery")
    for part in ("1 ns-3's CUBIC (and PRR) arithmetic", "1 single trajectories", "1 not traced"):
        assert part in text, part
    assert "fast retransmits" not in text
    # The summary line carries them.
    results = {"3": rows + [control]}
    summary = "\n".join(report.cubic_summary(results))
    assert "causes of the counts outside: timeouts: 1 ns-3's CUBIC (and PRR) arithmetic" in summary, summary


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (`ns`) is not installed")
def test_a_second_run_is_given_ns2s_runs_back_and_says_so(tmp_path: Path, kept_runs: Path) -> None:
    # Scenario 6 of the quick subset twice: the second run makes no ns-2 run,
    # its results are the first's, its report says how many runs it was
    # given; --fresh runs them all again; and the setting ends with the run.
    saved = []
    for extra in ([], [], ["--fresh"]):
        out = tmp_path / f"run{len(saved)}"
        assert vrun.main(["--only", "6", "--out", str(out.with_suffix(".md")), "--save", str(out), *extra]) == 0
        saved.append(pickle.loads(out.read_bytes()))
        assert runcache.DIR is None
    first, second, fresh = saved
    n = sum(first["settings"]["reused"]["ns-2"])
    assert n >= 2 and list(kept_runs.rglob("*.pkl"))
    assert first["settings"]["reused"]["ns-2"] == [0, n]
    assert second["settings"]["reused"]["ns-2"] == [n, 0]
    assert fresh["settings"]["reused"]["ns-2"] == [0, n]
    assert repr(first["results"]) == repr(second["results"]) == repr(fresh["results"])
    text = (tmp_path / "run1.md").read_text()
    assert f"rather than run again: this run, ns-2 {n} of {n}" in text


def test_seeds_side_by_side_give_the_results_of_one_after_the_other(monkeypatch) -> None:
    # greedy_runs with its seeds on threads (validation/run.py --jobs): the
    # same flows and window statistics, in seed order, as one at a time.
    from validation import common, s2_lossy

    doc = s2_lossy.doc("newreno+cc=cubic", 0.01, 20, 20.0)
    out = []
    for threads in (1, 3):
        monkeypatch.setattr(common, "THREADS", threads)
        out.append(s2_lossy.greedy_runs("dupack", PEERS["dupack"], doc, 4, window=True))
    assert repr(out[0]) == repr(out[1])
    flows, stats = out[0]
    assert len(flows) == len(stats) == 4 and len({repr(f) for f in flows}) == 4  # four different seeds


def test_parallel_map_keeps_order_and_raises_the_first_failure(monkeypatch) -> None:
    import threading

    from validation import common

    monkeypatch.setattr(common, "THREADS", 4)
    names = set()

    def f(x: int) -> int:
        names.add(threading.current_thread().name)
        if x in (5, 7):
            raise ValueError(x)
        return x * x

    assert common.parallel_map(f, range(5)) == [0, 1, 4, 9, 16]
    assert any(n.startswith("validation-run") for n in names)
    with pytest.raises(ValueError, match="5"):
        common.parallel_map(f, range(10))


def test_the_peers_can_go_to_worker_processes() -> None:
    # --jobs hands the peers to worker processes, which pickles them.
    again = pickle.loads(pickle.dumps(PEERS))
    assert set(again) == set(PEERS)


def test_the_cubic_section_puts_its_summary_lines_in_the_reports_summary() -> None:
    # `report.py --cubic` rewrites its section (with a copy of its summary
    # lines) and the same lines in the report's summary at the top; the other
    # summary lines and the rest of the report stay as they were.
    from validation.report import splice, splice_summary

    doc = "\n".join([
        "# Validation", "", "## Summary", "",
        "- **2. Lossy link, ns-3, newreno:** kept", "- **2. Lossy link, ns-3, rfc6675+lt+cc=cubic:** old", "",
        "## 3. Dumbbell", "", "rows", "",
        "## CUBIC against ns-3 (scenarios 2 and 3)", "", "Summary:", "",
        "- **2. Lossy link, ns-3, rfc6675+lt+cc=cubic:** old", "", "old table", "",
        "## 4. RED", "", "red",
    ]) + "\n"
    new = "- **2. Lossy link, ns-3, rfc6675+lt+cc=cubic:** new"
    section = "\n".join(["## CUBIC against ns-3 (scenarios 2 and 3)", "", "Summary:", "", new, "", "new table", ""])
    out = splice_summary(splice(doc, section), [new]).split("\n")
    assert out.count(new) == 2 and not any(line.endswith(":** old") for line in out), out
    assert out.index(new) < out.index("## 3. Dumbbell") < out.index("new table") < out.index("## 4. RED")
    assert "- **2. Lossy link, ns-3, newreno:** kept" in out and "rows" in out and "red" in out
    assert "old table" not in out
    # A line the report's summary does not have is not added to it.
    other = "- **3. Dumbbell, ns-3, rfc6675+lt+cc=cubic:** new"
    assert splice_summary(doc, [other]) == doc
