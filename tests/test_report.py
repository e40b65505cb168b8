"""`dupack report`: one self-contained HTML page for runs and sweeps, opened
in headless Chromium (skipped, saying so, where it is not installed): every
image decodes, the tables are there, and nothing is fetched from outside."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

import dupack
from tests.browser import needs_chromium, render
from tests.conftest import QUICKSTART, run_cli


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("report")
    traced = dupack.run(QUICKSTART, seed=1, overrides=["run.duration=6s"], trace=["f3"], series=["f3", "bottleneck"])
    plain = dupack.run(QUICKSTART, seed=2, overrides=["run.duration=4s"])
    dupack.sweep(QUICKSTART, grid={"tcp.variant": ["reno", "sack"]}, seeds=[1, 2], overrides=["run.duration=4s"],
                 out=root / "sweep", workers=1, progress=False)
    return {"traced": traced.save(root / "traced"), "plain": plain.save(root / "plain"), "sweep": root / "sweep"}


class _Page(HTMLParser):
    """The page's images, tables and every URL it names."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.alts: list[str] = []
        self.tables = 0
        self.urls: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "img":
            self.images.append(a.get("src") or "")
            self.alts.append(a.get("alt") or "")
        if tag == "table":
            self.tables += 1
        if tag == "script":
            self.scripts += 1
        for k in ("src", "href", "data", "action"):
            if a.get(k):
                self.urls.append(str(a[k]))


def _parse(text: str) -> _Page:
    p = _Page()
    p.feed(text)
    return p


def test_report_of_runs_and_a_sweep(results: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    r = run_cli("report", str(results["traced"]), str(results["plain"]), str(results["sweep"]), "-o", str(out))
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    assert r.stdout == f"wrote {out}\n"
    text = out.read_text(encoding="utf-8")
    page = _parse(text)
    # Self-contained: every image is an embedded PNG, no script, no URL out.
    assert page.images and all(src.startswith("data:image/png;base64,") for src in page.images)
    assert all(u.startswith("data:") for u in page.urls), [u for u in page.urls if not u.startswith("data:")]
    assert not re.search(r"(src|href)\s*=\s*['\"]?(https?:|//)", text)
    assert page.scripts == 0
    # The traced run's plots, the sweep's, and the comparison across results.
    for alt in ("cwnd and ssthresh", "time–sequence graph of f3", "queue of bottleneck:fwd", "goodput per flow",
                "goodput_kbps against tcp.variant", "goodput per variant", "goodput per flow, over every run given"):
        assert alt in page.alts, (alt, page.alts)
    # Tables: flows and links of each run, the sweep's summary, flows and links.
    assert page.tables == 2 + 2 + 3
    assert f"dupack {dupack.__version__}" in text
    assert "Summary over seeds" in text and "&quot;bottleneck&quot;" in text  # the scenario, escaped
    for name in ("traced", "plain", "sweep"):
        assert f"{name}" in text
    # The untraced run says how to get the trace plots.
    assert "run with --trace" in text


@needs_chromium
def test_report_renders_in_headless_chromium(results: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    r = run_cli("report", str(results["traced"]), str(results["sweep"]), "-o", str(out))
    assert r.exit_code == 0, r.stderr
    expected = _parse(out.read_text(encoding="utf-8"))
    images, decoded, tables, rows = render(out, tmp_path)
    assert images == len(expected.images) >= 6
    assert decoded == images, f"{images - decoded} of {images} images did not decode"
    assert tables == expected.tables == 5
    assert rows >= 4 + 2  # at least the traced run's four flows and the sweep summary's two variants


def test_report_of_an_in_memory_run_and_sweep(tmp_path: Path) -> None:
    from dupack.htmlreport import write_report

    res = dupack.run(QUICKSTART, seed=1, overrides=["run.duration=3s"], trace=["f0"], series=["f0"])
    sw = dupack.sweep(QUICKSTART, grid={"tcp.variant": ["reno", "newreno"]}, overrides=["run.duration=2s"], progress=False)
    page = _parse(write_report([res, sw], tmp_path / "r.html", title="two results").read_text(encoding="utf-8"))
    assert "time–sequence graph of f0" in page.alts and "goodput per variant" in page.alts
    assert (tmp_path / "r.html").read_text(encoding="utf-8").count("<h1>two results</h1>") == 1


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["{tmp}"], "is not a result directory"),
        (["{tmp}/missing"], "does not exist"),
        (["{run}", "-o", "{tmp}"], "is a directory"),
        (["{run}", "-o", "{tmp}/no/such/report.html"], "cannot write"),
        (["{run}", "-o", ""], "--out needs a file name"),
    ],
)
def test_report_bad_input_is_one_line_and_exit_2(args: list[str], fragment: str, results: dict[str, Path],
                                                 tmp_path: Path) -> None:
    r = run_cli("report", *[a.format(run=results["plain"], tmp=tmp_path) for a in args])
    assert r.exit_code == 2, (r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], r.stderr
    assert r.stdout == ""
