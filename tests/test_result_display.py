"""How results and scenarios show themselves: repr, notebooks' HTML, the sweep's progress bar."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import dupack
from tests.conftest import QUICKSTART, ROOT

SHORT = ["run.duration=3s"]


@pytest.fixture(scope="module")
def res() -> dupack.RunResult:
    return dupack.run(QUICKSTART, seed=2, overrides=SHORT)


def test_repr_is_the_identifying_line_then_the_per_flow_table(res) -> None:
    lines = repr(res).splitlines()
    assert lines[0] == "<RunResult 'quickstart' seed=2 flows=4>"
    assert lines[1].split() == ["flow", "variant", "goodput", "kbit/s", "delivered", "bytes", "retx", "segs", "fast", "retx", "RTOs"]
    rows = [line.split() for line in lines[2:6]]
    for row, (_, f) in zip(rows, res.flows.iterrows(), strict=True):
        assert row == [
            f["flow"], f["variant"], f"{f['goodput_kbps']:.1f}", str(f["bytes_delivered"]),
            str(f["retransmitted_segments"]), str(f["fast_retransmits"]), str(f["timeouts"]),
        ]
    assert re.fullmatch(r"[\d,]+ events · 3\.000 s simulated \(\w+\) · [\d.]+ s wall time", lines[6])
    assert str(res) == repr(res)


def test_summary_is_the_flows_table_in_short(res) -> None:
    s = res.summary()
    assert list(s.columns) == ["flow", "variant", "goodput_kbps", "bytes_delivered", "retransmitted_segments", "fast_retransmits", "timeouts"]
    assert s["retransmitted_segments"].tolist() == res.flows["retransmitted_segments"].tolist()


def test_run_result_html(res) -> None:
    page = res._repr_html_()
    assert page.startswith("<p><code>&lt;RunResult &#x27;quickstart&#x27; seed=2 flows=4&gt;</code></p>")
    assert page.count("<tr") == 1 + 4
    f0 = res.flows.iloc[0]
    assert f"<td>{f0['goodput_kbps']:.1f}</td>" in page and "<th>RTOs</th>" in page


def test_scenario_html_lists_its_values_by_path() -> None:
    sc = dupack.load(QUICKSTART).with_overrides(["tcp.variant=sack", 'flows=[{name="a",from="s0",to="sink"}]'])
    page = sc._repr_html_()
    assert "&lt;Scenario &#x27;quickstart&#x27;" in page
    assert "1.5 Mbps dumbbell" in page  # the description, above the table
    assert "<code>tcp.variant</code></td><td style='text-align: left'>&quot;sack&quot;" in page
    assert "<code>flows[0].from</code>" in page and "<code>topology.access_override[0].senders</code>" in page
    assert "<code>description</code>" not in page


def _env() -> dict[str, str]:
    # From source (the core copied next to the package) or installed.
    if (ROOT / "python" / "dupack" / "_core.abi3.so").exists():
        return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")])}
    return dict(os.environ)


def _on_a_terminal(code: str) -> tuple[str, bytes]:
    """Run ``code`` with stderr on a pseudo-terminal: (stdout, what the terminal got)."""
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    try:
        p = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=slave, env=_env(), timeout=120)
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the other side is closed and drained
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
    assert p.returncode == 0, seen
    return p.stdout.decode().strip(), seen


SWEEP = (
    "import dupack; r = dupack.sweep(dupack.load({file!r}).with_overrides(['run.duration=1s']), "
    "{{'tcp.variant': ['reno', 'sack']}}, seeds=[1, 2], workers=1{extra}); print('runs', len(r.runs))"
)


def test_sweep_shows_a_progress_bar_on_a_terminal_only() -> None:
    out, seen = _on_a_terminal(SWEEP.format(file=str(QUICKSTART), extra=""))
    assert out == "runs 4"
    assert b"sweep" in seen and b"4/4" in seen
    out, seen = _on_a_terminal(SWEEP.format(file=str(QUICKSTART), extra=", progress=False"))
    assert out == "runs 4" and seen == b""
    # Not on a pipe.
    p = subprocess.run([sys.executable, "-c", SWEEP.format(file=str(QUICKSTART), extra="")], capture_output=True, env=_env(), timeout=120)
    assert p.returncode == 0 and p.stderr == b""
