"""bench/cli.py's arithmetic: the import time it reads from Python's
import-time report, and how it judges the `dupack run` target."""

from __future__ import annotations

from bench.cli import (
    BESIDE_LABEL,
    NO_SYNC_LABEL,
    NS2_BESIDE_VENV,
    VENV,
    breakdown,
    imports_after_site,
    paired_difference,
    ratios,
    summary,
    venv_verdict,
)

REPORT = """\
import time: self [us] | cumulative | imported package
import time:       300 |        300 |   encodings.utf_8
import time:      1000 |       1300 | encodings
import time:       500 |        500 |     os.path
import time:      2000 |       2500 |   os
import time:      1200 |       3700 | site
import time:       100 |        100 | runpy
import time:       400 |        400 |     dupack._core
import time:       600 |       1000 |   dupack.api
import time:      1500 |       2500 | dupack
import time:       800 |        800 | csv
"""


def test_imports_after_site_sum_the_top_level_entries_that_follow_it() -> None:
    # runpy, dupack (with dupack.api and dupack._core inside) and csv; not site, nor what it imported.
    assert imports_after_site(REPORT) == (100 + 2500 + 800) / 1e3
    assert imports_after_site("no report at all") == 0


def row(label: str, wall_ms: float, rss_mib: float | None = None) -> dict:
    return {"label": label, "wall_med": wall_ms / 1e3, "cpu_med": wall_ms / 1e3,
            "rss_kib": None if rss_mib is None else rss_mib * 1024}


def test_the_breakdown_adds_up_and_judges_the_target() -> None:
    rows = [
        row("dupack run, N = 10", 80, 18), row("ns-2, N = 10", 180, 16),
        row("dupack run, N = 40", 90, 17), row("ns-2, N = 40", 330, 19),
        row("interpreter start-up", 40), row("interpreter start-up without site", 10),
    ]
    parts = {10: {"imports_ms": 9.0, "sim_s": 0.030, "save_s": 0.002},
             40: {"imports_ms": 9.0, "sim_s": 0.034, "save_s": 0.005}}
    text = "\n".join(breakdown(rows, parts, [10, 40]))
    # 80 = 40 + 9 + 30 + 2 + the rest (-1.0); 90 = 40 + 9 + 34 + 5 + 2.0
    assert "| the rest: reading and checking the scenario, building the result (less the exit `dupack` skips) | -1.0 | 2.0 |" in text
    assert "| budget for 3× ns-2 (ns-2 ÷ 3) | 60.0 | 110.0 |" in text
    # N = 10: 2.25× and a higher peak RSS; interpreter + simulation (70 ms) exceed the budget.
    assert "- N = 10: 2.25× on wall time, 2.25× on CPU time, peak RSS not below ns-2's: **not met**; " \
           "the interpreter's start-up and the simulation alone take 70.0 ms, more than the 60.0 ms budget." in text
    # N = 40: 3.67× and a lower peak RSS.
    assert "- N = 40: 3.67× on wall time, 3.67× on CPU time, peak RSS below ns-2's: **met**." in text
    assert "30.0 ms are its `site` import" in text


# One N = 10 measurement: dupack run 80 ms (18.4 MiB) against ns-2's 180 ms
# (16.3 MiB), with 9 ms of imports, a 30 ms simulation and 2 ms of files.
PARTS_10 = {10: {"imports_ms": 9.0, "sim_s": 0.030, "save_s": 0.002}}


def rows_10(*more: dict) -> list[dict]:
    return [row("dupack run, N = 10", 80, 18.4), row("ns-2, N = 10", 180, 16.3), *more,
            row("interpreter start-up", 40, 13.1)]


def test_the_breakdown_says_what_dupack_adds_to_the_interpreters_memory() -> None:
    rows = rows_10(row("interpreter start-up without site", 10, 8.2))
    text = "\n".join(breakdown(rows, PARTS_10, [10]))
    assert "the interpreter alone holds 13.1 MiB (8.2 MiB without `site`); `dupack run` adds 5.3 MiB at N = 10" in text


def test_a_one_job_sweep_is_judged_against_dupack_run() -> None:
    rows = rows_10(row("dupack sweep, 1 job, N = 10", 700, 90))
    parts = PARTS_10
    text = "\n".join(breakdown(rows, parts, [10]))
    assert "takes 700.0 ms against `dupack run`'s 80.0 ms: **not met**" in text
    rows[2]["imports_ms"] = 150.0
    assert "Its imports take 150 ms (import-time report), `dupack run`'s 9." in "\n".join(breakdown(rows, parts, [10]))
    rows[2] = row("dupack sweep, 1 job, N = 10", 75, 18)
    assert "takes 75.0 ms against `dupack run`'s 80.0 ms: **met** (no slower than `dupack run`)." in "\n".join(breakdown(rows, parts, [10]))


