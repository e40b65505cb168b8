"""A sweep's results on disk: ``DIR/sweep.json`` and a Parquet dataset per table.

Each chunk of finished runs becomes ``part-NNNNN.parquet`` in each table's
folder (``DIR/runs``, ``DIR/flows``, …), written under a hidden name, synced
and renamed, ``runs`` last, so that after any crash a chunk is either whole
or recognisably incomplete (docs/results.md, "Sweeps"). The directory is
locked against a second writer while a sweep holds it.

Paths here are plain text (``os``, ``os.path``), not ``pathlib``: ``dupack
sweep`` imports this module on its way to the first run, and ``pathlib``
with what it imports (``re``, ``urllib.parse``, ``ipaddress``, …) costs
several milliseconds, as much as a short simulation takes; a sweep of one
job should start as ``dupack run`` does (docs/performance.md, "The dupack
command end to end"). The text of a path is what ``str(pathlib.Path(...))``
gives (:mod:`dupack._paths`).
"""

from __future__ import annotations

import os
from os import PathLike

from dupack import _core
from dupack._paths import make_dirs, path_join, path_text
from dupack.result import TABLE_DTYPES, pandas_metadata, provenance, provenance_metadata, to_frame

# typing for type checkers only (why: dupack/__init__.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    import pyarrow as pa

    from dupack.scenario import Scenario

#: The tables of a sweep, in the order of RunResult's (runs = ``RunResult.run``).
TABLES = ("runs", "flows", "links", "media", "series", "trace")
#: The file in a sweep directory that says which sweep it holds.
SWEEP_FILE = "sweep.json"
FORMAT = "dupack-sweep/1"
#: The lock file of a sweep directory: held (``flock``) by the process writing it.
LOCK_FILE = ".lock"
_META_TMP = f".{SWEEP_FILE}.tmp"
#: Parts of at least this many rows are written dictionary-encoded and
#: Snappy-compressed (a twentieth of the plain size for a chunk of thousands
#: of runs); smaller ones plain and uncompressed: for the tens of rows of a
#: one-job sweep the encoder's set-up takes milliseconds a table.
COMPACT_ROWS = 1000
#: A chunk of at least this many rows (all tables) writes its tables' parts
#: on threads at once (:func:`_write_all`); below it, one after the other:
#: starting a thread costs more than a small part takes to write.
PARALLEL_ROWS = 2000


class SweepError(ValueError):
    """A sweep's output directory cannot be used: it holds another sweep, or
    files that are not a sweep's."""


def _part_number(name: str) -> int | None:
    """NNNNN of a ``part-NNNNN.parquet`` file name (ASCII digits), else None."""
    if not (name.startswith("part-") and name.endswith(".parquet")):
        return None
    digits = name[5:-8]
    return int(digits) if digits.isascii() and digits.isdigit() else None


def parts(d: str) -> Iterable[tuple[int, str]]:
    """(number, path) of every part in the table folder ``d`` (none if it is not a folder)."""
    try:
        names = os.listdir(d)
    except (FileNotFoundError, NotADirectoryError):
        return
    for name in names:
        n = _part_number(name)
        if n is not None:
            yield n, path_join(d, name)


def damaged(f: str) -> bool:
    """Whether a stored part cannot be read back (truncated, say): its footer,
    which Parquet writes last, is checked."""
    import pyarrow.parquet as pq

    try:
        pq.ParquetFile(f).metadata  # noqa: B018 - reading it is the check
    except Exception:  # pyarrow raises ArrowInvalid, OSError, ... for a bad file
        return True
    return False


def check_no_duplicates(root: str) -> None:
    """Every job is stored once: two sweeps writing one directory at once
    (before it was locked) stored some jobs twice."""
    import pyarrow.parquet as pq

    seen: dict[int, str] = {}
    for _, f in sorted(parts(path_join(root, "runs"))):
        for job in pq.read_table(f, columns=["job"]).column("job").to_pylist():
            if job in seen:
                raise SweepError(
                    f"'{root}' holds job {job} more than once (in '{os.path.basename(seen[job])}' and "
                    f"'{os.path.basename(f)}' of runs/): two sweeps wrote it at the same time; run the sweep "
                    "again into a new directory, or into this one with --no-resume"
                )
            seen[job] = f


