"""``dupack run`` and ``dupack validate``."""

from __future__ import annotations

import sys

from dupack._paths import path_join, path_name, path_stem, path_text
from dupack.cli.app import EXIT_INTERRUPTED, EXIT_PARTIAL, EXIT_RUN, CliError, CliExit
from dupack.cli.common import load_scenario, num, parse_out, parse_series_vars, parse_trace, typer_names
from dupack.cli.common import validation_error

# typing for type checkers only (why: dupack/__init__.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike
    from pathlib import Path
    from typing import Annotated, Any, Optional

    import typer

    from dupack.result import RunResult
    from dupack.scenario import Scenario

    # What the annotations of _typer_names come down to.
    ScenarioFile = Path
    Overrides = Optional[list[str]]  # noqa: UP045
    TraceNames = Optional[list[str]]  # noqa: UP045
    TraceAll = bool
    SeriesVars = Optional[list[str]]  # noqa: UP045


def _typer_names() -> None:
    """typer and the parameter types of ``run`` and ``validate``, as module
    globals. The commands' annotations are strings (the __future__ import)
    that typer resolves in these globals when :func:`register` hands the
    commands over; until then this module does without typer, so that
    ``dupack run`` and ``dupack validate`` can start without importing it
    (dupack.cli.app's main)."""
    globals().update(typer_names("Saved as series.parquet and trace.parquet."))


def _echo(message: str, err: bool = False) -> None:
    from typer import echo

    echo(message, err=err)


def _is_integer(text: str) -> bool:
    """``-?[0-9]+`` (only ASCII digits; ``int()`` would take ``"١"`` and ``"1_0"``),
    without importing ``re`` on the way of every `dupack run`."""
    digits = text[1:] if text.startswith("-") else text
    return digits.isascii() and digits.isdigit()


def _parse_seed(text: str | None) -> int | None:
    """--seed is taken as text so that the message can quote what was given;
    the check itself is the library's (:func:`dupack.api.check_seed`)."""
    from dupack.api import SEED_RANGE, check_seed

    if text is None:
        return None
    digits = text.strip()
    try:
        return check_seed(int(digits) if _is_integer(digits) else text)
    except (TypeError, ValueError):
        raise CliError(f"--seed must be {SEED_RANGE}, got {text!r}") from None


#: `dupack run` warns before a run estimated to take longer than this (seconds).
WARN_ESTIMATE_S = 600.0
#: The progress line appears once a run has taken this long (wall-clock seconds).
PROGRESS_AFTER_S = 1.0

_WALL_UNITS = {"": 1.0, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}


def _parse_max_wall(text: str | None) -> float | None:
    """--max-wall SECONDS: a positive number of seconds, or one with a unit (s, min, h, d)."""
    if text is None:
        return None
    import re

    m = re.fullmatch(r"\s*((?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)\s*(s|min|h|d)?\s*", text)
    seconds = float(m.group(1)) * _WALL_UNITS[m.group(2) or ""] if m else 0.0
    if not 0 < seconds < float("inf"):
        from dupack.scenario import shorten

        raise CliError(
            f"--max-wall must be a positive number of seconds, or a duration such as 90s, 10min or 2h; got {shorten(text)!r}"
        )
    return seconds


class _Watch:
    """What `dupack run` says about a run while it goes: a warning before
    one estimated to be long, and a progress line once it has taken
    PROGRESS_AFTER_S. The display is imported only then, so short runs
    import nothing for it."""

    def __init__(self, warn: bool) -> None:
        self.warn = warn
        self.display: Any = None

    def estimated(self, wall_s: float, events: float, packets: float) -> None:
        if not self.warn or wall_s <= WARN_ESTIMATE_S:
            return
        from dupack.cli.progress import human_seconds

        sys.stderr.write(
            f"warning: this run may take about {human_seconds(wall_s)} of wall-clock time (an estimated {events:.2g}"
            " events); limit it with --max-wall SECONDS, or shorten it with -s run.duration=...\n"
        )
        sys.stderr.flush()

    def tick(self, sim_s: float, duration_s: float, events: int, wall_s: float) -> None:
        if wall_s < PROGRESS_AFTER_S:
            return
        if self.display is None:
            from dupack.cli.progress import RunProgress

            self.display = RunProgress()
        self.display.update(sim_s, duration_s, events, wall_s)

    def close(self) -> None:
        if self.display is not None:
            self.display.close()


