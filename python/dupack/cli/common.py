"""What the commands share: the scenario-file argument, the ``-s``,
``--trace`` and ``--trace-all`` options, and the checks behind them.

The option types are built by :func:`typer_names` only when a command is
registered with typer: ``dupack run`` and ``dupack validate`` start without
importing typer (dupack.cli.app's fast path), and their annotations are
strings resolved in the globals of the module that defines the command.
"""

from __future__ import annotations

from dupack._paths import path_text
from dupack.cli.app import CliError

# typing for type checkers only (why: dupack/__init__.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike
    from pathlib import Path
    from typing import Annotated, Any, Optional

    from dupack.scenario import Scenario


def typer_names(trace_saved: str) -> dict[str, Any]:
    """``typer`` and the shared parameter types, for a module's globals:
    ``ScenarioFile``, ``Overrides``, ``TraceNames``, ``TraceAll`` and ``SeriesVars``.
    ``trace_saved`` ends the help of ``--trace``: where the command keeps
    what it records."""
    from pathlib import Path
    from typing import Annotated, Any, Optional

    import typer

    scenario_file = Annotated[
        Path,
        typer.Argument(
            metavar="FILE.toml",
            help="Scenario file (TOML). Its format: docs/scenario.md in the source distribution or repository.",
            show_default=False,
        ),
    ]
    overrides = Annotated[
        Optional[list[str]],  # noqa: UP045 - typer reads the annotation at run time
        typer.Option(
            "--set",
            "-s",
            metavar="PATH=VALUE",
            help="Change one scenario value before running, e.g. -s run.duration=10s "
            "or -s flows[0].variant=newreno. VALUE is read as TOML (10, true, \"x\") or else "
            "taken as text. Repeatable; applied in order.",
            show_default=False,
        ),
    ]
    trace_names = Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Option(
            "--trace",
            "-t",
            metavar="NAMES",
            help="Record the time series (cwnd, ssthresh, flight, RTT, RTO, state, events; a link's queue, "
            "drops and marks) of these flows and links, and the packet trace of these flows: "
            f"comma-separated names, flow:NAME or link:NAME where a name is both. {trace_saved} Repeatable.",
            show_default=False,
        ),
    ]
    trace_all = Annotated[bool, typer.Option("--trace-all", help="--trace every flow and link.")]
    series_vars = Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Option(
            "--series-vars",
            metavar="NAMES",
            help="Of the time series --trace records, keep only these variables (comma-separated, e.g. "
            "cwnd,ssthresh,queue; default all: docs/results.md lists them). Repeatable.",
            show_default=False,
        ),
    ]
    return {
        "typer": typer,
        # What else the commands' annotations may name, resolved by typer in the same globals.
        "Annotated": Annotated,
        "Any": Any,
        "Optional": Optional,
        "ScenarioFile": scenario_file,
        "Overrides": overrides,
        "TraceNames": trace_names,
        "TraceAll": trace_all,
        "SeriesVars": series_vars,
    }


def load_scenario(file: str | PathLike[str], overrides: list[str] | None) -> Scenario:
    """Read the file and apply overrides; errors become one-line CliErrors."""
    from dupack._core import ScenarioError
    from dupack.scenario import OverrideError, load, shorten

    try:
        scenario = load(file)
    except IsADirectoryError:
        raise CliError(f"cannot read scenario file '{file}': it is a directory") from None
    except OSError as e:
        raise CliError(f"cannot read scenario file '{file}': {e.strerror or e}") from None
    except ScenarioError as e:  # TOML syntax errors already name the file
        raise CliError(str(e) if e.path == str(file) else f"{file}: {e}") from None
    try:
        return scenario.with_overrides(overrides)
    except OverrideError as e:
        raise CliError(f"bad override -s '{shorten(e.override)}': {e.reason}") from None
    except ScenarioError as e:  # e.g. a value JSON cannot carry
        raise CliError(f"bad override: {e}") from None


def validation_error(file: str | PathLike[str], e: Exception) -> CliError:
    return CliError(f"{file}: {e}")


def parse_out(text: str | None) -> str | None:
    """--out as a directory (its text as ``str(Path(text))``). Path("") is
    ".", so an empty value (say, from an unset shell variable) would quietly
    write into the current directory."""
    if text is None:
        return None
    if not text.strip():
        raise CliError(f"--out needs a directory, got an empty path {text!r}")
    return path_text(text)


def parse_trace(items: list[str] | None, every: bool, scenario: Scenario) -> tuple[list[str] | None, list[str] | None]:
    """--trace / --trace-all → (series names for the core, flows whose packet trace is kept)."""
    from dupack import _core
    from dupack._core import ScenarioError
    from dupack.scenario import shorten

    if not every and not items:
        return None, None
    try:
        flows, links = _core.entities(scenario.canonical_json())
    except ScenarioError:
        return None, None  # the run reports the scenario's error
    if every:
        return ["*"], list(flows)
    names = [n.strip() for item in items or [] for n in item.split(",")]
    if any(not n for n in names):
        raise CliError(f"--trace needs comma-separated flow or link names, got {','.join(items or [])!r}")
    series, traced = [], []
    for n in names:
        kind, _, bare = n.partition(":") if n.startswith(("flow:", "link:")) else ("", "", n)
        is_flow, is_link = bare in flows and kind != "link", bare in links and kind != "flow"
        if is_flow and is_link:
            raise CliError(f"--trace: {bare!r} is both a flow and a link; say flow:{bare} or link:{bare}")
        if not (is_flow or is_link):
            what = {"flow": "flow", "link": "link"}.get(kind, "flow or link")
            raise CliError(
                f"--trace: no {what} named {shorten(bare)!r}; the flows are {listing(flows)}, the links {listing(links)}"
            )
        series.append(f"flow:{bare}" if is_flow else f"link:{bare}")
        if is_flow:
            traced.append(bare)
    return series, (traced or None)


def parse_series_vars(items: list[str] | None, series: list[str] | None) -> list[str] | None:
    """--series-vars → the variable names for the core (which checks them), only with --trace or --trace-all."""
    if not items:
        return None
    names = [n.strip() for item in items for n in item.split(",")]
    if any(not n for n in names):
        raise CliError(f"--series-vars needs comma-separated variable names, got {','.join(items)!r}")
    if series is None:
        raise CliError("--series-vars chooses among the variables of the time series: name the flows and links "
                       "to record with --trace (or --trace-all)")
    return names


def listing(names: list[str], most: int = 12) -> str:
    shown = ", ".join(names[:most])
    return shown + (f", … ({len(names)} in all)" if len(names) > most else "")


def num(v: object, fmt: str = "{}") -> str:
    """A figure for a summary table: ``-`` for None and NaN."""
    if v is None:
        return "-"
    try:
        if v != v:  # NaN
            return "-"
    except TypeError:
        pass
    return fmt.format(v)


class Count:
    """The progress of a command that runs many simulations, shown
    nowhere: the number of runs stored so far, which its error messages
    give. :class:`dupack.cli.progress.Progress` adds the bar; a command
    under -q uses this and does not load that module."""

    def __init__(self) -> None:
        #: Runs stored so far (this call's and earlier calls' of a resumed sweep).
        self.done = 0

    def __enter__(self) -> Count:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def advance(self, n: int, total: int) -> None:
        """``n`` more runs finished of ``total``."""
        self.update(self.done + n, total)

    def update(self, done: int, total: int) -> None:
        self.done = done
