"""dupack: a deterministic discrete-event simulator for TCP loss recovery.

>>> import dupack
>>> res = dupack.run("scenarios/quickstart.toml", seed=1, overrides=["run.duration=5s"])
>>> res.flows[["flow", "variant", "goodput_kbps"]]

The simulator is the Rust core (``dupack._core``); this package loads
scenarios, applies overrides, and presents results as pandas tables.

The names below are imported on first use, so that ``dupack --version`` or
``dupack validate`` load only what they need.
"""

from __future__ import annotations


from dupack._core import RunError, ScenarioError
from dupack._core import __commit__ as __commit__
from dupack._core import __version__ as __version__

# typing is for type checkers only here: importing it costs every command 3-4 ms and half a MiB
# of start-up (docs/performance.md, "The dupack command end to end"), and no name of it is used at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from dupack.api import estimate, run
    from dupack.result import RunResult, provenance
    from dupack.scenario import Scenario, load
    from dupack.sweeps import SweepError, SweepResult, sweep

__all__ = [
    "run",
    "estimate",
    "sweep",
    "load",
    "Scenario",
    "RunResult",
    "SweepResult",
    "ScenarioError",
    "SweepError",
    "RunError",
    "__version__",
    "__commit__",
    "provenance",
]

# name → the module that defines it.
_LAZY = {
    "run": "dupack.api",
    "estimate": "dupack.api",
    "RunResult": "dupack.result",
    "provenance": "dupack.result",
    "Scenario": "dupack.scenario",
    "load": "dupack.scenario",
    "SweepError": "dupack.sweeps",
    "SweepResult": "dupack.sweeps",
    "sweep": "dupack.sweeps",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dupack' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