def run_cmd(
    file: ScenarioFile,
    seed_text: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--seed",
            metavar="N",
            help="Random seed (0 to 2^64-1). Default: the scenario's run.seed.",
            show_default=False,
        ),
    ] = None,
    overrides: Overrides = None,
    out_text: Annotated[
        Optional[str],  # noqa: UP045 - text, so that an empty --out is not read as "."
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Directory for result files. Default: dupack-out/<file stem>-seed<N>/, "
            "or dupack-out/<file stem>-<scenario hash>-seed<N>/ with -s overrides.",
            show_default=False,
        ),
    ] = None,
    json_out: Annotated[
        bool,
        typer.Option("--json", help="Print the whole result as JSON on stdout, and nothing else there."),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="Print no summary; only errors."),
    ] = False,
    trace_text: TraceNames = None,
    trace_all: TraceAll = False,
    series_vars: SeriesVars = None,
    pcap_specs: Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Option(
            "--pcap",
            metavar="LINK[:DIR]",
            help="Capture the packets of a link (DIR fwd, rev or both, the default) as seen from its first "
            "node, into LINK.pcapng (LINK-DIR.pcapng) beside the results; Wireshark opens it. Repeatable.",
            show_default=False,
        ),
    ] = None,
    max_wall_text: Annotated[
        Optional[str],  # noqa: UP045 - text, so that the message can quote what was given
        typer.Option(
            "--max-wall",
            metavar="SECONDS",
            help="Stop the run after this much wall-clock time (e.g. 600, 90s, 10min, 2h) at the simulated "
            "time reached, and save its results so far marked partial (\"partial\": true in result.json); "
            "the exit code is then 4.",
            show_default=False,
        ),
    ] = None,
    progress: Annotated[
        bool,
        typer.Option(
            "--progress",
            help="Show the progress line (simulated time, events per second, time left) even when stderr is "
            "not a terminal; on a terminal it appears by itself once a run takes over a second, unless -q.",
        ),
    ] = False,
) -> None:
    """Run one scenario: print a per-flow summary and save the results.

    Saved files: result.json, each table as Parquet and CSV (flows.parquet
    and flows.csv, links.parquet and links.csv, media.parquet and media.csv
    with a shared medium) and scenario.json (the scenario after overrides,
    with its hash).

    Before a run estimated to take over 10 minutes it warns (see 'dupack
    validate' for the estimate). A run stopped by --max-wall or Ctrl-C
    saves what it simulated so far, marked partial.
    """
    run_command(
        file, seed_text, overrides, out_text, json_out, quiet, trace_text, trace_all, pcap_specs, max_wall_text, progress,
        series_vars,
    )


