"""The plot kinds, drawn with matplotlib on figures of their own (no pyplot
state, no display needed). Each function returns a
``matplotlib.figure.Figure``; :func:`save` writes one as PNG or SVG."""

from __future__ import annotations

import math
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dupack.plot.load import PlotError, Run, Sweep

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["tsg", "cwnd", "queue", "bars", "ndup", "sweep", "save", "log_x_axis", "tick_label", "FORMATS", "KINDS"]

#: File extensions :func:`save` writes, and matplotlib's name for each.
FORMATS = {".png": "png", ".svg": "svg"}
#: The plot kinds, with what each needs.
KINDS = {
    "tsg": "one run with a packet trace (dupack run --trace FLOW)",
    "cwnd": "one run with flow time series (dupack run --trace FLOW)",
    "queue": "one run with link time series (dupack run --trace LINK)",
    "bars": "runs or sweeps",
    "ndup": "runs or sweeps",
    "sweep": "one sweep directory (dupack sweep --vary PATH=...)",
}

_SIZE = (7.0, 4.2)
_DPI = 110
# Colours of the trace's kinds, and the event markers shared by the kinds.
_C_SEND, _C_RETX, _C_ACK, _C_SACK = "#1f4e9c", "#d62728", "#2ca02c", "#98df8a"
_C_ERR, _C_QDROP, _C_FR, _C_TO = "#000000", "#ff7f0e", "#9467bd", "#e377c2"


def _figure() -> tuple[Figure, Axes]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=_SIZE, dpi=_DPI)
    ax = fig.add_subplot()
    return fig, ax


def _finish(fig: Figure, ax: Axes, title: str) -> Figure:
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    handles, _ = ax.get_legend_handles_labels()
    if handles:
        ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig


def save(fig: Figure, path: str | PathLike[str]) -> Path:
    """Write ``fig`` to ``path``, as PNG or SVG by the file's extension."""
    p = Path(path)
    fmt = FORMATS.get(p.suffix.lower())
    if fmt is None:
        raise PlotError(f"cannot tell the image format of '{p.name}': name the file .png or .svg")
    if fmt == "svg":
        from matplotlib import rc_context

        # Text as SVG text rather than glyph outlines: editable and
        # searchable in the file, and quicker to write. The same figure
        # gives the same bytes: clip paths named from a fixed salt (by
        # default a random one a process) and no date in the metadata, so
        # that two reproductions of the same runs can be compared file by
        # file (the PNGs already are).
        with rc_context({"svg.fonttype": "none", "svg.hashsalt": "dupack"}):
            fig.savefig(p, format=fmt, metadata={"Date": None})
    else:
        fig.savefig(p, format=fmt)
    return p


# --- time windows -----------------------------------------------------------------


def _window(start: float | None, end: float | None) -> tuple[float, float]:
    lo = 0.0 if start is None else float(start)
    hi = math.inf if end is None else float(end)
    if not (math.isfinite(lo) and lo >= 0) or math.isnan(hi) or hi <= lo:
        raise PlotError(f"the time window must have 0 <= from < to, got from {start} to {end}")
    return lo, hi


def _clip(df: pd.DataFrame, lo: float, hi: float) -> pd.DataFrame:
    return df[(df["time_s"] >= lo) & (df["time_s"] <= hi)]


def _run_end(run: Run, hi: float) -> float:
    sim = run.raw.get("run", {}).get("sim_time_s")
    end = float(sim) if isinstance(sim, int | float) else math.inf
    return min(end, hi)


def _steps(df: pd.DataFrame, lo: float, hi: float, end: float) -> tuple[list[float], list[float]]:
    """A variable recorded on change as the points of a step line over
    [lo, end]: the value held at ``lo`` first, the last value held to ``end``."""
    before = df[df["time_s"] < lo]
    inside = _clip(df, lo, hi)
    xs, ys = list(inside["time_s"]), list(inside["value"])
    if len(before):
        xs.insert(0, lo)
        ys.insert(0, float(before["value"].iloc[-1]))
    if ys and math.isfinite(end) and (not xs or xs[-1] < end):
        xs.append(end)
        ys.append(ys[-1])
    return xs, ys


