"""dupack._paths spells paths as pathlib does, and RunResult's CSV without
the csv module is the csv module's; `dupack run` and `dupack validate`
import neither pathlib nor csv nor copy."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dupack._paths import make_dirs, path_is_absolute, path_join, path_name, path_parent, path_stem, path_text
from dupack.result import _plain_csv
from tests.conftest import QUICKSTART
from tests.test_cli_fast import run_without_site

TEXTS = [
    "", ".", "..", "/", "//", "///", "////a", "//a", "//a/b", "/a", "a", "a/", "a//b", "a/./b", "./a", "a/.", "a/..",
    "../a", ".a", "a.", "a.b.c", "a/.b", "x/y.toml", "./x.toml/", "/./", "a/b/", " a ", "a\\b", "é/ü.toml", ".toml",
]


@pytest.mark.parametrize("text", TEXTS)
def test_paths_read_as_pathlib_reads_them(text: str) -> None:
    p = Path(text)
    s = path_text(text)
    assert s == str(p)
    assert path_text(p) == str(p)
    assert path_name(s) == p.name
    assert path_stem(s) == p.stem
    assert path_parent(s) == str(p.parent)
    assert path_is_absolute(s) == p.is_absolute()
    assert path_join(s, "result.json") == str(p / "result.json")


@given(st.text(alphabet="/.ab", max_size=12))
def test_any_path_reads_as_pathlib_reads_it(text: str) -> None:
    p = Path(text)
    s = path_text(text)
    assert (s, path_name(s), path_stem(s), path_parent(s)) == (str(p), p.name, p.stem, str(p.parent))


def test_bytes_are_refused_as_pathlib_refuses_them() -> None:
    with pytest.raises(TypeError):
        Path(b"a")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        path_text(b"a")


def test_folders_are_made_as_pathlib_makes_them(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "c"
    make_dirs(path_text(target))
    assert target.is_dir()
    make_dirs(path_text(target))  # exists: fine
    (tmp_path / "f").write_text("x")
    for where in (tmp_path / "f", tmp_path / "f" / "g"):
        with pytest.raises(OSError) as ours:
            make_dirs(path_text(where))
        with pytest.raises(OSError) as theirs:
            where.mkdir(parents=True, exist_ok=True)
        assert type(ours.value) is type(theirs.value)
        assert ours.value.strerror == theirs.value.strerror


def written(header: list[str], rows: list[tuple[object, ...]]) -> str:
    buf = io.StringIO(newline="")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


FIELDS = st.one_of(st.text(max_size=6), st.integers(min_value=0, max_value=2**64 - 1), st.sampled_from(["", "1.5", "nan", "f0"]))


@given(st.integers(min_value=1, max_value=4).flatmap(
    lambda n: st.tuples(st.lists(st.text(min_size=1, max_size=5), min_size=n, max_size=n),
                        st.lists(st.tuples(*[FIELDS] * n), max_size=4))))
def test_plain_csv_is_what_the_csv_module_writes(table: tuple[list[str], list[tuple[object, ...]]]) -> None:
    header, rows = table
    text = _plain_csv(header, rows)
    if text is not None:
        assert text == written(header, rows)


def test_a_result_table_is_plain_csv() -> None:
    header = ["flow", "variant", "goodput_kbps", "completion_time_s", "segments_sent"]
    rows = [("f0", "newreno", "268.2", "", 6827), ("f1", "sack+lt", "1e-05", "0.5", 0)]
    assert _plain_csv(header, rows) == written(header, rows)


def test_run_and_validate_import_no_pathlib_csv_or_copy(tmp_path: Path) -> None:
    lines = [["validate", "FILE"], ["run", "FILE", "-s", "run.duration=2s", "-q", "-o", "OUT"], ["run", "FILE", "-q"]]
    p = run_without_site(lines, ("pathlib", "csv", "copy", "math"), tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == "[]"
    assert (tmp_path / "o" / "links.csv").is_file()
    assert (tmp_path / "dupack-out" / f"{QUICKSTART.stem}-seed1" / "flows.csv").is_file()
    assert (tmp_path / "o" / "links.csv").is_file()
    assert (tmp_path / "dupack-out" / f"{QUICKSTART.stem}-seed1" / "flows.csv").is_file()
