"""``dupack sweep``: one scenario over a grid of values and seeds."""

from __future__ import annotations

import sys
import time

from dupack.cli.app import EXIT_INTERRUPTED, EXIT_RUN, EXIT_USER, CliError
from dupack.cli.common import load_scenario, num, parse_out, parse_series_vars, parse_trace, typer_names
from dupack.cli.common import Count, validation_error

# typing for type checkers only (why: dupack/__init__.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike
    from pathlib import Path
    from typing import Annotated, Any, Optional

    import typer

    from dupack.scenario import Scenario
    from dupack.sweeps import SweepResult

    # What the annotations of _typer_names come down to.
    ScenarioFile = Path
    Overrides = Optional[list[str]]  # noqa: UP045
    TraceNames = Optional[list[str]]  # noqa: UP045
    TraceAll = bool
    SeriesVars = Optional[list[str]]  # noqa: UP045


def _typer_names() -> None:
    """typer and the shared parameter types (dupack.cli.common) as module
    globals, for typer to resolve the string annotations of
    :func:`sweep_cmd` in when :func:`register` hands it over; until then
    this module does without typer, so that ``dupack sweep`` in its plain
    spellings starts without importing it (dupack.cli.app's main)."""
    globals().update(typer_names("In a sweep, every run records them: stored as DIR/series and DIR/trace."))


#: At most this many jobs (grid points x seeds) in one sweep.
MAX_JOBS = 10_000_000


def _integer(text: str) -> int | None:
    """An integer written in ASCII digits with an optional minus sign and
    blanks around it, else None (the checks of this module read their
    numbers so, without ``re``: a sweep of one job starts in the time of
    ``dupack run``)."""
    t = text.strip()
    digits = t[1:] if t.startswith("-") else t
    return int(t) if digits.isascii() and digits.isdigit() else None


def _split_values(text: str) -> list[str]:
    """Split at the commas outside quotes, brackets and braces, so that
    TOML arrays and tables stay whole: ``1,[2,3],"a,b"`` → three values."""
    out, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur))
    return [v.strip() for v in out]


def _parse_vary(items: list[str] | None, base: Scenario) -> dict[str, list[Any]]:
    """``--vary PATH=V1,V2,…`` → ``{PATH: [values]}``. Each value is read as
    in ``-s`` and checked on its own against the scenario, so that a wrong
    path or value is reported with the option that gave it."""
    from dupack._core import ScenarioError
    from dupack.scenario import OverrideError, parse_override, parse_value, shorten

    grid: dict[str, list[Any]] = {}
    for item in items or ():
        where = f"--vary '{shorten(item)}'"
        if "=" not in item:
            raise CliError(f"bad {where}: expected PATH=V1,V2,..., e.g. --vary tcp.variant=reno,sack")
        raw_path, raw_values = item.split("=", 1)
        path = raw_path.strip()
        try:
            parse_override(f"{path}=0")  # the path's syntax
        except OverrideError as e:
            raise CliError(f"bad {where}: {e.reason}") from None
        if path in grid:
            raise CliError(f"bad {where}: {path} is already varied by another --vary; list all its values in one")
        if path in ("run.seed", "run[seed]"):
            raise CliError(f"bad {where}: vary the seed with --seeds, e.g. --seeds 1..10")
        texts = _split_values(raw_values)
        if any(t == "" for t in texts):
            raise CliError(f"bad {where}: empty value; separate the values with single commas, e.g. {path}=1,2")
        try:
            values = [parse_value(t) for t in texts]
        except OverrideError as e:
            raise CliError(f"bad {where}: {e.reason}") from None
        for i, (text, value) in enumerate(zip(texts, values, strict=True)):
            if values.count(value) > 1:
                raise CliError(f"bad {where}: the value {text} is listed twice")
            try:
                base.with_values({path: value}).validate()
            except OverrideError as e:
                raise CliError(f"bad {where}: {e.reason}") from None
            except ScenarioError as e:
                # The core's message names the field and the value; after a
                # value that passed, say which one of the list it is.
                which = f"the value {text}: " if i else ""
                raise CliError(f"bad {where}: {which}{e}") from None
        grid[path] = values
    return grid


