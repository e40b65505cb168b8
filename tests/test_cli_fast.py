"""`dupack --version`, `dupack run` and `dupack validate` in their plain
spellings run without typer (dupack.cli.app.main); every such command line
must do exactly what it does through typer: the same exit code, output,
error line and files."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import dupack
from dupack.cli.app import _plain, _plain_args, _RUN_OPTIONS
from tests.conftest import QUICKSTART, ROOT

DUMBBELL = ROOT / "scenarios" / "unfairness-dumbbell.toml"

FAST = "import sys\nfrom dupack.cli.app import main\nmain(sys.argv[1:])\n"
# What the console script and `python -m dupack` run: main() without
# arguments, which ends the process with os._exit once the output is flushed
# (app._leave); the files and every byte of output must be the same.
SCRIPT = "import runpy\nrunpy.run_module('dupack', run_name='__main__')\n"
TYPER = (
    "import sys\nfrom typer.main import get_command\nfrom dupack.cli.app import app\n"
    "get_command(app).main(args=sys.argv[1:], prog_name='dupack')\n"
)


def run(code: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DUPACK_DEBUG"}
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, cwd=cwd, env=env, timeout=600
    )


def unclocked(text: str) -> str:
    """Output without what differs from run to run: the wall time and the
    scratch folder of the captures."""
    text = re.sub(r'("wall_time_s": )[0-9.e-]+', r"\1T", text)
    text = re.sub(r"dupack-pcap-[^/]+", "dupack-pcap-X", text)
    return re.sub(r"[0-9.]+ s wall time", "T s wall time", text)


def files(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` (a sweep's datasets are folders), by its path there."""
    if not directory.is_dir():
        return {}
    return {str(p.relative_to(directory)): content(p) for p in sorted(directory.rglob("*")) if p.is_file()}


def content(p: Path) -> bytes:
    """A file's bytes, less what differs from run to run: the wall time in
    result.json and in a sweep's runs table (whose other columns and
    metadata are compared)."""
    if p.suffix == ".json":
        return unclocked(p.read_text()).encode()
    if p.suffix == ".parquet" and p.parent.name == "runs":
        import pyarrow.parquet as pq

        t = pq.read_table(p)
        return repr((t.schema.metadata, t.drop_columns(["wall_time_s"]).to_pydict())).encode()
    return p.read_bytes()


