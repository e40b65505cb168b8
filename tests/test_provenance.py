"""Every result says which dupack made it, and a sweep does not mix the
results of two builds unless asked."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import dupack
import dupack.sweep_store
from tests.conftest import QUICKSTART, run_subprocess

SHORT = ["run.duration=2s"]


def test_a_sweep_stamps_its_description_and_every_part(tmp_path: Path) -> None:
    out = tmp_path / "s"
    dupack.sweep(QUICKSTART, {"tcp.variant": ["reno", "sack"]}, seeds=[1, 2], out=out, overrides=SHORT, progress=False)
    assert json.loads((out / "sweep.json").read_text())["dupack"] == dupack.provenance()
    parts = sorted((out / "flows").glob("part-*.parquet"))
    assert parts
    for p in parts:
        meta = pq.read_schema(p).metadata
        assert meta[b"dupack_commit"].decode() == dupack.__commit__
        assert meta[b"dupack_version"].decode() == dupack.__version__


def test_resuming_a_sweep_of_another_build_is_refused_unless_asked(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "s"
    grid = {"tcp.variant": ["reno", "sack"]}
    first = dupack.sweep(QUICKSTART, grid, seeds=[1, 2], out=out, overrides=SHORT, progress=False)
    # Another build: the same sweep, resumed (nothing left to run) ...
    other = {"version": dupack.__version__, "commit": "0123456789ab"}
    monkeypatch.setattr(dupack.sweep_store, "provenance", lambda: other)
    with pytest.raises(dupack.SweepError, match="commit 0123456789ab.*--mixed-versions"):
        dupack.sweep(QUICKSTART, grid, seeds=[1, 2], out=out, overrides=SHORT, progress=False)
    # ... or asked to mix: it resumes, and the description keeps both builds.
    again = dupack.sweep(QUICKSTART, grid, seeds=[1, 2], out=out, overrides=SHORT, progress=False, mixed_versions=True)
    assert again.flows.equals(first.flows)
    doc = json.loads((out / "sweep.json").read_text())
    assert doc["dupack"] == other and doc["dupack_earlier"] == [dupack.provenance()]
    # Starting over needs no permission: nothing of the old build is kept.
    dupack.sweep(QUICKSTART, grid, seeds=[1, 2], out=out, overrides=SHORT, progress=False, resume=False)


def test_the_cli_says_how_to_resume_anyway(tmp_path: Path) -> None:
    out = tmp_path / "s"
    args = ["sweep", str(QUICKSTART), "--vary", "tcp.variant=reno,sack", "--seeds", "1..2", "-s", SHORT[0], "-o", str(out), "-q"]
    assert run_subprocess(*args).returncode == 0
    doc = json.loads((out / "sweep.json").read_text())
    doc["dupack"] = {"version": "0.0.1", "commit": "feedfacecafe"}
    (out / "sweep.json").write_text(json.dumps(doc))
    p = run_subprocess(*args)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "dupack 0.0.1 (commit feedfacecafe)" in p.stderr and "--mixed-versions" in p.stderr
    assert run_subprocess(*args, "--mixed-versions").returncode == 0
