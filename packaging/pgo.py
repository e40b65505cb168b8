"""Whether and how a build of dupack uses a profile recorded in ``pgo/``.

``python scripts/pgo`` records on this machine how often each branch of
the simulator is taken in the shipped scenarios, the benchmark's dumbbells
and a sweep (``pgo/dupack.profdata``, with ``pgo/profile.json`` saying what
it was recorded from; both are build products, not in git). A later
``pip install .`` (packaging/dupack_build.py) and the benchmark's builds
then compile with profile-guided optimisation: LLVM lays out the hot paths
from those counts. It changes no result, only how fast the same
instructions run (docs/performance.md, "Profile-guided build").

The profile is used only when it describes the sources being built
(``sources_digest``; LLVM would otherwise drop the counts of every function
changed since, silently) and the compiler can read it: it is an LLVM
*indexed* profile, which an LLVM as new as the ``llvm-profdata`` that wrote
it, or newer, reads. Otherwise the build is an ordinary release build.

Standard library only: the PEP 517 backend (``dupack_build``), bench/,
scripts/pgo and the tests import it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The profile and what it was recorded from, relative to the source tree
#: (written by scripts/pgo; ignored by git).
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


def switched_off(env: dict[str, str]) -> bool:
    """Whether ``env`` asks for a build without the profile (``DUPACK_PGO=0``)."""
    return env.get(ENV_SWITCH, "1").strip().lower() in ("0", "false", "no", "off")


def read_meta(root: Path = ROOT) -> dict | None:
    """``pgo/profile.json``, or None if the tree has no profile. A
    ``profile.json`` that is not what scripts/pgo writes (an object with the
    sources' digest and an integer LLVM version) is no profile either, not a
    failed build."""
    try:
        meta = json.loads((root / META).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not (isinstance(meta, dict) and isinstance(meta.get("sources"), str)
            and isinstance(meta.get("llvm_major"), int) and not isinstance(meta["llvm_major"], bool)):
        return None
    return meta if (root / PROFILE).is_file() else None


def decide(root: Path = ROOT, rustc: str = "rustc", env: dict[str, str] | None = None) -> tuple[Path | None, str]:
    """(the profile to build with, or None; why), for a build of ``root``
    with ``rustc`` in the environment ``env`` (``os.environ`` if None)."""
    env = os.environ if env is None else env
    if switched_off(env):
        return None, f"{ENV_SWITCH}={env[ENV_SWITCH]}: built without the profile"
    meta = read_meta(root)
    if meta is None:
        return None, (
            f"no usable {PROFILE.as_posix()} and {META.as_posix()} in the source tree: built without a profile "
            "(python scripts/pgo records one)"
        )
    if meta["sources"] != sources_digest(root):
        return None, (
            f"{PROFILE.as_posix()} was recorded from other Rust sources than these: built without it "
            "(python scripts/pgo records it again)"
        )
    have = llvm_major(env.get("RUSTC", rustc))
    need = meta["llvm_major"]
    if have is None:
        return None, "the compiler's LLVM version is unknown (rustc -vV): built without the profile"
    if have < need:
        return None, (
            f"rustc is built on LLVM {have}, older than the LLVM {need} that wrote {PROFILE.as_posix()}: "
            "built without the profile (python scripts/pgo records it again with this toolchain)"
        )
    return root / PROFILE, f"built with {PROFILE.as_posix()} (LLVM {need}; this rustc's LLVM {have})"


def rustflags(profile: Path, env: dict[str, str]) -> str:
    """``CARGO_ENCODED_RUSTFLAGS`` (flags separated by 0x1f, so that a path
    with spaces stays one flag) for a build with ``profile``: the user's own
    flags from ``env`` first (``CARGO_ENCODED_RUSTFLAGS`` if set, else
    ``RUSTFLAGS``, as Cargo reads them), then ours. LLVM compiles a function
    whose counts do not match its code without them, and the second flag
    keeps it from warning about each: ``decide`` uses only a profile recorded
    from the sources being built, so a mismatch is at most a function the
    training never ran."""
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
