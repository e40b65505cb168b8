"""The ``dupack`` command: root app, top-level error handling, exit codes.

Exit codes: 0 success; 2 the user's mistake (usage, unreadable or invalid
scenario, bad override or seed); 3 the simulator failed on a valid scenario;
4 ``dupack run --max-wall`` stopped the run (its partial results saved);
130 interrupted (Ctrl-C); 141 the reader of stdout went away (``| head``),
as for a process killed by SIGPIPE; 1 a bug in dupack itself (traceback only
with ``DUPACK_DEBUG=1``).

Every error is one line on stderr starting with ``error:``. To get that for
typer's and click's own usage errors as well, the root group runs click in
non-standalone mode and formats every exception itself; ``CliRunner`` goes
through the same path, so tests see what users see.

typer (with click, and pydantic in recent typer versions) takes longer to
import than a typical simulation takes to run, so importing this module does
not import it: the typer app and its classes are made on first use of
``app``, ``DupackGroup``, ``DupackCommand`` and the like. And :func:`main`
runs the plainest command lines itself, without typer: ``dupack --version``,
and ``dupack run``, ``dupack validate`` and ``dupack sweep`` with a scenario file and options
in their plain spelling (``--opt VALUE``, ``--opt=VALUE``, ``-o VALUE``, the
flags alone). Anything else (help, a spelling it does not know, a mistake
to report) goes to typer, which gives the same results for those lines as
well; tests/test_cli_fast.py runs each line both ways.
"""

from __future__ import annotations

import os
import sys

# typing for type checkers only (why: dupack/__init__.py); so are the
# abstract collections, whose package (collections) costs a millisecond.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    import typer

EXIT_USER = 2
EXIT_RUN = 3
EXIT_PARTIAL = 4  # dupack run --max-wall stopped the run; its partial results are saved
EXIT_BUG = 1
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE


class CliError(Exception):
    """A message for the user and an exit code; raised by the commands."""

    def __init__(self, message: str, exit_code: int = EXIT_USER) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class CliExit(Exception):
    """End a command with ``exit_code``, what it had to say already said."""

    def __init__(self, exit_code: int) -> None:
        super().__init__(exit_code)
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
    from typer import echo

    echo(f"error: {message}", err=True)


def _failed(e: BaseException) -> int:
    """Print the one line for the exception ``e`` that ended a command and
    return the exit code (anything but an Exception is raised again)."""
    from dupack._core import RunError, ScenarioError

    if isinstance(e, _PipeClosed | BrokenPipeError):
        return _pipe_closed()
    if isinstance(e, CliError):
        _error(str(e))
        return e.exit_code
    if isinstance(e, CliExit):
        return e.exit_code
    if isinstance(e, _Interrupted | KeyboardInterrupt):  # Ctrl-C
        _error("aborted")
        return EXIT_INTERRUPTED
    if isinstance(e, ScenarioError):
        _error(str(e))
        return EXIT_USER
    if isinstance(e, RunError):
        _error(f"the simulation failed: {e}")
        return EXIT_RUN
    if not isinstance(e, Exception):
        raise e
    # A bug in dupack, not the user's mistake.
    if _debug():
        import traceback

        traceback.print_exception(e)
    _error(f"internal error: {type(e).__name__}: {e} (this is a bug in dupack; set DUPACK_DEBUG=1 for the traceback)")
    return EXIT_BUG


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


# --- the typer app, made on first use ----------------------------------------