LINES = [
    ["--version"],
    ["-V"],
    ["validate", str(QUICKSTART)],
    ["validate", str(QUICKSTART), "-s", "run.duration=5s", "--set=tcp.variant=sack"],
    ["validate", str(QUICKSTART), "-s", "tcp.variant=nosuch"],
    ["validate", str(QUICKSTART), "-s", "no equals sign"],
    ["validate", "no-such-file.toml"],
    ["validate", str(ROOT / "tests")],
    ["run", str(QUICKSTART), "-s", "run.duration=2s", "-q", "-o", "OUT"],
    ["run", str(QUICKSTART), "--set", "run.duration=2s", "--seed=7", "--out=OUT"],
    ["run", str(QUICKSTART), "-s", "run.duration=2s", "--json", "-o", "OUT"],
    ["run", str(QUICKSTART), "-s", "run.duration=2s", "--json", "--quiet", "-o", "OUT"],
    ["run", str(DUMBBELL), "-s", "run.duration=2s", "-s", "topology.senders=2", "-t", "f0", "--pcap", "bottleneck:fwd", "-q", "-o", "OUT"],
    ["run", str(DUMBBELL), "-s", "run.duration=2s", "-s", "topology.senders=2", "--trace-all", "-q", "-o", "OUT"],
    ["run", str(DUMBBELL), "-s", "run.duration=2s", "--trace", "nosuch", "-o", "OUT"],
    ["run", str(DUMBBELL), "-s", "run.duration=2s", "--pcap", "nosuch", "-o", "OUT"],
    ["run", str(QUICKSTART), "--seed", "x", "-o", "OUT"],
    ["run", str(QUICKSTART), "--seed=-1", "-o", "OUT"],
    ["run", str(QUICKSTART), "--out=", "-q"],
    ["run", "no-such-file.toml", "-q", "-o", "OUT"],
    ["run", str(QUICKSTART), "-s", "run.duration=-1s", "-q", "-o", "OUT"],
    ["run", str(QUICKSTART), "-s", "run.duration=2s", "--max-wall", "10min", "--progress", "-o", "OUT"],
    ["run", str(QUICKSTART), "--max-wall=abc", "-o", "OUT"],
    ["run", str(QUICKSTART), "--max-wall=-1", "-o", "OUT"],
    ["sweep", str(QUICKSTART), "-s", "run.duration=2s", "--seeds", "1..3", "-j", "2", "-q", "-o", "OUT"],
    ["sweep", str(QUICKSTART), "--set=run.duration=2s", "--vary", "tcp.variant=reno,sack", "--vary=tcp.mss=536B,1000B", "--out=OUT"],
    ["sweep", str(DUMBBELL), "-s", "run.duration=2s", "-s", "topology.senders=2", "-t", "f0", "--seeds=1,2", "-q", "-o", "OUT"],
    ["sweep", str(QUICKSTART), "-s", "run.duration=2s", "--trace-all", "--no-resume", "--mixed-versions", "-q", "-o", "OUT"],
    ["sweep", str(QUICKSTART), "-s", "run.duration=2s", "--seeds", "x", "-o", "OUT"],
    ["sweep", str(QUICKSTART), "-s", "run.duration=2s", "-j", "0", "-o", "OUT"],
    ["sweep", str(QUICKSTART), "-s", "run.duration=2s", "--vary", "tcp.variant=", "-o", "OUT"],
    ["sweep", str(QUICKSTART), "-s", "run.duration=2s", "--executor", "nosuch://x", "-o", "OUT"],
    ["sweep", str(QUICKSTART), "-s", "run.duration=2s", "-q"],
    ["sweep", "no-such-file.toml", "-o", "OUT"],
    ["sweep", str(QUICKSTART)],
]


@pytest.mark.parametrize("line", LINES, ids=lambda a: " ".join(Path(x).name if "/" in x else x for x in a))
def test_plain_lines_do_what_typer_does(line: list[str], tmp_path: Path) -> None:
    assert _plain(line) is not None, "main() should run this line itself"
    results = {}
    for way, code in (("fast", FAST), ("script", SCRIPT), ("typer", TYPER)):
        cwd = tmp_path / way
        cwd.mkdir()
        args = [str(cwd / "o") if a == "OUT" else a for a in line]
        p = run(code, args, cwd)
        text = (p.returncode, unclocked(p.stdout).replace(str(cwd), "DIR"), p.stderr.replace(str(cwd), "DIR"))
        results[way] = (text, files(cwd / "o"), sorted(x.name for x in cwd.iterdir()))
    typer = results["typer"]
    for way in ("fast", "script"):
        fast = results[way]
        assert fast[0] == typer[0], way
        assert fast[2] == typer[2], way
        assert sorted(fast[1]) == sorted(typer[1]), way
        assert [n for n in fast[1] if fast[1][n] != typer[1][n]] == [], way


@pytest.mark.parametrize(
    "line",
    [
        [],
        ["--help"],
        ["run"],
        ["run", "--help"],
        ["run", str(QUICKSTART), "-h"],
        ["run", str(QUICKSTART), "--"],
        ["run", str(QUICKSTART), "-qo", "x"],
        ["run", str(QUICKSTART), "-sx=1"],
        ["run", str(QUICKSTART), "-s"],
        ["run", str(QUICKSTART), "-o", "-q"],
        ["run", str(QUICKSTART), "-q", "-q"],
        ["run", str(QUICKSTART), "--json=yes"],
        ["run", str(QUICKSTART), "--seed", "1", "--seed", "2"],
        ["run", str(QUICKSTART), str(QUICKSTART)],
        ["run", ""],
        ["run", str(QUICKSTART), "--no-such-option"],
        ["validate", str(QUICKSTART), "-q"],
        ["sweep", str(QUICKSTART), "--help"],
        ["sweep", str(QUICKSTART), "-j2"],
        ["sweep", str(QUICKSTART), "--vary"],
        ["sweep", str(QUICKSTART), "-q", "--quiet"],
        ["--version", "run"],
    ],
)
def test_other_lines_go_to_typer(line: list[str]) -> None:
    assert _plain(line) is None