def run_command(
    file: str | PathLike[str],
    seed_text: str | None = None,
    overrides: list[str] | None = None,
    out_text: str | None = None,
    json_out: bool = False,
    quiet: bool = False,
    trace_text: list[str] | None = None,
    trace_all: bool = False,
    pcap_specs: list[str] | None = None,
    max_wall_text: str | None = None,
    progress: bool = False,
    series_vars: list[str] | None = None,
) -> None:
    """``dupack run``, its options as keyword arguments (see :func:`run_cmd`)."""
    from dupack._core import RunError, ScenarioError
    from dupack.api import check_pcap, run_checked

    file = path_text(file)  # as str(Path(file)), without pathlib (dupack._paths)
    seed = _parse_seed(seed_text)
    out = parse_out(out_text)
    max_wall = _parse_max_wall(max_wall_text)
    scenario = load_scenario(file, overrides)
    series, flows_traced = parse_trace(trace_text, trace_all, scenario)
    variables = parse_series_vars(series_vars, series)
    captures = _parse_pcaps(pcap_specs)
    # Captures are written while the run goes, into a scratch folder that
    # the result directory (named after the seed) takes over afterwards.
    # (shutil and tempfile are imported only for captures: shutil alone loads three compression libraries.)
    scratch = None
    if captures:
        import tempfile

        scratch = path_text(tempfile.mkdtemp(prefix="dupack-pcap-"))
    pcap = {spec: path_join(scratch, name) for spec, name in captures.items()} if scratch else None
    # Nothing to warn about with -q or a --max-wall already given.
    watch = _Watch(warn=not quiet and max_wall is None)
    show_progress = progress or (not quiet and sys.stderr.isatty())
    pcap_list = check_pcap(pcap)
    try:
        try:
            result = run_checked(
                scenario,
                seed,
                flows_traced,
                series,
                None,
                pcap_list,
                max_wall=max_wall,
                progress=watch.tick if show_progress else None,
                partial_on_interrupt=True,
                estimated=watch.estimated,
                series_variables=variables,
            )
        except ScenarioError as e:
            if e.path == "pcap":
                raise CliError(f"--pcap: {e.message}") from None
            if e.path == "series_variables":
                raise CliError(f"--series-vars: {e.message}") from None
            raise validation_error(file, e) from None
        except RunError as e:
            raise CliError(f"the simulation of '{file}' failed: {e}", EXIT_RUN) from None
        except OSError as e:
            if not captures or isinstance(e, BrokenPipeError):
                raise
            raise CliError(f"--pcap: {e}") from None
        finally:
            watch.close()

        # With -s overrides the scenario is not the file's: keep its results apart
        # (by the scenario's hash) instead of overwriting the plain run's.
        tag = f"-{scenario.hash()[:8]}" if overrides else ""
        directory = out if out is not None else path_join("dupack-out", f"{path_stem(file)}{tag}-seed{result.seed}")
        try:
            result._save(directory)
            if captures:
                import shutil

                for name in captures.values():
                    shutil.move(path_join(scratch, name), path_join(directory, name))  # type: ignore[arg-type]
        except OSError as e:
            raise CliError(f"cannot write results to '{directory}': {e.strerror or e}") from None
    finally:
        if scratch is not None:
            import shutil

            shutil.rmtree(scratch, ignore_errors=True)
    failed = [c for c in result._doc.get("pcap", []) if c.get("error")]
    if failed:
        raise CliError(f"the capture {path_name(path_text(failed[0]['path']))} is incomplete: {failed[0]['error']}", EXIT_RUN)
    if result.run.get("end_reason") == "interrupted":
        # Ctrl-C: what was simulated is saved, and the command ends as an interrupted one does.
        raise CliError(f"aborted {_reached(result)}; the partial results are saved in {directory}/", EXIT_INTERRUPTED)

    if json_out:
        sys.stdout.write(result.to_json() + "\n")
        sys.stdout.flush()
        if not quiet:
            _echo(f"results saved to {directory}/", err=True)
    elif not quiet:
        _print_summary(result, file, directory)
        _echo(f"results saved to {directory}/")
    if result.partial:
        sys.stdout.flush()
        sys.stderr.write(
            f"warning: partial result: --max-wall {_seconds(max_wall)} reached {_reached(result)}; "
            f"the results so far are saved in {directory}/ marked \"partial\": true\n"
        )
        sys.stderr.flush()
        raise CliExit(EXIT_PARTIAL)


def _seconds(s: float | None) -> str:
    return "-" if s is None else f"{s:g} s"


def _reached(result: RunResult) -> str:
    """``at 12.345 s of 30 s simulated`` for a run stopped early."""
    sim, duration = result.run.get("sim_time_s"), result._doc.get("duration_s")
    of = f" of {duration:,.6g} s" if isinstance(duration, int | float) else ""
    return f"at {num(sim, '{:,.3f}')} s{of} simulated"


def _parse_pcaps(specs: list[str] | None) -> dict[str, str]:
    """--pcap LINK[:DIR] → {spec: file name}."""
    from dupack.api import parse_pcap_spec

    out: dict[str, str] = {}
    for spec in specs or []:
        link, direction = parse_pcap_spec(spec.strip())
        if not link or "/" in link or link in (".", ".."):
            raise CliError(f"--pcap needs LINK or LINK:DIR (DIR fwd, rev or both), got {spec!r}")
        out[f"{link}:{direction}"] = f"{link}.pcapng" if direction == "both" else f"{link}-{direction}.pcapng"
    return out


def validate_cmd(file: ScenarioFile, overrides: Overrides = None) -> None:
    """Check a scenario (after overrides) without running it.

    Prints 'ok' and what running it would cost (an estimate on the high
    side), or the error."""
    validate_command(file, overrides)


def validate_command(file: str | PathLike[str], overrides: list[str] | None = None) -> None:
    """``dupack validate``, its options as keyword arguments."""
    from dupack import _core
    from dupack._core import ScenarioError
    from dupack.cli.progress import human_seconds

    file = path_text(file)
    scenario = load_scenario(file, overrides)
    try:
        scenario.validate()
        wall_s, events, packets = _core.estimate(scenario.canonical_json())
    except ScenarioError as e:
        raise validation_error(file, e) from None
    # As typer.echo writes it, without importing typer for it.
    when = human_seconds(wall_s)
    sys.stdout.write(
        f"ok\nestimate: {when if when.startswith('under') else 'about ' + when} of wall-clock time to run"
        f" ({events:.2g} events, {packets:.2g} data packets; estimated on the high side)\n"
    )
    sys.stdout.flush()