def _value_at(df: pd.DataFrame, times: Sequence[float]) -> list[float]:
    """The value a variable recorded on change held at each of ``times`` (NaN before its first record)."""
    import numpy as np

    t, v = df["time_s"].to_numpy(), df["value"].to_numpy(dtype=float)
    idx = np.searchsorted(t, np.asarray(times, dtype=float), side="right") - 1
    return [float(v[i]) if i >= 0 else math.nan for i in idx]


def _one_run(results: Sequence[Run | Sweep], kind: str) -> Run:
    if len(results) != 1 or not isinstance(results[0], Run):
        got = "a sweep" if any(isinstance(r, Sweep) for r in results) else f"{len(results)} results"
        raise PlotError(f"{kind} needs {KINDS[kind]}, got {got}")
    return results[0]


def _names(names: Sequence[str], most: int = 10) -> str:
    shown = ", ".join(names[:most])
    return (shown + f", … ({len(names)} in all)" if len(names) > most else shown) or "none"


# --- tsg ------------------------------------------------------------------------------


def tsg(run: Run, flow: str | None = None, start: float | None = None, end: float | None = None) -> Figure:
    """Time–sequence graph of one flow: the segments it sent and
    retransmitted (at their last byte), the cumulative ACKs as they reached
    the sender and the SACK blocks they carried (one vertical tick per
    block, over the bytes it covers), the segments lost (to an error model or a
    queue), and its fast retransmits and timeouts."""
    import numpy as np

    if run.trace is None:
        raise PlotError(f"tsg needs a packet trace, and '{run.label}' has none: run it with --trace FLOW")
    traced = run.traced_flows
    if not traced:
        raise PlotError(f"the packet trace of '{run.label}' holds no flow")
    flow = traced[0] if flow is None else flow
    if flow not in traced:
        raise PlotError(f"no traced flow named {flow!r} in '{run.label}'; the traced flows are {_names(traced)}")
    lo, hi = _window(start, end)
    t = _clip(run.trace[run.trace["flow"].astype(str) == flow], lo, hi)
    fig, ax = _figure()

    def kind(k: str) -> pd.DataFrame:
        return t[t["kind"] == k]

    ends = t.assign(top=t["seq"].astype("float64") + t["len"].astype("float64"))
    acks = kind("ack")
    if len(acks):
        # The ACKs as they reached the sender (tcptrace's ACK line) and each
        # SACK block they carried as a vertical tick over the bytes it covers.
        ax.step(acks["time_s"], acks["seq"].astype("float64"), where="post", color=_C_ACK, lw=1.2, label="ACK")
        blocks = kind("sack")
        if len(blocks):
            left = blocks["seq"].astype("float64")
            ax.vlines(blocks["time_s"], left, left + blocks["len"].astype("float64"), color=_C_SACK, lw=2.0,
                      label="SACK block")
    elif run.series is not None and flow in run.series_flows:
        # Results traced before ACKs were recorded: the ACK from snd_una, the SACKed amount above it.
        stop = _run_end(run, hi)
        una = run.flow_series(flow, "snd_una")
        xs, ys = _steps(una, lo, hi, stop)
        if xs:
            ax.step(xs, ys, where="post", color=_C_ACK, lw=1.2, label="ACK (snd_una)")
            sacked = run.flow_series(flow, "sacked")
            if len(sacked) and float(sacked["value"].max()) > 0:
                times = sorted(set(xs) | set(_clip(sacked, lo, hi)["time_s"]))
                base = np.array(_value_at(una, times))
                extra = np.nan_to_num(np.array(_value_at(sacked, times)))
                ax.fill_between(times, base, base + extra, step="post", color=_C_SACK, alpha=0.6,
                                lw=0, label="SACKed (bytes above the ACK)")
    for k, label, style in (
        ("send", "send", dict(marker=".", ms=3, color=_C_SEND)),
        ("retransmit", "retransmission", dict(marker="D", ms=4, color=_C_RETX)),
        ("drop_error", "lost (link error)", dict(marker="x", ms=6, color=_C_ERR)),
        ("drop_queue", "lost (queue drop)", dict(marker="x", ms=6, color=_C_QDROP)),
    ):
        sel = ends[ends["kind"] == k]
        if len(sel):
            ax.plot(sel["time_s"], sel["top"], ls="", label=label, **style)
    for k, label, marker, color in (("fast_retransmit", "fast retransmit", "^", _C_FR), ("timeout", "timeout", "v", _C_TO)):
        sel = kind(k)
        if len(sel):
            ax.plot(sel["time_s"], sel["seq"].astype("float64"), ls="", marker=marker, ms=9, mfc="none",
                    mew=1.5, color=color, label=label)
            for x in sel["time_s"]:
                ax.axvline(x, color=color, lw=0.6, alpha=0.4)
    if not len(t):
        ax.text(0.5, 0.5, "no packets in this window", transform=ax.transAxes, ha="center")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("sequence offset (bytes)")
    return _finish(fig, ax, f"time–sequence graph of {flow} · {run.label}")


