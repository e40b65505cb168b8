"""Results as the plots see them: a run (in memory or a ``dupack run``
directory) or a sweep (in memory or a ``dupack sweep`` directory).

A run directory holds ``result.json`` and, when the run was traced,
``trace.parquet`` and ``series.parquet``; a sweep directory holds
``sweep.json`` and a Parquet dataset per table (docs/results.md).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from dupack.result import RunResult
    from dupack.sweeps import SweepResult

__all__ = ["PlotError", "Run", "Sweep", "load", "as_run", "as_sweep"]

#: The segment size a flow is taken to use when neither its packets nor its scenario say (the default).
DEFAULT_MSS = 1460


class PlotError(ValueError):
    """The results given cannot make the plot asked for (no trace, unknown
    flow, not a result directory, ...). The message is one line."""


@dataclass
class Run:
    """One run: its tables, its packet trace and time series when recorded,
    the scenario document when known, and a label for legends."""

    label: str
    raw: dict[str, Any]
    flows: pd.DataFrame
    links: pd.DataFrame
    media: pd.DataFrame
    trace: pd.DataFrame | None = None
    series: pd.DataFrame | None = None
    scenario: dict[str, Any] | None = None
    path: Path | None = None
    _mss: dict[str, int] = field(default_factory=dict)
    #: (entity, variable) → the series' rows of it, in order (:meth:`flow_series`).
    _series_rows: dict[tuple[str, str], Any] | None = field(default=None, repr=False)

    @property
    def seed(self) -> int | None:
        s = self.raw.get("seed")
        return None if s is None else int(s)

    @property
    def name(self) -> str:
        return str(self.raw.get("scenario", ""))

    @property
    def traced_flows(self) -> list[str]:
        """Flows with a packet trace, in the order of the flows table."""
        if self.trace is None:
            return []
        present = {str(f) for f in self.trace["flow"].unique()}
        return [f for f in self.flows["flow"].astype(str) if f in present] + sorted(
            present - set(self.flows["flow"].astype(str))
        )

    @property
    def series_flows(self) -> list[str]:
        """Flows with a time series, in the order of the flows table."""
        if self.series is None:
            return []
        present = {str(e) for e in self.series["entity"].unique()}
        return [f for f in self.flows["flow"].astype(str) if f in present]

    @property
    def series_links(self) -> list[str]:
        """Link directions (``LINK:fwd``, ``LINK:rev``) with a time series."""
        if self.series is None:
            return []
        flows = set(self.flows["flow"].astype(str))
        return sorted({e for e in map(str, self.series["entity"].unique()) if e not in flows and ":" in e},
                      key=lambda e: (e.rsplit(":", 1)[0], e.endswith(":rev")))

    def flow_series(self, entity: str, variable: str) -> pd.DataFrame:
        """``time_s``, ``value`` of one variable of one entity, in time order."""
        s = self.series
        assert s is not None
        if self._series_rows is None:
            self._series_rows = _rows_by(s["entity"], s["variable"])
        rows = self._series_rows.get((entity, variable), [])
        return s[["time_s", "value"]].take(rows).reset_index(drop=True)

    def mss(self, flow: str) -> int:
        """The flow's segment size in bytes: the largest segment it sent,
        else its scenario's ``tcp.mss``, else the default."""
        if flow in self._mss:
            return self._mss[flow]
        mss = None
        if self.trace is not None:
            t = self.trace
            sent = t[(t["flow"].astype(str) == flow) & t["kind"].isin(["send", "retransmit"])]["len"]
            if len(sent) and int(sent.max()) > 0:
                mss = int(sent.max())
        if mss is None and self.scenario is not None:
            mss = _scenario_mss(self.scenario, flow)
        self._mss[flow] = mss or DEFAULT_MSS
        return self._mss[flow]


def _rows_by(a: pd.Series, b: pd.Series) -> dict[tuple[str, str], Any]:
    """(value of ``a``, value of ``b``) as text → the positions of the rows
    holding them, in order: the series are grouped once, not compared as
    text whole for every line of a figure (a 200 s run of ten traced flows
    has 432,000 records, and each comparison took a tenth of a second)."""
    import numpy as np
    import pandas as pd

    # Codes from 0, a missing value -1: shifted by one, 0 is missing.
    codes_a, names_a = pd.factorize(a)
    codes_b, names_b = pd.factorize(b)
    width = len(names_b) + 1
    key = (codes_a.astype(np.int64) + 1) * width + (codes_b + 1)
    order = np.argsort(key, kind="stable")
    keys, starts = np.unique(key[order], return_index=True)
    out = {}
    for k, rows in zip(keys.tolist(), np.split(order, starts[1:]), strict=True):
        ia, ib = divmod(k, width)
        if ia and ib:
            out[(str(names_a[ia - 1]), str(names_b[ib - 1]))] = rows
    return out


