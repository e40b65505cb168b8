"""Every user mistake: one `error: ...` line on stderr, exit code 2, no traceback.

Two kinds of case:

* DOC cases change one field of scenarios/quickstart.toml, write the result to
  a temporary file and run it. The message comes from the Rust parser, so
  they assert only that the field path and the offending value appear in it.
  These need the real parser (the stub in a fresh worktree rejects every
  scenario with "parser not implemented").
* FILE and ARGS cases are handled in Python (file access, TOML syntax,
  overrides, --seed, typer usage errors) and assert on our own wording.

Each case runs through CliRunner for both `validate` and `run`, and through a
real subprocess for `run`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import QUICKSTART, dump_toml, run_cli, run_subprocess


@dataclass
class Case:
    id: str
    fragments: list[str]
    # One of: a change to the quickstart document, raw file bytes, or None (use QUICKSTART).
    mutate: Callable[[dict[str, Any]], None] | None = None
    content: bytes | None = None
    args: list[str] = field(default_factory=list)  # extra arguments after FILE
    file: str | None = None  # a path to use instead of a written file ("{tmp}" is replaced)
    commands: tuple[str, ...] = ("validate", "run")


def setter(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node = doc
        for p in parents:
            node = node.setdefault(p, {})
        node[last] = value

    return apply


def set_flow(i: int, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """Write out the dumbbell's default flows (f{i}: s{i} -> sink), then change flow i."""

    def apply(doc: dict[str, Any]) -> None:
        n = doc["topology"]["senders"]
        doc.setdefault("flows", [{"name": f"f{j}", "from": f"s{j}"} for j in range(n)])
        doc["flows"][i][key] = value

    return apply


DOC_CASES = [
    # Unknown keys are rejected (with a did-you-mean from the parser).
    Case("unknown-top-level-key", ["tpc"], mutate=setter("tpc", {"variant": "reno"})),
    Case("unknown-nested-key", ["run.durration"], mutate=setter("run.durration", "10s")),
    # Units are required and checked.
    Case("duration-without-unit", ["run.duration", "10"], mutate=setter("run.duration", 10)),
    Case("duration-bad-unit", ["run.duration", "10 fortnights"], mutate=setter("run.duration", "10 fortnights")),
    Case("zero-rate", ["topology.bottleneck.rate", "0Mbps"], mutate=setter("topology.bottleneck.rate", "0Mbps")),
    Case("rate-without-unit", ["topology.bottleneck.rate", "2000000"], mutate=setter("topology.bottleneck.rate", 2000000)),
    Case("negative-delay", ["topology.bottleneck.delay", "-5ms"], mutate=setter("topology.bottleneck.delay", "-5ms")),
    # Ranges.
    Case("probability-above-one", ["topology.bottleneck.fwd_error.p", "1.5"],
         mutate=setter("topology.bottleneck.fwd_error", {"model": "bernoulli", "p": 1.5})),
    Case("zero-mss", ["tcp.mss", "0B"], mutate=setter("tcp.mss", "0B")),
    Case("window-below-mss", ["receiver.window", "100 bytes", "mss"], mutate=setter("receiver.window", "100B")),
    Case("negative-seed-in-file", ["run.seed", "-1"], mutate=setter("run.seed", -1)),
    # Enumerations.
    Case("unknown-variant", ["tcp.variant", "bogus"], mutate=setter("tcp.variant", "bogus")),
    Case("unknown-extension", ["flows", "variant", "reno+bogus"], mutate=set_flow(1, "variant", "reno+bogus")),
    Case("unknown-topology", ["topology.kind", "ring"], mutate=setter("topology.kind", "ring")),
    # Types.
    Case("string-for-bool", ["run.stop_when_done", "yes"], mutate=setter("run.stop_when_done", "yes")),
]