# --- cwnd -----------------------------------------------------------------------------


def cwnd(
    run: Run,
    flows: Sequence[str] | None = None,
    band: float | None = None,
    start: float | None = None,
    end: float | None = None,
) -> Figure:
    """cwnd and ssthresh (in segments of the flow's MSS) against time for
    one or more flows, their fast retransmits and timeouts marked on the
    cwnd line; ``band=N`` shades the small-window region cwnd < N segments."""
    if run.series is None:
        raise PlotError(f"cwnd needs time series, and '{run.label}' has none: run it with --trace FLOW")
    have = run.series_flows
    if not have:
        raise PlotError(f"'{run.label}' has no flow time series: run it with --trace FLOW")
    chosen = list(flows) if flows else have
    for f in chosen:
        if f not in have:
            raise PlotError(f"no flow named {f!r} with a time series in '{run.label}'; those with one are {_names(have)}")
    if band is not None and not (math.isfinite(band) and band > 0):
        raise PlotError(f"--band must be a number of segments > 0, got {band}")
    lo, hi = _window(start, end)
    stop = _run_end(run, hi)
    fig, ax = _figure()
    if band is not None:
        ax.axhspan(0, band, color="#bbbbbb", alpha=0.35, lw=0, label=f"small window (cwnd < {band:g} segments)")
    marked: set[str] = set()
    colours = _palette(len(chosen))
    for f, colour in zip(chosen, colours, strict=True):
        mss = run.mss(f)
        c = run.flow_series(f, "cwnd")
        c = c.assign(value=c["value"] / mss)
        xs, ys = _steps(c, lo, hi, stop)
        ax.step(xs, ys, where="post", color=colour, lw=1.2, label=f"{f} cwnd")
        s = run.flow_series(f, "ssthresh")
        if len(s):
            s = s.assign(value=s["value"] / mss)
            xs, ys = _steps(s, lo, hi, stop)
            ax.step(xs, ys, where="post", color=colour, lw=1.0, ls="--", label=f"{f} ssthresh")
        for ev, label, marker, ec in (("fast_retransmit", "fast retransmit", "^", _C_FR), ("timeout", "timeout", "v", _C_TO)):
            times = list(_clip(run.flow_series(f, ev), lo, hi)["time_s"])
            if times:
                ax.plot(times, _value_at(c, times), ls="", marker=marker, ms=8, mfc="none", mew=1.5, color=ec,
                        label=label if label not in marked else "_nolegend_")
                marked.add(label)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("segments")
    return _finish(fig, ax, f"congestion window · {run.label}")


def _palette(n: int) -> list[Any]:
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    return [cmap(i % 10) for i in range(n)]


# --- queue ----------------------------------------------------------------------------


