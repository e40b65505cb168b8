"""Runs and sweeps as one self-contained HTML page (``dupack report``).

For a run: its plots (cwnd, the time-sequence graph of each traced flow,
the queue of each traced link, goodput per flow, timeouts by N_dup), its
flows, links and media tables and its scenario. For a sweep: a metric
against each swept path, per-variant bars, the N_dup histogram, the summary
over seeds and the first rows of its tables. Several results together also
get the per-flow comparison across them. Figures are embedded as PNG (data
URIs) and nothing refers outside the page, so it opens offline.
"""

from __future__ import annotations

import base64
import html
import io
import json
import platform
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dupack.plot import PlotError
from dupack.plot.load import Run, Sweep, as_run, as_sweep, load

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from dupack.result import RunResult
    from dupack.sweeps import SweepResult

__all__ = ["html_page", "write_report"]

#: Per run, at most this many time-sequence graphs and queue plots.
MOST_PER_KIND = 4
#: Rows of a sweep's flows and links tables shown (the summary is whole).
SWEEP_ROWS = 40

_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; max-width: 76em; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05em; margin-top: 1.5em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f3f3f3; }
.tablewrap { overflow-x: auto; }
figure { display: inline-block; margin: 0.5em; vertical-align: top; max-width: 36em; } figure img { width: 100%; height: auto; }
figcaption { font-size: 0.85em; color: #555; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.8em; }
.note { color: #555; }
"""


def _e(x: object) -> str:
    return html.escape(str(x))


def _png(fig: Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _figure(draw: Callable[[], Figure], caption: str) -> str:
    """One embedded figure, or nothing when the result cannot make it."""
    try:
        fig = draw()
    except PlotError:
        return ""
    return (f"<figure><img alt='{_e(caption)}' src='data:image/png;base64,{_png(fig)}'>"
            f"<figcaption>{_e(caption)}</figcaption></figure>")


def _table(df: pd.DataFrame, most: int | None = None) -> str:
    shown = df if most is None else df.head(most)
    body = shown.to_html(index=False, escape=True, na_rep="-", float_format=lambda v: f"{v:.4g}", border=0)
    more = f"<p class='note'>The first {len(shown)} of {len(df)} rows.</p>" if len(shown) < len(df) else ""
    return f"<div class='tablewrap'>{body}</div>{more}"


def _scenario(doc: dict[str, Any] | None) -> str:
    if doc is None:
        return "<p class='note'>The scenario was not saved with these results.</p>"
    text = json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)
    return f"<details><summary>Scenario (as run)</summary><pre>{_e(text)}</pre></details>"


def _run_section(run: Run) -> list[str]:
    from dupack.plot import draw

    info = run.raw.get("run", {})
    L = [f"<h2>Run: {_e(run.label)}</h2>",
         f"<p>Scenario <b>{_e(run.name or '-')}</b>, seed {_e(run.seed)}; "
         f"{_e(info.get('sim_time_s', '-'))} s simulated ({_e(info.get('end_reason', '-'))}), "
         f"{_e(info.get('events', '-'))} events.</p>"]
    figs = [_figure(lambda: draw.cwnd(run), "cwnd and ssthresh")]
    for f in run.traced_flows[:MOST_PER_KIND]:
        figs.append(_figure(lambda f=f: draw.tsg(run, f), f"time–sequence graph of {f}"))
    for link in [e for e in run.series_links if e.endswith(":fwd")][:MOST_PER_KIND]:
        figs.append(_figure(lambda link=link: draw.queue(run, link), f"queue of {link}"))
    figs.append(_figure(lambda: draw.bars([run]), "goodput per flow"))
    if int(run.flows["timeouts"].sum()) if len(run.flows) else 0:
        figs.append(_figure(lambda: draw.ndup([run]), "timeouts by N_dup"))
    L += [f for f in figs if f]
    if run.trace is None and run.series is None:
        L.append("<p class='note'>No packet trace or time series: run with --trace FLOW,LINK for the "
                 "time–sequence graph, cwnd and queue plots.</p>")
    L += ["<h3>Flows</h3>", _table(run.flows), "<h3>Links</h3>", _table(run.links)]
    if len(run.media):
        L += ["<h3>Shared media</h3>", _table(run.media)]
    L.append(_scenario(run.scenario))
    return L


def _sweep_section(sw: Sweep) -> list[str]:
    from dupack.plot import draw

    res = sw.result
    grid = ", ".join(f"{p} = {', '.join(map(str, v))}" for p, v in res.grid.items()) or "nothing varied"
    L = [f"<h2>Sweep: {_e(sw.label)}</h2>",
         f"<p>{len(res.runs)} runs; grid: {_e(grid)}; seeds: {_e(_seeds(res.seeds))}.</p>"]
    figs = []
    for path in res.grid:
        for metric in ("goodput_kbps", "timeouts"):
            figs.append(_figure(lambda path=path, metric=metric: draw.sweep([sw], x=path, y=metric),
                                f"{metric} against {path}"))
    figs.append(_figure(lambda: draw.bars([sw], by="variant"), "goodput per variant"))
    if len(res.flows) and int(res.flows["timeouts"].sum()):
        figs.append(_figure(lambda: draw.ndup([sw]), "timeouts by N_dup"))
    L += [f for f in figs if f]
    if len(res.runs):
        table, note = res._display()
        L += ["<h3>Summary over seeds</h3>", _table(table), f"<p class='note'>{_e(note)}</p>"]
    L += ["<h3>Flows</h3>", _table(res.flows, SWEEP_ROWS), "<h3>Links</h3>", _table(res.links, SWEEP_ROWS)]
    L.append(_scenario(res.scenario.to_dict() if res.scenario is not None else None))
    return L


def _seeds(seeds: list[Any]) -> str:
    ints = [s for s in seeds if isinstance(s, int)]
    if len(ints) == len(seeds) and len(ints) > 2 and ints == list(range(ints[0], ints[-1] + 1)):
        return f"{ints[0]}..{ints[-1]}"
    return ", ".join("the scenario's" if s is None else str(s) for s in seeds)


def html_page(results: Sequence[str | PathLike[str] | Run | Sweep | RunResult | SweepResult], title: str | None = None) -> str:
    """The report of ``results`` (directories, or results in memory) as HTML text."""
    import dupack
    from dupack.plot import draw
    from dupack.result import RunResult
    from dupack.sweeps import SweepResult

    loaded: list[Run | Sweep] = []
    for r in results:
        if isinstance(r, RunResult):
            loaded.append(as_run(r))
        elif isinstance(r, SweepResult):
            loaded.append(as_sweep(r))
        elif isinstance(r, Run | Sweep):
            loaded.append(r)
        else:
            loaded.append(load(r))
    if not loaded:
        raise PlotError("no results given")
    title = title or ("dupack report: " + ", ".join(r.label for r in loaded[:4]) + (" …" if len(loaded) > 4 else ""))
    L = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{_e(title)}</title>",
         f"<style>{_STYLE}</style></head><body>",
         f"<h1>{_e(title)}</h1>",
         f"<p class='note'>dupack {_e(dupack.__version__)}; Python {_e(platform.python_version())}; "
         f"generated {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; {len(loaded)} result(s): "
         + ", ".join(f"{_e(r.label)} ({'sweep' if isinstance(r, Sweep) else 'run'})" for r in loaded) + ".</p>"]
    if len(loaded) > 1:
        figs = [_figure(lambda: draw.bars(loaded, by="flow"), "goodput per flow, over every run given"),
                _figure(lambda: draw.bars(loaded, by="variant"), "goodput per variant, over every run given"),
                _figure(lambda: draw.ndup(loaded), "timeouts by N_dup, over every run given")]
        if any(figs):
            L += ["<h2>All results together</h2>", *[f for f in figs if f]]
    for r in loaded:
        L += _run_section(r) if isinstance(r, Run) else _sweep_section(r)
    L.append("</body></html>")
    return "\n".join(L)


def write_report(results: Sequence[str | PathLike[str] | Run | Sweep | RunResult | SweepResult],
                 out: str | PathLike[str], title: str | None = None) -> Path:
    """Write :func:`html_page` to ``out``; return its path."""
    p = Path(out)
    p.write_text(html_page(results, title), encoding="utf-8")
    return p
