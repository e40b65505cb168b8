"""``dupack plot``: one figure from stored runs or sweeps."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from dupack.cli.app import CliError, DupackCommand


class ResultsCommand(DupackCommand):
    """The usage line names the result directories as RESULTS... (typer
    writes {RESULTS}... for an argument taking several values)."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [p.replace("{RESULTS}", "RESULTS") for p in super().collect_usage_pieces(ctx)]

_KIND_HELP = (
    "tsg (time-sequence graph of a traced flow), cwnd (cwnd and ssthresh), queue (a link's queue), "
    "bars (a metric per flow or variant over runs), ndup (timeouts by N_dup), sweep (a metric against a swept path)."
)

#: Option → the kinds it applies to.
_APPLIES = {
    "--flow": ("tsg", "cwnd"),
    "--from": ("tsg", "cwnd", "queue"),
    "--to": ("tsg", "cwnd", "queue"),
    "--band": ("cwnd",),
    "--link": ("queue",),
    "--metric": ("bars",),
    "--by": ("bars",),
    "--x": ("sweep",),
    "--y": ("sweep",),
    "--log-x": ("sweep",),
}


def register(app: typer.Typer) -> None:
    app.command("plot", cls=ResultsCommand, no_args_is_help=True)(plot_cmd)


def _seconds(name: str, text: str | None) -> float | None:
    if text is None:
        return None
    t = text.strip().removesuffix("s").strip()
    try:
        v = float(t)
    except ValueError:
        raise CliError(f"{name} must be a time in seconds, e.g. 2.5, got {text!r}") from None
    if not math.isfinite(v) or v < 0:
        raise CliError(f"{name} must be a time in seconds >= 0, got {text!r}")
    return v


def plot_cmd(
    kind: Annotated[str, typer.Argument(metavar="KIND", help=_KIND_HELP, show_default=False)],
    results: Annotated[
        list[Path],
        typer.Argument(
            metavar="RESULTS",
            help="Result directories: written by 'dupack run' (tsg, cwnd and queue need one, run with --trace), "
            "or by 'dupack sweep' (bars, ndup, sweep).",
            show_default=False,
        ),
    ],
    out_text: Annotated[
        Optional[str],  # noqa: UP045 - typer reads the annotation at run time
        typer.Option("--out", "-o", metavar="FILE", help="Image to write, PNG or SVG by its extension.  [default: KIND.png]",
                     show_default=False),
    ] = None,
    flow: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--flow", metavar="NAMES", help="tsg: the flow (default: the first traced one); cwnd: comma-separated "
                     "flows (default: every flow with a series).", show_default=False),
    ] = None,
    start_text: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--from", metavar="SECONDS", help="tsg, cwnd, queue: start of the time window.", show_default=False),
    ] = None,
    end_text: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--to", metavar="SECONDS", help="tsg, cwnd, queue: end of the time window.", show_default=False),
    ] = None,
    band: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option("--band", metavar="N", help="cwnd: shade the small-window region cwnd < N segments (e.g. 4).",
                     show_default=False),
    ] = None,
    link: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--link", metavar="LINK[:DIR]", help="queue: the link and direction (fwd, the default, or rev).",
                     show_default=False),
    ] = None,
    metric: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--metric", metavar="COLUMN", help="bars: a numeric column of the flows table.  [default: goodput_kbps]",
                     show_default=False),
    ] = None,
    by: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--by", metavar="KEY", help="bars: flow, variant or (sweeps) a swept path.  "
                     "[default: flow for runs, variant for a sweep]", show_default=False),
    ] = None,
    x: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--x", metavar="PATH", help="sweep: the swept path on the x axis (default: the only numeric one).",
                     show_default=False),
    ] = None,
    y: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--y", metavar="METRIC", help="sweep: goodput_kbps (default), timeouts, fast_retransmits, "
                     "retransmitted_segments, ndup_0..ndup_3plus or jain.", show_default=False),
    ] = None,
    log_x: Annotated[bool, typer.Option("--log-x", help="sweep: a logarithmic x axis.")] = False,
) -> None:
    """Draw one figure from stored results and write it as PNG or SVG.

    Examples: dupack run scenarios/quickstart.toml --trace f3,bottleneck -o out/qs;
    dupack plot tsg out/qs --flow f3 -o tsg.svg; dupack plot cwnd out/qs --band 4;
    dupack plot sweep out/sweep --x topology.bottleneck.rate --y timeouts
    """
    from dupack.plot import KINDS, PlotError, load, plot, save
    from dupack.plot.load import Sweep

    if kind not in KINDS:
        raise CliError(f"unknown plot kind {kind!r}; one of {', '.join(KINDS)}")
    given = {
        "--flow": flow, "--from": start_text, "--to": end_text, "--band": band, "--link": link,
        "--metric": metric, "--by": by, "--x": x, "--y": y, "--log-x": log_x or None,
    }
    for name, value in given.items():
        if value is not None and kind not in _APPLIES[name]:
            raise CliError(f"{name} does not apply to {kind} plots (only to {', '.join(_APPLIES[name])})")
    out = Path(out_text) if out_text is not None else Path(f"{kind}.png")
    if out_text is not None and not out_text.strip():
        raise CliError("--out needs a file name, got an empty one")
    if out.suffix.lower() not in (".png", ".svg"):
        raise CliError(f"--out must name a .png or .svg file, got {out_text!r}")
    try:
        loaded = [load(r) for r in results]
        options: dict[str, Any] = {}
        if kind in ("tsg", "cwnd", "queue"):
            options.update(start=_seconds("--from", start_text), end=_seconds("--to", end_text))
        if kind == "tsg":
            options["flow"] = flow
        elif kind == "cwnd":
            options.update(flows=[f.strip() for f in flow.split(",")] if flow else None, band=band)
        elif kind == "queue":
            options["link"] = link
        elif kind == "bars":
            default_by = "variant" if any(isinstance(r, Sweep) for r in loaded) else "flow"
            options.update(metric=metric or "goodput_kbps", by=by or default_by)
        elif kind == "sweep":
            options.update(x=x, y=y or "goodput_kbps", log_x=log_x)
        fig = plot(kind, loaded, **options)
    except PlotError as e:
        raise CliError(str(e)) from None
    try:
        save(fig, out)
    except OSError as e:
        raise CliError(f"cannot write '{out}': {e.strerror or e}") from None
    typer.echo(f"wrote {out}")