@dataclass
class Sweep:
    """A sweep's result, with a label for legends."""

    label: str
    result: SweepResult
    path: Path | None = None


def _scenario_mss(doc: dict[str, Any], flow: str) -> int | None:
    for f in doc.get("flows") or []:
        if isinstance(f, dict) and f.get("name") == flow:
            v = _size((f.get("tcp") or {}).get("mss")) if isinstance(f.get("tcp"), dict) else None
            if v:
                return v
    tcp = doc.get("tcp")
    return _size(tcp.get("mss")) if isinstance(tcp, dict) else None


_UNITS = {"b": 1, "kb": 1000, "kib": 1024, "mb": 1000**2, "mib": 1024**2}


def _size(v: Any) -> int | None:
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, str):
        m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]+)\s*", v)
        if m and m.group(2).lower() in _UNITS:
            return int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    return None


def as_run(result: RunResult, label: str | None = None) -> Run:
    """A :class:`~dupack.RunResult` in memory as a :class:`Run`."""
    return Run(
        label=label or f"{result.scenario_name or 'run'} seed {result.seed}",
        raw=result._doc,
        flows=result.flows,
        links=result.links,
        media=result.media,
        trace=result.trace if result._has("trace") else None,
        series=result.series if result.has_series else None,
        scenario=result.scenario.to_dict() if result.scenario is not None else None,
    )


def as_sweep(result: SweepResult, label: str | None = None) -> Sweep:
    name = result.out.name if result.out is not None else (result.scenario.name if result.scenario is not None else None)
    return Sweep(label=label or name or "sweep", result=result, path=result.out)


def _short(p: Path) -> str:
    s = str(p)
    return s if len(s) <= 80 else s[:38] + "…" + s[-38:]


def load(path: str | PathLike[str]) -> Run | Sweep:
    """A ``dupack run`` or ``dupack sweep`` directory (or its ``result.json``
    / ``sweep.json``). Raises :class:`PlotError` for anything else."""
    p = Path(path)
    if p.is_file() and p.name in ("result.json", "sweep.json"):
        p = p.parent
    if not p.exists():
        raise PlotError(f"'{_short(p)}' does not exist")
    if not p.is_dir():
        raise PlotError(f"'{_short(p)}' is not a result directory (give the directory 'dupack run' or 'dupack sweep' wrote)")
    if (p / "sweep.json").is_file():
        from dupack.sweeps import SweepResult

        try:
            res = SweepResult.load(p)
        except (OSError, ValueError) as e:
            raise PlotError(f"cannot read the sweep in '{_short(p)}': {_one_line(e)}") from None
        return Sweep(label=p.name or str(p), result=res, path=p)
    if (p / "result.json").is_file():
        return _load_run(p)
    raise PlotError(f"'{_short(p)}' is not a result directory: it has neither result.json (dupack run) nor sweep.json (dupack sweep)")


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:300]


def _load_run(p: Path) -> Run:
    import pandas as pd

    from dupack.result import RunResult

    try:
        raw = json.loads((p / "result.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise PlotError(f"cannot read '{_short(p / 'result.json')}': {_one_line(e)}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("flows"), list) or "seed" not in raw:
        raise PlotError(f"'{_short(p / 'result.json')}' is not a dupack run result (no flows and seed)")
    res = RunResult(raw)
    try:
        flows, links, media = res.flows, res.links, res.media
    except (ValueError, TypeError, KeyError) as e:
        raise PlotError(f"'{_short(p / 'result.json')}' is not a dupack run result: {_one_line(e)}") from None
    frames: dict[str, pd.DataFrame | None] = {}
    for name in ("trace", "series"):
        f = p / f"{name}.parquet"
        if not f.is_file():
            frames[name] = None
            continue
        try:
            frames[name] = pd.read_parquet(f)
        except Exception as e:  # pyarrow raises several kinds for a bad file
            raise PlotError(f"cannot read '{_short(f)}': {_one_line(e)}") from None
    scenario = None
    sf = p / "scenario.json"
    if sf.is_file():
        try:
            doc = json.loads(sf.read_text(encoding="utf-8"))
            scenario = doc.get("scenario") if isinstance(doc, dict) and isinstance(doc.get("scenario"), dict) else None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            scenario = None
    return Run(
        label=p.name or str(p),
        raw=raw,
        flows=flows,
        links=links,
        media=media,
        trace=frames["trace"],
        series=frames["series"],
        scenario=scenario,
        path=p,
    )