def _parse_seeds(text: str | None) -> list[int] | None:
    """``1..40`` (inclusive), ``1,2,5``, or both: ``1..3,7``."""
    from dupack.api import SEED_RANGE, MAX_SEED

    if text is None:
        return None
    allowed = f"a seed ({SEED_RANGE}), a range A..B or a comma-separated list of them, e.g. 1..40 or 1,2,5"

    def bad(why: str = "") -> CliError:
        return CliError(f"--seeds must be {allowed}; got {text!r}{why}")

    seeds: list[int] = []
    for part in text.split(","):
        lo, dots, hi = part.partition("..")
        a, b = (_integer(lo), _integer(hi)) if dots else (None, None)
        if a is not None and b is not None:
            if not (0 <= a <= MAX_SEED and 0 <= b <= MAX_SEED):
                raise bad(f" ({part.strip()} is out of range)")
            if a > b:
                raise bad(f" (the range {part.strip()} is empty: write the smaller seed first)")
            if b - a + 1 + len(seeds) > MAX_JOBS:
                raise bad(f" (more than {MAX_JOBS:,} seeds)")
            seeds.extend(range(a, b + 1))
        elif (s := _integer(part)) is not None:
            if not 0 <= s <= MAX_SEED:
                raise bad(f" ({s} is out of range)")
            seeds.append(s)
        else:
            raise bad()
    if len(set(seeds)) != len(seeds):
        dup = next(s for s in seeds if seeds.count(s) > 1) if len(seeds) < 10_000 else None
        raise bad(f" (seed {dup} is listed twice)" if dup is not None else " (a seed is listed twice)")
    return seeds


#: The port of a Dask scheduler when --executor names none.
DASK_PORT = 8786


def _parse_executor(text: str | None) -> str | None:
    """``--executor``: None for ``local``, else the scheduler's address
    (``dask://HOST:PORT`` → ``tcp://HOST:PORT``)."""
    if text is None or text.strip() == "local":
        return None
    import re

    m = re.fullmatch(r"dask://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(?::([0-9]{1,5}))?/?", text.strip())
    if not m or (m.group(2) is not None and not 0 < int(m.group(2)) < 65536):
        raise CliError(f"--executor must be 'local' or dask://HOST:PORT (a Dask scheduler), got {text!r}")
    return f"tcp://{m.group(1)}:{m.group(2) or DASK_PORT}"


def _parse_workers(text: str | None) -> int | None:
    if text is None:
        return None
    n = _integer(text)
    if n is None or text.strip().startswith("-") or n < 1:
        raise CliError(f"--workers must be an integer >= 1, got {text!r}")
    return n


