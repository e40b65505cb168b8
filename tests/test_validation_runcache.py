"""validation/runcache.py gives a peer program's run back only when the very
same run is asked for again: the same program (its files' digests and
version), the same arguments, the same input files' contents."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from validation import runcache

# A stand-in peer program: counts its runs in a file, prints its arguments
# and what it read, writes an output file.
PROGRAM = """\
import os, sys
args = dict(a.split("=", 1) for a in sys.argv[1:])
with open(os.environ["FAKE_COUNT"], "a") as f:
    f.write("x")
text = open(args["input"]).read() if "input" in args else ""
if args.get("fail"):
    sys.exit("asked to fail")
open(args["out"], "w").write("written for " + args["n"] + " " + text)
print("ran with n=" + args["n"], text)
"""


@pytest.fixture
def kept(tmp_path: Path) -> Iterator[Path]:
    saved = runcache.DIR, runcache.FRESH, runcache.counts.copy()
    runcache.DIR, runcache.FRESH = tmp_path / "kept", False
    runcache.counts.clear()
    yield tmp_path / "kept"
    runcache.DIR, runcache.FRESH = saved[0], saved[1]
    runcache.counts.clear()
    runcache.counts.update(saved[2])


class Fake:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.program = tmp / "prog.py"
        self.program.write_text(PROGRAM)
        self.count = tmp / "count"

    def runs(self) -> int:
        return len(self.count.read_text()) if self.count.exists() else 0

    def __call__(self, out: Path, **extra: str) -> str:
        import subprocess

        args = {"out": str(out), **extra}
        ident = runcache.identity("fake", "1.0", [self.program])

        def execute() -> str:
            p = subprocess.run([sys.executable, str(self.program), *(f"{k}={v}" for k, v in args.items())],
                               capture_output=True, text=True, env={**os.environ, "FAKE_COUNT": str(self.count)})
            if p.returncode:
                raise RuntimeError(p.stderr)
            return p.stdout

        return runcache.run(ident, args, execute, inputs=[k for k in ("input",) if k in args], outputs=["out"])


def test_without_a_directory_every_run_is_made(tmp_path: Path) -> None:
    saved = runcache.DIR
    runcache.DIR = None
    try:
        fake = Fake(tmp_path)
        for _ in range(2):
            assert fake(tmp_path / "o", n="1").startswith("ran with n=1")
        assert fake.runs() == 2
    finally:
        runcache.DIR = saved


def test_the_same_run_is_given_back_with_its_output_files(kept: Path, tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    first = fake(tmp_path / "a.out", n="7")
    assert fake.runs() == 1
    # Asked again, with the output going elsewhere: nothing runs, the same
    # stdout comes back and the output file is written as the run wrote it.
    again = fake(tmp_path / "b.out", n="7")
    assert again == first
    assert fake.runs() == 1
    assert (tmp_path / "b.out").read_text() == (tmp_path / "a.out").read_text() == "written for 7 "
    assert runcache.summary(runcache.counts) == {"fake": [1, 1]}


def test_another_argument_input_or_program_runs_again(kept: Path, tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    inp = tmp_path / "in.txt"
    inp.write_text("alpha")
    fake(tmp_path / "o", n="1", input=str(inp))
    fake(tmp_path / "o", n="2", input=str(inp))  # another argument
    assert fake.runs() == 2
    other = tmp_path / "elsewhere.txt"
    other.write_text("alpha")
    fake(tmp_path / "o", n="2", input=str(other))  # the same contents at another path: the same run
    assert fake.runs() == 2
    other.write_text("beta")
    assert "beta" in fake(tmp_path / "o", n="2", input=str(other))  # other contents
    assert fake.runs() == 3
    fake.program.write_text(PROGRAM + "\n# a changed program\n")
    fake(tmp_path / "o", n="2", input=str(other))
    assert fake.runs() == 4
    ident = runcache.identity("fake", "1.0", [fake.program])
    assert runcache.identity("fake", "1.1", [fake.program]) != ident  # another version
    assert runcache.summary(runcache.counts) == {"fake": [1, 4]}


def test_a_failed_run_is_not_kept(kept: Path, tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="asked to fail"):
            fake(tmp_path / "o", n="1", fail="1")
    assert fake.runs() == 2
    assert not list(kept.rglob("*.pkl"))


def test_fresh_runs_again_and_keeps_the_new_run(kept: Path, tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    fake(tmp_path / "o", n="1")
    runcache.FRESH = True
    fake(tmp_path / "o", n="1")
    assert fake.runs() == 2
    runcache.FRESH = False
    fake(tmp_path / "o", n="1")
    assert fake.runs() == 2
    assert len(list(kept.rglob("*.pkl"))) == 1


def test_a_damaged_entry_is_run_again(kept: Path, tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    fake(tmp_path / "o", n="1")
    (entry,) = kept.rglob("*.pkl")
    entry.write_bytes(entry.read_bytes()[:10])
    fake(tmp_path / "o", n="1")
    assert fake.runs() == 2
    fake(tmp_path / "o", n="1")
    assert fake.runs() == 2


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (`ns`) is not installed")
def test_ns2_runs_are_given_back_identical(kept: Path) -> None:
    from validation import s3_dumbbell
    from validation.peers import PEERS

    doc = s3_dumbbell.doc(4, 0.01, "newreno", 5.0)
    first = PEERS["ns2"].greedy(doc, 3)
    assert runcache.summary(runcache.counts) == {"ns-2": [0, 1]}
    assert PEERS["ns2"].greedy(doc, 3) == first
    assert runcache.summary(runcache.counts) == {"ns-2": [1, 1]}
    PEERS["ns2"].greedy(doc, 4)  # another seed is another run
    assert runcache.summary(runcache.counts) == {"ns-2": [1, 2]}


def test_entries_are_compressed_and_uncompressed_ones_still_read(kept: Path, tmp_path: Path) -> None:
    import pickle
    import zlib

    fake = Fake(tmp_path)
    fake(tmp_path / "o", n="1")
    (entry,) = kept.rglob("*.pkl")
    raw = zlib.decompress(entry.read_bytes())
    assert pickle.loads(raw)["stdout"].startswith("ran with n=1")
    entry.write_bytes(raw)  # as the first entries were kept
    fake(tmp_path / "o", n="1")
    assert fake.runs() == 1


def test_a_program_is_the_same_in_another_directory(tmp_path: Path) -> None:
    # A checkout elsewhere (a worktree, CI) keys its peers' runs alike: names and contents, not paths.
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "mirror.tcl").write_text("set x 1\n")
        (tmp_path / d / "ns").write_bytes(b"\x7fELF")
    one = runcache.identity("ns-2", "2.35", [tmp_path / "a" / "mirror.tcl", tmp_path / "a" / "ns"])
    assert one == runcache.identity("ns-2", "2.35", [tmp_path / "b" / "mirror.tcl", tmp_path / "b" / "ns"])
    (tmp_path / "b" / "mirror.tcl").write_text("set x 2\n")
    assert one != runcache.identity("ns-2", "2.35", [tmp_path / "b" / "mirror.tcl", tmp_path / "b" / "ns"])


def test_an_ns3_program_is_the_same_wherever_the_wheel_is_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Kept runs are committed (validation/peer-runs): one made against the wheel in a virtual
    # environment must serve a checkout whose wheel is in the interpreter's own site-packages.
    from bench import ns3build

    monkeypatch.setenv("DUPACK_NS3_CACHE", str(tmp_path / "builds"))
    wheels = []
    for d in ("venv", "site"):
        lib = tmp_path / d / "ns3" / "lib64"
        lib.mkdir(parents=True)
        (lib / "libns3.44-core.so").write_bytes(b"")
        wheels.append(tmp_path / d / "ns3")
    src = tmp_path / "lossy_flow.cc"
    src.write_text("int main() {}\n")
    assert ns3build.program_id(src, wheels[0]) == ns3build.program_id(src, wheels[1])
    # The executable itself is not shared: its run path points into its wheel.
    assert ns3build.exe_path(src, wheels[0]) != ns3build.exe_path(src, wheels[1])
    # Everything else the build reads still makes another program.
    other = tmp_path / "site" / "ns3" / "lib64"
    (other / "libns3.44-core.so").rename(other / "libns3.45-core.so")
    assert ns3build.program_id(src, wheels[0]) != ns3build.program_id(src, wheels[1])
    src_id = ns3build.program_id(src, wheels[0])
    src.write_text("int main() { return 1; }\n")
    assert ns3build.program_id(src, wheels[0]) != src_id


def test_ns2_is_keyed_by_its_scripts_and_executable() -> None:
    from validation import common

    common.ns2_identity.cache_clear()
    ident = common.ns2_identity()
    # Threads that ask at once get the same identity (it was once built twice into one list).
    from concurrent.futures import ThreadPoolExecutor

    common.ns2_identity.cache_clear()
    with ThreadPoolExecutor(4) as pool:
        assert set(pool.map(lambda _: common.ns2_identity(), range(8))) == {ident}
    names = [part.split(":")[0] for part in ident[2:]]
    assert ident[0] == "ns-2" and names[-1] in ("ns", "null")
    assert names[:-1] == ["tcp_bench.tcl", "fall_floyd.tcl", "mirror.tcl", "snoop.tcl"]


def test_runs_unused_for_days_are_pruned(kept: Path, tmp_path: Path) -> None:
    # Three kept runs: one made long ago and never asked for again, one made
    # long ago and given back just now, one made now. Pruning what has not
    # been used for a day removes only the first (and a leftover temporary
    # file as old); the others are given back without running.
    fake = Fake(tmp_path)
    for n in ("1", "2", "3"):
        fake(tmp_path / "o", n=n)
    entries = {p.name: p for p in kept.glob("*/*.pkl")}
    assert len(entries) == 3
    old = os.stat(next(iter(entries.values()))).st_mtime - 3 * 86400
    by_n = {}
    for n in ("1", "2", "3"):
        k = runcache.key(runcache.identity("fake", "1.0", [fake.program]), {"out": "x", "n": n}, outputs=["out"])
        by_n[n] = kept / k[:2] / f"{k}.pkl"
    for n in ("1", "2"):
        os.utime(by_n[n], (old, old))
    leftover = by_n["1"].parent / ".tmp-leftover"
    leftover.write_bytes(b"half")
    os.utime(leftover, (old, old))
    fake(tmp_path / "o", n="2")  # given back: used now
    assert fake.runs() == 3
    removed, freed = runcache.prune(kept, 1.0)
    assert removed == 2 and freed > 0
    assert not by_n["1"].exists() and not leftover.exists() and by_n["2"].exists() and by_n["3"].exists()
    for n in ("2", "3"):
        fake(tmp_path / "o", n=n)
    assert fake.runs() == 3
    fake(tmp_path / "o", n="1")
    assert fake.runs() == 4
    assert runcache.prune(tmp_path / "nothing-here", 1.0) == (0, 0)


def test_prune_kept_runs_nothing_else(kept: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    from validation import run as vrun

    monkeypatch.setattr(vrun, "KEPT_RUNS", kept)
    monkeypatch.setattr(vrun, "KEPT_WITH_FILES", tmp_path / "with-files")
    fake = Fake(tmp_path)
    fake(tmp_path / "o", n="1")
    assert vrun.main(["--prune-kept", "0"]) == 0
    assert "removed 1 kept runs unused for 0 days" in capsys.readouterr().err
    assert not list(kept.glob("*/*.pkl"))
    assert vrun.main(["--prune-kept", "-1"]) == 2
    assert "--prune-kept must be a number of days >= 0" in capsys.readouterr().err


def test_runs_that_write_files_are_kept_apart(kept: Path, tmp_path: Path) -> None:
    # The repository keeps the runs whose output is their stdout; those that write trace files (hundreds
    # of MB over a full validation) go to FILES_DIR, outside it, and are given back from there.
    saved = runcache.FILES_DIR
    runcache.FILES_DIR = tmp_path / "with-files"
    try:
        fake = Fake(tmp_path)
        assert fake(tmp_path / "o", n="1").startswith("ran with n=1")
        assert list(runcache.FILES_DIR.glob("*/*.pkl")) and not list(kept.glob("*/*.pkl"))
        (tmp_path / "o").unlink()
        assert fake(tmp_path / "o", n="1").startswith("ran with n=1") and fake.runs() == 1
        assert (tmp_path / "o").read_text() == "written for 1 "
        stdout_only = runcache.run(runcache.identity("fake", "1.0", [fake.program]), {"n": "2"}, lambda: "printed")
        assert stdout_only == "printed" and len(list(kept.glob("*/*.pkl"))) == 1
        assert runcache.run(runcache.identity("fake", "1.0", [fake.program]), {"n": "2"}, lambda: "again") == "printed"
    finally:
        runcache.FILES_DIR = saved
