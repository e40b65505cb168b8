"""dupack: a deterministic discrete-event simulator for TCP loss recovery.

>>> import dupack
>>> res = dupack.run("scenarios/quickstart.toml", seed=1, overrides=["run.duration=5s"])
>>> res.flows[["flow", "variant", "goodput_kbps"]]

The simulator is the Rust core (``dupack._core``); this package loads
scenarios, applies overrides, and presents results as pandas tables.
"""

from dupack._core import RunError, ScenarioError
from dupack._core import __commit__ as __commit__
from dupack._core import __version__ as __version__
from dupack.api import run
from dupack.result import RunResult, provenance
from dupack.scenario import Scenario, load
from dupack.sweeps import SweepError, SweepResult, sweep

__all__ = [
    "run",
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

