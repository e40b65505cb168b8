"""Whether and how a build of dupack uses the profile in ``pgo/``.

The extension (and the benchmark's binaries) are built with profile-guided
optimisation when the compiler can read the committed profile: LLVM lays
out the simulator's hot paths from counts of what the shipped scenarios,
the benchmark's dumbbells and a sweep actually execute (``scripts/pgo``
records them). It changes no result, only how fast the same instructions
run (docs/performance.md, "Profile-guided build").

The profile is an LLVM *indexed* profile: a compiler whose LLVM is at
least as new as the ``llvm-profdata`` that wrote it reads it; an older one
cannot, and the build is then an ordinary release build. A profile made
from other sources than the ones being built is only partly used (LLVM
skips each function whose control flow changed); ``sources_digest`` says
whether it was made from these, and tests/test_pgo.py checks it is.

Standard library only: the PEP 517 backend (``dupack_build``), bench/
and the tests import it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The profile and what it was made from, relative to the source tree.
PROFILE = Path("pgo") / "dupack.profdata"
META = Path("pgo") / "profile.json"
#: ``DUPACK_PGO=0`` builds without the profile (to compare, or to build with
#: an LLVM that misreads it).
ENV_SWITCH = "DUPACK_PGO"
#: Set for the build when the profile is used: the extension's build script
#: stamps it into ``dupack._core.__pgo__``.
ENV_STAMP = "DUPACK_PGO_PROFILE"
#: The Rust sources whose code the profile describes (and the manifests and
#: lock file that choose the dependencies' code).
SOURCE_GLOBS = (
    "Cargo.toml",
    "Cargo.lock",
    "crates/dupack-sim/Cargo.toml",
    "crates/dupack-sim/src/**/*.rs",
    "crates/dupack-batch/Cargo.toml",
    "crates/dupack-batch/src/**/*.rs",
    "crates/dupack-py/Cargo.toml",
    "crates/dupack-py/build.rs",
    "crates/dupack-py/src/**/*.rs",
)


def sources_digest(root: Path = ROOT) -> str:
    """SHA-256 over the paths and bytes of the sources in ``SOURCE_GLOBS``,
    in path order (line endings as checked out)."""
    h = hashlib.sha256()
    files = sorted({p for g in SOURCE_GLOBS for p in root.glob(g) if p.is_file()})
    for p in files:
        data = p.read_bytes().replace(b"\r\n", b"\n")
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def llvm_major(rustc: str = "rustc") -> int | None:
    """The major version of the LLVM that ``rustc`` is built on, or None if
    it cannot be run or does not say."""
    try:
        out = subprocess.run([rustc, "-vV"], capture_output=True, text=True, check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"^LLVM version: (\d+)", out, re.MULTILINE)
    return int(m.group(1)) if m else None


def read_meta(root: Path = ROOT) -> dict | None:
    """``pgo/profile.json``, or None if the tree has no profile."""
    try:
        meta = json.loads((root / META).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta if (root / PROFILE).is_file() else None


def decide(root: Path = ROOT, rustc: str = "rustc", env: dict[str, str] | None = None) -> tuple[Path | None, str]:
    """(the profile to build with, or None; why), for a build of ``root``
    with ``rustc`` in the environment ``env`` (``os.environ`` if None)."""
    env = os.environ if env is None else env
    if env.get(ENV_SWITCH, "1").strip().lower() in ("0", "false", "no", "off"):
        return None, f"{ENV_SWITCH}={env[ENV_SWITCH]}: built without the profile"
    meta = read_meta(root)
    if meta is None:
        return None, f"no {PROFILE.as_posix()} in the source tree: built without a profile"
    have = llvm_major(env.get("RUSTC", rustc))
    need = int(meta["llvm_major"])
    if have is None:
        return None, "the compiler's LLVM version is unknown (rustc -vV): built without the profile"
    if have < need:
        return None, (
            f"rustc is built on LLVM {have}, older than the LLVM {need} that wrote {PROFILE.as_posix()}: "
            "built without the profile (a Rust toolchain of the version in pgo/profile.json or later uses it)"
        )
    return root / PROFILE, f"built with {PROFILE.as_posix()} (LLVM {need}; this rustc's LLVM {have})"


def rustflags(profile: Path, env: dict[str, str]) -> str:
    """``CARGO_ENCODED_RUSTFLAGS`` (flags separated by 0x1f, so that a path
    with spaces stays one flag) for a build with ``profile``: the user's own
    flags from ``env`` first (``CARGO_ENCODED_RUSTFLAGS`` if set, else
    ``RUSTFLAGS``, as Cargo reads them), then ours. A function whose code
    changed since the profile was made is compiled without its counts,
    silently: LLVM's mismatch warning would only tell a user the profile is
    older than the code, which tests/test_pgo.py tells whoever changes it."""
    if env.get("CARGO_ENCODED_RUSTFLAGS"):
        user = env["CARGO_ENCODED_RUSTFLAGS"].split("\x1f")
    else:
        user = env.get("RUSTFLAGS", "").split()
    return "\x1f".join([*user, f"-Cprofile-use={profile}", "-Cllvm-args=-no-pgo-warn-mismatch"])


def build_env(root: Path = ROOT, env: dict[str, str] | None = None) -> tuple[dict[str, str], str]:
    """A copy of ``env`` (``os.environ`` if None) for a build of ``root``
    with the profile when it applies, and the reason."""
    base = dict(os.environ if env is None else env)
    profile, why = decide(root, env=base)
    if profile is not None:
        base["CARGO_ENCODED_RUSTFLAGS"] = rustflags(profile, base)
        meta = read_meta(root) or {}
        base[ENV_STAMP] = f"{PROFILE.as_posix()} (sources {str(meta.get('sources', '?'))[:12]})"
    else:
        base.pop(ENV_STAMP, None)
    return base, why
