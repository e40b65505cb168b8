"""The papers' figures redrawn from a reproduction's runs (matplotlib).

Each figure plots one metric against one axis of an experiment, a series per
scheme with its 95 % interval (error bars), and the paper's own numbers for
the same quantity as black markers where it publishes them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from dupack.reproduce.analysis import Comparison, run_values
from dupack.reproduce.spec import Figure, Paper
from dupack.stats import estimate

if TYPE_CHECKING:
    import pandas as pd


def draw(paper: Paper, fig: Figure, results: dict[str, pd.DataFrame], full: bool, published: list[Comparison],
         out: Path) -> list[Path]:
    """Write ``out/FIG.png`` and ``out/FIG.svg``; return their paths."""
    from matplotlib.figure import Figure as MplFigure

    from dupack.plot.draw import log_x_axis, save, tick_label

    series = []  # (label, experiment, scheme)
    for eid in fig.experiments:
        exp = paper.experiment(eid)
        assert exp is not None, eid
        for s in paper.schemes:
            if s.id in exp.schemes and (fig.schemes is None or s.id in fig.schemes):
                label = s.label if len(fig.experiments) == 1 else f"{s.label}, {exp.label}"
                series.append((label, exp, s.id))
    xs = paper.experiment(fig.experiments[0]).axis_values(fig.x, full)
    # A figure of its own, not pyplot's: nothing to close, no display needed.
    f = MplFigure(figsize=(6.4, 4.0), dpi=120)
    ax = f.add_subplot()
    width = 0.8 / max(len(series), 1)
    for k, (label, exp, sid) in enumerate(series):
        means, halves = [], []
        for x in xs:
            e = estimate(list(run_values(results[exp.id], sid, fig.y, fig.aggregate, {**fig.fixed, fig.x: x}).values()))
            means.append(e.mean)
            halves.append(0.0 if e.half != e.half else e.half)
        if fig.kind == "bars":
            pos = [i + (k - (len(series) - 1) / 2) * width for i in range(len(xs))]
            ax.bar(pos, means, width, yerr=halves, capsize=3, label=f"{label} (dupack)")
        else:
            ax.errorbar(xs, means, yerr=halves, marker="o", capsize=3, label=f"{label} (dupack)")
        pub = _published_points(published, sid, fig, xs) if len(fig.experiments) == 1 else []
        if pub:
            px = [(xs.index(x) + (k - (len(series) - 1) / 2) * width) if fig.kind == "bars" else x for x, _ in pub]
            ax.scatter(px, [y for _, y in pub], marker="D", color="black", zorder=5, s=18,
                       label="paper" if k == 0 else None)
    if fig.kind == "bars":
        ax.set_xticks(range(len(xs)), [tick_label(x) for x in xs])
    elif fig.log_x:
        log_x_axis(ax, xs)
    ax.set_xlabel(fig.x_label)
    ax.set_ylabel(fig.y_label)
    ax.set_title(fig.title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    f.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{fig.id}.png", out / f"{fig.id}.svg"]
    for p in paths:
        save(f, p)
    return paths


def _published_points(published: list[Comparison], scheme: str, fig: Figure, xs: list[Any]) -> list[tuple[Any, float]]:
    """The paper's values of this figure's quantity for ``scheme``, at the figure's x values."""
    out = []
    for c in published:
        cond = c.value.get("conditions", {})
        x = cond.get(fig.x)
        if c.scheme != scheme or c.metric != fig.y or set(cond) - set(fig.fixed) != {fig.x} or isinstance(x, list):
            continue
        if any(abs(float(x) - float(v)) < 1e-12 for v in xs):
            out.append((next(v for v in xs if abs(float(x) - float(v)) < 1e-12), float(c.value["value"])))
    return out