def queue(run: Run, link: str | None = None, start: float | None = None, end: float | None = None) -> Figure:
    """Queue length (packets waiting) of one link direction against time,
    with the queue's drops, the link's error losses and ECN marks marked."""
    if run.series is None:
        raise PlotError(f"queue needs time series, and '{run.label}' has none: run it with --trace LINK")
    have = run.series_links
    if not have:
        raise PlotError(f"'{run.label}' has no link time series: run it with --trace LINK")
    if link is None:
        entity = next((e for e in have if e.endswith(":fwd")), have[0])
    else:
        entity = link if link.endswith((":fwd", ":rev")) else f"{link}:fwd"
        if entity not in have:
            raise PlotError(f"no link direction {entity!r} with a time series in '{run.label}'; those with one are {_names(have)}")
    lo, hi = _window(start, end)
    stop = _run_end(run, hi)
    q = run.flow_series(entity, "queue")
    fig, ax = _figure()
    xs, ys = _steps(q, lo, hi, stop)
    ax.step(xs, ys, where="post", color=_C_SEND, lw=1.0, label="queue")
    for var, label, marker, colour in (
        ("drops_queue", "queue drop", "x", _C_QDROP),
        ("drops_error", "error loss", "x", _C_ERR),
        ("marks", "ECN mark", "o", _C_FR),
    ):
        d = run.flow_series(entity, var)
        grew = d[d["value"].diff().fillna(d["value"]) > 0]
        times = list(_clip(grew, lo, hi)["time_s"])
        if times:
            ax.plot(times, _value_at(q, times), ls="", marker=marker, ms=6, mfc="none" if marker == "o" else None,
                    color=colour, label=label)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets queued")
    return _finish(fig, ax, f"queue of {entity} · {run.label}")


# --- bars and ndup over replications -------------------------------------------------


def _flow_tables(results: Sequence[Run | Sweep]) -> pd.DataFrame:
    """Every flow row of ``results`` with a ``_run`` column naming the run it belongs to."""
    import pandas as pd

    parts = []
    for i, r in enumerate(results):
        if isinstance(r, Run):
            parts.append(r.flows.assign(_run=f"{i}"))
        else:
            f = r.result.flows
            extra = [p for p in r.result.grid if p not in f.columns]
            if extra:
                f = f.merge(r.result.runs[["job", *extra]], on="job", how="left")
            parts.append(f.assign(_run=[f"{i}/{j}" for j in f["job"]]))
    if not parts:
        raise PlotError("no results given")
    return pd.concat(parts, ignore_index=True)


def _numeric_columns(df: pd.DataFrame) -> list[str]:
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    skip = {"job", "seed"}
    return [c for c in df.columns if c not in skip and not c.startswith("_") and is_numeric_dtype(df[c]) and not is_bool_dtype(df[c])]


