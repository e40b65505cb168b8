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
    assert "| the figures (matplotlib: a PNG and an SVG each) | 1.00 | 6.00 |" in text
    assert "| **total** (the command, median wall) | 2.00 | 40.00 |" in text
    start = next(line for line in text.splitlines() if line.startswith("| the command's median beyond"))
    assert start.endswith("| 0.20 | 1.50 |")
    assert "`reproduce eplr`: the simulations are 5 % of the command's wall time, the figures 50 %" in text
    assert "`reproduce all`: the simulations are 75 %" in text


def test_a_command_quicker_than_its_parts_says_what_it_overlaps() -> None:
    text = _text(_row("all", 26.0, {"libraries": 0.5, "simulations": 22.0, "figures": 6.0, "rest": 2.0}))
    assert "- `reproduce all` takes 4.50 s less than its parts add up to (30.50 s" in text
    start = next(line for line in text.splitlines() if line.startswith("| the command's median beyond"))
    assert start.endswith("| 0.00 |")
    # A single paper draws in line: no such line.
    assert "`reproduce eplr` takes" not in text
