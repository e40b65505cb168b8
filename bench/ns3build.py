#!/usr/bin/env python3
"""Build and run the project's ns-3 programs against the PyPI `ns3` wheel.

The `ns3` wheel (pinned to 3.44.post0, the `bench` extra of pyproject.toml)
ships the ns-3.44 headers and shared libraries inside the Python package, so a
C++ program of ours can be compiled with g++ against it without building
ns-3. Only the headers and libraries are used: the wheel's own Python
bindings (cppyy) are not needed, which is why `install()` below installs it
with `--no-deps`.

    python3 bench/ns3build.py FILE.cc [ARG ...]   # build (cached) and run
    python3 bench/ns3build.py --where             # print the ns-3 directory found

From Python (bench/run.py, validation/):

    from bench import ns3build   # with the repository root on sys.path
    exe = ns3build.build(REPO / "validation" / "ns3" / "lossy_flow.cc")
    out = ns3build.run(exe, ["p=0.01", "rtt=0.1"])

Executables are cached under $DUPACK_NS3_CACHE, else $CARGO_TARGET_DIR/ns3,
else <repo>/target/ns3, named by a hash of the source, bench/ns3/*.h, the compiler command
and the ns-3 directory (not the checkout's path): a program is compiled once (about a minute on two
cores) and rebuilt only when one of those changes.

Where the wheel is looked for: $DUPACK_NS3_DIR (the `ns3` directory that
holds include/ and lib64/), then every site-packages directory of the running
interpreter, then <repo>/.venv. Only the standard library is used.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Our shared header (common.h) lives here; it is on every program's include path.
COMMON = ROOT / "bench" / "ns3"
NS3_VERSION = "3.44"
WHEEL = "ns3==3.44.post0"

# The ns-3 modules our programs use. Their own dependencies are found by the
# dynamic linker through the libraries' RUNPATH and our -rpath.
MODULES = ["core", "network", "internet", "point-to-point", "applications", "traffic-control"]

# The wheel's libraries were built with these definitions (lib64/cmake/ns3:
# INTERFACE_COMPILE_DEFINITIONS); using the same ones keeps class layouts and
# inline code identical on both sides.
DEFINES = ["NS3_BUILD_PROFILE_RELEASE", "NS3_LOG_ENABLE", "NS3_ASSERT_ENABLE", "__LINUX__"]


class Ns3Missing(RuntimeError):
    pass


def _candidates() -> list[Path]:
    out = []
    env = os.environ.get("DUPACK_NS3_DIR")
    if env:
        out.append(Path(env))
    dirs = list(sys.path)
    try:
        dirs += site.getsitepackages() + [site.getusersitepackages()]
    except AttributeError:  # some virtualenvs
        pass
    dirs.append(sysconfig.get_paths().get("purelib", ""))
    for d in dirs:
        if d:
            out.append(Path(d) / "ns3")
    for venv in (ROOT / ".venv",):
        out += sorted(venv.glob("lib/python3*/site-packages/ns3"))
    return out


def find() -> Path:
    """The wheel's `ns3` directory (with include/ns3 and lib64)."""
    for c in _candidates():
        if (c / "include" / "ns3" / "core-module.h").exists() and (c / "lib64").is_dir():
            return c.resolve()
    raise Ns3Missing(
        "the ns-3 wheel was not found. Install it with\n"
        f"    pip install --no-deps '{WHEEL}'\n"
        "(or `pip install '.[bench]'`), or set DUPACK_NS3_DIR to its ns3/ directory."
    )


def version(ns3dir: Path) -> str:
    libs = sorted((ns3dir / "lib64").glob("libns3.*-core.so"))
    return libs[0].name[len("libns"):-len("-core.so")] if libs else "?"


def install(python: str = sys.executable) -> None:
    """pip-install the wheel (headers and libraries only, no cppyy)."""
    subprocess.run([python, "-m", "pip", "install", "--no-deps", WHEEL], check=True)


#: The cargo profile of the programs the benchmark times: the one the
#: extension is built with (pyproject.toml's [tool.maturin] profile).
PROFILE = "dist"


def example(name: str) -> Path:
    """Where `cargo build --profile PROFILE --example NAME` puts the program."""
    return target_dir() / PROFILE / "examples" / name


def target_dir() -> Path:
    """Where builds and kept results go: $CARGO_TARGET_DIR (relative to the
    repository if not absolute), else <repo>/target."""
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target if target.is_absolute() else ROOT / target


def cache_dir() -> Path:
    if os.environ.get("DUPACK_NS3_CACHE"):
        return Path(os.environ["DUPACK_NS3_CACHE"])
    return target_dir() / "ns3"


