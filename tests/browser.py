"""Render a page in headless Chromium and report what the browser made of
it: how many images there are and how many decoded, tables and table rows."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="headless Chromium is not installed (scripts/test installs Debian's chromium)"
)

_CHECK = """<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var good = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0 && i.naturalHeight > 0; });
  var d = document.createElement('div');
  d.id = 'dupack-check';
  d.textContent = 'images=' + imgs.length + ' decoded=' + good.length +
    ' tables=' + document.querySelectorAll('table').length +
    ' rows=' + document.querySelectorAll('table tbody tr').length;
  document.body.appendChild(d);
});
</script>"""


def render(page: Path, scratch: Path) -> tuple[int, int, int, int]:
    """(images, decoded images, tables, table body rows) of ``page`` as headless Chromium shows it."""
    exe = chromium()
    assert exe is not None
    # A copy of the page with a script that writes what the browser made of it into the DOM.
    text = page.read_text(encoding="utf-8")
    checked = scratch / f"checked-{page.stem}.html"
    checked.write_text(text.replace("</body>", _CHECK + "</body>"), encoding="utf-8")
    proc = subprocess.run(
        [exe, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
         f"--user-data-dir={scratch / 'chromium-profile'}", "--virtual-time-budget=10000", "--dump-dom", checked.as_uri()],
        capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    m = re.search(r'<div id="dupack-check">images=(\d+) decoded=(\d+) tables=(\d+) rows=(\d+)</div>', proc.stdout)
    assert m, proc.stdout[-2000:]
    images, decoded, tables, rows = map(int, m.groups())
    return images, decoded, tables, rows
