"""The library entry point: :func:`run`."""

from __future__ import annotations

from os import PathLike

# Mapping from the module that defines it (why: dupack.scenario).
from _collections_abc import Mapping

from dupack import _core
from dupack._paths import path_text
from dupack.result import RunResult
from dupack.scenario import Scenario, load

# typing for type checkers only (why: dupack/__init__.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from dupack._cost import Estimate

__all__ = ["run", "estimate", "Estimate", "as_scenario", "check_seed", "check_max_wall"]

MAX_SEED = 2**64 - 1
_INF = float("inf")
#: What a seed may be, for messages (the CLI's --seed uses it too).
SEED_RANGE = f"an integer between 0 and {MAX_SEED}"


def as_scenario(scenario: str | PathLike[str] | Mapping[str, Any] | Scenario) -> Scenario:
    """Accept a path to a TOML file, a document (dict) or a :class:`Scenario`."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, Mapping):
        return Scenario.from_dict(scenario)
    if isinstance(scenario, str | PathLike):
        return load(scenario)
    raise TypeError(f"scenario must be a path, a dict or a Scenario, not {type(scenario).__name__}")


def check_seed(seed: object) -> int | None:
    """Seeds are unsigned 64-bit integers; ``None`` means the scenario's ``run.seed``.

    Raises :class:`TypeError` for a non-integer and :class:`ValueError` for
    an integer out of range. This is the only seed check: ``dupack run
    --seed`` goes through it as well.
    """
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be {SEED_RANGE}, not {type(seed).__name__}")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be {SEED_RANGE}, got {seed}")
    return seed


def __getattr__(name: str) -> Any:
    # Estimate is defined in dupack._cost, imported when first asked for (why: there).
    if name == "Estimate":
        from dupack._cost import Estimate

        return Estimate
    raise AttributeError(f"module 'dupack.api' has no attribute {name!r}")


def estimate(
    scenario: str | PathLike[str] | Mapping[str, Any] | Scenario,
    overrides: list[str] | None = None,
) -> Estimate:
    """Estimate what running ``scenario`` (after ``overrides``) will cost,
    without running it: max-min fair shares of the links' rates (each flow
    also held to its window per round trip), as data packets over the
    duration (no more than a finite transfer needs), times the events a
    packet and its ACK take per hop. Raises :class:`ScenarioError` for an
    invalid scenario. ``dupack validate`` prints it; ``dupack run`` warns
    when it exceeds 10 minutes.
    """
    from dupack._cost import Estimate

    sc = as_scenario(scenario).with_overrides(overrides)
    return Estimate(*_core.estimate(sc.canonical_json()))


def check_max_wall(max_wall: object) -> float | None:
    """``max_wall`` is ``None`` (no limit) or a positive number of seconds
    (infinity: no limit). Raises :class:`TypeError` for a non-number and
    :class:`ValueError` for zero, a negative number or NaN."""
    if max_wall is None:
        return None
    if isinstance(max_wall, bool) or not isinstance(max_wall, int | float):
        raise TypeError(f"max_wall must be a positive number of seconds, not {type(max_wall).__name__}")
    if not max_wall > 0:  # NaN too
        raise ValueError(f"max_wall must be a positive number of seconds, got {max_wall!r}")
    return None if max_wall in (_INF, -_INF) else float(max_wall)


def run(
    scenario: str | PathLike[str] | Mapping[str, Any] | Scenario,
    seed: int | None = None,
    overrides: list[str] | None = None,
    trace: list[str] | None = None,
    series: list[str] | None = None,
    pcap: Mapping[str, str | PathLike[str]] | None = None,
    series_max: int | None = None,
    max_wall: float | None = None,
    progress: Callable[[float, float, int, float], object] | None = None,
    series_variables: list[str] | None = None,
) -> RunResult:
    """Validate and run one scenario.

    ``scenario`` is a TOML file path, a scenario document (dict) or a
    :class:`Scenario`; ``overrides`` are ``"path=value"`` strings applied
    first (see :meth:`Scenario.with_overrides`); ``seed=None`` uses the
    scenario's ``run.seed``.

    Looking inside the run (all opt-in; results are the same without):
    ``trace`` names flows whose packets and sender events are kept
    (:attr:`RunResult.trace`); ``series`` names flows and links (``NAME``,
    ``flow:NAME``, ``link:NAME``, or ``"*"`` for all) whose time series is
    kept (:attr:`RunResult.series`), at most ``series_max`` records
    (default 10 million), of the variables ``series_variables`` names
    (``["cwnd", "queue"]``, say; default all: see docs/results.md); ``pcap`` maps ``"LINK"``, ``"LINK:fwd"`` or
    ``"LINK:rev"`` to a pcapng file written during the run (Wireshark opens
    it; see docs/results.md for what the headers hold).

    Long runs: after ``max_wall`` seconds of wall-clock time the run stops
    at the simulated time reached and returns its results so far, flagged
    :attr:`RunResult.partial` (``run["end_reason"]`` is ``"wall_limit"``,
    ``run["sim_time_s"]`` the simulated time reached). ``progress`` is
    called as ``progress(sim_time_s, duration_s, events, wall_s)`` every
    few hundred thousand events (so not at all in short runs); what it
    raises ends the run. Neither changes the result of a run that is not
    stopped. Ctrl-C raises :class:`KeyboardInterrupt`.

    Raises :class:`ScenarioError` (a ``ValueError``) for an invalid scenario
    or override, :class:`OSError` for an unreadable file, and
    :class:`RunError` if the simulator fails.
    """
    seed = check_seed(seed)
    names = check_trace(trace)
    entities = check_names("series", series)
    variables = check_series_variables(entities, series_variables)
    captures = check_pcap(pcap)
    if series_max is not None and (isinstance(series_max, bool) or not isinstance(series_max, int) or series_max < 0):
        raise TypeError(f"series_max must be a non-negative integer, not {series_max!r}")
    limit = check_max_wall(max_wall)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable, not {type(progress).__name__}")
    sc = as_scenario(scenario).with_overrides(overrides)
    return run_checked(
        sc, seed, names, entities, series_max, captures, max_wall=limit, progress=progress, series_variables=variables
    )


def run_checked(
    sc: Scenario,
    seed: int | None,
    trace: list[str] | None,
    series: list[str] | None,
    series_max: int | None,
    pcap: list[tuple[str, str, str]] | None,
    *,
    max_wall: float | None = None,
    progress: Callable[[float, float, int, float], object] | None = None,
    partial_on_interrupt: bool = False,
    estimated: Callable[[float, float, float], object] | None = None,
    series_variables: list[str] | None = None,
) -> RunResult:
    """:func:`run` once its arguments are checked (``dupack run`` calls it
    too). ``partial_on_interrupt``: Ctrl-C ends the run as ``max_wall``
    does, with ``run["end_reason"]`` ``"interrupted"``, instead of raising
    KeyboardInterrupt. ``estimated(wall_s, events, packets)`` is called
    with the run's :func:`estimate` before it starts."""
    text, observed = _core.run(
        sc.canonical_json(), seed, trace, series, series_max, pcap, progress, max_wall, partial_on_interrupt, estimated,
        series_variables,
    )
    return RunResult.from_json(text, sc, observed)


