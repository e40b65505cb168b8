"""``dupack report``: stored runs and sweeps as one self-contained HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from dupack.cli.app import CliError
from dupack.cli.plot import ResultsCommand


def register(app: typer.Typer) -> None:
    app.command("report", cls=ResultsCommand, no_args_is_help=True)(report_cmd)


def report_cmd(
    results: Annotated[
        list[Path],
        typer.Argument(metavar="RESULTS", help="Directories written by 'dupack run' or 'dupack sweep'.",
                       show_default=False),
    ],
    out_text: Annotated[
        Optional[str],  # noqa: UP045 - typer reads the annotation at run time
        typer.Option("--out", "-o", metavar="FILE", help="The page to write.  [default: report.html]", show_default=False),
    ] = None,
    title: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--title", metavar="TEXT", help="The page's title.  [default: the results' names]", show_default=False),
    ] = None,
) -> None:
    """Write one self-contained HTML page about runs and sweeps.

    It holds their plots (embedded), the flows and links tables, a sweep's
    summary over seeds, the scenario and the dupack version, and opens
    offline in any browser. Runs made with --trace also get the
    time-sequence graph, cwnd and queue plots.

    Example: dupack report out/qs out/sweep -o report.html
    """
    from dupack.htmlreport import write_report
    from dupack.plot import PlotError

    if out_text is not None and not out_text.strip():
        raise CliError("--out needs a file name, got an empty one")
    out = Path(out_text or "report.html")
    if out.is_dir():
        raise CliError(f"--out '{out}' is a directory; name the HTML file to write")
    try:
        write_report(results, out, title)
    except PlotError as e:
        raise CliError(str(e)) from None
    except OSError as e:
        raise CliError(f"cannot write '{out}': {e.strerror or e}") from None
    typer.echo(f"wrote {out}")