def _fsync_file(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: str) -> None:
    """Make a rename in ``path`` durable (where directories can be synced)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems cannot sync a directory
        pass
    finally:
        os.close(fd)


def _publish(renames: list[tuple[str, str]], new_dirs_in: tuple[str, ...] = ()) -> None:
    """Rename each fully written ``tmp`` to its ``final`` name after syncing
    its bytes, and sync the rename: after a crash each final file is either
    absent or whole, and the last one is present only if all the others
    are. The syncs are ordered so that the file system can commit a chunk's
    files together: every file's writeback is started before the first sync
    waits for one, and the renames of all but the last share their
    directories' syncs. ``new_dirs_in``: directories in which folders of
    these files were created; they are synced before the last rename as
    well, since POSIX makes a new folder's entry durable only by syncing
    its parent (ext4, XFS and btrfs commit it with the first file synced
    under it, and then this sync finds nothing left to write)."""
    advise = getattr(os, "posix_fadvise", None)
    for tmp, _ in renames:
        if advise is not None:
            # Starts writing the file's dirty pages out without waiting (Linux).
            fd = os.open(tmp, os.O_RDONLY)
            try:
                advise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
    for tmp, _ in renames:
        _fsync_file(tmp)
    *first, (last_tmp, last) = renames
    for tmp, final in first:
        os.replace(tmp, final)
    for d in dict.fromkeys([*(os.path.dirname(final) or "." for _, final in first), *new_dirs_in]):
        _fsync_dir(d)
    os.replace(last_tmp, last)
    _fsync_dir(os.path.dirname(last) or ".")


def _in_background(call: Callable[[], None]) -> Callable[[], None]:
    """Start ``call()`` on a thread of its own; return a function that
    waits for it to end and raises what it raised (once).

    ``_thread``, not ``threading``: ``threading`` imports ``functools`` and
    ``collections``, milliseconds that ``dupack sweep`` does not otherwise
    spend on its way to the first run."""
    import _thread

    ended = _thread.allocate_lock()
    ended.acquire()
    raised: list[BaseException] = []

    def body() -> None:
        try:
            call()
        except BaseException as e:  # noqa: BLE001 - raised again by wait(), in the waiting thread
            raised.append(e)
        finally:
            ended.release()

    def wait() -> None:
        with ended:  # blocks (without the GIL) until body() has ended
            pass
        if raised:
            raise raised.pop()

    _thread.start_new_thread(body, ())
    return wait


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


#: The sweep directories this process holds the lock of: real path →
#: [descriptor, number of stores using it].
_HELD: dict[str, list[int]] = {}

#: :meth:`Store._pandas_metadata` by table and schema (its fields: a
#: schema's own metadata is left out of the key, as it is of ``==``).
#: The schemas of one process's sweeps are few; the cache is emptied if
#: ever it holds 256 of them.
_PANDAS_METADATA: dict[tuple[str, pa.Schema], dict[bytes, bytes]] = {}


def _lock(root: str) -> int | None:
    """Take the directory's write lock, or raise SweepError if another
    process holds it. The lock is an advisory ``flock`` on ``root/.lock``
    (taken by the extension, ``_core.lock_file``: Python's ``fcntl`` would
    be one more shared library to load on the way to the first run), which
    the system drops when its holder exits, however it exits; it is
    released when the returned descriptor is closed. None where the file
    system has no ``flock`` or the platform no descriptors (Windows): no
    lock.

    Within one process the lock is handed from store to store: a store
    still alive after its sweep ended (kept by a traceback, say) must not
    lock the directory against the next sweep of the same program. Two
    threads of one process sweeping into one directory at once are not
    kept apart (SweepResult.load would report the duplicated jobs)."""
    key = os.path.realpath(root)
    if key in _HELD:
        _HELD[key][1] += 1
        return _HELD[key][0]
    try:
        fd = _core.lock_file(path_join(root, LOCK_FILE))
    except BlockingIOError:
        raise SweepError(
            f"'{root}' is being written by another dupack sweep right now; wait for it to finish "
            "(then run the same command to complete it) or choose another directory"
        ) from None
    if fd is None:
        return None
    _HELD[key] = [fd, 1]
    return fd


def _unlock(root: str, fd: int) -> None:
    key = os.path.realpath(root)
    held = _HELD.get(key)
    if held is not None and held[0] == fd:
        held[1] -= 1
        if held[1] == 0:
            del _HELD[key]
            os.close(fd)


def read_text(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def read_meta(root: str) -> dict[str, Any]:
    """The sweep description ``root/sweep.json``; SweepError if there is none or it is not one."""
    meta = path_join(root, SWEEP_FILE)
    try:
        doc = _core.json_loads(read_text(meta))
    except FileNotFoundError:
        raise SweepError(f"'{root}' holds no sweep ({SWEEP_FILE} is missing)") from None
    except (OSError, ValueError) as e:
        raise SweepError(f"cannot read '{meta}': {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SweepError(f"'{meta}' is not a dupack sweep description (no \"format\": \"{FORMAT}\")")
    return doc


def _description(doc: dict[str, Any]) -> str:
    """``sweep.json``'s text: ``json.dumps(doc, indent=1, ensure_ascii=False)``."""
    return _core.json_dumps(doc, indent=1) + "\n"