def check_names(what: str, names: object) -> list[str] | None:
    """``names`` is ``None`` or a list of names (the core checks that they exist)."""
    if names is None:
        return None
    if isinstance(names, str) or not isinstance(names, list | tuple) or not all(isinstance(t, str) for t in names):
        raise TypeError(f"{what} must be a list of names, not {names!r}")
    return list(names)


def check_series_variables(series: list[str] | None, variables: object) -> list[str] | None:
    """``variables`` is ``None`` or a non-empty list of variable names (the
    core checks them), and only with a series to choose them from."""
    names = check_names("series_variables", variables)
    if names is not None and not names:
        raise ValueError("series_variables must be a list of variable names, at least one (None keeps them all), got []")
    if names is not None and series is None:
        raise ValueError(
            "series_variables chooses among the variables of the time series; "
            "name the flows and links whose series to keep with series= (or ['*'])"
        )
    return names


def parse_pcap_spec(spec: str) -> tuple[str, str]:
    """``LINK``, ``LINK:fwd``, ``LINK:rev`` or ``LINK:both`` → (link, direction)."""
    link, sep, direction = spec.rpartition(":")
    if not sep or direction not in ("fwd", "rev", "both"):
        return spec, "both"
    return link, direction


def check_pcap(pcap: object) -> list[tuple[str, str, str]] | None:
    if pcap is None:
        return None
    if not isinstance(pcap, Mapping):
        raise TypeError(f"pcap must map 'LINK[:DIR]' to a file path, not {pcap!r}")
    out = []
    for spec, path in pcap.items():
        if not isinstance(spec, str) or not isinstance(path, str | PathLike):
            raise TypeError(f"pcap must map 'LINK[:DIR]' to a file path, not {spec!r}: {path!r}")
        link, direction = parse_pcap_spec(spec)
        out.append((link, direction, path_text(path)))
    return out


def check_trace(trace: object) -> list[str] | None:
    """``trace`` is ``None`` or a list of flow names (the core checks that they exist)."""
    if trace is None:
        return None
    if isinstance(trace, str) or not isinstance(trace, list | tuple) or not all(isinstance(t, str) for t in trace):
        raise TypeError(f"trace must be a list of flow names, not {trace!r}")
    return list(trace)
