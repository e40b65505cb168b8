"""A reproduction as one self-contained HTML page: the figures embedded,
the comparison with the published numbers, the claims' verdicts, the
scenario files and the versions. It opens offline in any browser."""

from __future__ import annotations

import base64
import html
import platform
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from dupack.reproduce.analysis import FAILS, HOLDS

if TYPE_CHECKING:
    from dupack.reproduce import Reproduction

_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; max-width: 72em; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.holds { background: #e5f5e0; } .fails { background: #fde0dd; } .undecided { background: #fff7d6; }
figure { display: inline-block; margin: 0.5em; } figure img { max-width: 36em; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
.note { color: #555; }
"""


def _e(x: object) -> str:
    return html.escape(str(x))


def html_page(r: Reproduction) -> str:
    import dupack

    p = r.paper
    mode = "full" if r.full else "quick"
    L = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>dupack reproduce {_e(p.name)}</title>",
         f"<style>{_STYLE}</style></head><body>",
         f"<h1>{_e(p.title)}</h1>",
         f"<p><b>Paper:</b> {_e(p.reference)}</p>",
         f"<p>{_e(p.summary)}</p>",
         f"<p class='note'>Mode: {mode}; replications: "
         + ", ".join(f"{_e(k)} {v}" for k, v in r.seeds.items())
         + f"; dupack {_e(dupack.__version__)}; Python {_e(platform.python_version())}; "
         f"generated {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC.</p>"]
    held = sum(c.verdict == HOLDS for c in r.claims)
    failed = sum(c.verdict == FAILS for c in r.claims)
    L.append(f"<h2>Claims</h2><p>{held} of {len(r.claims)} hold, {failed} fail, "
             f"{len(r.claims) - held - failed} are not decidable or not run. A claim holds where the 95 % "
             "interval of every difference it needs (paired by seed) excludes zero on its side.</p>")
    L.append("<table><tr><th>claim</th><th>where</th><th>verdict</th><th>detail</th></tr>")
    for c in r.claims:
        cls = {"holds": "holds", "fails": "fails"}.get(c.verdict, "undecided")
        L.append(f"<tr class='{cls}'><td>{_e(c.claim.get('text'))}</td><td>{_e(c.claim.get('where'))}</td>"
                 f"<td>{_e(c.verdict)}</td><td>{_e(c.reason)}</td></tr>")
    L.append("</table>")
    L.append("<h2>Published numbers beside dupack's</h2><table><tr><th>where</th><th>scheme</th><th>conditions</th>"
             "<th>paper</th><th>dupack (mean ± 95 % CI)</th><th>difference</th></tr>")
    for c in r.comparisons:
        v = c.value
        d = c.dupack
        L.append(f"<tr><td>{_e(v.get('where'))}</td><td>{_e(v.get('scheme'))}</td><td>{_e(v.get('conditions'))}</td>"
                 f"<td class='num'>{_e(v.get('value'))} {_e(v.get('unit', ''))}</td>"
                 f"<td class='num'>{_e(d.fmt() if d else c.reason)}</td>"
                 f"<td class='num'>{'' if c.difference_pct != c.difference_pct else f'{c.difference_pct:+.0f} %'}</td></tr>")
    L.append("</table>")
    L.append("<h2>Figures</h2>")
    for path in r.figures:
        if path.suffix == ".png":
            data = base64.b64encode(path.read_bytes()).decode()
            L.append(f"<figure><img alt='{_e(path.stem)}' src='data:image/png;base64,{data}'>"
                     f"<figcaption>{_e(path.stem)}</figcaption></figure>")
    if p.notes:
        L.append(f"<h2>Where dupack's model differs from the paper's</h2><p>{_e(p.notes)}</p>")
    L.append("<h2>Scenarios</h2>")
    for e in p.experiments:
        L.append(f"<h3>{_e(e.id)}: {_e(e.description)}</h3><pre>{_e(e.scenario.read_text())}</pre>")
    L.append("</body></html>")
    return "\n".join(L)

