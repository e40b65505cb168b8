"""Type stubs for the compiled extension ``dupack._core`` (crates/dupack-py)."""

__version__: str

class ScenarioError(ValueError):
    """The scenario is invalid; ``str(e)`` is ``"path: message"``."""

    path: str
    message: str
    def __init__(self, path: str, message: str) -> None: ...

class RunError(RuntimeError):
    """The simulator failed while running a valid scenario."""

def run(scenario_json: str, seed: int | None = None, trace: list[str] | None = None) -> str:
    """Validate and run a scenario given as JSON text; return the result as JSON text.

    ``trace`` names flows whose packet-level trace is added as the result's
    ``trace`` list.

    ``seed=None`` uses the scenario's ``run.seed``. The GIL is released while
    the simulation runs.
    """

def validate(scenario_json: str) -> None:
    """Raise :class:`ScenarioError` if the scenario is invalid."""
