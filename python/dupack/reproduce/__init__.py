"""One-command reproductions of the papers' experiments.

``reproduce("eplr", out="repro/eplr")`` runs every experiment of
``dupack/papers/eplr/experiment.toml`` for every scheme and seed (quick mode
by default; ``full=True`` uses the paper's replications), stores the runs
(one resumable sweep store per experiment and scheme), and writes:

- ``tables/EXPERIMENT.csv``: mean, standard deviation, 95 % interval and n
  per scheme, grid point and metric;
- ``comparison.csv``: each published number beside dupack's, with the
  difference;
- ``claims.csv``: each claim of the paper with its verdict (holds, fails,
  not decidable) and the paired differences behind it;
- ``figures/FIG.png`` and ``.svg``: the paper's figures redrawn;
- ``report.html``: all of it in one self-contained page.

``dupack reproduce NAME`` is the command-line face of this module.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dupack.reproduce.analysis import ClaimResult, Comparison, cells, compare_published, evaluate_claim
from dupack.reproduce.spec import Paper, ReproduceError, list_papers, load_paper

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["reproduce", "list_papers", "load_paper", "Reproduction", "ReproduceError", "jobs"]

#: The metrics every experiment's table reports.
TABLE_METRICS = ["goodput_kbps", "gain", "timeouts", "fast_retransmits", "retransmitted_segments", "completion_time_s",
                 "wasted_timeouts", "ndup_0", "ndup_1", "ndup_2", "ndup_3plus"]

#: How often a reproduction's sweeps store what finished (dupack.sweep's
#: chunk_seconds). A reproduction is many short sweeps whose grids carry
#: columns, so each chunk is stored by pyarrow with a file, its metadata and
#: its syncs per table; at the sweeps' default of half a second those fixed
#: costs were about a seventh of the quick unfairness reproduction's sweeping.
#: Runs that finish between two chunks are stored on an interruption too.
CHUNK_SECONDS = 2.0


@dataclass
class Reproduction:
    paper: Paper
    full: bool
    seeds: dict[str, int]  # experiment -> replications
    results: dict[str, pd.DataFrame]  # experiment -> flows of every run, with `scheme` and the axes
    comparisons: list[Comparison] = field(default_factory=list)
    claims: list[ClaimResult] = field(default_factory=list)
    figures: list[Path] = field(default_factory=list)
    out: Path | None = None

    def verdicts(self) -> dict[str, str]:
        return {c.claim["id"]: c.verdict for c in self.claims}


def _seeds(paper: Paper, full: bool, seeds: int | None) -> dict[str, int]:
    if seeds is not None and (not isinstance(seeds, int) or isinstance(seeds, bool) or seeds < 1):
        raise ReproduceError(f"seeds must be a whole number of replications of at least 1, got {seeds!r}")
    return {e.id: seeds or (e.seeds_full if full else e.seeds_quick) for e in paper.experiments}


def jobs(paper: Paper, full: bool = False, seeds: int | None = None) -> int:
    """The number of runs a reproduction makes."""
    n = _seeds(paper, full, seeds)
    total = 0
    for e in paper.experiments:
        points = math.prod(len(a.full if full else a.quick) for a in e.axes)
        total += points * len(e.schemes) * n[e.id]
    return total


def _check_out(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".dupack-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise ReproduceError(f"--out '{out}' cannot be written: {e.strerror or e}") from None


def reproduce(
    name: str,
    out: str | PathLike[str] | None = None,
    *,
    full: bool = False,
    seeds: int | None = None,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    fresh: bool = False,
    mixed_versions: bool = False,
    write_files: bool = True,
) -> Reproduction:
    """Run paper ``name``'s experiments and evaluate them (see the module doc).

    ``seeds`` overrides the number of replications of every experiment;
    ``progress(n)`` is called with the number of runs finished since its
    last call. The runs stored in ``out`` by an earlier call are reused;
    ``fresh=True`` discards them, and runs of another dupack build are
    refused unless ``mixed_versions=True`` (:class:`dupack.SweepError`). Without ``out`` nothing is written and the runs stay in memory.
    With ``write_files=False`` the runs are stored in ``out`` but the
    tables, figures and report are left to a later :func:`write` (``dupack
    reproduce all`` draws one paper's while the next one's runs simulate).
    """
    paper = load_paper(name)
    n = _seeds(paper, full, seeds)
    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        _check_out(out_dir)
        if fresh and (out_dir / "runs").is_dir():
            # The stores are this module's own: DIR/runs holds nothing else.
            shutil.rmtree(out_dir / "runs")
    results: dict[str, pd.DataFrame] = {}
    early = _EarlyFigures(paper, full, out_dir / "figures") if out_dir is not None and write_files else None
    try:
        _run_experiments(paper, full, n, out_dir, workers, progress, mixed_versions, results, early)
        r = Reproduction(paper, full, n, results)
        r.comparisons = compare_published(paper, results)
        r.claims = [evaluate_claim(paper, c, results) for c in paper.claims]
        if out_dir is not None:
            r.out = out_dir
            if write_files:
                write(r, out_dir, early=early)
    except BaseException:
        if early is not None:
            early.cancel()
        raise
    return r


def _run_experiments(paper: Paper, full: bool, n: dict[str, int], out_dir: Path | None, workers: int | None,
                     progress: Callable[[int], None] | None, mixed_versions: bool,
                     results: dict[str, pd.DataFrame], early: _EarlyFigures | None) -> None:
    """Run every experiment of ``paper`` into ``results`` (experiment ->
    flows of every run); hand ``early`` each figure whose experiments are done."""
    import pandas as pd

    import dupack
    from dupack.scenario import load as load_scenario

    for e in paper.experiments:
        mode = [*e.overrides, *(e.overrides_full if full else e.overrides_quick)]
        # An axis of one path is a dimension of the sweep's grid; an axis that
        # sets several paths to one value (the BER of both directions) is
        # iterated here, one sweep per value.
        # A flows axis (how many of the scenario's flows run) is iterated
        # here too: it changes the scenario itself.
        grid = {a.paths[0]: [a.override_value(v) for v in (a.full if full else a.quick)]
                for a in e.axes if len(a.paths) == 1 and not a.flows and not a.unit}
        linked = [a for a in e.axes if a.flows or a.unit or len(a.paths) > 1]
        base = load_scenario(e.scenario)
        frames = []
        for sid in e.schemes:
            scheme = paper.scheme(sid)
            assert scheme is not None
            for combo in itertools.product(*[list(a.full if full else a.quick) for a in linked]):
                scenario = base
                kept = None
                for a, v in zip(linked, combo):
                    if a.flows:
                        kept = int(v)
                        doc = base.to_dict()
                        doc["flows"] = list(doc.get("flows", []))[:kept]
                        scenario = dupack.Scenario(doc, base.source)
                fixed = [f"{p}={_toml(a.override_value(v))}" for a, v in zip(linked, combo) for p in a.paths
                         if kept is None or _flow_index(p) is None or _flow_index(p) < kept]
                sub = "-".join(f"{a.name}{v}" for a, v in zip(linked, combo))
                store = out_dir / "runs" / e.id / _slug(sid) / _slug(sub) if out_dir and sub else (
                    out_dir / "runs" / e.id / _slug(sid) if out_dir else None)
                last = [0]

                def tick(done: int, total: int, last: list[int] = last) -> None:
                    if progress is not None:
                        progress(done - last[0])
                    last[0] = done

                res = dupack.sweep(
                    scenario, grid or None, seeds=range(1, n[e.id] + 1), workers=workers, out=store,
                    overrides=[*scheme.overrides, *mode, *fixed], progress=tick, mixed_versions=mixed_versions,
                    chunk_seconds=CHUNK_SECONDS, _keep_rows=True,
                )
                f = res.flows.copy()
                f.insert(0, "scheme", sid)
                for a, v in zip(linked, combo):
                    f[a.name] = v
                for a in e.axes:
                    if len(a.paths) == 1:
                        f[a.name] = f[a.paths[0]]
                if e.flow_axis:
                    name_, values = e.flow_axis
                    f[name_] = f["flow"].map(values)
                if e.fair_share_kbps:
                    # gain (unfairness §VII): goodput over the fair share, the link rate split N ways.
                    flows_per_run = f.groupby("job")["flow"].transform("count")
                    f["gain"] = 100.0 * f["goodput_kbps"] * flows_per_run / e.fair_share_kbps
                frames.append(f)
        results[e.id] = pd.concat(frames, ignore_index=True)
        if early is not None:
            early.ready(results)


def _flow_index(path: str) -> int | None:
    """k of an override path ``flows[k]...``, else None."""
    if not path.startswith("flows["):
        return None
    k = path[len("flows["):].split("]", 1)[0]
    return int(k) if k.isdigit() else None


def _toml(v: Any) -> str:
    """A Python value as the TOML an override takes."""
    if isinstance(v, str):
        return json.dumps(v)
    return repr(v) if not isinstance(v, bool) else str(v).lower()


def _slug(s: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in s)


class _EarlyFigures:
    """Draws a paper's figures on a thread of its own, each as soon as the
    experiments it plots have run, while the later experiments' runs go on.

    Why: the runs keep both cores busy and drawing takes one (matplotlib,
    a PNG and an SVG a figure: about a third of ``dupack reproduce efr``),
    so drawn after the last run the figures leave a core idle; drawn while
    the runs go on they share the cores with them. The figures are the
    same bytes either way (a test compares them): each is drawn from its
    experiments' finished flows, which nothing changes afterwards (the
    thread gets its own shallow copies), and from the published numbers,
    which do not depend on the runs."""

    def __init__(self, paper: Paper, full: bool, out: Path) -> None:
        import queue

        self.paper, self.full, self.out = paper, full, out
        self.published = compare_published(paper, {})  # the paper's numbers: no run needed
        self.submitted: set[str] = set()
        self.drawn: dict[str, list[Path]] = {}
        self.error: BaseException | None = None
        self.cancelled = False
        self.todo: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.thread: Any = None

    def ready(self, results: dict[str, pd.DataFrame]) -> None:
        """Queue every figure not yet queued whose experiments are all in ``results``."""
        import threading

        for fig in self.paper.figures:
            if fig.id in self.submitted or not all(e in results for e in fig.experiments):
                continue
            self.submitted.add(fig.id)
            self.todo.put((fig, {e: results[e].copy(deep=False) for e in fig.experiments}))
            if self.thread is None:
                self.thread = threading.Thread(target=self._body, name=f"dupack-figures-{self.paper.name}", daemon=True)
                self.thread.start()

    def _body(self) -> None:
        from dupack.reproduce import figures

        while True:
            item = self.todo.get()
            if item is None or self.cancelled:
                return
            fig, results = item
            try:
                self.drawn[fig.id] = figures.draw(self.paper, fig, results, self.full, self.published, self.out)
            except BaseException as e:  # noqa: BLE001 - raised again by finish(), in the reproduction's thread
                self.error = e
                return

    def finish(self) -> dict[str, list[Path]]:
        """Wait for the figures queued; their paths by figure id. Raises what drawing one raised."""
        if self.thread is not None:
            self.todo.put(None)
            self.thread.join()
            self.thread = None
        if self.error is not None:
            raise self.error
        return self.drawn

    def cancel(self) -> None:
        """Stop after the figure being drawn (the reproduction failed or was interrupted)."""
        self.cancelled = True
        if self.thread is not None:
            self.todo.put(None)
            self.thread.join()
            self.thread = None


def write(r: Reproduction, out: Path, early: _EarlyFigures | None = None) -> None:
    """Tables, comparison, claims, figures and the HTML report into ``out``
    (the figures ``early`` drew while the runs went on are not drawn again)."""
    from dupack.reproduce import figures, report

    r.out = out
    (out / "tables").mkdir(parents=True, exist_ok=True)
    for e in r.paper.experiments:
        metrics = [m for m in TABLE_METRICS if m in r.results[e.id].columns]
        with (out / "tables" / f"{e.id}.csv").open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["scheme", *e.axis_names(), "metric", "mean", "sd", "ci95_half", "n"])
            for c in cells(r.paper, e, r.results[e.id], metrics, r.full):
                w.writerow([c.scheme, *c.point.values(), c.metric, _num(c.est.mean), _num(c.est.sd), _num(c.est.half), c.est.n])
    with (out / "comparison.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "where", "scheme", "conditions", "paper", "unit", "dupack_mean", "dupack_ci95_half", "n",
                    "difference_pct", "note"])
        for c in r.comparisons:
            d = c.dupack
            w.writerow([c.value.get("id"), c.value.get("where"), c.value.get("scheme"),
                        json.dumps(c.value.get("conditions", {})), c.value.get("value"), c.value.get("unit"),
                        _num(d.mean) if d else "", _num(d.half) if d else "", d.n if d else "",
                        _num(c.difference_pct), c.reason])
    with (out / "claims.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "verdict", "claim", "where", "point", "a", "b", "difference_mean", "difference_ci95_half", "n"])
        for c in r.claims:
            rows = [(p, a, b, d) for p in c.points for a, b, d in p.diffs] or [(None, "", "", None)]
            for p, a, b, d in rows:
                w.writerow([c.claim["id"], c.verdict, c.claim.get("text"), c.claim.get("where"),
                            json.dumps(p.point) if p else "", a, b, _num(d.mean) if d else "",
                            _num(d.half) if d else "", d.n if d else ""])
    drawn = early.finish() if early is not None else {}
    r.figures = []
    for fig in r.paper.figures:
        if fig.id in drawn:
            r.figures += drawn[fig.id]
        elif all(e in r.results for e in fig.experiments):
            r.figures += figures.draw(r.paper, fig, r.results, r.full, r.comparisons, out / "figures")
    (out / "report.html").write_text(report.html_page(r))


def _num(x: float) -> str:
    return "" if x is None or x != x else f"{x:.6g}"

