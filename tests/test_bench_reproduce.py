"""bench/reproduce.py's arithmetic and tables: the parts of a reproduction's
wall time and what is left of the command's. Nothing is run."""

from __future__ import annotations

import pytest

from bench import reproduce as br


def _row(name: str, wall_med: float, parts: dict[str, float]) -> dict:
    whole = {"reps": 3, "wall_min": wall_med - 0.1, "wall_med": wall_med, "cpu_min": 1.0, "cpu_med": 1.2, "rss_kib": 180 * 1024}
    return {"name": name, "whole": whole, "parts": parts}


def _text(all_row: dict) -> str:
    """The tables of `reproduce eplr` (2 s) and of ``all_row``."""
    res = {
        "machine": {"cpu": "CPU", "nproc": "2", "mem": "1 GiB", "os": "Linux", "python": "3.11"},
        "commit": "abc", "date": "today", "dupack": ["dupack"],
        "rows": [_row("eplr", 2.0, {"libraries": 0.5, "simulations": 0.1, "figures": 1.0, "rest": 0.2}), all_row],
    }
    return "\n".join(br.lines(res))


def test_what_is_left_of_the_command_is_its_median_less_the_parts() -> None:
    row = _row("eplr", 1.6, {"libraries": 0.6, "simulations": 0.1, "figures": 0.6, "rest": 0.1})
    assert br.start_up(row) == pytest.approx(0.2)
    # Separate runs: a slower split run does not make a negative start-up.
    slow = _row("eplr", 1.0, {"libraries": 0.6, "simulations": 0.1, "figures": 0.6, "rest": 0.1})
    assert br.start_up(slow) == 0.0


def test_the_tables_give_every_part_of_every_reproduction_and_their_shares() -> None:
    text = _text(_row("all", 40.0, {"libraries": 0.5, "simulations": 30.0, "figures": 6.0, "rest": 2.0}))
    assert "| `dupack reproduce eplr` | 1.90 / 2.00 | 1.00 / 1.20 | 180 |" in text
    assert "| importing pandas and matplotlib | 0.50 | 0.50 |" in text
    assert "| the figures (matplotlib: a PNG and an SVG each), as long as the run waits for them | 1.00 | 6.00 |" in text
    assert "| **total** (the command, median wall) | 2.00 | 40.00 |" in text
    start = next(line for line in text.splitlines() if line.startswith("| the command's median beyond"))
    assert start.endswith("| 0.20 | 1.50 |")
    assert "`reproduce eplr`: the simulations are 5 % of the command's wall time, the figures 50 %" in text
    assert "`reproduce all`: the simulations are 75 %" in text


def test_figures_drawn_while_the_runs_go_on_are_told_apart_from_those_waited_for() -> None:
    parts = {"libraries": 0.5, "simulations": 14.0, "figures": 0.7, "drawing": 2.5, "rest": 1.0}
    text = _text(_row("unfairness", 17.0, parts))
    assert "`reproduce unfairness`: the simulations are 82 % of the command's wall time, the figures 4 %" in text
    assert ("Drawing the figures took 2.50 s in all, 1.80 s of it on a thread of their own while the "
            "reproduction went on") in text
    # Nothing drawn early (one experiment, or an older split without the figure thread): no such line.
    assert text.count("Drawing the figures took") == 1


def test_a_command_quicker_than_its_parts_says_what_it_overlaps() -> None:
    text = _text(_row("all", 26.0, {"libraries": 0.5, "simulations": 22.0, "figures": 6.0, "rest": 2.0}))
    assert "- `reproduce all` takes 4.50 s less than its parts add up to (30.50 s" in text
    start = next(line for line in text.splitlines() if line.startswith("| the command's median beyond"))
    assert start.endswith("| 0.00 |")
    # A single paper draws in line: no such line.
    assert "`reproduce eplr` takes" not in text


def test_the_full_reproductions_are_judged_per_run_and_per_event() -> None:
    res_rows = [
        {"name": "eplr", "wall": 2.0, "cpu": 2.4, "rss_kib": 190 * 1024, "runs": 600, "events": 9_000_000},
        {"name": "unfairness", "wall": 348.0, "cpu": 684.0, "rss_kib": 300 * 1024, "runs": 12600,
         "events": 7_367_000_000},
    ]
    text = "\n".join(br.full_lines(res_rows))
    assert "| `dupack reproduce eplr --full` | 2.0 | 2.4 | 190 | 600 | 9.0 | 4.0 | 267 |" in text
    assert "| `dupack reproduce unfairness --full` | 348.0 | 684.0 | 300 | 12600 | 7367.0 | 54.3 | 93 |" in text
    assert "The longest, `reproduce unfairness --full`, takes 5.8 min; its CPU time is 1.97× its wall time" in text
    # Without --full the section has no such table.
    res = {"machine": {"cpu": "CPU", "nproc": "2", "mem": "1 GiB", "os": "Linux", "python": "3.11"},
           "commit": "abc", "date": "today", "dupack": ["dupack"],
           "rows": [_row("eplr", 2.0, {"libraries": 0.5, "simulations": 0.1, "figures": 1.0, "rest": 0.2})]}
    assert "--full" not in "\n".join(br.lines(res))
    assert "| `dupack reproduce unfairness --full` |" in "\n".join(br.lines({**res, "full": res_rows}))


def test_the_runs_of_a_reproduction_are_counted_from_its_stored_sweeps(tmp_path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    for sweep, parts in {"lossy_td/reno": [[10, 20], [5]], "lossy_td/sack": [[7]]}.items():
        d = tmp_path / "runs" / sweep / "runs"
        d.mkdir(parents=True)
        for i, events in enumerate(parts):
            pq.write_table(pa.table({"job": list(range(len(events))), "events": events}), d / f"part-{i:05d}.parquet")
        # Another table of the same sweep is not counted.
        (tmp_path / "runs" / sweep / "flows").mkdir()
        pq.write_table(pa.table({"events": [1000]}), tmp_path / "runs" / sweep / "flows" / "part-00000.parquet")
    assert br.stored_runs(tmp_path) == (4, 42)
    assert br.stored_runs(tmp_path / "nothing") == (0, 0)