def sweep_cmd(
    file: ScenarioFile,
    vary: Annotated[
        Optional[list[str]],  # noqa: UP045 - typer reads the annotation at run time
        typer.Option(
            "--vary",
            metavar="PATH=V1,V2,...",
            help="Run the scenario with each of these values at PATH, e.g. --vary tcp.variant=reno,sack "
            "or --vary topology.access.fwd_error.p=0.01,0.02. Values are read as with -s. Repeatable: "
            "the sweep runs every combination.",
            show_default=False,
        ),
    ] = None,
    seeds_text: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--seeds",
            metavar="SEEDS",
            help="Seeds to run every combination with: a range 1..40 (both ends included), a list 1,2,5, "
            "or both (1..10,20). Default: the scenario's run.seed.",
            show_default=False,
        ),
    ] = None,
    workers_text: Annotated[
        Optional[str],  # noqa: UP045 - text, so that the message can quote it
        typer.Option(
            "--workers",
            "-j",
            metavar="N",
            help="Simulations to run at the same time (threads). Default: one per CPU.",
            show_default=False,
        ),
    ] = None,
    out_text: Annotated[
        Optional[str],  # noqa: UP045 - text, so that an empty --out is not read as "."
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Directory for the results: a Parquet dataset per table (DIR/runs, DIR/flows, "
            "DIR/links, DIR/media; DIR/series and DIR/trace with --trace) and DIR/sweep.json. Required. Running the same sweep into it again runs only "
            "the jobs not yet stored.",
            show_default=False,
        ),
    ] = None,
    overrides: Overrides = None,
    no_resume: Annotated[
        bool,
        typer.Option("--no-resume", help="Delete the results already in DIR and run every job again."),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="No progress bar and no summary; only errors."),
    ] = False,
    executor_text: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--executor",
            metavar="local|dask://HOST:PORT",
            help="Where the runs go: 'local' (threads of this process, the default) or the Dask scheduler "
            "at HOST:PORT (port 8786 if left out), whose workers run them in batches of a second or more; "
            "the results come back here to DIR as they finish, the same as a local sweep's. Needs "
            "pip install 'dupack[dask]' here and dupack on every worker.",
            show_default=False,
        ),
    ] = None,
    mixed_versions: Annotated[
        bool,
        typer.Option(
            "--mixed-versions",
            help="Resume a sweep that another dupack build (version or commit) wrote; by default that is refused, "
            "as the results of the two could not be told apart.",
        ),
    ] = False,
    trace_text: TraceNames = None,
    trace_all: TraceAll = False,
    series_vars: SeriesVars = None,
) -> None:
    """Run a scenario for every combination of --vary values and every seed.

    The runs go to worker threads in one process (or to a Dask cluster,
    with --executor), and the results are stored as they finish: DIR/runs,
    DIR/flows, DIR/links and DIR/media are Parquet datasets
    (pandas.read_parquet("DIR/flows")) with the columns of 'dupack run'
    plus job, one column per --vary path, and seed. An
    interrupted sweep keeps what it stored; run the same command again to
    finish it.

    Example: dupack sweep scenarios/quickstart.toml --vary tcp.variant=reno,newreno,sack --seeds 1..20 -o out/qs
    """
    sweep_command(
        file, vary=vary, seeds_text=seeds_text, workers_text=workers_text, out_text=out_text, overrides=overrides,
        no_resume=no_resume, quiet=quiet, executor_text=executor_text, mixed_versions=mixed_versions,
        trace_text=trace_text, trace_all=trace_all, series_vars=series_vars,
    )


def sweep_command(
    file: str | PathLike[str],
    vary: list[str] | None = None,
    seeds_text: str | None = None,
    workers_text: str | None = None,
    out_text: str | None = None,
    overrides: list[str] | None = None,
    no_resume: bool = False,
    quiet: bool = False,
    executor_text: str | None = None,
    mixed_versions: bool = False,
    trace_text: list[str] | None = None,
    trace_all: bool = False,
    series_vars: list[str] | None = None,
) -> None:
    """``dupack sweep``, its options as keyword arguments (see :func:`sweep_cmd`)."""
    from dupack._core import ScenarioError
    from dupack._paths import path_text

    file = path_text(file)  # as str(Path(file)), without pathlib (dupack._paths)

    if out_text is None:
        raise CliError("--out/-o is required: the directory for the results, e.g. -o out/sweep")
    seeds = _parse_seeds(seeds_text)
    workers = _parse_workers(workers_text)
    scheduler = _parse_executor(executor_text)
    if scheduler is not None and workers is not None:
        raise CliError(
            "--workers sets the threads of a local sweep; with --executor dask://… the cluster's workers "
            "run the jobs (give them threads with 'dask worker --nthreads N')"
        )
    out = parse_out(out_text)
    assert out is not None
    base = load_scenario(file, overrides)
    try:
        base.validate()
    except ScenarioError as e:
        raise validation_error(file, e) from None
    grid = _parse_vary(vary, base)
    npoints = 1
    for v in grid.values():
        npoints *= len(v)
    if npoints * len(seeds or [None]) > MAX_JOBS:
        raise CliError(f"--vary and --seeds give {npoints * len(seeds or [None]):,} jobs; at most {MAX_JOBS:,} are allowed")

    series, traced = parse_trace(trace_text, trace_all, base)
    observe: dict[str, list[str] | None] = {"series": series, "trace": traced}
    if (variables := parse_series_vars(series_vars, series)) is not None:
        observe["series_variables"] = variables

    _check_resumed_seeds(out, seeds, base, grid, no_resume)

    if scheduler is None:
        result, wall = _run_sweep(file, base, grid, seeds, workers, out, no_resume, quiet, mixed_versions, None, observe)
    else:
        client = _dask_client(scheduler, executor_text)
        try:
            result, wall = _run_sweep(
                file, base, grid, seeds, None, out, no_resume, quiet, mixed_versions, client, observe
            )
        finally:
            client.close()
    if not quiet:
        _print_summary(result, file, wall)