def compile_cmd(src: Path, exe: Path, ns3dir: Path) -> list[str]:
    cxx = os.environ.get("CXX", "g++")
    ver = version(ns3dir)
    lib = ns3dir / "lib64"
    return (
        [cxx, "-std=c++20", "-O2", "-w", "-o", str(exe), str(src), f"-I{COMMON}", f"-I{ns3dir / 'include'}"]
        + [f"-D{d}" for d in DEFINES]
        + [f"-L{lib}", f"-Wl,-rpath,{lib}"]
        + [f"-lns{ver}-{m}" for m in MODULES]
        + ["-lpthread"]
    )


def _build_digest(src: Path, ns3dir: Path, *, wheel_dir: bool) -> str:
    """A digest of everything a build of `src` reads: the source, our
    headers, the compiler's version and its command, in which our headers'
    directory is named by the headers' contents, and the wheel's directory
    by its path if `wheel_dir`, else only by the ns-3 version the command
    names (the wheel from PyPI is the same wheel wherever it is installed)."""
    cmd_key = [a.replace(str(COMMON), "COMMON") for a in compile_cmd(Path("SRC"), Path("EXE"), ns3dir)]
    if not wheel_dir:
        cmd_key = [a.replace(str(ns3dir), "NS3") for a in cmd_key]
    cxx_ver = subprocess.run([cmd_key[0], "--version"], capture_output=True, text=True).stdout
    h = hashlib.sha256()
    h.update(src.read_bytes())
    for header in sorted(COMMON.glob("*.h")):
        h.update(header.read_bytes())
    h.update("\0".join(cmd_key).encode())
    h.update(cxx_ver.encode())
    return h.hexdigest()[:16]


def exe_path(src: str | os.PathLike, ns3dir: Path) -> Path:
    """Where the build of `src` is cached: named by `_build_digest`, the
    wheel's directory included (the executable's run path points into it),
    so that checkouts elsewhere sharing a target directory share the
    programs, and two installations of the wheel do not."""
    src = Path(src).resolve()
    return cache_dir() / f"{src.stem}-{_build_digest(src, ns3dir, wheel_dir=True)}"


def program_id(src: str | os.PathLike, ns3dir: Path | None = None) -> str:
    """What a build of `src` is, wherever the wheel is installed: the
    source's name and `_build_digest` without the wheel's directory. Two
    builds with the same id run the same code (the same wheel version, the
    same source, compiler and flags), so validation/runcache.py keys the
    runs of a program by it: kept runs made against a wheel in one
    interpreter's site-packages are good for another's."""
    src = Path(src).resolve()
    return f"{src.stem}-{_build_digest(src, ns3dir or find(), wheel_dir=False)}"


def build(src: str | os.PathLike, log=sys.stderr) -> Path:
    """Compile `src` (cached by content) and return the executable's path."""
    src = Path(src).resolve()
    ns3dir = find()
    exe = exe_path(src, ns3dir)
    if exe.exists():
        return exe
    exe.parent.mkdir(parents=True, exist_ok=True)
    print(f"compiling {src.name} against ns-{version(ns3dir)} ({ns3dir}) ...", file=log, flush=True)
    # Build under a temporary name and rename, so that a concurrent or
    # interrupted build never leaves a half-written executable in the cache.
    fd, tmp = tempfile.mkstemp(dir=exe.parent, prefix=f".{src.stem}-")
    os.close(fd)
    try:
        r = subprocess.run(compile_cmd(src, Path(tmp), ns3dir), capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"compiling {src} failed:\n{r.stderr[-4000:]}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, exe)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return exe


def run(exe: Path, args: list[str], timeout: float | None = None) -> str:
    """Run a built program with key=value arguments; its stdout."""
    r = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{exe.name} {' '.join(args)} failed ({r.returncode}): {r.stderr[-2000:]}")
    return r.stdout


def parse_flows(out: str) -> tuple[list[dict[str, int]], dict[str, float]]:
    """The FLOW lines and the END line of tcp_bench / lossy_flow output."""
    flows, end = [], {}
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == "FLOW":
            flows.append({k: int(v) for k, v in (x.split("=") for x in parts[2:])})
        elif parts and parts[0] == "END":
            end = {k: float(v) for k, v in (x.split("=") for x in parts[1:])}
    return flows, end


def main(argv: list[str]) -> int:
    if argv[:1] == ["--where"]:
        d = find()
        print(f"{d} (ns-{version(d)}; cache {cache_dir()})")
        return 0
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    exe = build(argv[0])
    os.execv(exe, [str(exe), *argv[1:]])


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (Ns3Missing, RuntimeError) as e:
        print(f"ns3build: {e}", file=sys.stderr)
        sys.exit(2)