def test_commands_timed_in_turn_are_compared_round_by_round() -> None:
    # The machine slows down half-way: the medians of the two columns differ
    # by 20 ms (the sweep's slow rounds outnumber the run's), the rounds by
    # -1 ms each, which is what the difference is.
    run = {"walls": [0.080, 0.081, 0.082, 0.120, 0.121]}
    sweep = {"walls": [0.079, 0.080, 0.121, 0.119, 0.120]}
    med, q1, q3 = paired_difference(sweep, run)
    assert round(1e3 * med, 6) == -1.0 and round(1e3 * q1, 6) == -1.0 and round(1e3 * q3, 6) == -1.0
    assert paired_difference({"walls": [1.0, 2.0]}, {"walls": [1.0]}) is None
    assert paired_difference({}, run) is None


def test_a_one_job_sweep_timed_in_turn_is_judged_round_by_round() -> None:
    def timed(label: str, walls_ms: list[float]) -> dict:
        walls = [w / 1e3 for w in walls_ms]
        return {**row(label, sorted(walls_ms)[len(walls_ms) // 2], 18), "reps": len(walls), "walls": walls}

    # Medians: the sweep 81, the run 80; round by round the sweep is 1 ms faster.
    sweep = timed("dupack sweep, 1 job, N = 10", [79, 81, 99, 70, 90])
    beside = timed(f"{BESIDE_LABEL}, N = 10", [80, 82, 100, 71, 91])
    bare = timed(f"{NO_SYNC_LABEL}, N = 10", [77, 79, 97, 68, 88])
    text = "\n".join(breakdown(rows_10(sweep, beside, bare), PARTS_10, [10]))
    assert ("takes 81.0 ms against `dupack run`'s 82.0 ms (medians of 5 runs each, the commands timed in turn); "
            "round by round it takes -1.0 ms more (median of the 5 differences; the middle half from -1.0 to -1.0 ms): "
            "**met**") in text
    assert "the syncs cost it 2.0 ms, and it is -3.0 ms from `dupack run` without them (medians of the round-by-round" in text
    slower = timed("dupack sweep, 1 job, N = 10", [81, 83, 101, 72, 60])
    assert "**not met** (no slower" in "\n".join(breakdown(rows_10(slower, beside, bare), PARTS_10, [10]))


def test_the_fresh_venv_rows_are_judged_on_their_own() -> None:
    rows = rows_10(row(f"dupack run, N = 10{VENV}", 55, 15.0), row(f"interpreter start-up{VENV}", 12))
    text = "\n".join(venv_verdict(rows, [10]))
    # 180 / 55 = 3.27 and 15.0 MiB < 16.3 MiB.
    assert "- In a fresh venv, N = 10: 3.27× on wall time, 3.27× on CPU time, peak RSS below ns-2's: **met**." in text
    assert "starts in 12.0 ms against 40.0 ms" in text
    assert "| 10 | 3.27×; 3.27× |" in "\n".join(ratios([{**r, "wall_min": r["wall_med"], "cpu_min": r["cpu_med"]} for r in rows],
                                                       [10], VENV))
    slow = rows_10(row(f"dupack run, N = 10{VENV}", 70, 15.0))
    assert "**not met**" in "\n".join(venv_verdict(slow, [10]))


def test_the_fresh_venv_is_judged_against_ns2_timed_in_turn_with_it() -> None:
    # ns-2 took 180 ms at the start of the benchmark, 150 ms timed in turn with the venv's run.
    rows = rows_10(row(f"dupack run, N = 10{VENV}", 55, 15.0), row(f"ns-2, N = 10{NS2_BESIDE_VENV}", 150, 16.3))
    text = "\n".join(venv_verdict(rows, [10]))
    assert "- In a fresh venv, N = 10: 2.73× on wall time, 2.73× on CPU time (ns-2 timed in turn with it)" in text
    assert "**not met**" in text
    table = "\n".join(ratios([{**r, "wall_min": r["wall_med"], "cpu_min": r["cpu_med"]} for r in rows], [10], VENV))
    assert "| 10 | 2.73×; 2.73× |" in table
    # `dupack run` outside the venv (80 ms) keeps ns-2's first timing: 180 / 80.
    plain = "\n".join(ratios([{**r, "wall_min": r["wall_med"], "cpu_min": r["cpu_med"]} for r in rows], [10]))
    assert "| 10 | 2.25×; 2.25× |" in plain


def test_the_commands_that_simulate_nothing_are_judged_in_the_fresh_venv() -> None:
    quick = [row(f"dupack --version{VENV}", 25), row(f"dupack validate{VENV}", 38)]
    text = "\n".join(venv_verdict(rows_10(*quick), [10]))
    assert ("- In a fresh venv, `dupack --version` takes 25.0 ms (median wall) and `dupack validate` takes 38.0 ms "
            "(median wall): **met** (under 60 ms).") in text
    slow = [row(f"dupack --version{VENV}", 25), row(f"dupack validate{VENV}", 61)]
    assert "**not met** (under 60 ms)" in "\n".join(venv_verdict(rows_10(*slow), [10]))
    # Without the venv rows, nothing is claimed.
    assert "simulate" not in "\n".join(venv_verdict(rows_10(), [10])) and "--version" not in "\n".join(venv_verdict(rows_10(), [10]))


def test_the_fresh_venv_imports_are_reported_beside_the_others() -> None:
    rows = [{"label": "interpreter start-up", "wall_med": 0.03}, {"label": f"interpreter start-up{VENV}", "wall_med": 0.01}]
    text = "\n".join(venv_verdict(rows, [10], {10: {"imports_ms": 5.8, "venv_imports_ms": 10.4}}))
    assert "importing dupack's run path takes 10.4 ms (import-time report, N = 10) against 5.8 ms outside it, where" in text
    # The same figure both ways needs no explanation.
    same = "\n".join(venv_verdict(rows, [10], {10: {"imports_ms": 2.8, "venv_imports_ms": 2.8}}))
    assert "against 2.8 ms outside it. The run path" in same and "standard library" not in same
    assert "importing" not in "\n".join(venv_verdict(rows, [10], {10: {"imports_ms": 5.8}}))


def test_the_one_job_sweep_says_what_its_syncs_cost() -> None:
    from bench.cli import NO_SYNC_LABEL

    from bench.cli import BESIDE_LABEL

    sweep = row("dupack sweep, 1 job, N = 10", 82, 18) | {"reps": 27}
    rows = rows_10(sweep, row(f"{NO_SYNC_LABEL}, N = 10", 79.5, 18))
    text = "\n".join(breakdown(rows, PARTS_10, [10]))
    assert "takes 82.0 ms against `dupack run`'s 80.0 ms: **not met**" in text
    assert ("with its store's `fsync` calls made no-ops (for this measurement only) takes 79.5 ms: the syncs cost it "
            "2.5 ms, and it is -0.5 ms from `dupack run` without them") in text
    # Beside the sweeps, dupack run timed in turn with them is the one judged against.
    rows.append(row(f"{BESIDE_LABEL}, N = 10", 83, 18))
    text = "\n".join(breakdown(rows, PARTS_10, [10]))
    assert ("takes 82.0 ms against `dupack run`'s 83.0 ms (medians of 27 runs each, the commands timed in turn): "
            "**met**") in text


def test_ns3_stands_beside_ns2_where_it_was_timed() -> None:
    rows = rows_10(row("ns-3, N = 10", 1600, 21.8))
    rows = [{**r, "wall_min": r["wall_med"], "cpu_min": r["cpu_med"]} for r in rows]
    text = "\n".join(ratios(rows, [10]))
    assert "| ns-3 / dupack wall (min; median) |" in text and "peak RSS MiB dupack / ns-2 / ns-3 |" in text
    assert "| 10 | 2.25×; 2.25× | 2.25×; 2.25× | 20.00×; 20.00× | 20.00×; 20.00× | 18.4 / 16.3 / 21.8 |" in text
    # Without ns-3 the table is ns-2's alone, as before.
    assert "ns-3" not in "\n".join(ratios([r for r in rows if not r["label"].startswith("ns-3")], [10]))


def test_the_flat_cost_target_takes_the_longest_ten_flow_run() -> None:
    # The 10-flow run of the flows scaling simulates for milliseconds and
    # here came out at twice its steady cost: the longest 10-flow run, of
    # the time scaling, is the one the target compares with 1000 flows.
    from types import SimpleNamespace

    from bench import report

    def row(group: str, flows: int, duration: float, events: int, ns_per_event: float, floor=None) -> dict:
        case = SimpleNamespace(group=group, flows=flows, duration=duration, label=f"{flows} flows x {duration:g} s")
        d = {"wall": events * ns_per_event * 1e-9 + 0.003, "core_wall": events * ns_per_event * 1e-9,
             "events": events, "rss_kib": 10_000}
        return {"case": case, "dupack": d, "ns2": None, "ns3": None, "heap_floor_ns": floor}

    res = [row("c-flows", 10, 20, 40_000, 150.0, 20.0), row("c-flows", 1000, 20, 4_000_000, 160.0, 38.0),
           row("c-time", 10, 2000, 3_900_000, 80.0)]
    line = next(x for x in report.targets(res) if x.startswith("- Flat cost per event"))
    assert "80 ns per event at 10 flows (10 flows x 2000 s, the longest 10-flow run), 160 ns at 1000: 2.00×" in line
    assert "**missed**" in line


def test_a_rows_summary_takes_the_best_and_median_times_and_the_highest_peak() -> None:
    row = summary([(2.0, 1.5, 100), (1.0, 3.0, None), (3.0, 2.0, 300)])
    assert row == {"reps": 3, "wall_min": 1.0, "wall_med": 2.0, "cpu_min": 1.5, "cpu_med": 2.0, "rss_kib": 300}
    assert summary([(1.0, 1.0, None)])["rss_kib"] is None