class Store:
    """``DIR/sweep.json`` and one Parquet dataset per table.

    A chunk is written as ``part-NNNNN.parquet`` in each table's folder
    that has rows, ``runs`` last; each file is written under a hidden name
    and renamed, so a part is either whole or absent. A chunk counts as
    stored once its ``runs`` part exists: on opening, parts of other tables
    without one (a crash between the two) are removed.
    """

    def __init__(self, root: str | PathLike[str], done: set[int], next_part: int) -> None:
        self.root = path_text(root)
        #: The descriptor that holds the directory's lock (see :func:`_lock`).
        self.lock_fd: int | None = None
        #: Waits for the description's publication while it runs on a
        #: thread of its own (see :meth:`settle`); None once it has.
        self._publishing: Callable[[], None] | None = None
        self.done = done
        self.next_part = next_part
        self._no_grid_metadata: dict[str, dict[bytes, bytes] | None] = {}
        #: The columns before the results' own: job, one per grid path, seed.
        self.index: list[str] = []
        #: Every part's Parquet metadata names the dupack that wrote it.
        self._made_by = provenance_metadata(provenance())
        #: The parts this store published, per table, in order.
        self.written: dict[str, list[str]] = {t: [] for t in TABLES}

    @classmethod
    def open(
        cls,
        out: str | PathLike[str],
        base: Scenario,
        grid: dict[str, list[Any]],
        seeds: list[int | None],
        total: int,
        resume: bool,
        mixed_versions: bool = False,
        observe: dict[str, Any] | None = None,
    ) -> Store:
        root = path_text(out)
        if not root.strip():
            raise SweepError(f"the output directory is an empty path {root!r}")
        if os.path.exists(root) and not os.path.isdir(root):
            raise SweepError(f"'{root}' exists and is not a directory")
        doc = {
            "format": FORMAT,
            "name": base.name,
            "scenario_hash": base.hash(),
            "grid": grid,
            "seeds": seeds,
            "jobs": total,
            "scenario": base.to_dict(),
            "dupack": provenance(),
        }
        if observe:
            # Only when asked: a sweep that observes nothing describes itself as before.
            doc["observe"] = observe
        # The stored description after a JSON round trip (tuples → lists, …).
        doc = _core.json_loads(_core.json_dumps(doc))
        ours = {LOCK_FILE, _META_TMP}
        # One listing for both questions: another sweep may publish its
        # sweep.json between two looks, and then this one's own lock file
        # and description are all the directory held before it.
        names = os.listdir(root) if os.path.isdir(root) else []
        if SWEEP_FILE not in names and any(f not in ours for f in names):
            raise SweepError(f"'{root}' is not empty and holds no {SWEEP_FILE}; choose a new or empty directory")
        make_dirs(root)
        lock_fd = _lock(root)
        try:
            store = cls._open_locked(root, doc, grid, resume, mixed_versions)
        except BaseException:
            if lock_fd is not None:
                _unlock(root, lock_fd)
            raise
        store.lock_fd = lock_fd
        return store

    @classmethod
    def _open_locked(
        cls, root: str, doc: dict[str, Any], grid: dict[str, list[Any]], resume: bool, mixed_versions: bool = False
    ) -> Store:
        meta = path_join(root, SWEEP_FILE)
        tmp = path_join(root, _META_TMP)
        if not os.path.exists(meta) and os.path.exists(tmp):
            # Killed between writing the description and publishing it: no
            # part can have been written yet, so whatever the file holds
            # (it may be cut short), it is replaced by this sweep's.
            os.unlink(tmp)
        if os.path.exists(meta):
            old = read_meta(root)
            for key, what in (
                ("scenario_hash", "scenario"),
                ("grid", "grid"),
                ("seeds", "seeds"),
                ("observe", "recording (series and trace)"),
            ):
                if old.get(key) != doc.get(key):
                    if key == "scenario_hash":  # the documents are long: their hashes say enough
                        there, here = f"hash {str(old.get(key))[:12]}", f"hash {doc[key][:12]}, after overrides"
                    elif key == "observe":
                        there, here = (brief(x) if x else "nothing recorded" for x in (old.get(key), doc.get(key)))
                    else:
                        there, here = brief(old.get(key)), brief(doc.get(key))
                    raise SweepError(
                        f"'{root}' holds another sweep (its {what} differs: {there} there, {here} here); "
                        "choose another directory to start a new sweep, or rerun the same sweep to resume it"
                    )
            made_by = old.get("dupack") or {"version": "unknown", "commit": "unknown"}
            found = _found(root)
            stored = [f for t in TABLES for f in found[t].values()]
            if resume and stored and made_by != doc["dupack"] and not mixed_versions:
                # Results of two builds in one dataset could not be told apart.
                raise SweepError(
                    f"'{root}' holds results of dupack {made_by.get('version')} (commit {made_by.get('commit')}) "
                    f"and this is dupack {doc['dupack']['version']} (commit {doc['dupack']['commit']}); "
                    "resuming would mix their results: choose another directory, start over with --no-resume, "
                    "or resume anyway with --mixed-versions"
                )
            if not resume:
                for f in stored:
                    os.unlink(f)
                found = {t: {} for t in TABLES}
            if made_by != doc["dupack"]:
                # The description names every build that wrote to the directory.
                old["dupack"] = doc["dupack"]
                old["dupack_earlier"] = [*old.get("dupack_earlier", []), made_by] if resume else []
                _write_text(tmp, _description(old))
                _publish([(tmp, meta)])
        elif any(f != LOCK_FILE for f in os.listdir(root)):  # filled since the check above
            raise SweepError(f"'{root}' is not empty and holds no {SWEEP_FILE}; choose a new or empty directory")
        else:
            _write_text(tmp, _description(doc))
            # The directory held nothing else (checked under the lock): no
            # table folder to look into, and nothing to recover.
            store = cls(root, set(), 0)
            store.index = ["job", *grid, "seed"]
            # The description is synced and renamed into place while the
            # first runs simulate: its two syncs wait for the disk (a
            # millisecond or so), as long as a short run takes. No part is
            # written before it is in place (:meth:`settle`), so a crash
            # leaves the directory as a crash before this line would: the
            # hidden description at most, which the next sweep replaces.
            store._publishing = _in_background(lambda: _publish([(tmp, meta)]))
            return store
        store = cls(root, *cls._recover(root, found))
        store.index = ["job", *grid, "seed"]
        return store

    @staticmethod
    def _recover(root: str, found: dict[str, dict[int, str]]) -> tuple[set[int], int]:
        """Set damaged chunks aside and remove the parts of chunks never
        marked as stored, of the parts ``found`` in ``root`` (:func:`_found`);
        return the stored jobs and the next part number."""
        quarantine(root, found)
        committed = set(found["runs"])
        for t in TABLES:
            for n, f in found[t].items():
                if n not in committed:
                    os.unlink(f)
        done: set[int] = set()
        if committed:
            import pyarrow.parquet as pq

            for f in found["runs"].values():
                done.update(pq.read_table(f, columns=["job"]).column("job").to_pylist())
        return done, max(committed, default=-1) + 1

    def write(self, tables: dict[str, pa.Table]) -> None:
        """Store a chunk given as Arrow tables (written by pyarrow)."""
        import pyarrow.parquet as pq

        def one(t: str, tmp: str) -> None:
            table = tables[t]
            table = table.replace_schema_metadata({**self._pandas_metadata(t, table.schema), **self._made_by})
            pq.write_table(table, tmp, write_statistics=self.index)

        self._write_chunk({t: tables[t].num_rows for t in TABLES}, one, tables["runs"].column("job").to_pylist())

    def write_columns(self, columns: dict[str, tuple[int, list[tuple[str, str, Any, Any]]]], jobs: list[int]) -> bool:
        """Store a chunk given as the core's columns (``_Ids.part_columns`` in
        dupack.sweeps), written by the extension: the same files as
        :meth:`write` in every column, type, metadata and statistic, without
        importing numpy or pyarrow; a part of :data:`COMPACT_ROWS` rows or
        more is dictionary-encoded and compressed with Snappy as pyarrow
        writes it, a smaller one plain (the encoder's set-up would cost more
        than the bytes it saves). False, with nothing written, where the
        metadata the installed pandas expects is not known here (then
        :meth:`write` stores the chunk)."""
        meta = {}
        # Only the parts written (a table without rows has none; runs always has one).
        for t in (t for t in TABLES if columns[t][0] or t == "runs"):
            pandas = self._part_metadata(t)
            if pandas is None:
                return False
            meta[t] = [(k.decode(), v.decode()) for k, v in {**pandas, **self._made_by}.items()]

        def one(t: str, tmp: str) -> None:
            rows, cols = columns[t]
            _core.write_part(tmp, rows, cols, meta[t], self.index, rows >= COMPACT_ROWS)

        self._write_chunk({t: rows for t, (rows, _) in columns.items()}, one, jobs)
        return True

    def _write_chunk(self, rows: dict[str, int], write_one: Callable[[str, str], None], jobs: list[int]) -> None:
        """Write a chunk's parts, ``write_one(table, tmp)`` each (both writers
        keep statistics (min/max per row group) only where readers filter: on
        the job, the grid and the seed, ``self.index``; for every result
        column they would cost a sixth of the write and say little), publish
        them with ``runs`` last, and record the chunk's ``jobs`` as stored."""
        self.settle()
        n = self.next_part
        self.next_part += 1
        name = f"part-{n:05d}.parquet"
        # runs last: it marks the chunk as stored.
        tables = [t for t in ("flows", "links", "media", "series", "trace") if rows[t]] + ["runs"]
        tmps = {}
        created = False
        for t in tables:
            d = path_join(self.root, t)
            try:
                os.mkdir(d)
                created = True
            except FileExistsError:
                pass
            tmps[t] = path_join(d, f".{name}.tmp")
        _write_all([(t, tmps[t]) for t in tables], write_one, parallel=sum(rows.values()) >= PARALLEL_ROWS)
        finals = {t: path_join(os.path.dirname(tmps[t]), name) for t in tables}
        # A folder made here must be in the sweep's directory for good
        # before the runs part marks the chunk as stored.
        _publish([(tmps[t], finals[t]) for t in tables], (self.root,) if created else ())
        for t, f in finals.items():
            self.written[t].append(f)
        self.done.update(jobs)

    def settle(self) -> None:
        """Wait until the sweep's description is published (synced and
        renamed into place), which a new directory's store does on a thread
        of its own while the first runs simulate; raise what publishing it
        raised. Called before the first part is written and when the sweep
        ends, so that no part exists without the description and no sweep
        returns before it is on disk."""
        wait, self._publishing = self._publishing, None
        if wait is not None:
            wait()

    def close(self) -> None:
        """Release the directory's lock (also done when the process exits),
        once the description is published."""
        try:
            self.settle()
        finally:
            if self.lock_fd is not None:
                _unlock(self.root, self.lock_fd)
                self.lock_fd = None

    def __del__(self) -> None:
        self.close()

    def _pandas_metadata(self, table: str, schema: pa.Schema) -> dict[bytes, bytes]:
        """What pandas needs to read a part back with the dtypes of the sweep's
        tables (its nullable integers would otherwise come back as floats), as
        pyarrow writes it for a DataFrame: derived from the DataFrame of no
        rows once per table and columns in the process (:data:`_PANDAS_METADATA`),
        not once per sweep: a reproduction runs dozens of sweeps of a few
        grid columns each."""
        import pyarrow as pa

        key = (table, schema.remove_metadata())
        meta = _PANDAS_METADATA.get(key)
        if meta is None:
            meta = self._known_metadata(table, schema)
            if meta is None:
                empty = to_frame(schema.empty_table(), table)
                meta = pa.Schema.from_pandas(empty, preserve_index=False).metadata
            if len(_PANDAS_METADATA) >= 256:
                _PANDAS_METADATA.clear()
            _PANDAS_METADATA[key] = meta
        return meta

    def _known_metadata(self, table: str, schema: pa.Schema) -> dict[bytes, bytes] | None:
        """:meth:`_pandas_metadata` without pandas, for a part with no grid
        columns whose columns are exactly the job, the seed and the
        table's (the metadata the pandas path gives then; tests/test_sweep.py
        compares the two). None otherwise."""
        if schema.names != ["job", "seed", *TABLE_DTYPES[table]]:
            return None
        return self._part_metadata(table)

    def _part_metadata(self, table: str) -> dict[bytes, bytes] | None:
        """The pandas metadata of a part with no grid columns (job, seed,
        then the table's columns), built here without pandas; None with grid
        columns, or where the installed pandas' form is not known here."""
        if self.index != ["job", "seed"]:
            return None
        if table not in self._no_grid_metadata:
            meta = pandas_metadata([("job", "int64"), ("seed", "uint64"), *TABLE_DTYPES[table].items()])
            self._no_grid_metadata[table] = None if meta is None else {b"pandas": meta}
        return self._no_grid_metadata[table]


