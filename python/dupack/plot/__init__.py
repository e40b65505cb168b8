"""Plots of runs and sweeps (matplotlib, docs/plots.md).

From Python, through a result's ``plot`` accessor::

    res = dupack.run("scenarios/quickstart.toml", trace=["f3"], series=["f3", "bottleneck"])
    fig = res.plot.tsg()             # time-sequence graph of f3
    fig = res.plot.cwnd(band=4)      # cwnd/ssthresh, the small-window band shaded
    fig.savefig("cwnd.png")

or on stored results with :func:`plot`, as ``dupack plot KIND DIR...`` does.
Every kind returns a ``matplotlib.figure.Figure``; bad input raises
:class:`PlotError`. matplotlib is imported on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from typing import TYPE_CHECKING, Any

from dupack.plot.load import PlotError, Run, Sweep, as_run, as_sweep, load

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from dupack.result import RunResult
    from dupack.sweeps import SweepResult

__all__ = ["PlotError", "RunPlots", "SweepPlots", "plot", "load", "save", "KINDS"]


KINDS = ("tsg", "cwnd", "queue", "bars", "ndup", "sweep")


def plot(kind: str, results: Sequence[str | PathLike[str] | Run | Sweep], **options: Any) -> Figure:
    """Draw ``kind`` (one of :data:`KINDS`) from ``results``: result
    directories, or results already loaded. ``options`` are the kind's
    keyword arguments (see :mod:`dupack.plot.draw`)."""
    from dupack.plot import draw

    if kind not in KINDS:
        raise PlotError(f"unknown plot kind {kind!r}; one of {', '.join(KINDS)}")
    loaded = [r if isinstance(r, Run | Sweep) else load(r) for r in results]
    if not loaded:
        raise PlotError("no results given")
    if kind in ("tsg", "cwnd", "queue"):
        run = draw._one_run(loaded, kind)
        return getattr(draw, kind)(run, **options)
    return getattr(draw, kind)(loaded, **options)


def save(fig: Figure, path: str | PathLike[str]) -> Any:
    """Write a figure as PNG or SVG, by the file's extension."""
    from dupack.plot.draw import save as _save

    return _save(fig, path)


class RunPlots:
    """``RunResult.plot``: the plots of one run. Each method returns a Figure."""

    def __init__(self, result: RunResult) -> None:
        self._result = result

    def _run(self) -> Run:
        return as_run(self._result)

    def tsg(self, flow: str | None = None, start: float | None = None, end: float | None = None) -> Figure:
        """Time–sequence graph of ``flow`` (default: the first traced one); needs ``run(..., trace=[flow])``."""
        from dupack.plot.draw import tsg

        return tsg(self._run(), flow, start, end)

    def cwnd(self, flows: Sequence[str] | str | None = None, band: float | None = None,
             start: float | None = None, end: float | None = None) -> Figure:
        """cwnd and ssthresh of ``flows`` (default: every flow with a series); needs ``run(..., series=[...])``."""
        from dupack.plot.draw import cwnd

        return cwnd(self._run(), [flows] if isinstance(flows, str) else flows, band, start, end)

    def queue(self, link: str | None = None, start: float | None = None, end: float | None = None) -> Figure:
        """Queue length of ``link`` (``NAME`` or ``NAME:rev``); needs ``run(..., series=[link])``."""
        from dupack.plot.draw import queue

        return queue(self._run(), link, start, end)

    def bars(self, metric: str = "goodput_kbps", by: str = "flow") -> Figure:
        """``metric`` per flow (or per variant)."""
        from dupack.plot.draw import bars

        return bars([self._run()], metric, by)

    def ndup(self) -> Figure:
        """Timeouts by the duplicate ACKs received before them, per variant."""
        from dupack.plot.draw import ndup

        return ndup([self._run()])


class SweepPlots:
    """``SweepResult.plot``: the plots of a sweep. Each method returns a Figure."""

    def __init__(self, result: SweepResult) -> None:
        self._result = result

    def _sweep(self) -> Sweep:
        return as_sweep(self._result)

    def sweep(self, x: str | None = None, y: str = "goodput_kbps", log_x: bool = False) -> Figure:
        """``y`` against the swept path ``x``, a curve per variant (or other swept value) with its 95 % band."""
        from dupack.plot.draw import sweep

        return sweep([self._sweep()], x, y, log_x)

    def bars(self, metric: str = "goodput_kbps", by: str = "variant") -> Figure:
        """``metric`` per variant, flow or grid path, over the sweep's runs."""
        from dupack.plot.draw import bars

        return bars([self._sweep()], metric, by)

    def ndup(self) -> Figure:
        """Timeouts by the duplicate ACKs received before them, per variant."""
        from dupack.plot.draw import ndup

        return ndup([self._sweep()])
