"""bench/measure.py's process timing: a run over its time limit is stopped
whole, the simulator with GNU time's wrapper around it."""

from __future__ import annotations

import sys
import time
import uuid
from pathlib import Path

import pytest

from bench import measure


def _running(marker: str) -> list[int]:
    """Processes whose command line contains ``marker``."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if marker in (d / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(d.name))
            except OSError:
                pass
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to look for the stopped process")
def test_a_run_over_its_time_limit_is_killed_with_everything_it_started() -> None:
    marker = f"dupack-bench-timeout-{uuid.uuid4().hex}"
    # A parent that waits for a child, as GNU time waits for the simulator it wraps.
    code = f"import subprocess, sys; subprocess.run([sys.executable, '-c', 'import time; time.sleep(60)', '{marker}'])"
    with pytest.raises(TimeoutError):
        measure.timed([sys.executable, "-c", code], timeout=1.0)
    deadline = time.monotonic() + 10
    while _running(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _running(marker) == [], "the grandchild outlived the time limit"


def test_the_report_names_the_cargo_profile_as_cargo_toml_defines_it(tmp_path, monkeypatch) -> None:
    from bench import measure as bench_measure

    # The profile the benchmark builds with is the extension's (pyproject's [tool.maturin] profile).
    assert bench_measure.cargo_profile("dist") == "the workspace's dist profile: fat LTO, 1 codegen unit"
    import tomllib

    maturin = tomllib.loads((bench_measure.ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["maturin"]
    assert maturin["profile"] == bench_measure.ns3build.PROFILE
    # A setting a profile lacks comes from the one it inherits from, then from cargo's defaults.
    (tmp_path / "Cargo.toml").write_text(
        '[profile.release]\nlto = "thin"\n[profile.fast]\ninherits = "release"\ncodegen-units = 1\n'
        '[profile.plain]\ninherits = "dev"\n', encoding="utf-8")
    monkeypatch.setattr(bench_measure, "ROOT", tmp_path)
    assert bench_measure.cargo_profile("fast") == "the workspace's fast profile: thin LTO, 1 codegen unit"
    assert bench_measure.cargo_profile("plain") == "the workspace's plain profile: LTO within each crate, 16 codegen units"


def test_a_measured_block_replaces_the_last_one_and_keeps_the_rest(tmp_path: Path) -> None:
    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n\nwritten by hand\n")
    measure.write_doc_block(doc, "## Sweeps", "<!-- b -->", "<!-- e -->", ["first run"])
    assert doc.read_text() == "# Performance\n\nwritten by hand\n\n## Sweeps\n\n<!-- b -->\nfirst run\n<!-- e -->\n"
    doc.write_text(doc.read_text() + "\n## Later\n\nkept\n")
    measure.write_doc_block(doc, "## Sweeps", "<!-- b -->", "<!-- e -->", ["second", "run"])
    text = doc.read_text()
    assert "first run" not in text and "<!-- b -->\nsecond\nrun\n<!-- e -->" in text
    assert text.count("## Sweeps") == 1 and text.endswith("## Later\n\nkept\n")
