"""A paper's reproduction as data: ``dupack/papers/NAME/``.

- ``experiment.toml``: the schemes compared, the experiments (a scenario
  file, its grid, its seeds in quick and full mode), how each published
  quantity is read off dupack's results (``[[compare]]``) and the figures;
- ``published.toml``: the numbers the paper publishes, each with its table
  or figure and a few words of the paper's text that locate it;
- ``claims.toml``: the paper's claims as checks over replicated runs;
- the scenario files the experiments name.

Nothing here runs anything: :mod:`dupack.reproduce` does.
"""

from __future__ import annotations

import itertools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Where the papers' folders live (inside the package, so that an installed
#: dupack carries them; ``scenarios/papers`` in a checkout points here).
PAPERS_DIR = Path(__file__).resolve().parent.parent / "papers"

#: Per-flow result columns a claim or a figure may name.
METRICS = (
    "goodput_kbps", "timeouts", "fast_retransmits", "retransmitted_segments", "ndup_0", "ndup_1", "ndup_2",
    "ndup_3plus", "fr_to_ratio", "spurious_retransmissions", "completion_time_s", "wasted_timeouts",
    "timeout_episodes", "segments_sent", "bytes_delivered", "drops_error", "drops_queue", "recovery_time_s",
    # Derived: goodput over the fair share, in per cent (an experiment's `fair_share_kbps` / flows in the run).
    "gain",
)
#: How the flows of one run are combined into one value.
AGGREGATES = ("mean", "sum", "jain")
COMPARES = ("greater", "less", "ordered", "ratio_at_least")


class ReproduceError(ValueError):
    """A paper name, option or paper file that cannot be used; the message says why."""


@dataclass(frozen=True)
class Scheme:
    id: str
    label: str
    overrides: tuple[str, ...]


@dataclass(frozen=True)
class Axis:
    """A grid dimension: the override paths it sets (all to the same value;
    usually one) and its values (quick and full)."""

    name: str
    paths: tuple[str, ...]
    quick: tuple[Any, ...]
    full: tuple[Any, ...]
    # Appended to a value in the override it makes (10 with "MB" sets "10MB").
    unit: str = ""
    # The value is the number of the scenario's [[flows]] a run keeps (the
    # first N); paths on a flow it does not keep are left out.
    flows: bool = False

    def override_value(self, v: Any) -> Any:
        return f"{v}{self.unit}" if self.unit else v


@dataclass(frozen=True)
class Experiment:
    id: str
    setting: str
    scenario: Path
    description: str
    axes: tuple[Axis, ...]
    # A dimension carried by the flows of one run: flow name -> value.
    flow_axis: tuple[str, dict[str, Any]] | None
    seeds_quick: int
    seeds_full: int
    overrides: tuple[str, ...]
    overrides_quick: tuple[str, ...]
    overrides_full: tuple[str, ...]
    schemes: tuple[str, ...]  # the scheme ids it runs (all by default)
    # The link rate whose equal split is a flow's fair share (the `gain` metric).
    fair_share_kbps: float | None = None
    # A short name for figure legends (the id by default).
    label: str = ""

    def axis_names(self) -> list[str]:
        names = [a.name for a in self.axes]
        if self.flow_axis:
            names.append(self.flow_axis[0])
        return names

    def axis_values(self, name: str, full: bool) -> list[Any]:
        for a in self.axes:
            if a.name == name:
                return list(a.full if full else a.quick)
        if self.flow_axis and self.flow_axis[0] == name:
            return sorted(set(self.flow_axis[1].values()))
        raise KeyError(name)


@dataclass(frozen=True)
class Compare:
    quantity: str
    metric: str
    aggregate: str


@dataclass(frozen=True)
class Figure:
    id: str
    title: str
    experiments: tuple[str, ...]  # one series per experiment and scheme
    schemes: tuple[str, ...] | None  # only these schemes (None: every scheme an experiment runs)
    fixed: dict[str, Any]  # the other axes, held at these values
    log_x: bool
    x: str
    x_label: str
    y: str
    y_label: str
    aggregate: str
    kind: str  # "bars" or "lines"


@dataclass
class Paper:
    name: str
    folder: Path
    title: str
    reference: str
    summary: str
    notes: str
    schemes: list[Scheme]
    experiments: list[Experiment]
    compares: list[Compare]
    figures: list[Figure]
    published: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)

    def scheme(self, key: str) -> Scheme | None:
        """The scheme with this id or label (published values name schemes as the paper does)."""
        for s in self.schemes:
            if key in (s.id, s.label):
                return s
        return None

    def experiment(self, setting_or_id: str) -> Experiment | None:
        for e in self.experiments:
            if setting_or_id in (e.id, e.setting):
                return e
        return None


