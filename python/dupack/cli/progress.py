"""Progress displays: the bar of the commands that run many simulations
(sweep, reproduce) and the status line of one long ``dupack run``.

Importing this module imports nothing heavy; :class:`Progress` imports rich
only when it shows a bar, :class:`RunProgress` never."""

from __future__ import annotations

import os
import sys

from dupack.cli.common import Count

# typing for type checkers only (why: dupack/__init__.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Progress(Count):
    """A rich progress bar on stderr, only on a terminal and without -q."""

    def __init__(self, quiet: bool, label: str) -> None:
        super().__init__()
        self.bar: Any = None
        self.task: Any = None
        if quiet or not sys.stderr.isatty():
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
        from rich.progress import Progress as RichProgress

        self.bar = RichProgress(
            TextColumn(label),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("runs"),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )

    def __enter__(self) -> Progress:
        if self.bar is not None:
            self.bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)

    def update(self, done: int, total: int) -> None:
        super().update(done, total)
        if self.bar is None:
            return
        if self.task is None:
            self.task = self.bar.add_task("runs", total=total, completed=done)
        else:
            self.bar.update(self.task, completed=done)


def human_seconds(s: float) -> str:
    """A duration for people: ``under 0.1 s``, ``0.4 s``, ``42 s``, ``12 min``, ``3.5 h``, ``2.1 days``."""
    if s != s or s < 0:
        return "?"
    if s < 0.1:
        return "under 0.1 s"
    if s < 10:
        return f"{s:.1f} s"
    if s < 120:
        return f"{s:.0f} s"
    if s < 2 * 3600:
        return f"{s / 60:.0f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:,.1f} days"


class RunProgress:
    """The status line of one long run on stderr: simulated time reached of
    the duration, the wall-clock time left at the pace so far (the run ends
    sooner if its transfers complete and it stops when done), events per
    second and wall time elapsed. On a terminal the line is rewritten in place (at most
    four times a second) and cleared at the end; elsewhere (``--progress``
    into a log) it is printed as a new line after 1, 2, 4, … s of wall time,
    then every minute."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.tty = bool(self.stream.isatty())
        except (AttributeError, ValueError):
            self.tty = False
        self.next_at = 0.0
        self.shown = False

    @staticmethod
    def line(sim_s: float, duration_s: float, events: int, wall_s: float) -> str:
        share = sim_s / duration_s if duration_s > 0 else 0.0
        rate = events / wall_s if wall_s > 0 else 0.0
        eta = (duration_s - sim_s) * wall_s / sim_s if sim_s > 0 else float("nan")
        return (
            f"simulated {sim_s:,.1f} s of {duration_s:,.6g} s ({share:.0%}) · eta {human_seconds(eta)}"
            f" · {rate / 1e6:.1f} M events/s · {human_seconds(wall_s)} elapsed"
        )

    def update(self, sim_s: float, duration_s: float, events: int, wall_s: float) -> None:
        if wall_s < self.next_at:
            return
        text = self.line(sim_s, duration_s, events, wall_s)
        if self.tty:
            # Cut to the width: a line that wraps cannot be rewritten in place.
            try:
                width = os.get_terminal_size(self.stream.fileno()).columns or 80  # 0: not known
            except (AttributeError, OSError, ValueError):
                width = 80
            self.stream.write(f"\r{text[: max(width - 1, 20)]}\x1b[K")
            self.next_at = wall_s + 0.25
        else:
            self.stream.write(f"{text}\n")
            self.next_at = min(2 * wall_s, wall_s + 60.0)
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """Clear the line on a terminal (what follows is printed in its place)."""
        if self.tty and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