def test_the_plain_spellings() -> None:
    got = _plain_args(["F", "-s", "a=1", "--set=b=2", "--set", "c=3", "--seed=4", "-q", "--json", "-o", "d", "--trace-all"], _RUN_OPTIONS)
    assert got == {
        "file": "F",
        "overrides": ["a=1", "b=2", "c=3"],
        "seed_text": "4",
        "quiet": True,
        "json_out": True,
        "out_text": "d",
        "trace_all": True,
    }
    assert _plain_args(["-t", "f0,f1", "F", "-t", "link:l", "--pcap", "l:rev"], _RUN_OPTIONS) == {
        "file": "F",
        "trace_text": ["f0,f1", "link:l"],
        "pcap_specs": ["l:rev"],
    }


def run_plain(lines: list[list[str]], heavy: tuple[str, ...], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run each command line (FILE: the quickstart, OUT: a folder) through
    main() in one process, each expected to exit 0; stderr then lists the
    modules of ``heavy`` that were imported."""
    code = (
        "import sys\nfrom dupack.cli.app import main\n"
        f"for args in {lines!r}:\n"
        "    args = [sys.argv[1] if a == 'FILE' else sys.argv[2] if a == 'OUT' else a for a in args]\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit as e:\n"
        "        assert e.code == 0, (args, e.code)\n"
        f"print(','.join(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)\n"
    )
    return run(code, [str(QUICKSTART), str(tmp_path / "o")], tmp_path)


def test_plain_lines_import_no_typer(tmp_path: Path) -> None:
    lines = [["--version"], ["validate", "FILE"], ["run", "FILE", "-s", "run.duration=2s", "-q", "-o", "OUT"]]
    p = run_plain(lines, ("typer", "click", "rich", "pydantic", "pandas", "pyarrow", "numpy", "hashlib"), tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == ""
    lines = p.stdout.splitlines()
    assert lines[:2] == [f"dupack {__import__('dupack').__version__}", "ok"]
    assert len(lines) == 3 and lines[2].startswith("estimate: under 0.1 s of wall-clock time"), lines


def test_a_plain_sweep_line_imports_no_typer(tmp_path: Path) -> None:
    lines = [["sweep", "FILE", "-s", "run.duration=2s", "--seeds", "1..2", "-q", "-o", "OUT"]]
    p = run_plain(lines, ("typer", "click", "rich", "pydantic"), tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == ""
    assert (tmp_path / "o" / "runs" / "part-00000.parquet").is_file()


def run_without_site(lines: list[list[str]], modules: tuple[str, ...], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run each command line (FILE: the quickstart, OUT…: folders below
    one) through main() in one interpreter started without `site` (-S),
    whose .pth files may import anything on some installations, with the
    directories that hold dupack and its dependencies on the path instead;
    each is expected to exit 0, and stderr then lists (sorted) the modules
    of ``modules`` that were imported."""
    import dupack

    paths = [str(Path(dupack.__file__).parent.parent), *sys.path[1:]]
    code = (
        f"import sys\nsys.path[:0] = {paths!r}\nfrom dupack.cli.app import main\n"
        f"for args in {lines!r}:\n"
        "    args = [sys.argv[1] if a == 'FILE' else sys.argv[2] + a[3:] if a.startswith('OUT') else a for a in args]\n"
        "    try:\n        main(args)\n    except SystemExit as e:\n        assert e.code == 0, (args, e.code)\n"
        f"print(sorted(m for m in {modules!r} if m in sys.modules), file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DUPACK_DEBUG"}
    return subprocess.run([sys.executable, "-S", "-c", code, str(QUICKSTART), str(tmp_path / "o")],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)


def test_the_plain_lines_import_no_typing(tmp_path: Path) -> None:
    # typing costs 3-4 ms and half a MiB of every command's start-up, copy
    # about 1 ms (the scenario's document is copied without it).
    lines = [["--version"], ["validate", "FILE"], ["run", "FILE", "-s", "run.duration=2s", "-q", "-o", "OUT"],
             ["sweep", "FILE", "-s", "run.duration=2s", "--seeds", "1..2", "-q", "-o", "OUT2"]]
    p = run_without_site(lines, ("typing", "typer", "pandas", "numpy", "pyarrow", "copy"), tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == "[]"


def test_run_and_validate_import_neither_json_nor_re(tmp_path: Path) -> None:
    # json imports re and enum and compiles its patterns: about 7 ms of a
    # `dupack run`; the extension reads and writes the JSON instead
    # (tests/test_json_text.py checks that its text is json's). With -s
    # overrides too, which go through the core and back.
    lines = [["validate", "FILE"], ["run", "FILE", "-s", "run.duration=2s", "--seed", "3", "-q", "-o", "OUT"],
             ["run", "FILE", "-q", "-o", "OUT2"]]
    p = run_without_site(lines, ("json", "re", "enum"), tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == "[]"
    import json

    saved = json.loads((tmp_path / "o" / "result.json").read_text(encoding="utf-8"))
    assert saved["seed"] == 3
    assert json.loads((tmp_path / "o2" / "scenario.json").read_text(encoding="utf-8"))["hash"] == dupack.load(QUICKSTART).hash()


def test_run_and_validate_import_neither_collections_nor_functools(tmp_path: Path) -> None:
    # The collections package (through collections.abc or a named tuple)
    # and functools cost about 1.7 ms of a `dupack run`: the run path checks
    # for a mapping with _collections_abc, which the interpreter has loaded,
    # and dupack.api's Estimate lives in dupack._cost, imported when asked for.
    lines = [["--version"], ["validate", "FILE"], ["run", "FILE", "-s", "run.duration=2s", "-q", "-o", "OUT"]]
    p = run_without_site(lines, ("collections", "functools", "dupack._cost"), tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == "[]"


def test_the_estimate_type_is_dupack_apis_named_tuple() -> None:
    from dupack.api import Estimate, estimate

    e = estimate(QUICKSTART)
    assert type(e) is Estimate and Estimate.__module__ == "dupack.api"
    assert e == (e.wall_s, e.events, e.packets) and e._fields == ("wall_s", "events", "packets")
    assert e.events > 0 and e.packets > 0
    import pickle

    assert pickle.loads(pickle.dumps(e)) == e


def test_a_sweep_of_seeds_imports_neither_json_nor_re_nor_pathlib(tmp_path: Path) -> None:
    # A sweep of one job should start as fast as `dupack run`; pathlib brings
    # re, urllib.parse and ipaddress along (dupack/sweep_store.py), the
    # collections package a millisecond (as for `dupack run`, above). Into a
    # new directory, then again from scratch into the same one (--no-resume).
    # Nor what a quiet sweep that only runs and stores does not use: fcntl
    # (the directory's lock is taken by the extension), the progress
    # display and the statistics over seeds (a quarter of a millisecond
    # each).
    sweep = ["sweep", "FILE", "-s", "run.duration=2s", "--seeds", "1..2", "-j", "1", "-q", "-o", "OUT"]
    unused = ("json", "re", "enum", "pathlib", "collections", "fcntl", "dupack.cli.progress", "dupack.sweep_stats")
    p = run_without_site([sweep, [*sweep, "--no-resume"]], unused, tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == "[]"
    stored = dupack.SweepResult.load(tmp_path / "o")
    assert list(stored.runs["seed"]) == [1, 2] and stored.out == tmp_path / "o"
    direct = dupack.sweep(QUICKSTART, seeds=[1, 2], overrides=["run.duration=2s"], progress=False)
    assert stored.flows.equals(direct.flows)


def test_the_dupack_script_is_the_packages_own() -> None:
    # pip's generated launcher imports re; the wheel ships its own script
    # (packaging/dupack.data/scripts/dupack) for the `dupack` command.
    script = ROOT / "packaging" / "dupack.data" / "scripts" / "dupack"
    text = script.read_text(encoding="utf-8")
    assert text.startswith("#!python\n")
    code = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert code == ["import sys", "from dupack.cli.app import main", 'if __name__ == "__main__":', "    sys.exit(main())"]
    # The installed command beside the interpreter (pip install .): that script.
    installed = shutil.which("dupack", path=str(Path(sys.executable).parent))
    if installed is not None:
        lines = Path(installed).read_text(encoding="utf-8", errors="replace").splitlines()
        assert lines[0].startswith("#!/") and "import re" not in lines


def test_the_quick_exit_flushes_what_was_written_and_keeps_the_code(tmp_path: Path) -> None:
    # os._exit skips the interpreter's own flushing at exit: _leave must do it.
    # Buffered streams, as a user's shell gives them (not PYTHONUNBUFFERED).
    env = {k: v for k, v in os.environ.items() if k not in ("DUPACK_DEBUG", "PYTHONUNBUFFERED")}
    code = "import sys\nfrom dupack.cli.app import _leave\nsys.stdout.write('out, unflushed')\nsys.stderr.write('err')\n_leave(3)\n"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert (p.returncode, p.stdout, p.stderr) == (3, "out, unflushed", "err")
    # The reader of stdout gone: exit 141, as for SIGPIPE, and nothing on stderr.
    code = "import sys\nfrom dupack.cli.app import _leave\nsys.stdout.write('x' * 1000)\n_leave(0)\n"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env)
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 141, stderr
    assert stderr == ""


@pytest.mark.parametrize(
    "args",
    [
        ["reproduce", "eplr", "--seeds", "2", "-q", "-o", "{out}"],
        ["reproduce", "nosuch", "-o", "{out}"],
        ["reproduce", "eplr", "--seeds", "0", "-o", "{out}"],
        ["plot", "bars", "{missing}", "-o", "{out}/x.png"],
    ],
    ids=["reproduce", "unknown-paper", "bad-seeds", "plot-error"],
)
def test_typer_commands_that_end_at_once_do_what_they_do_through_typer(tmp_path: Path, args: list[str]) -> None:
    # reproduce, plot and report end the process with os._exit after typer
    # returns (app._LEAVE_AFTER): the same code, output, error line and files.
    got = {}
    for name, code in (("script", SCRIPT), ("typer", TYPER)):
        out = tmp_path / name
        line = [a.format(out=out, missing=tmp_path / "no-such-run") for a in args]
        p = run(code, line, tmp_path)
        written = files(out)
        tables = {k: v for k, v in written.items() if k.endswith(".csv")}
        got[name] = (p.returncode, p.stdout, p.stderr.replace(str(out), "OUT"), sorted(written), tables)
    assert got["script"] == got["typer"]
    if args[1] == "eplr" and args[3] == "2":
        code, _, stderr, names, tables = got["script"]
        assert code == 0, stderr
        assert {"report.html", "claims.csv", "figures/fig6_timeouts.svg", "tables/umts.csv"} <= set(names)
        assert tables["claims.csv"].count(b"\n") > 5
    else:
        assert got["script"][0] == 2 and got["script"][2].startswith("error: ")


@pytest.mark.parametrize(
    ("args", "leaves"),
    [
        (["reproduce", "nosuch"], True),
        (["plot", "bars", "no-such-run"], True),
        (["report", "no-such-run"], True),
        (["run", "--help"], False),  # typer's, but not one of _LEAVE_AFTER: the interpreter's own exit
    ],
    ids=["reproduce", "plot", "report", "run-help"],
)
def test_reproduce_plot_and_report_skip_the_interpreters_teardown(tmp_path: Path, args: list[str], leaves: bool) -> None:
    # An atexit handler runs at the interpreter's normal exit and not after os._exit.
    code = "import atexit, sys\natexit.register(lambda: sys.stderr.write('[teardown]'))\n" + SCRIPT
    p = run(code, args, tmp_path)
    assert p.returncode == (2 if leaves else 0), p.stderr
    assert ("[teardown]" in p.stderr) is not leaves