def list_papers() -> list[str]:
    """The papers that have a reproduction, by name."""
    if not PAPERS_DIR.is_dir():
        return []
    return sorted(p.name for p in PAPERS_DIR.iterdir() if (p / "experiment.toml").is_file())


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise ReproduceError(f"cannot read {path}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise ReproduceError(f"{path}: {e}") from None


def _need(t: dict[str, Any], key: str, where: str, kind: type | tuple[type, ...] = str) -> Any:
    if key not in t:
        raise ReproduceError(f"{where}: '{key}' is missing")
    v = t[key]
    if not isinstance(v, kind):
        raise ReproduceError(f"{where}.{key}: expected {getattr(kind, '__name__', kind)}, got {v!r}")
    return v


def load_paper(name: str) -> Paper:
    """Read and check ``papers/NAME``; a mistake in its files names the file and key."""
    known = list_papers()
    if name not in known:
        raise ReproduceError(f"no reproduction of a paper called '{name}'; allowed: {', '.join(known)} (or 'all')")
    folder = PAPERS_DIR / name
    spec = _read(folder / "experiment.toml")
    where = f"papers/{name}/experiment.toml"
    schemes = [
        Scheme(_need(s, "id", f"{where} scheme"), s.get("label", s["id"]), tuple(s.get("overrides", [])))
        for s in spec.get("scheme", [])
    ]
    if not schemes:
        raise ReproduceError(f"{where}: no [[scheme]]")
    ids = [s.id for s in schemes]
    experiments = []
    for i, e in enumerate(spec.get("experiment", [])):
        w = f"{where} experiment[{i}]"
        scenario = folder / _need(e, "scenario", w)
        if not scenario.is_file():
            raise ReproduceError(f"{w}.scenario: no file {scenario.name} in papers/{name}")
        axes = []
        for a in e.get("axis", []):
            vals = a.get("values")
            quick, full = (vals.get("quick"), vals.get("full")) if isinstance(vals, dict) else (vals, vals)
            if not isinstance(quick, list) or not isinstance(full, list) or not quick:
                raise ReproduceError(f"{w}.axis '{a.get('name')}': values must be a non-empty list or {{quick, full}}")
            keeps_flows = bool(a.get("flows", False))
            paths = a.get("paths") or ([] if keeps_flows else [_need(a, "path", w)])
            if keeps_flows and not all(isinstance(v, int) and v >= 1 for v in [*quick, *full]):
                raise ReproduceError(f"{w}.axis '{a.get('name')}': a flows axis counts flows: whole numbers of at least 1")
            axes.append(Axis(_need(a, "name", w), tuple(paths), tuple(quick), tuple(full), str(a.get("unit", "")), keeps_flows))
        fa = e.get("flow_axis")
        flow_axis = (fa["name"], dict(fa["values"])) if fa else None
        seeds = _need(e, "seeds", w, dict)
        run_schemes = tuple(e.get("schemes", ids))
        for s in run_schemes:
            if s not in ids:
                raise ReproduceError(f"{w}.schemes: no scheme '{s}'; schemes: {', '.join(ids)}")
        experiments.append(Experiment(
            id=_need(e, "id", w), setting=e.get("setting", e["id"]), scenario=scenario,
            description=e.get("description", ""), axes=tuple(axes), flow_axis=flow_axis,
            seeds_quick=int(seeds["quick"]), seeds_full=int(seeds["full"]), overrides=tuple(e.get("overrides", [])),
            overrides_quick=tuple(e.get("quick_overrides", [])), overrides_full=tuple(e.get("full_overrides", [])),
            schemes=run_schemes, fair_share_kbps=e.get("fair_share_kbps"), label=e.get("label", e["id"]),
        ))
    if not experiments:
        raise ReproduceError(f"{where}: no [[experiment]]")
    compares = [Compare(_need(c, "quantity", where), _need(c, "metric", where), c.get("aggregate", "mean"))
                for c in spec.get("compare", [])]
    figures = []
    for f in spec.get("figure", []):
        w = f"{where} figure '{f.get('id')}'"
        exps = f.get("experiments") or [_need(f, "experiment", w)]
        fig = Figure(
            id=_need(f, "id", w), title=f.get("title", f["id"]), experiments=tuple(exps),
            schemes=tuple(f["schemes"]) if "schemes" in f else None, fixed=dict(f.get("fixed", {})),
            log_x=bool(f.get("log_x", False)), x=_need(f, "x", w), x_label=f.get("x_label", f["x"]), y=_need(f, "y", w), y_label=f.get("y_label", f["y"]),
            aggregate=f.get("aggregate", "mean"), kind=f.get("kind", "lines"),
        )
        if fig.y not in METRICS or fig.aggregate not in AGGREGATES or fig.kind not in ("bars", "lines"):
            raise ReproduceError(f"{w}: y must be one of {', '.join(METRICS)}; aggregate one of "
                                 f"{', '.join(AGGREGATES)}; kind bars or lines")
        known = {e.id for e in experiments}
        if not set(fig.experiments) <= known:
            raise ReproduceError(f"{w}: no experiment {', '.join(sorted(set(fig.experiments) - known))}")
        figures.append(fig)
    paper = Paper(
        name=name, folder=folder, title=spec.get("title", name), reference=spec.get("reference", ""),
        summary=spec.get("summary", ""), notes=spec.get("notes", ""), schemes=schemes, experiments=experiments,
        compares=compares, figures=figures,
    )
    if (folder / "published.toml").is_file():
        paper.published = _read(folder / "published.toml").get("value", [])
    if (folder / "claims.toml").is_file():
        paper.claims = _read(folder / "claims.toml").get("claim", [])
    for c in paper.claims:
        w = f"papers/{name}/claims.toml claim '{c.get('id')}'"
        if c.get("metric") not in METRICS or c.get("aggregate", "mean") not in AGGREGATES or c.get("compare") not in COMPARES:
            raise ReproduceError(f"{w}: metric, aggregate or compare not understood")
    return paper


def points(over: dict[str, Any]) -> list[dict[str, Any]]:
    """The cartesian product of a claim's ``over`` table ({} is one point: everything)."""
    if not over:
        return [{}]
    keys = list(over)
    vals = [v if isinstance(v, list) else [v] for v in over.values()]
    return [dict(zip(keys, combo)) for combo in itertools.product(*vals)]
