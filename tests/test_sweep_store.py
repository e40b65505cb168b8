"""The sweep store under concurrent writers, crashes and damaged files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import dupack
from dupack.sweeps import SweepError, SweepResult
from tests.conftest import QUICKSTART, run_subprocess

fcntl = pytest.importorskip("fcntl")

SHORT = ["-s", "run.duration=1s"]


def short() -> dupack.Scenario:
    return dupack.load(QUICKSTART).with_overrides(["run.duration=1s"])


def one_error_line(r: subprocess.CompletedProcess[str], code: int, *fragments: str) -> None:
    assert r.returncode == code, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])


def test_a_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    assert run_subprocess("sweep", str(QUICKSTART), "-q", "-o", str(out), *SHORT, "--seeds", "1").returncode == 0
    fd = os.open(out / ".lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a running sweep holds it
    try:
        r = run_subprocess("sweep", str(QUICKSTART), "-q", "-o", str(out), *SHORT, "--seeds", "1")
        one_error_line(r, 2, "is being written by another dupack sweep")
    finally:
        os.close(fd)
    # The lock dies with its holder: the same command now goes through.
    r = run_subprocess("sweep", str(QUICKSTART), "-q", "-o", str(out), *SHORT, "--seeds", "1")
    assert r.returncode == 0, r.stderr


def test_the_directory_lock_is_an_flock_that_no_child_inherits(tmp_path: Path) -> None:
    from dupack import _core

    path = str(tmp_path / ".lock")
    fd = _core.lock_file(path)
    assert isinstance(fd, int)
    assert not os.get_inheritable(fd)  # a worker process started meanwhile does not hold it
    assert os.stat(path).st_mode & 0o777 == 0o644 & ~_umask()
    other = os.open(path, os.O_RDWR)
    try:
        with pytest.raises(BlockingIOError):  # what another process's flock meets
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(BlockingIOError):  # and another lock_file
            _core.lock_file(path)
        os.close(fd)  # closing the descriptor releases it
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(BlockingIOError):
            _core.lock_file(path)
    finally:
        os.close(other)
    # A lock file that cannot be made fails as os.open would: the subclass, errno, message and name.
    missing = str(tmp_path / "gone" / ".lock")
    with pytest.raises(FileNotFoundError) as e:
        _core.lock_file(missing)
    assert (e.value.errno, e.value.strerror, e.value.filename) == (2, os.strerror(2), missing)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_the_lock_of_a_killed_sweep_is_released(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    out.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT);"
         "fcntl.flock(fd, fcntl.LOCK_EX); print('locked', flush=True); time.sleep(600)", str(out / ".lock")],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        r = run_subprocess("sweep", str(QUICKSTART), "-q", "-o", str(out), *SHORT)
        one_error_line(r, 2, "is being written by another dupack sweep")
    finally:
        holder.kill()
        holder.wait()
    assert run_subprocess("sweep", str(QUICKSTART), "-q", "-o", str(out), *SHORT).returncode == 0


def test_two_sweeps_started_together_leave_every_job_once(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    args = [sys.executable, "-m", "dupack", "sweep", str(QUICKSTART), "-q", "-o", str(out), *SHORT, "--seeds", "1..12"]
    env = {k: v for k, v in os.environ.items() if k != "DUPACK_DEBUG"}
    procs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    results = [(p.wait(timeout=600), p.stderr.read() if p.stderr else "") for p in procs]
    codes = sorted(code for code, _ in results)
    # Either both ran one after the other, or one was refused with one line.
    assert codes in ([0, 0], [0, 2]), results
    for code, err in results:
        if code == 2:
            assert "is being written by another dupack sweep" in err, err
    # Whatever happened, the same command completes the sweep, each job once.
    r = run_subprocess(*args[3:])
    assert r.returncode == 0, r.stderr
    res = SweepResult.load(out)
    assert sorted(res.runs["job"]) == list(range(12))


def test_load_reports_duplicated_jobs(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    dupack.sweep(short(), None, range(1, 5), workers=1, out=out, chunk_seconds=0)
    parts = sorted((out / "runs").glob("part-*.parquet"))
    (out / "runs" / "part-09999.parquet").write_bytes(parts[0].read_bytes())  # what two writers left
    with pytest.raises(SweepError, match=r"holds job \d+ more than once .*part-09999.parquet"):
        SweepResult.load(out)


def test_parts_and_the_description_are_synced_before_they_are_published(tmp_path: Path, monkeypatch) -> None:
    # Every file is synced before it is renamed into place, and its rename
    # synced (its directory) before the next step that relies on it: the
    # description before any part, every other table's part before the
    # `runs` part that marks the chunk as stored.
    events: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}"))),
                                                 real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append(("replace", f"{a} {b}")), real_replace(a, b))[1])
    out = tmp_path / "sw"
    dupack.sweep(short(), None, [1], workers=1, out=out)
    where = {e: i for i, e in enumerate(events)}
    renames = [tuple(arg.split()) for kind, arg in events if kind == "replace"]
    finals = [Path(b) for _, b in renames]
    assert [f.name for f in finals] == ["sweep.json", "part-00000.parquet", "part-00000.parquet", "part-00000.parquet"]
    assert [f.parent.name for f in finals[1:]][-1] == "runs"
    for a, b in renames:
        i = where[("replace", f"{a} {b}")]
        assert where[("fsync", a)] < i, f"{a} renamed before it was synced: {events}"
        assert where[("fsync", str(Path(b).parent))] > i, f"the rename of {b} never synced: {events}"
    first_part = where[("replace", " ".join(renames[1]))]
    assert events.index(("fsync", str(out))) < first_part, f"a part published before the description was: {events}"
    runs = where[("replace", " ".join(renames[-1]))]
    for a, b in renames[:-1]:
        assert where[("fsync", str(Path(b).parent))] < runs, f"runs published before {b} was: {events}"


def test_the_table_folders_a_chunk_makes_are_synced_into_the_sweep_before_its_runs_part_is_published(
    tmp_path: Path, monkeypatch
) -> None:
    # POSIX makes a new folder's entry durable only by syncing its parent:
    # without that sync a crash could keep runs/ and lose flows/, and the
    # chunk would read as stored without its flows.
    events: list[tuple[str, str]] = []
    real_fsync, real_replace, real_mkdir = os.fsync, os.replace, os.mkdir
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}"))),
                                                 real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append(("replace", b)), real_replace(a, b))[1])
    monkeypatch.setattr(os, "mkdir", lambda d, *a, **k: (real_mkdir(d, *a, **k), events.append(("mkdir", str(d))))[0])
    out = tmp_path / "sw"

    def root_synced_before_runs_published() -> list[bool]:
        made = [i for i, (kind, d) in enumerate(events) if kind == "mkdir" and Path(d).parent == out]
        runs = next(i for i, (kind, f) in enumerate(events) if kind == "replace" and Path(f).parent.name == "runs")
        return [max(made, default=-1) < i < runs for i, e in enumerate(events) if e == ("fsync", str(out))]

    # The first job's chunk is stored, the second job fails.
    with pytest.raises(dupack.RunError, match="deliberate failure of job 1"):
        dupack.sweep(short(), None, [1, 2], workers=1, out=out, _fail_job=1)
    assert {Path(d).name for kind, d in events if kind == "mkdir" and Path(d).parent == out} >= {"runs", "flows"}
    assert any(root_synced_before_runs_published()), events
    # Resumed, the sweep stores the other job in folders that exist: no
    # folder made, and the sweep's directory not synced again for it.
    events.clear()
    dupack.sweep(short(), None, [1, 2], workers=1, out=out)
    assert sorted(p.name for p in (out / "runs").iterdir()) == ["part-00000.parquet", "part-00001.parquet"]
    assert not [e for e in events if e[0] == "mkdir"]
    assert not any(root_synced_before_runs_published()), events


def test_a_new_directory_is_opened_without_waiting_for_its_description_to_reach_the_disk(
    tmp_path: Path, monkeypatch
) -> None:
    # The description's syncs run on a thread of their own while the first
    # runs simulate (Store.settle): Store.open returns while they are held
    # here, and settle() waits for them.
    import threading

    from dupack import sweep_store

    release, entered = threading.Event(), threading.Event()
    real_fsync = os.fsync

    def held_fsync(fd: int) -> None:
        entered.set()
        # A store that synced on the calling thread would wait here until the timeout.
        assert release.wait(timeout=10), "the description's sync was never released"
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", held_fsync)
    out = tmp_path / "sw"
    base = short()
    store = sweep_store.Store.open(out, base, {}, [1], 1, resume=True)
    try:
        assert entered.wait(timeout=10), "the description is never synced"
        assert not (out / "sweep.json").exists(), "published before its sync returned"
        release.set()
        store.settle()
        assert sweep_store.read_meta(str(out))["scenario_hash"] == base.hash()
        assert not (out / ".sweep.json.tmp").exists()
    finally:
        release.set()
        store.close()


def test_a_sweep_that_fails_leaves_its_description_published(tmp_path: Path, monkeypatch) -> None:
    # Its first run fails at once, before the (slowed) description's sync has
    # returned: the sweep still waits for it before it returns.
    import time

    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (time.sleep(0.2), real_fsync(fd))[1])
    out = tmp_path / "sw"
    try:
        dupack.sweep(short(), None, [1, 2], workers=1, out=out, _fail_job=0)
    except dupack.RunError as e:
        assert "deliberate failure" in str(e)
        # Checked while the traceback still holds the sweep's frame (and its store, which would settle when freed).
        assert SweepResult.load(out).runs.empty
    else:
        pytest.fail("the failing job did not fail the sweep")
    assert not (out / ".sweep.json.tmp").exists()


def test_a_description_that_cannot_be_published_fails_the_sweep(tmp_path: Path, monkeypatch) -> None:
    # The error of the description's thread is raised in the sweep's, and no part is published without it.
    real_replace = os.replace

    def refuse(a: str, b: str) -> None:
        if os.path.basename(b) == "sweep.json":
            raise OSError(28, "No space left on device")
        real_replace(a, b)

    monkeypatch.setattr(os, "replace", refuse)
    out = tmp_path / "sw"
    with pytest.raises(OSError, match="No space left"):
        dupack.sweep(short(), None, [1, 2], workers=1, out=out)
    assert not list(out.glob("*/part-*.parquet"))


def test_a_chunk_written_on_threads_is_the_chunk_written_in_turn(tmp_path: Path, monkeypatch) -> None:
    # A large chunk's tables are written at once on threads (sweep_store._write_all);
    # the files are those written one after the other, byte for byte (runs
    # aside: its wall_time_s differs from one sweep to the next).
    import threading

    import pyarrow.parquet as pq

    from dupack import _core, sweep_store

    real = _core.write_part
    writers: dict[str, set[str]] = {}

    def write_part(path: str, *args: object) -> None:
        writers.setdefault(name, set()).add(threading.current_thread().name)
        real(path, *args)

    monkeypatch.setattr(_core, "write_part", write_part)
    parts, runs = {}, {}
    for name, rows in (("serial", 10**9), ("threads", 0)):
        monkeypatch.setattr(sweep_store, "PARALLEL_ROWS", rows)
        dupack.sweep(short(), None, [1, 2, 3], workers=2, out=tmp_path / name, progress=False)
        parts[name] = {f.relative_to(tmp_path / name): f.read_bytes() for f in (tmp_path / name).glob("*/part-*.parquet")
                       if f.parent.name != "runs"}
        runs[name] = pq.read_table(tmp_path / name / "runs").drop_columns(["wall_time_s"])
    assert len(parts["serial"]) >= 2 and parts["threads"] == parts["serial"]
    assert runs["threads"].equals(runs["serial"]) and runs["serial"].num_rows == 3
    # The second sweep did write on threads of its own, the first on one thread.
    assert len(writers["serial"]) == 1 and any(n.startswith("dupack-part-") for n in writers["threads"]), writers


def test_a_part_that_fails_on_its_thread_fails_the_chunk(tmp_path: Path, monkeypatch) -> None:
    # The error reaches the sweep's caller, and the chunk is not stored: no
    # runs part is published, so resuming runs its jobs again.
    import threading

    from dupack import _core, sweep_store

    monkeypatch.setattr(sweep_store, "PARALLEL_ROWS", 0)
    real = _core.write_part

    failed_on: list[str] = []

    def write_part(path: str, *args: object) -> None:
        if "/links/" in path:
            failed_on.append(threading.current_thread().name)
            raise OSError(28, "No space left on device")
        real(path, *args)

    monkeypatch.setattr(_core, "write_part", write_part)
    out = tmp_path / "sw"
    with pytest.raises(OSError, match="No space left"):
        dupack.sweep(short(), None, [1, 2], workers=1, out=out, progress=False)
    assert failed_on == ["dupack-part-links"]  # raised on a thread of the store, reported in the caller's
    assert not list((out / "runs").glob("part-*.parquet"))
    monkeypatch.setattr(_core, "write_part", real)
    again = dupack.sweep(short(), None, [1, 2], workers=1, out=out, progress=False)
    assert (again.executed, again.skipped) == (2, 0)
    assert list(SweepResult.load(out).runs["seed"]) == [1, 2]


def _damaged_sweep(tmp_path: Path, table: str) -> tuple[Path, Path]:
    out = tmp_path / "sw"
    # A failing job ends the first sweep; resuming it writes a second part.
    with pytest.raises(dupack.RunError):
        dupack.sweep(short(), None, range(1, 7), workers=1, out=out, chunk_seconds=0, _fail_job=3)
    dupack.sweep(short(), None, range(1, 7), workers=1, out=out, chunk_seconds=0)
    parts = sorted((out / table).glob("part-*.parquet"))
    assert len(parts) >= 2
    victim = parts[0]
    data = victim.read_bytes()
    victim.write_bytes(data[: len(data) // 2])  # a part cut short
    return out, victim


@pytest.mark.parametrize("table", ["runs", "flows"])
def test_load_names_a_damaged_part(tmp_path: Path, table: str) -> None:
    out, victim = _damaged_sweep(tmp_path, table)
    with pytest.raises(SweepError, match=f"{victim.name}' is damaged"):
        SweepResult.load(out)


@pytest.mark.parametrize("table", ["runs", "flows"])
def test_resume_sets_a_damaged_part_aside_and_reruns_its_jobs(tmp_path: Path, table: str) -> None:
    out, victim = _damaged_sweep(tmp_path, table)
    r = run_subprocess("sweep", str(QUICKSTART), "-q", "-o", str(out), *SHORT, "--seeds", "1..6")
    assert r.returncode == 0, r.stderr
    assert not victim.exists()
    assert list(victim.parent.glob(f".damaged-0-{victim.name}"))
    res = SweepResult.load(out)
    one_shot = dupack.sweep(short(), None, range(1, 7), workers=1)
    assert sorted(res.runs["job"]) == list(range(6))
    cols = ["job", "seed", "goodput_kbps", "bytes_delivered"]
    got = res.flows[cols].sort_values(["job", "goodput_kbps"], ignore_index=True)
    want = one_shot.flows[cols].sort_values(["job", "goodput_kbps"], ignore_index=True)
    assert got.equals(want)


@pytest.mark.parametrize("content", ["whole", "cut", "empty"])
def test_a_kill_before_the_description_was_published_is_recovered(tmp_path: Path, content: str) -> None:
    out = tmp_path / "sw"
    args = ["sweep", str(QUICKSTART), "-q", "-o", str(out), *SHORT, "--seeds", "1..2"]
    assert run_subprocess(*args).returncode == 0
    text = (out / "sweep.json").read_text(encoding="utf-8")
    for d in ("runs", "flows", "links", "media"):
        for f in (out / d).glob("*"):
            f.unlink()
        if (out / d).exists():
            (out / d).rmdir()
    (out / "sweep.json").unlink()
    # What a kill between writing .sweep.json.tmp and renaming it leaves.
    tmp = {"whole": text, "cut": text[: len(text) // 2], "empty": ""}[content]
    (out / ".sweep.json.tmp").write_text(tmp, encoding="utf-8")
    r = run_subprocess(*args)
    assert r.returncode == 0, r.stderr
    assert not (out / ".sweep.json.tmp").exists()
    assert sorted(SweepResult.load(out).runs["job"]) == [0, 1]


def test_a_foreign_directory_is_still_refused(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    r = run_subprocess("sweep", str(QUICKSTART), "-q", "-o", str(out), *SHORT)
    one_error_line(r, 2, "is not empty")
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"], "no lock file left in someone else's folder"


@pytest.mark.parametrize("quiet", [True, False], ids=["quiet", "bar"])
def test_a_disk_error_mid_sweep_says_how_many_runs_are_stored(tmp_path: Path, monkeypatch, quiet: bool) -> None:
    # With -q the command keeps its count without the display module; without it, through the bar's.
    import dupack.sweeps
    from tests.conftest import run_cli

    def failing(*args, progress, **kwargs):
        progress(5, 10)  # five runs stored, then the disk fills
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(dupack.sweeps, "sweep", failing)
    out = str(tmp_path / "sw")
    r = run_cli("sweep", str(QUICKSTART), *SHORT, "--seeds", "1..10", *(["-q"] if quiet else []), "-o", out)
    assert r.exit_code == 2, r.output
    assert r.stderr.strip() == (f"error: --out: cannot write the results to '{out}': No space left on device; "
                                f"the runs stored before it are in '{out}'")


def test_a_stored_sweeps_parts_shrink_toward_its_end(tmp_path: Path) -> None:
    # Chunks an hour apart: only the end's rule (a chunk is due once it has
    # waited as long as the sweep has left, but at least 20 ms) writes a part
    # before the last run. This sweep lasts a few hundred ms on two workers.
    import pyarrow.parquet as pq

    out = tmp_path / "sw"
    sc = dupack.load(QUICKSTART).with_overrides(["run.duration=20s"])
    dupack.sweep(sc, None, range(1, 401), workers=2, out=out, chunk_seconds=3600, progress=False)
    rows = [pq.ParquetFile(p).metadata.num_rows for p in sorted((out / "runs").glob("part-*.parquet"))]
    assert sum(rows) == 400
    assert len(rows) >= 2, rows
    assert rows[0] >= 100, f"the first part comes about half way: {rows}"
    assert rows[-1] < rows[0], rows