def bars(results: Sequence[Run | Sweep], metric: str = "goodput_kbps", by: str = "flow") -> Figure:
    """``metric`` (a numeric column of the flows table) per flow or per
    variant (``by``; for a sweep, also a grid path) over the runs given: a
    bar at the mean over runs, whiskers from the smallest to the largest
    run, and the mean's 95 % Student-t interval. A run's value is the mean
    over its flows in the group."""
    from dupack.stats import estimate

    flows = _flow_tables(results)
    if not len(flows):
        raise PlotError("the results hold no flows")
    numeric = _numeric_columns(flows)
    if metric not in numeric:
        raise PlotError(f"unknown metric {metric!r}; the numeric flow columns are {_names(numeric, 12)}")
    if by not in flows.columns or by.startswith("_") or by in ("job", "seed"):
        grid = [p for r in results if isinstance(r, Sweep) for p in r.result.grid]
        raise PlotError(f"cannot group by {by!r}: give flow, variant" + (f" or a grid path ({_names(grid)})" if grid else ""))
    per_run = flows.assign(_v=flows[metric].astype("float64")).groupby([by, "_run"], sort=False, dropna=False)["_v"].mean()
    groups = list(dict.fromkeys(per_run.index.get_level_values(0)))
    fig, ax = _figure()
    means, lows, highs, halves, ns = [], [], [], [], []
    for g in groups:
        vals = [v for v in per_run.loc[g].tolist() if v == v]
        e = estimate(vals)
        means.append(e.mean)
        lows.append(min(vals) if vals else math.nan)
        highs.append(max(vals) if vals else math.nan)
        halves.append(e.half)
        ns.append(e.n)
    x = list(range(len(groups)))
    ax.bar(x, means, 0.6, color="#9ecae1", edgecolor=_C_SEND, label="mean over runs")
    ax.errorbar(x, means, yerr=[[m - lo for m, lo in zip(means, lows)], [h - m for m, h in zip(means, highs)]],
                fmt="none", ecolor="#555555", elinewidth=0.8, capsize=8, label="min–max")
    if any(h == h for h in halves):
        ax.errorbar(x, means, yerr=[0.0 if h != h else h for h in halves], fmt="none", ecolor="black", elinewidth=2.2,
                    capsize=4, label="95 % CI of the mean")
    for xi, hi, n in zip(x, highs, ns):
        if hi == hi:
            ax.annotate(f"n={n}", (xi, hi), textcoords="offset points", xytext=(0, 3), ha="center", fontsize=7)
    ax.set_xticks(x, [tick_label(g) for g in groups], rotation=30 if len(groups) > 6 else 0)
    ax.set_xlabel(by)
    ax.set_ylabel(metric)
    ax.set_ylim(bottom=min(0.0, *[lo for lo in lows if lo == lo] or [0.0]))
    return _finish(fig, ax, f"{metric} per {by} · {_label(results)}")


def tick_label(v: Any) -> str:
    """An axis value as a tick says it: 0.001, 30, "reno"."""
    return f"{v:g}" if isinstance(v, float) else str(v)


#: Above this many values a logarithmic axis is ticked by matplotlib's own locator.
_LOG_TICKS = 8


def log_x_axis(ax: Axes, values: Sequence[float]) -> None:
    """A logarithmic x axis labelled with numbers as they are written
    (0.001, 0.03), ticked at ``values`` (the points measured) when there are
    few of them. matplotlib's own log labels are typeset as mathtext, whose
    parsing alone was a tenth of the time of drawing the unfairness
    reproduction's figures (most of them on log axes); no label here is
    mathtext."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_xscale("log")
    ticks = sorted(set(values))
    if len(ticks) <= _LOG_TICKS:
        ax.set_xticks(ticks, [tick_label(float(v)) for v in ticks])
    else:
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: tick_label(float(v))))
    # The minor ticks stay, unlabelled.
    ax.xaxis.set_minor_formatter(NullFormatter())


def _label(results: Sequence[Run | Sweep]) -> str:
    names = [r.label for r in results]
    return names[0] if len(names) == 1 else f"{len(names)} results"


def ndup(results: Sequence[Run | Sweep]) -> Figure:
    """Timeouts by N_dup, the duplicate ACKs received before them (0, 1, 2,
    3 or more), per variant: the mean per run, summed over the run's flows
    of the variant, with the mean's 95 % interval over the runs."""
    from dupack.result import NDUP_COLUMNS
    from dupack.stats import estimate

    flows = _flow_tables(results)
    if not len(flows):
        raise PlotError("the results hold no flows")
    per_run = flows.groupby(["variant", "_run"], sort=False)[list(NDUP_COLUMNS)].sum()
    variants = list(dict.fromkeys(per_run.index.get_level_values(0)))
    fig, ax = _figure()
    width = 0.8 / len(variants)
    for k, (v, colour) in enumerate(zip(variants, _palette(len(variants)), strict=True)):
        rows = per_run.loc[v]
        ests = [estimate(rows[c].astype("float64").tolist()) for c in NDUP_COLUMNS]
        pos = [i + (k - (len(variants) - 1) / 2) * width for i in range(len(NDUP_COLUMNS))]
        halves = [0.0 if e.half != e.half else e.half for e in ests]
        ax.bar(pos, [e.mean for e in ests], width, color=colour, label=f"{v} (n={ests[0].n} runs)")
        if any(halves):
            ax.errorbar(pos, [e.mean for e in ests], yerr=halves, fmt="none", ecolor="black", capsize=3)
    ax.set_xticks(range(len(NDUP_COLUMNS)), ["0", "1", "2", "≥3"])
    ax.set_ylim(bottom=0)
    ax.set_xlabel("N_dup: duplicate ACKs received before the timeout")
    ax.set_ylabel("timeouts per run")
    return _finish(fig, ax, f"timeouts by N_dup · {_label(results)}")