def _write_all(parts: list[tuple[str, str]], write_one: Callable[[str, str], None], parallel: bool) -> None:
    """``write_one(table, tmp)`` for each part; with ``parallel``, the parts
    at once on threads (both writers release the GIL while they encode).
    The last chunk of a sweep is written after its runs finished, with the
    workers' cores idle, and is the largest one of a short sweep: one core
    per table halves its time. Mid-sweep the threads share the cores with
    the workers, which costs them no more than one thread would."""
    if not parallel or len(parts) < 2:
        for t, tmp in parts:
            write_one(t, tmp)
        return
    import threading

    errors: list[BaseException] = []

    def one(t: str, tmp: str) -> None:
        try:
            write_one(t, tmp)
        except BaseException as e:  # noqa: BLE001 - raised again below, in the caller's thread
            errors.append(e)

    threads = [threading.Thread(target=one, args=part, name=f"dupack-part-{part[0]}") for part in parts[1:]]
    for th in threads:
        th.start()
    try:
        write_one(*parts[0])
    finally:
        for th in threads:
            th.join()
    if errors:
        raise errors[0]


def _found(root: str) -> dict[str, dict[int, str]]:
    """Every table's parts in ``root``, number → path, from one listing of
    each table folder; what an interrupted write left (a hidden
    ``.part-NNNNN.parquet.tmp``) is removed on the way."""
    found: dict[str, dict[int, str]] = {}
    for t in TABLES:
        d = path_join(root, t)
        found[t] = {}
        try:
            names = os.listdir(d)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for name in names:
            if name.startswith(".part-") and name.endswith(".tmp"):
                os.unlink(path_join(d, name))
            elif (n := _part_number(name)) is not None:
                found[t][n] = path_join(d, name)
    return found


def quarantine(root: str, found: dict[str, dict[int, str]] | None = None) -> list[str]:
    """Set aside every chunk with a part that cannot be read back (a part
    cut short by a full disk or a crash of the machine): all its parts are
    renamed to hidden ``.damaged-K-part-NNNNN.parquet`` names, which no
    reader picks up, so that resuming runs its jobs again. ``found`` (the
    parts in ``root``, as :func:`_found` gives them; looked up if None)
    loses the chunks set aside. Returns the new paths."""
    if found is None:
        found = _found(root)
    bad = {n for t in TABLES for n, f in found[t].items() if damaged(f)}
    moved = []
    for t in TABLES:
        for n, f in list(found[t].items()):
            if n in bad:
                del found[t][n]
                folder, name = os.path.split(f)
                k = 0
                while os.path.exists(aside := path_join(folder, f".damaged-{k}-{name}")):
                    k += 1
                os.replace(f, aside)
                moved.append(aside)
    return moved


def brief(v: Any) -> str:
    """A value as JSON text, cut to 60 characters (for messages)."""
    import json

    text = json.dumps(v, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