def _dask_client(address: str, text: str | None) -> Any:
    """A client of the Dask scheduler at ``address`` (the caller closes it);
    a one-line error if Dask is missing or the scheduler does not answer."""
    from dupack.dask_executor import DaskMissing, ExecutorError, connect

    try:
        return connect(address)
    except DaskMissing:
        raise CliError(f"--executor {text}: needs Dask, which is not installed; install it with: "
                       "pip install 'dupack[dask]'") from None
    except ExecutorError as e:
        raise CliError(f"--executor: {e}") from None


def _run_sweep(
    file: str,
    base: Scenario,
    grid: dict[str, list[Any]],
    seeds: list[int] | None,
    workers: int | None,
    out: str,
    no_resume: bool,
    quiet: bool,
    mixed_versions: bool,
    client: Any,
    observe: dict[str, list[str] | None],
) -> tuple[SweepResult, float]:
    from dupack._core import RunError, ScenarioError
    from dupack.sweeps import SweepError, sweep

    if quiet:
        # Nothing to show: the display module is not loaded (docs/performance.md:
        # a sweep of one job should start as fast as `dupack run`).
        progress: Count = Count()
    else:
        from dupack.cli.progress import Progress

        progress = Progress(False, "sweep")
    t0 = time.perf_counter()
    try:
        with progress:
            result = sweep(
                base, grid, seeds, workers=workers, out=out, resume=not no_resume, progress=progress.update,
                mixed_versions=mixed_versions, client=client, **observe,
            )
    except SweepError as e:
        raise CliError(f"--out: {e}") from None
    except OSError as e:  # the directory cannot be made or written (a bad path, no permission, a full disk)
        stored = f"; the runs stored before it are in '{out}'" if progress.done else ""
        raise CliError(f"--out: cannot write the results to '{out}': {e.strerror or e}{stored}") from None
    except ScenarioError as e:  # an invalid combination of values that are valid one by one
        if e.path == "series_variables":
            raise CliError(f"--series-vars: {e.message}") from None
        raise validation_error(file, e) from None
    except RunError as e:
        raise CliError(f"the simulation failed: {e}; the runs that finished are stored in '{out}'", EXIT_RUN) from None
    except KeyboardInterrupt:
        raise CliError(
            f"aborted; the runs that finished are stored in '{out}': run the same command again to continue",
            EXIT_INTERRUPTED,
        ) from None
    except Exception as e:
        if client is None:
            raise
        from dupack.dask_executor import ExecutorError

        if not isinstance(e, ExecutorError):
            raise
        stored = f"; the runs that finished are stored in '{out}'" if progress.done else ""
        raise CliError(f"--executor: {e}{stored}", EXIT_USER if e.user else EXIT_RUN) from None
    return result, time.perf_counter() - t0


def describe_seeds(seeds: list[int | None] | None, scenario_seed: object = None) -> str:
    """Seeds in words: ``seeds 1..20 (20 seeds)``, ``seeds 1, 2, 5``, or, for a
    sweep without --seeds, ``only the scenario's own seed (run.seed = 1)``."""
    if not seeds or seeds == [None]:
        own = f"run.seed = {scenario_seed}" if scenario_seed is not None else "run.seed, not set"
        return f"only the scenario's own seed ({own})"
    if any(s is None for s in seeds):
        return "seeds " + ", ".join("run.seed" if s is None else str(s) for s in seeds)
    ints = [int(s) for s in seeds if s is not None]
    if len(ints) == 1:
        return f"seed {ints[0]}"
    if ints == list(range(ints[0], ints[0] + len(ints))):
        return f"seeds {ints[0]}..{ints[-1]} ({len(ints)} seeds)"
    shown = ", ".join(str(s) for s in ints[:8])
    return f"seeds {shown}{', …' if len(ints) > 8 else ''} ({len(ints)} seeds)"