# --- sweep ----------------------------------------------------------------------------


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def sweep(results: Sequence[Run | Sweep], x: str | None = None, y: str = "goodput_kbps", log_x: bool = False) -> Figure:
    """A metric of :data:`dupack.sweep_stats.RUN_METRICS` against one swept path,
    one curve per value of the other swept paths (and per variant, when a
    run's flows differ in variant): the mean over seeds, and a band for
    its 95 % interval."""
    from dupack.sweep_stats import RUN_METRICS

    if len(results) != 1 or not isinstance(results[0], Sweep):
        raise PlotError(f"sweep needs {KINDS['sweep']}, got "
                        + ("runs" if any(isinstance(r, Run) for r in results) else f"{len(results)} results"))
    sw = results[0]
    grid = sw.result.grid
    if not grid:
        raise PlotError(f"'{sw.label}' varies nothing (a sweep without --vary): there is no axis to plot against")
    if x is None:
        numeric = [p for p, vs in grid.items() if all(_is_number(v) for v in vs)]
        if len(grid) == 1:
            x = next(iter(grid))
        elif len(numeric) == 1:
            x = numeric[0]
        else:
            raise PlotError(f"which swept path goes on the x axis? give --x, one of {_names(list(grid))}")
    if x not in grid:
        raise PlotError(f"{x!r} is not swept in '{sw.label}'; the swept paths are {_names(list(grid))}")
    if y not in RUN_METRICS:
        raise PlotError(f"unknown metric {y!r} for a sweep; one of {_names(list(RUN_METRICS), 12)}")
    numeric_x = all(_is_number(v) for v in grid[x])
    if log_x and not (numeric_x and all(v > 0 for v in grid[x])):
        raise PlotError(f"--log-x needs positive numbers on the x axis; {x} takes {_names([tick_label(v) for v in grid[x]])}")
    summary = sw.result.summary()
    if not len(summary):
        raise PlotError(f"'{sw.label}' holds no runs yet")
    keys = [p for p in grid if p != x] + (["variant"] if "variant" in summary.columns else [])
    groups = summary.groupby(keys, sort=False, dropna=False) if keys else [((), summary)]
    fig, ax = _figure()
    order = {v: i for i, v in enumerate(grid[x])}
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        g = g.assign(_o=g[x].map(lambda v: order.get(v, len(order)))).sort_values("_o")
        xs = list(g[x]) if numeric_x else list(g["_o"])
        mean = g[f"{y}_mean"].to_numpy(dtype=float)
        half = g[f"{y}_ci95"].fillna(0.0).to_numpy(dtype=float)
        label = ", ".join(tick_label(v) if len(keys) == 1 else f"{k}={tick_label(v)}" for k, v in zip(keys, key)) or y
        (line,) = ax.plot(xs, mean, marker="o", ms=4, label=label)
        if half.any():
            ax.fill_between(xs, mean - half, mean + half, color=line.get_color(), alpha=0.2, lw=0)
    if not numeric_x:
        ax.set_xticks(range(len(grid[x])), [tick_label(v) for v in grid[x]])
    if log_x:
        log_x_axis(ax, grid[x])
    ax.set_xlabel(x)
    ax.set_ylabel(f"{y} ({RUN_METRICS[y][0]} over a run's flows)")
    return _finish(fig, ax, f"{y} against {x} (mean and 95 % CI over seeds) · {sw.label}")