def _define_classes() -> None:
    """typer's and click's exception classes and dupack's group and command
    classes, as module globals."""
    if "DupackCommand" in globals():
        return
    import typer
    from typer.core import TyperCommand, TyperGroup

    # Recent typer versions vendor click (typer._click), older ones use click
    # itself; take the exception classes from wherever typer's own come from.
    _exc = sys.modules[typer.BadParameter.__module__]
    ClickException: type[Exception] = _exc.ClickException
    UsageError: type[Exception] = _exc.UsageError
    Abort: type[BaseException] = typer.Abort
    NoArgsIsHelpError: type[Exception] | None = getattr(_exc, "NoArgsIsHelpError", None)

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
            try:
                rv = super().main(args=args, prog_name=prog_name, complete_var=complete_var, standalone_mode=False, **extra)
                return rv if isinstance(rv, int) else 0
            except SystemExit as e:
                # click's own answer to EPIPE outside a command (e.g. `dupack
                # --help | true`) is sys.exit(1), raised while handling the error.
                if isinstance(e.__context__, BrokenPipeError):
                    return _pipe_closed()
                raise
            except ClickException as e:
                if NoArgsIsHelpError is not None and isinstance(e, NoArgsIsHelpError):
                    # The help is the message (typer's rich mode has printed it already).
                    text = e.format_message()  # type: ignore[attr-defined]
                    if text.strip():
                        typer.echo(text, err=True)
                    return EXIT_USER
                _error(_click_message(e, UsageError))
                return int(getattr(e, "exit_code", EXIT_USER))
            except Abort:  # Ctrl-C, or end of input at a prompt
                _error("aborted")
                return EXIT_INTERRUPTED
            except BaseException as e:  # noqa: BLE001 - _failed sorts them, and raises what is not an Exception
                return _failed(e)

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

    globals().update(
        ClickException=ClickException,
        UsageError=UsageError,
        Abort=Abort,
        NoArgsIsHelpError=NoArgsIsHelpError,
        DupackGroup=DupackGroup,
        DupackCommand=DupackCommand,
    )


def _unbrace(piece: str) -> str:
    return piece[1:-1] if piece.startswith("{") and piece.endswith("}") else piece


def _click_message(e: Exception, usage_error: type[Exception]) -> str:
    msg = e.format_message().strip().replace("\n", " ")  # type: ignore[attr-defined]
    ctx = getattr(e, "ctx", None)
    if isinstance(e, usage_error) and ctx is not None:
        msg += f" (see '{ctx.command_path} --help')"
    return msg


def _version(value: bool) -> None:
    if value:
        import typer

        from dupack import __version__

        typer.echo(f"dupack {__version__}")
        raise typer.Exit()


