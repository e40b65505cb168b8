"""The progress bar of the commands that run many simulations (sweep, reproduce)."""

from __future__ import annotations

import sys
from typing import Any


class Progress:
    """A rich progress bar on stderr, only on a terminal and without -q."""

    def __init__(self, quiet: bool, label: str) -> None:
        self.bar: Any = None
        self.task: Any = None
        #: Runs stored so far (this call's and earlier calls' of a resumed sweep).
        self.done = 0
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

    def advance(self, n: int, total: int) -> None:
        """``n`` more runs finished of ``total``."""
        self.update(self.done + n, total)

    def update(self, done: int, total: int) -> None:
        self.done = done
        if self.bar is None:
            return
        if self.task is None:
            self.task = self.bar.add_task("runs", total=total, completed=done)
        else:
            self.bar.update(self.task, completed=done)
