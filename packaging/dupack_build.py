"""dupack's PEP 517 build backend: maturin's, with the profile-guided build.

Every hook is maturin's. Building a wheel (``pip install .``, ``pip wheel``,
an editable install) first puts the flags that build with ``pgo/``'s
profile into the environment the compiler inherits, when the compiler can
read it (``pgo.decide``); the sources are compiled as they would be
otherwise, with the profile's counts guiding inlining and code layout.
``DUPACK_PGO=0`` builds without it. pip shows the decision with ``-v``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import maturin
from maturin import (  # noqa: F401 - the hooks this backend passes on unchanged
    build_sdist,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_wheel,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pgo  # noqa: E402 - beside this file (pyproject's backend-path)

# Optional hooks of maturin's, passed on where this maturin has them.
for _name in ("get_requires_for_build_editable", "prepare_metadata_for_build_editable"):
    if hasattr(maturin, _name):
        globals()[_name] = getattr(maturin, _name)


def _profiled(hook_name: str):
    def hook(*args, **kwargs):
        env, why = pgo.build_env(Path.cwd())
        print(f"dupack: {why}", file=sys.stderr, flush=True)
        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update(env)
        try:
            return getattr(maturin, hook_name)(*args, **kwargs)
        finally:
            os.environ.clear()
            os.environ.update(saved)

    hook.__name__ = hook_name
    return hook


build_wheel = _profiled("build_wheel")
if hasattr(maturin, "build_editable"):
    build_editable = _profiled("build_editable")
