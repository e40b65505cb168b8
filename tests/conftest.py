"""Shared helpers for the Python tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dupack.cli.app import app

ROOT = Path(__file__).resolve().parent.parent
QUICKSTART = ROOT / "scenarios" / "quickstart.toml"


def pytest_report_header() -> str:
    """Which dupack the tests import: the installed package (what
    scripts/test installs from this checkout first) or python/ on
    PYTHONPATH. An install older than the checkout would test old code."""
    import dupack

    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
    checkout = head.stdout.strip() if head.returncode == 0 else "unknown"
    built = dupack.__commit__
    note = "" if checkout == "unknown" or built.startswith(checkout) else f" -- NOT this checkout's HEAD {checkout}"
    return f"dupack under test: {Path(dupack.__file__).parent} (its extension built from {built}){note}"


def dump_toml(doc: dict[str, Any]) -> str:
    """A small TOML writer for test documents (tables, arrays, scalars).

    Nested tables are written inline, which keeps the writer short; arrays of
    tables become arrays of inline tables, which TOML allows.
    """

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | float):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)  # a JSON string is a valid TOML basic string
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + " }"
        raise TypeError(type(v))

    return "".join(f"{json.dumps(k)} = {value(v)}\n" for k, v in doc.items())


def run_cli(*args: str, env: dict[str, str] | None = None):
    """Invoke the CLI in-process. stdout and stderr are kept apart."""
    return CliRunner().invoke(app, list(args), env=env)


def run_subprocess(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m dupack ARGS`` as a user would, with no stdin."""
    full_env = {k: v for k, v in os.environ.items() if k != "DUPACK_DEBUG"}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "dupack", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
        env=full_env,
        timeout=600,
    )


def sigint_default() -> None:
    """preexec_fn for a child that must see Ctrl-C: a test suite started in the
    background by a non-interactive shell inherits SIGINT ignored, and a Python
    child started that way never raises KeyboardInterrupt."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def quickstart_doc() -> dict[str, Any]:
    import tomllib

    return tomllib.loads(QUICKSTART.read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _no_debug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DUPACK_DEBUG", raising=False)