def _make_app() -> None:
    """The typer app with every command, as the module global ``app``."""
    if "app" in globals():
        return
    _define_classes()
    from typing import Annotated

    import typer
    from typer.core import TyperCommand

    app = typer.Typer(
        cls=globals()["DupackGroup"],
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

    def root(
        version: Annotated[
            bool,
            typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."),
        ] = False,
    ) -> None:
        """dupack: a deterministic discrete-event simulator for TCP loss recovery."""

    # This module's annotations are strings (the __future__ import), which
    # typer resolves in the module's globals.
    globals().update(app=app, typer=typer, Annotated=Annotated)
    app.callback()(root)

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
            info.cls = globals()["DupackCommand"]


_CLASSES = ("ClickException", "UsageError", "Abort", "NoArgsIsHelpError", "DupackGroup", "DupackCommand")


def __getattr__(name: str) -> Any:
    if name == "app":
        _make_app()
    elif name in _CLASSES:
        _define_classes()
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return globals()[name]


if TYPE_CHECKING:
    app: typer.Typer


# --- the plain command lines, without typer ----------------------------------

#: Options of the commands main() runs itself: spelling → (parameter, takes a value).
_RUN_OPTIONS = {
    "--seed": ("seed_text", True),
    "--set": ("overrides", True),
    "-s": ("overrides", True),
    "--out": ("out_text", True),
    "-o": ("out_text", True),
    "--json": ("json_out", False),
    "--quiet": ("quiet", False),
    "-q": ("quiet", False),
    "--trace": ("trace_text", True),
    "-t": ("trace_text", True),
    "--trace-all": ("trace_all", False),
    "--pcap": ("pcap_specs", True),
    "--max-wall": ("max_wall_text", True),
    "--progress": ("progress", False),
}
_VALIDATE_OPTIONS = {"--set": ("overrides", True), "-s": ("overrides", True)}
_SWEEP_OPTIONS = {
    "--vary": ("vary", True),
    "--seeds": ("seeds_text", True),
    "--workers": ("workers_text", True),
    "-j": ("workers_text", True),
    "--out": ("out_text", True),
    "-o": ("out_text", True),
    "--set": ("overrides", True),
    "-s": ("overrides", True),
    "--no-resume": ("no_resume", False),
    "--quiet": ("quiet", False),
    "-q": ("quiet", False),
    "--executor": ("executor_text", True),
    "--mixed-versions": ("mixed_versions", False),
    "--trace": ("trace_text", True),
    "-t": ("trace_text", True),
    "--trace-all": ("trace_all", False),
}
_OPTIONS = {"run": _RUN_OPTIONS, "validate": _VALIDATE_OPTIONS, "sweep": _SWEEP_OPTIONS}
_REPEATABLE = {"overrides", "trace_text", "pcap_specs", "vary"}


def _plain_args(args: list[str], options: dict[str, tuple[str, bool]]) -> dict[str, Any] | None:
    """``FILE`` and ``options`` in their plain spellings → the command's
    keyword arguments (``file`` as it was given); None for anything else
    (typer will parse it)."""
    kwargs: dict[str, Any] = {}
    file = None
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if not arg.startswith("-"):
            if file is not None or not arg:
                return None
            file = arg
            continue
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        spec = options.get(name)
        if spec is None:
            return None  # --help, --, a typo, -qo, -sVALUE: typer's to parse or to report
        param, takes_value = spec
        if not takes_value:
            if eq or param in kwargs:
                return None
            kwargs[param] = True
            continue
        if not eq:
            if i == len(args) or args[i].startswith("-"):
                return None
            value = args[i]
            i += 1
        if param in _REPEATABLE:
            kwargs.setdefault(param, []).append(value)
        elif param in kwargs:
            return None
        else:
            kwargs[param] = value
    if file is None:
        return None
    return {"file": file, **kwargs}


def _plain(args: list[str]) -> Callable[[], None] | None:
    """The command ``args`` asks for, if main() can run it without typer."""
    if args in (["--version"], ["-V"]):

        def version() -> None:
            from dupack import __version__

            sys.stdout.write(f"dupack {__version__}\n")
            sys.stdout.flush()

        return version
    if len(args) < 2 or args[0] not in _OPTIONS:
        return None
    kwargs = _plain_args(args[1:], _OPTIONS[args[0]])
    if kwargs is None:
        return None
    if args[0] == "sweep":
        from dupack.cli import sweep

        return lambda: sweep.sweep_command(**kwargs)
    from dupack.cli import run

    command = run.run_command if args[0] == "run" else run.validate_command
    return lambda: command(**kwargs)


def _leave(code: int) -> None:
    """End the process with ``code`` at once, once what it wrote is out.

    Tearing the interpreter down (freeing every module and object, running
    the garbage collector) takes 10-15 ms after ``dupack run``, a seventh of
    the whole command on the bench dumbbell (docs/performance.md, "The
    dupack command end to end"), and has nothing left to do: the result
    files are closed when the command returns (a sweep's parts are also
    synced and renamed into place, and its Dask client closed), and no
    thread or child process is left. So the plain commands (``--version``,
    ``run``, ``validate``, ``sweep``) and those of :data:`_LEAVE_AFTER`
    flush stdout and stderr and call ``os._exit``. Only for the console
    script (``main()`` without arguments): a caller of ``main(argv)`` in its
    own process keeps its interpreter.
    """
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = _pipe_closed()
    except (OSError, ValueError):  # stdout closed or gone: nothing more to say
        pass
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)


#: The typer commands after which the process also ends at once (:func:`_leave`):
#: they load pandas, pyarrow and matplotlib, whose teardown took a tenth of
#: ``dupack reproduce eplr`` (docs/performance.md, "dupack reproduce end to
#: end"), and when they return their files are closed and no thread or child
#: process of theirs is left.
_LEAVE_AFTER = frozenset({"reproduce", "plot", "report"})


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``dupack``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    # Only the console script ends the process at once (see _leave).
    may_leave = argv is None and not _debug()
    command = _plain(args)
    if command is not None:
        try:
            command()
            code = 0
        except SystemExit as e:
            # rich's answer to EPIPE while printing the summary, as in DupackGroup._run.
            if not isinstance(e.__context__, BrokenPipeError):
                raise
            code = _pipe_closed()
        except BaseException as e:  # noqa: BLE001 - as DupackGroup._run does
            code = _failed(e)
        if may_leave:
            _leave(code)
        sys.exit(code)
    from typer.main import get_command

    cli = get_command(__getattr__("app"))
    if not (may_leave and args[:1] and args[0] in _LEAVE_AFTER):
        cli.main(args=argv, prog_name="dupack")
        return
    try:
        cli.main(prog_name="dupack")
    except SystemExit as e:
        # click ends every command, failed or not, with SystemExit.
        if e.code is None or isinstance(e.code, int):
            _leave(e.code or 0)
        raise
