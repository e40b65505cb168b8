"""examples/lossy_link.ipynb runs top to bottom and shows the tables it promises."""

from __future__ import annotations

import os
import re

import pytest

from tests.conftest import ROOT

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = ROOT / "examples" / "lossy_link.ipynb"


def outputs(cell) -> str:
    """Everything a code cell showed, as one text (HTML and plain text)."""
    parts = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "error":
            raise AssertionError(f"{o['ename']}: {o['evalue']}")
        data = o.get("data", {})
        parts += [data.get("text/html", ""), data.get("text/plain", ""), o.get("text", "")]
    return "\n".join(parts)


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # The kernel imports dupack as this test process does (from source or installed).
    pythonpath = os.pathsep.join(p for p in (str(ROOT / "python"), os.environ.get("PYTHONPATH", "")) if p)
    env_before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = pythonpath if (ROOT / "python" / "dupack" / "_core.abi3.so").exists() else (env_before or "")
    try:
        client = nbclient.NotebookClient(
            nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}
        )
        client.execute()
    finally:
        if env_before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = env_before
    return [c for c in nb.cells if c.cell_type == "code"]


def test_the_notebook_is_stored_without_outputs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")


def test_the_notebook_shows_the_run_and_the_sweep(executed) -> None:
    scenario, run, sweep, summary, compare, plot = (outputs(c) for c in executed)
    assert "<Scenario 'quickstart'" in scenario and "topology.bottleneck.fwd_error.p" in scenario
    # The run: the per-flow table, one row per flow.
    assert "&lt;RunResult &#x27;quickstart&#x27; seed=1 flows=4&gt;" in run
    for header in ("goodput kbit/s", "retx segs", "fast retx", "RTOs"):
        assert f"<th>{header}</th>" in run
    assert len(re.findall(r"<td>f[0-3]</td>", run)) == 4
    # The sweep: a progress bar, then the summary with one row per variant and loss rate.
    assert "<progress" in sweep and "sweep: 30 of 30 runs in" in sweep
    for variant in ("reno", "newreno", "sack"):
        assert len(re.findall(rf"<td>{variant}</td>", sweep)) == 2
    assert "±" in sweep and "95 % Student-t" in sweep
    assert "goodput_kbps_ci95" in summary
    # The comparison: paired by seed at both loss rates.
    assert compare.count("<td>paired</td>") == 2
    assert "Figure" in plot