# --- summary -----------------------------------------------------------------


#: The flows the summary shows a row each. A larger run's summary shows the
#: first ones and a line about them all: a terminal of a thousand rows says
#: less than flows.csv, and laying them out took rich 0.4 ms a row (4 s for
#: 10,000 flows, longer than saving every result file).
SUMMARY_FLOWS = 50


def _print_summary(result: RunResult, file: str, directory: str) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    # Piped output (logs, CI) gets the full table instead of 80 columns.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    title = result.scenario_name or path_stem(file)
    table = Table(
        title=Text(f"{title} · seed {result.seed}"),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        # One space between columns (the box's own separator), no padding,
        # so the eleven columns fit in 80 characters.
        padding=0,
        show_edge=False,
    )
    for header, justify in (
        ("flow", "left"),
        ("variant", "left"),
        ("goodput\nkbit/s", "right"),
        ("delivered\nbytes", "right"),
        ("done\nat s", "right"),
        ("segs\nsent", "right"),
        ("retx\nsegs", "right"),
        ("fast\nretx", "right"),
        ("RTOs", "right"),
        ("N_dup\n0/1/2/3+", "right"),
        ("drops\nerr/q", "right"),
    ):
        numeric = justify == "right"
        table.add_column(
            header,
            justify=justify,  # type: ignore[arg-type]
            no_wrap=numeric,
            min_width=None if numeric else len(header),
            overflow="fold",
        )
    flows = result._doc.get("flows", [])
    for f in flows[:SUMMARY_FLOWS]:
        ndup = list(f.get("ndup_at_timeout") or [])
        table.add_row(
            Text(str(f.get("flow", ""))),
            Text(str(f.get("variant", ""))),
            num(f.get("goodput_kbps"), "{:.1f}"),
            num(f.get("bytes_delivered")),
            num(f.get("completion_time_s"), "{:.2f}"),
            num(f.get("segments_sent")),
            num(f.get("retransmitted_segments")),
            num(f.get("fast_retransmits")),
            num(f.get("timeouts")),
            "/".join(str(n) for n in ndup) or "-",
            f"{num(f.get('drops_error'))}/{num(f.get('drops_queue'))}",
        )
    console.print(table)
    if len(flows) > SUMMARY_FLOWS:
        console.print(Text(f"… and {len(flows) - SUMMARY_FLOWS:,} more flows; {path_join(directory, 'flows.csv')} "
                           "has a row for each"))
        console.print(Text(_all_flows(flows)))
    # One line per shared medium: how much of its traffic collided.
    media: dict[str, list[dict[str, Any]]] = {}
    for m in result._doc.get("media", []):
        media.setdefault(str(m.get("medium", "")), []).append(m)
    for name, rows in media.items():
        sent = sum(int(r.get("frames_sent") or 0) for r in rows)
        collided = sum(int(r.get("collisions") or 0) for r in rows)
        console.print(
            Text(
                f"medium {name}: {sent:,} frames sent, {collided:,} collided"
                f" ({num(rows[0].get('medium_collision_events'), '{:,}')} collisions)"
                f" · busy {num(rows[0].get('medium_busy'), '{:.0%}')}"
            )
        )
    info = result.run
    console.print(
        Text(
            f"{num(info.get('events'), '{:,}')} events · {num(info.get('sim_time_s'), '{:.3f}')} s simulated"
            f" ({info.get('end_reason', '?')}) · {num(info.get('wall_time_s'), '{:.3f}')} s wall time"
        )
    )
    if result.partial:
        console.print(
            Text(f"partial result: the run was stopped by the wall-clock limit {_reached(result)}; these figures cover that time only")
        )


def _all_flows(flows: list[dict[str, Any]]) -> str:
    """One line over every flow: goodput in all and Jain's index of it,
    retransmissions and timeouts in all."""
    from dupack.stats import jain

    def total(key: str) -> int:
        return sum(int(f.get(key) or 0) for f in flows)

    goodput = [float(f.get("goodput_kbps") or 0.0) for f in flows]
    return (
        f"all {len(flows):,} flows: {sum(goodput):,.1f} kbit/s goodput, Jain's index {num(jain(goodput), '{:.3f}')}"
        f" · {total('retransmitted_segments'):,} segments retransmitted, {total('fast_retransmits'):,} fast"
        f" retransmits, {total('timeouts'):,} RTOs"
    )


def register(app: typer.Typer) -> None:
    _typer_names()
    app.command("run", no_args_is_help=True)(run_cmd)
    app.command("validate", no_args_is_help=True)(validate_cmd)
