"""``dupack reproduce``: a paper's experiment rerun, its figures redrawn, its claims checked."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from dupack.cli.app import EXIT_INTERRUPTED, EXIT_RUN, CliError
from dupack.cli.progress import Progress

if TYPE_CHECKING:
    from dupack.reproduce import Reproduction


def register(app: typer.Typer) -> None:
    app.command("reproduce", no_args_is_help=True)(reproduce_cmd)


def reproduce_cmd(
    name: Annotated[
        Optional[str],
        typer.Argument(metavar="NAME", help="The paper: efr, rpld, eplr, unfairness or irw ('all' for every one).",
                       show_default=False),
    ] = None,
    full: Annotated[
        bool, typer.Option("--full", help="The paper's replications and sizes instead of the quick mode (minutes, not seconds).")
    ] = False,
    out_text: Annotated[
        Optional[str],
        typer.Option("--out", "-o", metavar="DIR", help="Where the runs, tables, figures and report go.  [default: reproduce/NAME]",
                     show_default=False),
    ] = None,
    seeds_text: Annotated[
        Optional[str],
        typer.Option("--seeds", metavar="N", help="Replications of every experiment, instead of the mode's.", show_default=False),
    ] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the papers that can be reproduced and exit.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no tables; only errors.")] = False,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="Discard the runs an earlier reproduction stored in DIR and run them all again.")
    ] = False,
    mixed_versions: Annotated[
        bool,
        typer.Option("--mixed-versions", help="Reuse runs another dupack build (version or commit) stored in DIR."),
    ] = False,
) -> None:
    """Rerun a paper's experiment, redraw its figures and check its claims.

    Quick mode (the default) runs enough replications to decide the claims in
    about a minute; --full uses the paper's. DIR gets the stored runs
    (DIR/runs, resumable), tables with mean and 95 % interval per cell
    (DIR/tables), the published numbers beside dupack's (DIR/comparison.csv),
    the claims' verdicts (DIR/claims.csv), the figures (DIR/figures, PNG and
    SVG) and one self-contained page with all of it (DIR/report.html).

    'all' reproduces every paper, each into DIR/NAME (by default
    reproduce/NAME), those with the most figures first: a paper's files are
    written while the next one's runs go on.

    Example: dupack reproduce eplr
    """
    from dupack.reproduce import ReproduceError, list_papers, load_paper

    if list_:
        for n in list_papers():
            p = load_paper(n)
            typer.echo(f"{n:12s} {p.title}")
        return
    if name is None:
        raise CliError("which paper? give NAME (one of " + ", ".join(list_papers()) + ", or all), or --list")
    seeds = _parse_seeds(seeds_text)
    names = [name]
    writer = None
    if name == "all":
        # Each paper's files are written while the next one's runs simulate;
        # the papers with the most figures to draw go first (ties by name),
        # so that the last one, whose drawing nothing overlaps, has the fewest.
        try:
            papers = [load_paper(n) for n in list_papers()]
        except ReproduceError as e:
            raise CliError(str(e)) from None
        names = [p.name for p in sorted(papers, key=lambda p: -len(p.figures))]
        writer = _Writer()
    try:
        for n in names:
            try:
                paper = load_paper(n)
            except ReproduceError as e:
                raise CliError(str(e)) from None
            out = Path(out_text) / n if (out_text and name == "all") else Path(out_text or Path("reproduce") / n)
            _run_one(paper.name, out, full, seeds, quiet, fresh, mixed_versions, writer)
    except BaseException:
        if writer is not None:
            writer.wait(report=False)  # the error that stopped the runs is the one to tell
        raise
    if writer is not None:
        writer.wait()


class _Writer:
    """Writes one paper's tables, figures and report (``reproduce.write``)
    on a thread of its own while the command goes on to the next paper's
    runs. The runs spend most of their time in the core's worker threads,
    without the interpreter's lock, and drawing the figures is a quarter of
    ``dupack reproduce all`` (docs/performance.md, "dupack reproduce end to
    end"): one after the other, one core waits while the other draws. One
    paper is written at a time; :meth:`wait` returns when it is done and
    raises what writing it raised, as writing it in line would have."""

    def __init__(self) -> None:
        self.thread: Any = None
        self.error: BaseException | None = None
        self.what: tuple[str, Path] = ("", Path())

    def start(self, r: Reproduction, out: Path) -> None:
        import threading

        from dupack.reproduce import write

        self.wait()

        def body() -> None:
            try:
                write(r, out)
            except BaseException as e:  # noqa: BLE001 - raised again by wait(), in the command's thread
                self.error = e

        self.what = (r.paper.name, out)
        self.thread = threading.Thread(target=body, name=f"dupack-write-{r.paper.name}")
        self.thread.start()

    def wait(self, report: bool = True) -> None:
        if self.thread is None:
            return
        self.thread.join()
        self.thread = None
        error, self.error = self.error, None
        if error is not None and report:
            if isinstance(error, OSError):
                raise _cannot_write(*self.what, error) from None
            raise error


def _cannot_write(name: str, out: Path, e: OSError) -> CliError:
    """The one line for a reproduction whose files could not be written."""
    where = f" ({e.filename})" if e.filename else ""
    return CliError(f"--out: cannot write the results of {name} to '{out}': {e.strerror or e}{where}; the runs that "
                    "finished are stored there: run the same command again to write them")


def _parse_seeds(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1 or str(n) != text.strip():
        raise CliError(f"--seeds '{text}': expected a whole number of replications of at least 1, e.g. --seeds 20")
    return n


def _run_one(name: str, out: Path, full: bool, seeds: int | None, quiet: bool, fresh: bool, mixed: bool,
             writer: _Writer | None = None) -> None:
    from dupack._core import RunError, ScenarioError
    from dupack.reproduce import ReproduceError, jobs, load_paper, reproduce
    from dupack.sweeps import SweepError

    paper = load_paper(name)
    total = jobs(paper, full, seeds)
    bar = Progress(quiet, f"reproduce {name}")
    t0 = time.perf_counter()
    try:
        with bar:
            r = reproduce(name, out, full=full, seeds=seeds, progress=lambda n: bar.advance(n, total),
                          fresh=fresh, mixed_versions=mixed, write_files=writer is None)
    except ReproduceError as e:
        raise CliError(str(e)) from None
    except SweepError as e:
        # Runs of another mode, replication count or build are in the way.
        raise CliError(f"--out '{out}' holds earlier runs this reproduction cannot reuse ({e}); "
                       "add --fresh to run them again, or choose another --out") from None
    except ScenarioError as e:
        raise CliError(f"papers/{name}: {e}", EXIT_RUN) from None
    except RunError as e:
        raise CliError(f"the simulation failed: {e}; the runs that finished are stored in '{out}'", EXIT_RUN) from None
    except KeyboardInterrupt:
        raise CliError(f"aborted; the runs that finished are stored in '{out}': run the same command again to continue",
                       EXIT_INTERRUPTED) from None
    except OSError as e:  # a full disk, a folder made read-only meanwhile
        raise _cannot_write(name, out, e) from None
    if writer is not None:
        writer.start(r, out)
    if not quiet:
        _print(r, time.perf_counter() - t0)


def _print(r: Reproduction, wall: float) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from dupack.reproduce.analysis import FAILS, HOLDS

    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    p = r.paper
    mode = "full" if r.full else "quick"
    console.print(f"[bold]{p.title}[/bold]  ({mode} mode, "
                  + ", ".join(f"{v} replications" for v in sorted(set(r.seeds.values()))) + f", {wall:.1f} s)")
    compared = [c for c in r.comparisons if c.dupack is not None]
    unmatched = len(r.comparisons) - len(compared)
    report = r.out / "report.html" if r.out else None
    if compared:
        t = Table(box=box.SIMPLE_HEAD, title="Published numbers beside dupack's (mean ± 95 % CI)",
                  title_justify="left")
        for col in ("where", "scheme", "conditions", "paper", "dupack", "difference"):
            t.add_column(col, justify="right" if col in ("paper", "dupack", "difference") else "left")
        for c in compared:
            v = c.value
            cond = ", ".join(f"{k} {x}" for k, x in v.get("conditions", {}).items())
            t.add_row(str(v.get("where")), str(v.get("scheme")), cond, f"{v.get('value')} {v.get('unit', '')}",
                      c.dupack.fmt(), f"{c.difference_pct:+.0f} %")
        console.print(t)
    # Rather than an empty table (or none at all), say what was not compared, why, and where it is listed.
    if unmatched:
        from collections import Counter

        reasons = Counter(c.reason for c in r.comparisons if c.dupack is None)
        why = "; ".join(f"{reason}: {n}" for reason, n in reasons.items())
        where = report or "the report"
        if compared:
            console.print(f"{unmatched} more published results have no dupack figure beside them ({why}); "
                          f"{where} lists each.")
        else:
            console.print(f"None of the paper's {unmatched} published results has a dupack figure beside it ({why}): "
                          f"only its claims are checked; {where} lists each result.")
    elif not compared:
        console.print("The paper publishes no results to set beside dupack's: only its claims are checked.")
    t = Table(box=box.SIMPLE_HEAD, title="Claims", title_justify="left")
    t.add_column("verdict")
    t.add_column("claim")
    t.add_column("where")
    for c in r.claims:
        style = "green" if c.verdict == HOLDS else ("red" if c.verdict == FAILS else "yellow")
        t.add_row(f"[{style}]{c.verdict}[/{style}]", str(c.claim.get("text")), str(c.claim.get("where")))
    console.print(t)
    held = sum(c.verdict == HOLDS for c in r.claims)
    console.print(f"{held} of {len(r.claims)} claims hold. Report: {r.out / 'report.html' if r.out else '-'}")
