"""Every user mistake: one `error: ...` line on stderr, exit code 2, no traceback.

Two kinds of case:

* DOC cases change one field of scenarios/quickstart.toml, write the result to
  a temporary file and run it. The message comes from the Rust parser; they
  assert that it is `error: FILE: PATH: ...` with the exact field path, and
  that the offending value (and any did-you-mean hint) appears in it.
* FILE and ARGS cases are handled in Python (file access, TOML syntax,
  nesting depth, overrides, --seed, --out, typer usage errors) and assert on
  our own wording.

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
    # DOC cases: the exact field path the message must name, right after the file.
    path: str | None = None
    # One of: a change to the quickstart document, raw file bytes, or None (use QUICKSTART).
    mutate: Callable[[dict[str, Any]], None] | None = None
    content: bytes | None = None
    args: list[str] = field(default_factory=list)  # extra arguments after FILE
    file: str | None = None  # a path to use instead of a written file ("{tmp}" is replaced)
    commands: tuple[str, ...] = ("validate", "run", "sweep")
    sweep_out: bool = True  # sweep gets "-o DIR" (a new directory) after the case's arguments


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


def set_medium(**keys: Any) -> Callable[[dict[str, Any]], None]:
    """Replace the document by scenarios/efr_wlan.toml, then change keys of its medium."""

    def apply(doc: dict[str, Any]) -> None:
        import tomllib

        doc.clear()
        doc.update(tomllib.loads((QUICKSTART.parent / "efr_wlan.toml").read_text(encoding="utf-8")))
        doc["topology"]["media"][0].update(keys)

    return apply


DOC_CASES = [
    # Unknown keys are rejected (with a did-you-mean from the parser).
    Case("unknown-top-level-key", ["unknown key 'tpc'", "did you mean 'tcp'?"], path="tpc",
         mutate=setter("tpc", {"variant": "reno"})),
    Case("unknown-nested-key", ["unknown key 'durration'", "did you mean 'duration'?"], path="run.durration",
         mutate=setter("run.durration", "10s")),
    # Units are required and checked.
    Case("duration-without-unit", ["the number 10", "unit"], path="run.duration", mutate=setter("run.duration", 10)),
    Case("duration-bad-unit", ['"10 fortnights"', '"fortnights"'], path="run.duration",
         mutate=setter("run.duration", "10 fortnights")),
    Case("zero-rate", ['"0Mbps"'], path="topology.bottleneck.rate", mutate=setter("topology.bottleneck.rate", "0Mbps")),
    Case("rate-without-unit", ["the number 2000000", "unit"], path="topology.bottleneck.rate",
         mutate=setter("topology.bottleneck.rate", 2000000)),
    Case("negative-delay", ['"-5ms"', "negative"], path="topology.bottleneck.delay",
         mutate=setter("topology.bottleneck.delay", "-5ms")),
    # Ranges.
    Case("probability-above-one", ["between 0 and 1", "1.5"], path="topology.bottleneck.fwd_error.p",
         mutate=setter("topology.bottleneck.fwd_error", {"model": "bernoulli", "p": 1.5})),
    Case("zero-mss", ['"0B"'], path="tcp.mss", mutate=setter("tcp.mss", "0B")),
    Case("window-below-mss", ["100 bytes", "mss"], path="receiver.window", mutate=setter("receiver.window", "100B")),
    Case("negative-seed-in-file", ["-1"], path="run.seed", mutate=setter("run.seed", -1)),
    # Enumerations.
    Case("unknown-variant", ["'bogus'", "'newreno'"], path="tcp.variant", mutate=setter("tcp.variant", "bogus")),
    Case("unknown-extension", ["'+bogus'", "'reno+bogus'"], path="flows[1].variant",
         mutate=set_flow(1, "variant", "reno+bogus")),
    Case("unknown-topology", ['"ring"', '"dumbbell"'], path="topology.kind", mutate=setter("topology.kind", "ring")),
    # Types.
    Case("string-for-bool", ["boolean", '"yes"'], path="run.stop_when_done", mutate=setter("run.stop_when_done", "yes")),
    # Files a scenario refers to: a relative trace path is looked up next to the scenario.
    Case("missing-trace-file", ["cannot read trace file", "missing.trace"], path="topology.bottleneck.fwd_trace.file",
         mutate=setter("topology.bottleneck.fwd_trace", {"file": "missing.trace"})),
    Case("arq-negative-retry-limit", ["retry_limit", "-1"], path="topology.bottleneck.arq.retry_limit",
         mutate=setter("topology.bottleneck.arq", {"retry_limit": -1})),
    Case("snoop-unknown-key", ["unknown key 'timeout'", "min_timeout"], path="topology.bottleneck.snoop.timeout",
         mutate=setter("topology.bottleneck.snoop", {"timeout": "10ms"})),
    Case("gilbert-elliott-both-forms", ["not both", "p_gb is given too"], path="topology.bottleneck.fwd_error.mean_bad_packets",
         mutate=setter("topology.bottleneck.fwd_error",
                       {"model": "gilbert_elliott", "p_gb": 0.1, "p_bg": 0.5, "mean_bad_packets": 2})),
    # The shared wireless medium.
    Case("medium-negative-slot", ['"-20us"', "negative"], path="topology.media[0].slot",
         mutate=set_medium(slot="-20us")),
    Case("medium-cw-min-above-cw-max", ["at least cw_min (63)", "got 31"], path="topology.media[0].cw_max",
         mutate=set_medium(cw_min=63, cw_max=31)),
    Case("medium-unknown-station", ["no node named 'mh9'", "did you mean 'mh1'?"], path="topology.media[0].nodes[1]",
         mutate=set_medium(nodes=["ap", "mh9"])),
]

# Nesting: 130 levels is past what the core's JSON reader accepts (128) but
# within tomllib's reach; 3000 is past Python's recursion limit.
DEEP_130 = "[" * 130 + "]" * 130
DEEP_3000 = "[" * 3000 + "]" * 3000

FILE_CASES = [
    Case("missing-file", ["cannot read scenario file", "missing.toml", "No such file"], file="{tmp}/missing.toml"),
    Case("directory", ["cannot read scenario file", "is a directory"], file="{tmp}"),
    Case("toml-syntax", ["bad.toml", "TOML syntax error at line 3, column"], content=b'name = "x"\n[run]\nduration = 10s\n'),
    Case("toml-unterminated", ["bad.toml", "TOML syntax error at line 1", "the end of the file"], content=b"flows = [\n"),
    Case("toml-duplicate-table", ["bad.toml", "TOML syntax error at line 3"], content=b"[run]\nseed = 1\n[run]\n"),
    Case("not-utf8", ["bad.toml", "not UTF-8"], content='name = "caf\xe9"\n'.encode("latin-1")),
    Case("toml-datetime", ["bad.toml", "run.start", "dates and times"], content=b"[run]\nstart = 1979-05-27T07:32:00Z\n"),
    Case("deeply-nested-130", ["bad.toml: x: nested too deeply", "at most 64 levels"],
         content=f"x = {DEEP_130}\n".encode()),
    Case("deeply-nested-3000", ["bad.toml: ", "nested too deeply", "at most 64 levels"],
         content=f"x = {DEEP_3000}\n".encode()),
]

ARG_CASES = [
    Case("override-without-equals", ["-s 'run.duration'", "expected path=value"], args=["-s", "run.duration"]),
    Case("override-empty-path", ["-s '=5'", "path before '=' is empty"], args=["-s", "=5"]),
    Case("override-index-out-of-range", ["topology.access_override[3].senders=[0]", "out of range", "1 element"],
         args=["-s", "topology.access_override[3].senders=[0]"]),
    Case("override-indexes-a-string", ["name[0]=x", "name is a string"], args=["-s", "name[0]=x"]),
    Case("override-double-dot", ["run..seed=1", "empty path segment"], args=["-s", "run..seed=1"]),
    Case("override-nested-130", ["bad override -s 'x=[[[", "the value is nested too deeply", "at most 64 levels"],
         args=["-s", f"x={DEEP_130}"]),
    Case("override-nested-3000", ["bad override -s 'x=[[[", "the value is nested too deeply", "at most 64 levels"],
         args=["-s", f"x={DEEP_3000}"]),
    Case("seed-negative", ["--seed", "'-1'"], args=["--seed", "-1"], commands=("run",)),
    Case("seed-not-an-integer", ["--seed", "'abc'"], args=["--seed", "abc"], commands=("run",)),
    Case("seed-too-large", ["--seed", "'18446744073709551616'"], args=["--seed", str(2**64)], commands=("run",)),
    Case("seed-missing-value", ["--seed"], args=["--seed"], commands=("run",)),
    Case("out-empty", ["--out", "empty path ''"], args=["--out", ""], commands=("run",)),
    Case("out-blank", ["--out", "empty path '  '"], args=["--out", "  "], commands=("run",)),
    Case("unknown-option", ["--frobnicate"], args=["--frobnicate"]),
    # dupack sweep: --vary, --seeds, --workers, --out.
    Case("vary-unknown-path", ["--vary 'tcp.varient=reno,sack'", "unknown key 'varient'", "did you mean 'variant'?"],
         args=["--vary", "tcp.varient=reno,sack"], commands=("sweep",)),
    Case("vary-bad-value", ["--vary 'tcp.variant=reno,bogus'", "the value bogus", "'bogus'", "'newreno'"],
         args=["--vary", "tcp.variant=reno,bogus"], commands=("sweep",)),
    Case("vary-without-equals", ["--vary 'tcp.variant'", "PATH=V1,V2"], args=["--vary", "tcp.variant"],
         commands=("sweep",)),
    Case("vary-empty-value", ["--vary 'run.duration=1s,,2s'", "empty value"], args=["--vary", "run.duration=1s,,2s"],
         commands=("sweep",)),
    Case("vary-bad-path", ["--vary 'run..duration=1s'", "empty path segment"], args=["--vary", "run..duration=1s"],
         commands=("sweep",)),
    Case("vary-same-path-twice", ["--vary 'tcp.variant=sack'", "already varied"],
         args=["--vary", "tcp.variant=reno", "--vary", "tcp.variant=sack"], commands=("sweep",)),
    Case("vary-value-twice", ["--vary 'tcp.variant=reno,reno'", "listed twice"],
         args=["--vary", "tcp.variant=reno,reno"], commands=("sweep",)),
    Case("vary-seed", ["--vary 'run.seed=1,2'", "--seeds"], args=["--vary", "run.seed=1,2"], commands=("sweep",)),
    Case("seeds-reversed-range", ["--seeds", "'5..1'", "empty"], args=["--seeds", "5..1"], commands=("sweep",)),
    Case("seeds-not-a-number", ["--seeds", "'abc'", "1..40"], args=["--seeds", "abc"], commands=("sweep",)),
    Case("seeds-negative", ["--seeds", "'-1..3'", "out of range"], args=["--seeds", "-1..3"], commands=("sweep",)),
    Case("seeds-too-large", ["--seeds", f"'1,{2**64}'", "out of range"], args=["--seeds", f"1,{2**64}"],
         commands=("sweep",)),
    Case("seeds-listed-twice", ["--seeds", "'1..3,2'", "seed 2 is listed twice"], args=["--seeds", "1..3,2"],
         commands=("sweep",)),
    Case("workers-zero", ["--workers", "'0'", ">= 1"], args=["--workers", "0"], commands=("sweep",)),
    Case("workers-not-a-number", ["--workers", "'two'", ">= 1"], args=["--workers", "two"], commands=("sweep",)),
    Case("sweep-out-missing", ["--out", "required"], commands=("sweep",), sweep_out=False),
    Case("sweep-out-is-a-file", ["--out", "is not a directory"], args=["-o", str(QUICKSTART)], commands=("sweep",),
         sweep_out=False),
    Case("sweep-out-under-a-file", ["--out", "cannot write the results", "Not a directory"],
         args=["-o", str(QUICKSTART / "sweep")], commands=("sweep",), sweep_out=False),
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


def check(stderr: str, stdout: str, code: int, case: Case, argv: list[str]) -> None:
    assert code == 2, (code, stderr)
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    if case.path is not None:
        prefix = f"error: {argv[0]}: {case.path}: "
        assert lines[0].startswith(prefix), f"{lines[0]!r} does not start with {prefix!r}"
    for f in case.fragments:
        assert f in lines[0], f"{f!r} not in {lines[0]!r}"
    assert len(lines[0]) < 400, "a message quoting a huge value must shorten it"
    assert stdout == ""


def sweep_out(case: Case, command: str, tmp_path: Path) -> list[str]:
    return ["-o", str(tmp_path / "sweep-out")] if command == "sweep" and case.sweep_out else []


ALL = DOC_CASES + FILE_CASES + ARG_CASES
IN_PROCESS = [pytest.param(c, cmd, id=f"{cmd}-{c.id}") for c in ALL for cmd in c.commands]


def test_there_are_enough_cases():
    assert len(ALL) >= 15


@pytest.mark.parametrize(("case", "command"), IN_PROCESS)
def test_bad_input_in_process(case: Case, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # `run` must not leave dupack-out/ in the repository
    argv = materialise(case, tmp_path)
    r = run_cli(command, *argv, *case.args, *sweep_out(case, command, tmp_path))
    check(r.stderr, r.stdout, r.exit_code, case, argv)
    assert not (tmp_path / "dupack-out").exists()
    assert not (tmp_path / "sweep-out").exists(), "a sweep with bad input must not create its directory"


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in ALL])
def test_bad_input_subprocess(case: Case, tmp_path: Path) -> None:
    command = "run" if "run" in case.commands else case.commands[0]
    argv = materialise(case, tmp_path)
    r = run_subprocess(command, *argv, *case.args, *sweep_out(case, command, tmp_path), cwd=tmp_path)
    check(r.stderr, r.stdout, r.returncode, case, argv)