def _seeds_option(seeds: list[int | None]) -> str:
    """The --seeds value that gives ``seeds``."""
    ints = [int(s) for s in seeds if s is not None]
    if len(ints) > 1 and ints == list(range(ints[0], ints[0] + len(ints))):
        return f"{ints[0]}..{ints[-1]}"
    return ",".join(str(s) for s in ints)


def _check_resumed_seeds(
    out: str, seeds: list[int] | None, base: Scenario, grid: dict[str, list[Any]], no_resume: bool
) -> None:
    """Rerunning a sweep into its directory with other seeds only (say,
    without --seeds after a sweep with them) is refused by the library in
    terms of its stored lists; say it here in words, with the --seeds that
    resumes it. Other differences are left to the library's message."""
    from dupack import _core
    from dupack._paths import path_join
    from dupack.sweep_store import SWEEP_FILE, read_text

    try:
        stored = _core.json_loads(read_text(path_join(out, SWEEP_FILE)))
        same_grid = stored.get("grid") == _core.json_loads(_core.json_dumps(grid)) if isinstance(stored, dict) else False
    except (OSError, ValueError):
        return  # no sweep there (or not readable): the library says what is wrong
    if not isinstance(stored, dict) or not isinstance(stored.get("seeds"), list):
        return
    if stored.get("scenario_hash") != base.hash() or not same_grid:
        return
    there: list[int | None] = stored["seeds"]
    here: list[int | None] = list(seeds) if seeds is not None else [None]
    if there == here:
        return
    run = base.to_dict().get("run")
    own = run.get("seed") if isinstance(run, dict) else None
    stored_own = stored.get("scenario", {}).get("run", {}).get("seed") if isinstance(stored.get("scenario"), dict) else None
    hint = (
        f"add --seeds {_seeds_option(there)} to resume it"
        if there != [None]
        else "leave out --seeds to resume it"
    )
    raise CliError(
        f"--out: '{out}' holds a sweep run with {describe_seeds(there, stored_own)}, "
        f"and this command asks for {describe_seeds(here, own)}; {hint}, "
        "or choose another directory for a new sweep"
        + ("" if not no_resume else " (--no-resume starts the same sweep over, it does not change its seeds)")
    )


def _print_summary(result: SweepResult, file: str, wall: float) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from dupack.sweep_stats import SUMMARY_ROWS

    console = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
    runs = result.runs
    cells, note = result._display()
    from dupack._paths import path_stem

    name = result.scenario.name if result.scenario and result.scenario.name else path_stem(file)
    table = Table(
        title=Text(f"{name} · {len(result.seeds)} seed(s) per point"),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 1, 0, 0),
        show_edge=False,
    )
    keys = [*result.grid, *(["variant"] if "variant" in cells.columns else [])]
    for c in cells.columns:
        if c in keys:
            table.add_column(Text(c), justify="left", overflow="fold")
        else:
            table.add_column(Text(c), justify="right", no_wrap=True)
    for row in cells.head(SUMMARY_ROWS).itertuples(index=False):
        table.add_row(*(Text(str(v)) for v in row))
    console.print(table)
    if len(cells) > SUMMARY_ROWS:
        what = "rows" if "variant" in keys else "grid points"
        console.print(Text(f"… and {len(cells) - SUMMARY_ROWS} more {what} (see the runs table)"))
    console.print(Text(note))
    console.print(
        Text(
            f"{len(runs):,} runs ({result.executed:,} now, {result.skipped:,} already stored) · "
            f"{num(runs['sim_time_s'].sum(), '{:,.0f}')} s simulated · {wall:.2f} s wall time · "
            f"results in {result.out}/"
        )
    )


def register(app: typer.Typer) -> None:
    _typer_names()
    app.command("sweep", no_args_is_help=True)(sweep_cmd)
