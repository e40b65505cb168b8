"""The bad-input catalogue in tests/bad_inputs/, run through the real CLI.

Two kinds of case, one table:

* every ``tests/bad_inputs/*.toml`` is a scenario file that must be refused;
  its first comment lines say how: ``# error: FRAGMENT`` (required) and
  ``# command: validate`` (default; ``run``, ``sweep -o {tmp}/out``, ...);
* every ``[[case]]`` of ``tests/bad_inputs/commands.toml`` is a command line
  (``args``, optional ``env``) with its ``error`` fragment.

Each must give exit code 2 (``code`` overrides it), exactly one line on
stderr starting with ``error:`` and containing the fragment, printable and
of bounded length, no traceback and nothing on stdout. The CLI runs as a
subprocess of this interpreter (``python -m dupack``), as users run it.
"""

from __future__ import annotations

import os
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import QUICKSTART, ROOT, run_subprocess

HERE = Path(__file__).resolve().parent / "bad_inputs"
BOM = b"\xef\xbb\xbf"


@dataclass
class Case:
    id: str
    args: list[str]
    error: str
    code: int = 2
    env: dict[str, str] = field(default_factory=dict)


def _file_case(path: Path) -> Case:
    head: dict[str, str] = {}
    raw = path.read_bytes()
    raw = raw[len(BOM) :] if raw.startswith(BOM) else raw
    for line in raw.split(b"\n"):
        if not line.startswith(b"# "):
            break
        key, _, value = line[2:].decode("utf-8").partition(": ")
        head.setdefault(key.strip(), value.strip())
    assert "error" in head, f"{path.name}: the first line must be '# error: FRAGMENT'"
    command = shlex.split(head.get("command", "validate"))
    return Case(path.stem, [command[0], str(path), *command[1:]], head["error"])


def _command_cases() -> list[Case]:
    doc = tomllib.loads((HERE / "commands.toml").read_text(encoding="utf-8"))
    return [
        Case(c["id"], list(c["args"]), c["error"], int(c.get("code", 2)), dict(c.get("env", {})))
        for c in doc["case"]
    ]


CASES = [_file_case(p) for p in sorted(HERE.glob("*.toml")) if p.name != "commands.toml"] + _command_cases()


def test_the_catalogue_is_large_and_its_ids_are_unique() -> None:
    assert len(CASES) >= 60
    ids = [c.id for c in CASES]
    assert len(set(ids)) == len(ids)


@pytest.fixture(scope="module")
def finished_sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("sweep") / "done"
    r = run_subprocess("sweep", str(QUICKSTART), "-q", "-o", str(d), "-s", "run.duration=1s")
    assert r.returncode == 0, r.stderr
    return d


def _expand(arg: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if "{fifo}" in arg:
        fifo = tmp_path / "pipe.toml"
        if not hasattr(os, "mkfifo"):
            pytest.skip("no named pipes here")
        if not fifo.exists():
            os.mkfifo(fifo)
        arg = arg.replace("{fifo}", str(fifo))
    if "{big}" in arg:
        big = tmp_path / "big.toml"
        with open(big, "wb") as f:  # sparse: 17 MiB of NULs, none written
            f.truncate(17 << 20)
        arg = arg.replace("{big}", str(big))
    if "{sweep}" in arg:
        arg = arg.replace("{sweep}", str(request.getfixturevalue("finished_sweep")))
    return (
        arg.replace("{scenarios}", str(ROOT / "scenarios")).replace("{here}", str(HERE)).replace("{tmp}", str(tmp_path))
    )


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_bad_input(case: Case, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    args = [_expand(a, tmp_path, request) for a in case.args]
    work = tmp_path / "cwd"  # `run` writes dupack-out/ here if it gets that far
    work.mkdir()
    r = run_subprocess(*args, cwd=work, env=case.env)
    assert r.returncode == case.code, (r.returncode, r.stderr[:1000])
    assert "Traceback" not in r.stderr, r.stderr[-2000:]
    lines = r.stderr.rstrip("\n").split("\n")
    assert len(lines) == 1, r.stderr[:1000]
    line = lines[0]
    assert line.startswith("error: "), line
    assert case.error in line, f"{case.error!r} not in {line!r}"
    assert len(line) < 600, f"{len(line)} characters: {line[:300]}"
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in line), repr(line)
    assert r.stdout == ""
    assert not (work / "dupack-out").exists()
