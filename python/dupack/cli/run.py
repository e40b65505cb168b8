"""``dupack run`` and ``dupack validate``."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from dupack.cli.app import EXIT_RUN, CliError

if TYPE_CHECKING:
    from dupack.result import RunResult
    from dupack.scenario import Scenario

ScenarioFile = Annotated[
    Path,
    typer.Argument(
        metavar="FILE.toml",
        help="Scenario file (TOML). Its format: docs/scenario.md in the source distribution or repository.",
        show_default=False,
    ),
]
Overrides = Annotated[
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


def _load(file: Path, overrides: list[str] | None) -> Scenario:
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


def _validation_error(file: Path, e: Exception) -> CliError:
    return CliError(f"{file}: {e}")


def _parse_seed(text: str | None) -> int | None:
    """--seed is taken as text so that the message can quote what was given;
    the check itself is the library's (:func:`dupack.api.check_seed`)."""
    from dupack.api import SEED_RANGE, check_seed

    if text is None:
        return None
    digits = text.strip()
    try:
        return check_seed(int(digits) if re.fullmatch(r"-?[0-9]+", digits) else text)
    except (TypeError, ValueError):
        raise CliError(f"--seed must be {SEED_RANGE}, got {text!r}") from None


def _parse_out(text: str | None) -> Path | None:
    """--out as a directory. Path("") is ".", so an empty value (say, from an
    unset shell variable) would quietly write into the current directory."""
    if text is None:
        return None
    if not text.strip():
        raise CliError(f"--out needs a directory, got an empty path {text!r}")
    return Path(text)


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
) -> None:
    """Run one scenario: print a per-flow summary and save the results.

    Saved files: result.json, each table as Parquet and CSV (flows.parquet
    and flows.csv, links.parquet and links.csv, media.parquet and media.csv
    with a shared medium) and scenario.json (the scenario after overrides,
    with its hash).
    """
    from dupack._core import RunError, ScenarioError
    from dupack.api import run

    seed = _parse_seed(seed_text)
    out = _parse_out(out_text)
    scenario = _load(file, overrides)
    try:
        result = run(scenario, seed)
    except ScenarioError as e:
        raise _validation_error(file, e) from None
    except RunError as e:
        raise CliError(f"the simulation of '{file}' failed: {e}", EXIT_RUN) from None

    # With -s overrides the scenario is not the file's: keep its results apart
    # (by the scenario's hash) instead of overwriting the plain run's.
    tag = f"-{scenario.hash()[:8]}" if overrides else ""
    directory = out if out is not None else Path("dupack-out") / f"{file.stem}{tag}-seed{result.seed}"
    try:
        result.save(directory)
    except OSError as e:
        raise CliError(f"cannot write results to '{directory}': {e.strerror or e}") from None

    if json_out:
        sys.stdout.write(result.to_json() + "\n")
        sys.stdout.flush()
        if not quiet:
            typer.echo(f"results saved to {directory}/", err=True)
        return
    if not quiet:
        _print_summary(result, file)
        typer.echo(f"results saved to {directory}/")


def validate_cmd(file: ScenarioFile, overrides: Overrides = None) -> None:
    """Check a scenario (after overrides) without running it: prints 'ok' or the error."""
    from dupack._core import ScenarioError

    scenario = _load(file, overrides)
    try:
        scenario.validate()
    except ScenarioError as e:
        raise _validation_error(file, e) from None
    typer.echo("ok")


# --- summary -----------------------------------------------------------------


def _num(v: object, fmt: str = "{}") -> str:
    if v is None:
        return "-"
    try:
        if v != v:  # NaN
            return "-"
    except TypeError:
        pass
    return fmt.format(v)


def _print_summary(result: RunResult, file: Path) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    # Piped output (logs, CI) gets the full table instead of 80 columns.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    title = result.scenario_name or file.stem
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
    for f in result.raw.get("flows", []):
        ndup = list(f.get("ndup_at_timeout") or [])
        table.add_row(
            Text(str(f.get("flow", ""))),
            Text(str(f.get("variant", ""))),
            _num(f.get("goodput_kbps"), "{:.1f}"),
            _num(f.get("bytes_delivered")),
            _num(f.get("completion_time_s"), "{:.2f}"),
            _num(f.get("segments_sent")),
            _num(f.get("retransmitted_segments")),
            _num(f.get("fast_retransmits")),
            _num(f.get("timeouts")),
            "/".join(str(n) for n in ndup) or "-",
            f"{_num(f.get('drops_error'))}/{_num(f.get('drops_queue'))}",
        )
    console.print(table)
    # One line per shared medium: how much of its traffic collided.
    media: dict[str, list[dict[str, Any]]] = {}
    for m in result.raw.get("media", []):
        media.setdefault(str(m.get("medium", "")), []).append(m)
    for name, rows in media.items():
        sent = sum(int(r.get("frames_sent") or 0) for r in rows)
        collided = sum(int(r.get("collisions") or 0) for r in rows)
        console.print(
            Text(
                f"medium {name}: {sent:,} frames sent, {collided:,} collided"
                f" ({_num(rows[0].get('medium_collision_events'), '{:,}')} collisions)"
                f" · busy {_num(rows[0].get('medium_busy'), '{:.0%}')}"
            )
        )
    info = result.run
    console.print(
        Text(
            f"{_num(info.get('events'), '{:,}')} events · {_num(info.get('sim_time_s'), '{:.3f}')} s simulated"
            f" ({info.get('end_reason', '?')}) · {_num(info.get('wall_time_s'), '{:.3f}')} s wall time"
        )
    )


def register(app: typer.Typer) -> None:
    app.command("run", no_args_is_help=True)(run_cmd)
    app.command("validate", no_args_is_help=True)(validate_cmd)
