"""The profile-guided build (packaging/pgo.py, packaging/dupack_build.py,
pgo/): the committed profile describes the sources being built, the build
uses it exactly when the compiler can read it, the user's own compiler
flags survive, and the installed extension was built with it."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))
import pgo  # noqa: E402


def fake_rustc(tmp_path: Path, llvm: str | None) -> str:
    """A `rustc` whose `-vV` reports LLVM ``llvm`` (no LLVM line if None)."""
    exe = tmp_path / "rustc"
    line = f"LLVM version: {llvm}\n" if llvm else ""
    exe.write_text(f"#!/bin/sh\nprintf 'rustc 1.99.0\\nhost: x86_64-unknown-linux-gnu\\n{line}'\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return str(exe)


def test_the_profile_was_made_from_these_sources():
    meta = pgo.read_meta()
    assert meta is not None, f"{pgo.PROFILE} or {pgo.META} is missing"
    assert meta["sources"] == pgo.sources_digest(), (
        "pgo/dupack.profdata was recorded from other Rust sources than these: LLVM ignores the counts of every "
        "function changed since, and the build loses the speed docs/performance.md reports. Run "
        "`python scripts/pgo` (needs `rustup component add llvm-tools`) and commit pgo/."
    )
    assert isinstance(meta["llvm_major"], int) and meta["llvm_major"] >= 14


def test_the_digest_covers_the_core_and_nothing_else(tmp_path):
    for rel in ("Cargo.toml", "Cargo.lock", "crates/dupack-sim/src/lib.rs", "README.md", "python/dupack/api.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    before = pgo.sources_digest(tmp_path)
    (tmp_path / "README.md").write_text("changed\n")
    (tmp_path / "python/dupack/api.py").write_text("changed\n")
    assert pgo.sources_digest(tmp_path) == before
    (tmp_path / "crates/dupack-sim/src/lib.rs").write_text("changed\n")
    assert pgo.sources_digest(tmp_path) != before
    # A checkout with CRLF line endings has the same sources.
    (tmp_path / "crates/dupack-sim/src/lib.rs").write_bytes(b"x\r\n")
    assert pgo.sources_digest(tmp_path) == before


@pytest.mark.parametrize(("newer_by", "uses"), [(0, True), (1, True), (-1, False), (None, False)])
def test_the_profile_is_used_only_by_a_compiler_that_can_read_it(tmp_path, newer_by, uses):
    """An LLVM reads indexed profiles of its own version and older ones."""
    need = pgo.read_meta()["llvm_major"]
    env = {"RUSTC": fake_rustc(tmp_path, None if newer_by is None else f"{need + newer_by}.1.2")}
    profile, why = pgo.decide(ROOT, env=env)
    assert (profile is not None) == uses, why
    if uses:
        assert profile == ROOT / pgo.PROFILE
    elif newer_by is None:
        assert "unknown" in why
    else:
        assert f"LLVM {need - 1}, older than the LLVM {need}" in why


def test_dupack_pgo_0_and_a_tree_without_a_profile_build_without_it(tmp_path):
    rustc = fake_rustc(tmp_path, "99.0.0")
    for off in ("0", "false", "off", "no"):
        profile, why = pgo.decide(ROOT, env={"RUSTC": rustc, pgo.ENV_SWITCH: off})
        assert profile is None and f"{pgo.ENV_SWITCH}={off}" in why
    profile, why = pgo.decide(tmp_path, env={"RUSTC": rustc})
    assert profile is None and "no pgo/dupack.profdata" in why
    env, _ = pgo.build_env(tmp_path, env={"RUSTC": rustc, "RUSTFLAGS": "-Ctarget-cpu=native", pgo.ENV_STAMP: "x"})
    assert env["RUSTFLAGS"] == "-Ctarget-cpu=native" and "CARGO_ENCODED_RUSTFLAGS" not in env
    assert pgo.ENV_STAMP not in env


def test_the_users_own_flags_come_first_and_a_path_with_spaces_is_one_flag(tmp_path):
    profile = Path("/a dir/with spaces/dupack.profdata")
    flags = pgo.rustflags(profile, {"RUSTFLAGS": "  -Ctarget-cpu=native   -Cdebuginfo=1 "}).split("\x1f")
    assert flags == ["-Ctarget-cpu=native", "-Cdebuginfo=1", f"-Cprofile-use={profile}",
                     "-Cllvm-args=-no-pgo-warn-mismatch"]
    # Cargo reads CARGO_ENCODED_RUSTFLAGS instead of RUSTFLAGS when both are set; so does this.
    flags = pgo.rustflags(profile, {"RUSTFLAGS": "-Cignored", "CARGO_ENCODED_RUSTFLAGS": "-Ca=1 b\x1f-Cc"}).split("\x1f")
    assert flags[:2] == ["-Ca=1 b", "-Cc"] and len(flags) == 4
    env, why = pgo.build_env(ROOT, env={"RUSTC": fake_rustc(tmp_path, "99.1.0"), "RUSTFLAGS": "-Cdebuginfo=1"})
    assert env["CARGO_ENCODED_RUSTFLAGS"].split("\x1f")[0] == "-Cdebuginfo=1", why
    assert env[pgo.ENV_STAMP].startswith("pgo/dupack.profdata (sources ")


def test_the_build_backend_is_maturins_with_the_profile():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'build-backend = "dupack_build"' in text and 'backend-path = ["packaging"]' in text
    # The sdist carries what a build from it needs.
    assert '{ path = "packaging/*.py", format = "sdist" }' in text and '{ path = "pgo/*", format = "sdist" }' in text


def test_the_installed_extension_was_built_with_the_profile_when_the_compiler_can_read_it():
    """What `pip install .` (README) built: guided by the profile, unless the
    local compiler cannot read it or the build was asked not to use it."""
    if os.environ.get(pgo.ENV_SWITCH, "1") in ("0", "false", "off", "no"):
        pytest.skip(f"{pgo.ENV_SWITCH}={os.environ[pgo.ENV_SWITCH]}: the build was asked not to use the profile")
    from dupack import _core

    profile, why = pgo.decide(ROOT, env={k: v for k, v in os.environ.items() if k != pgo.ENV_SWITCH})
    if profile is None:
        assert _core.__pgo__ == "", why
    else:
        meta = json.loads((ROOT / pgo.META).read_text())
        assert _core.__pgo__ == f"pgo/dupack.profdata (sources {meta['sources'][:12]})", (
            "the installed extension was not built with the profile (pip install . builds it through "
            f"packaging/dupack_build.py): {_core.__pgo__!r}"
        )
