"""bench/ and validation/ are ordinary packages: every module imports on its
own, in a fresh interpreter and in any order, and no two of them import each
other at module level (docs/architecture.md, "The benchmark and the
validation suite")."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

MODULES = sorted(
    f"{pkg}.{p.stem}" for pkg in ("bench", "validation") for p in (ROOT / pkg).glob("*.py") if p.stem != "__init__"
)


def module_imports(module: str) -> set[str]:
    """The modules of MODULES that `module` imports at module level (inside `if` blocks too, not in functions)."""
    tree = ast.parse((ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in tree.body:
        for n in node.body + node.orelse if isinstance(node, ast.If) else [node]:
            if isinstance(n, ast.Import):
                found |= {a.name for a in n.names}
            elif isinstance(n, ast.ImportFrom) and n.module:
                found |= {n.module} | {f"{n.module}.{a.name}" for a in n.names}
    return {m for m in found if m in MODULES and m != module}


def test_the_packages_have_no_import_cycle() -> None:
    graph = {m: module_imports(m) for m in MODULES}
    done: set[str] = set()

    def visit(m: str, path: list[str]) -> None:
        for d in sorted(graph[m]):
            assert d not in path, "import cycle: " + " -> ".join(path[path.index(d):] + [d])
            if d not in done:
                visit(d, path + [d])
        done.add(m)

    for m in MODULES:
        visit(m, [m])


def test_modules_are_imported_by_name_not_loaded_from_files() -> None:
    for m in MODULES:
        text = (ROOT / (m.replace(".", "/") + ".py")).read_text(encoding="utf-8")
        assert "importlib" not in text, m


@pytest.mark.parametrize("module", MODULES)
def test_every_module_imports_on_its_own(module: str) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    r = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
