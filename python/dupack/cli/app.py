"""The ``dupack`` command: root app, top-level error handling, exit codes.

Exit codes: 0 success; 2 the user's mistake (usage, unreadable or invalid
scenario, bad override or seed); 3 the simulator failed on a valid scenario;
130 interrupted (Ctrl-C); 141 the reader of stdout went away (``| head``),
as for a process killed by SIGPIPE; 1 a bug in dupack itself (traceback only
with ``DUPACK_DEBUG=1``).

Every error is one line on stderr starting with ``error:``. To get that for
typer's and click's own usage errors as well, the root group runs click in
non-standalone mode and formats every exception itself; ``CliRunner`` goes
through the same path, so tests see what users see.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

# Recent typer versions vendor click (typer._click), older ones use click
# itself; take the exception classes from wherever typer's own come from.
_exc = sys.modules[typer.BadParameter.__module__]
ClickException: type[Exception] = _exc.ClickException
UsageError: type[Exception] = _exc.UsageError
Abort: type[BaseException] = typer.Abort
NoArgsIsHelpError: type[Exception] | None = getattr(_exc, "NoArgsIsHelpError", None)

EXIT_USER = 2
EXIT_RUN = 3
EXIT_BUG = 1
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE


class CliError(Exception):
    """A message for the user and an exit code; raised by the commands."""

    def __init__(self, message: str, exit_code: int = EXIT_USER) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class _Interrupted(Exception):
    """Ctrl-C inside a command. typer would turn KeyboardInterrupt into a
    silent exit 130; carrying it out as this lets the root print its line."""


class _PipeClosed(Exception):
    """A BrokenPipeError inside a command. click would turn it into exit 1,
    which here means a bug."""


def _debug() -> bool:
    return os.environ.get("DUPACK_DEBUG", "") not in ("", "0")


def _error(message: str) -> None:
    # typer.echo, not rich: messages contain paths like flows[0] that rich
    # would read as markup.
    typer.echo(f"error: {message}", err=True)


class DupackGroup(TyperGroup):
    """The root group; its ``main`` is where every exception ends up."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        code = self._run(args, prog_name or "dupack", complete_var, extra)
        if standalone_mode:
            sys.exit(code)
        return code

    def invoke(self, ctx: Any) -> Any:
        # Every subcommand (and its argument parsing) runs in here.
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted() from None
        except BrokenPipeError:
            raise _PipeClosed() from None

    def _run(self, args: Sequence[str] | None, prog_name: str, complete_var: str | None, extra: dict[str, Any]) -> int:
        from dupack._core import RunError, ScenarioError

        try:
            rv = super().main(args=args, prog_name=prog_name, complete_var=complete_var, standalone_mode=False, **extra)
            return rv if isinstance(rv, int) else 0
        except (_PipeClosed, BrokenPipeError):
            return _pipe_closed()
        except SystemExit as e:
            # click's own answer to EPIPE outside a command (e.g. `dupack
            # --help | true`) is sys.exit(1), raised while handling the error.
            if isinstance(e.__context__, BrokenPipeError):
                return _pipe_closed()
            raise
        except CliError as e:
            _error(str(e))
            return e.exit_code
        except ClickException as e:
            if NoArgsIsHelpError is not None and isinstance(e, NoArgsIsHelpError):
                # The help is the message (typer's rich mode has printed it already).
                text = e.format_message()
                if text.strip():
                    typer.echo(text, err=True)
                return EXIT_USER
            _error(_click_message(e))
            return int(getattr(e, "exit_code", EXIT_USER))
        except (_Interrupted, KeyboardInterrupt, Abort):  # Ctrl-C, or end of input at a prompt
            _error("aborted")
            return EXIT_INTERRUPTED
        except ScenarioError as e:
            _error(str(e))
            return EXIT_USER
        except RunError as e:
            _error(f"the simulation failed: {e}")
            return EXIT_RUN
        except Exception as e:  # a bug in dupack, not the user's mistake
            if _debug():
                traceback.print_exc()
            _error(f"internal error: {type(e).__name__}: {e} (this is a bug in dupack; set DUPACK_DEBUG=1 for the traceback)")
            return EXIT_BUG


class DupackCommand(TyperCommand):
    """Every subcommand: help that reads the same under the typer versions
    pyproject.toml allows. Recent ones show a flag as ``--json <bool>``
    (yet refuse ``--json=true``) and a required argument as ``{FILE}`` in
    the usage line; here a flag shows no value and the usage names its
    arguments as they are typed."""

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)
        for p in params:
            if getattr(p, "is_flag", False) and getattr(p, "metavar", None) is None:
                p.metavar = ""
        return params

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [_unbrace(piece) for piece in super().collect_usage_pieces(ctx)]


def _unbrace(piece: str) -> str:
    return piece[1:-1] if piece.startswith("{") and piece.endswith("}") else piece


def _pipe_closed() -> int:
    """`dupack run --json | head`: the reader left; nothing to say.

    As the Python docs advise for SIGPIPE, point stdout at devnull so that
    flushing it at exit does not raise the same error again.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file behind stdout (e.g. CliRunner)
        pass
    return EXIT_BROKEN_PIPE


def _click_message(e: Exception) -> str:
    msg = e.format_message().strip().replace("\n", " ")  # type: ignore[attr-defined]
    ctx = getattr(e, "ctx", None)
    if isinstance(e, UsageError) and ctx is not None:
        msg += f" (see '{ctx.command_path} --help')"
    return msg


app = typer.Typer(
    cls=DupackGroup,
    name="dupack",
    help="dupack: a deterministic discrete-event simulator for TCP loss recovery.\n\n"
    "Describe a network and its TCP flows in a TOML scenario, then run it with 'dupack run FILE.toml', "
    "or over a grid of values and seeds with 'dupack sweep FILE.toml'. "
    "'dupack reproduce eplr' reruns a paper's experiment and checks its claims.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from dupack import __version__

        typer.echo(f"dupack {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """dupack: a deterministic discrete-event simulator for TCP loss recovery."""


def _register() -> None:
    from dupack.cli import plot as _plot_cmds
    from dupack.cli import report as _report_cmds
    from dupack.cli import reproduce as _reproduce_cmds
    from dupack.cli import run as _run_cmds
    from dupack.cli import sweep as _sweep_cmds

    _run_cmds.register(app)
    _sweep_cmds.register(app)
    _reproduce_cmds.register(app)
    _plot_cmds.register(app)
    _report_cmds.register(app)
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand):  # typer's default, set by app.command()
            info.cls = DupackCommand


_register()


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``dupack``)."""
    command = typer.main.get_command(app)
    command.main(args=argv, prog_name="dupack")