FILE_CASES = [
    Case("missing-file", ["cannot read scenario file", "missing.toml", "No such file"], file="{tmp}/missing.toml"),
    Case("directory", ["cannot read scenario file", "is a directory"], file="{tmp}"),
    Case("toml-syntax", ["bad.toml", "TOML syntax error at line 3, column"], content=b'name = "x"\n[run]\nduration = 10s\n'),
    Case("toml-unterminated", ["bad.toml", "TOML syntax error at the end of the file"], content=b"flows = [\n"),
    Case("toml-duplicate-table", ["bad.toml", "TOML syntax error at line 3"], content=b"[run]\nseed = 1\n[run]\n"),
    Case("not-utf8", ["bad.toml", "not UTF-8"], content='name = "caf\xe9"\n'.encode("latin-1")),
    Case("toml-datetime", ["bad.toml", "run.start", "dates and times"], content=b"[run]\nstart = 1979-05-27T07:32:00Z\n"),
]

ARG_CASES = [
    Case("override-without-equals", ["-s 'run.duration'", "expected path=value"], args=["-s", "run.duration"]),
    Case("override-empty-path", ["-s '=5'", "path before '=' is empty"], args=["-s", "=5"]),
    Case("override-index-out-of-range", ["topology.access_override[3].senders=[0]", "out of range", "1 element"],
         args=["-s", "topology.access_override[3].senders=[0]"]),
    Case("override-indexes-a-string", ["name[0]=x", "name is a string"], args=["-s", "name[0]=x"]),
    Case("override-double-dot", ["run..seed=1", "empty path segment"], args=["-s", "run..seed=1"]),
    Case("seed-negative", ["--seed", "'-1'"], args=["--seed", "-1"], commands=("run",)),
    Case("seed-not-an-integer", ["--seed", "'abc'"], args=["--seed", "abc"], commands=("run",)),
    Case("seed-too-large", ["--seed", "'18446744073709551616'"], args=["--seed", str(2**64)], commands=("run",)),
    Case("seed-missing-value", ["--seed"], args=["--seed"], commands=("run",)),
    Case("unknown-option", ["--frobnicate"], args=["--frobnicate"]),
    Case("extra-argument", ["unexpected extra argument", "other.toml"], args=["other.toml"]),
]


def materialise(case: Case, tmp_path: Path) -> list[str]:
    """The scenario file argument for a case."""
    if case.file is not None:
        return [case.file.replace("{tmp}", str(tmp_path))]
    if case.content is not None:
        p = tmp_path / "bad.toml"
        p.write_bytes(case.content)
        return [str(p)]
    if case.mutate is not None:
        import tomllib

        doc = copy.deepcopy(tomllib.loads(QUICKSTART.read_text(encoding="utf-8")))
        case.mutate(doc)
        p = tmp_path / "bad.toml"
        p.write_text(dump_toml(doc), encoding="utf-8")
        return [str(p)]
    return [str(QUICKSTART)]


def check(stderr: str, stdout: str, code: int, case: Case) -> None:
    assert code == 2, (code, stderr)
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    for f in case.fragments:
        assert f in lines[0], f"{f!r} not in {lines[0]!r}"
    assert stdout == ""


ALL = DOC_CASES + FILE_CASES + ARG_CASES
IN_PROCESS = [pytest.param(c, cmd, id=f"{cmd}-{c.id}") for c in ALL for cmd in c.commands]


def test_there_are_enough_cases():
    assert len(ALL) >= 15


@pytest.mark.parametrize(("case", "command"), IN_PROCESS)
def test_bad_input_in_process(case: Case, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # `run` must not leave dupack-out/ in the repository
    r = run_cli(command, *materialise(case, tmp_path), *case.args)
    check(r.stderr, r.stdout, r.exit_code, case)
    assert not (tmp_path / "dupack-out").exists()


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in ALL])
def test_bad_input_subprocess(case: Case, tmp_path: Path) -> None:
    command = "run" if "run" in case.commands else case.commands[0]
    r = run_subprocess(command, *materialise(case, tmp_path), *case.args, cwd=tmp_path)
    check(r.stderr, r.stdout, r.returncode, case)
