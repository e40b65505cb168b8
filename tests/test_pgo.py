"""The profile-guided build (packaging/pgo.py, packaging/dupack_build.py,
scripts/pgo): a build uses a recorded profile exactly when it describes the
sources being built and the compiler can read it, the backend hands the
flags to maturin and puts the environment back, the user's own compiler
flags survive, and the installed extension says whether it was built with
one."""

from __future__ import annotations

import importlib
import json
import os
import stat
import sys
import types
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


def tree_with_profile(root: Path, llvm_major: int = 22, sources: str | None = None) -> Path:
    """A source tree with one Rust file and a recorded profile (of its own
    sources unless ``sources`` is given)."""
    (root / "crates/dupack-sim/src").mkdir(parents=True, exist_ok=True)
    (root / "crates/dupack-sim/src/lib.rs").write_text("pub fn f() {}\n")
    (root / "pgo").mkdir(exist_ok=True)
    (root / pgo.PROFILE).write_bytes(b"indexed profile")
    meta = {"llvm_major": llvm_major, "sources": sources or pgo.sources_digest(root)}
    (root / pgo.META).write_text(json.dumps(meta))
    return root


def test_a_profile_recorded_from_other_sources_is_not_used(tmp_path):
    """LLVM would drop the counts of every changed function without a word;
    a profile older than the code is left out whole, and the reason says to
    record it again."""
    root = tree_with_profile(tmp_path / "tree")
    env = {"RUSTC": fake_rustc(tmp_path, "22.1.2")}
    assert pgo.decide(root, env=env)[0] == root / pgo.PROFILE
    (root / "crates/dupack-sim/src/lib.rs").write_text("pub fn f() { g() }\n")
    profile, why = pgo.decide(root, env=env)
    assert profile is None and "recorded from other Rust sources" in why and "scripts/pgo" in why
    assert pgo.build_env(root, env=env)[0].get("CARGO_ENCODED_RUSTFLAGS") is None


def test_the_profile_is_build_output_not_in_git():
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert "/pgo/" in ignored


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
    root = tree_with_profile(tmp_path / "tree", llvm_major=22)
    env = {"RUSTC": fake_rustc(tmp_path, None if newer_by is None else f"{22 + newer_by}.1.2")}
    profile, why = pgo.decide(root, env=env)
    assert (profile is not None) == uses, why
    if uses:
        assert profile == root / pgo.PROFILE
    elif newer_by is None:
        assert "unknown" in why
    else:
        assert "LLVM 21, older than the LLVM 22" in why


def test_dupack_pgo_0_and_a_tree_without_a_profile_build_without_it(tmp_path):
    rustc = fake_rustc(tmp_path, "99.0.0")
    root = tree_with_profile(tmp_path / "tree")
    for off in ("0", "false", "off", "no"):
        profile, why = pgo.decide(root, env={"RUSTC": rustc, pgo.ENV_SWITCH: off})
        assert profile is None and f"{pgo.ENV_SWITCH}={off}" in why
    profile, why = pgo.decide(tmp_path, env={"RUSTC": rustc})
    assert profile is None and "no usable pgo/dupack.profdata" in why
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
    root = tree_with_profile(tmp_path / "tree")
    env, why = pgo.build_env(root, env={"RUSTC": fake_rustc(tmp_path, "99.1.0"), "RUSTFLAGS": "-Cdebuginfo=1"})
    assert env["CARGO_ENCODED_RUSTFLAGS"].split("\x1f")[0] == "-Cdebuginfo=1", why
    assert env["CARGO_ENCODED_RUSTFLAGS"].split("\x1f")[-2] == f"-Cprofile-use={root / pgo.PROFILE}"
    assert env[pgo.ENV_STAMP] == f"pgo/dupack.profdata (sources {pgo.sources_digest(root)[:12]})"


def test_the_build_backend_is_maturins_with_the_profile():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'build-backend = "dupack_build"' in text and 'backend-path = ["packaging"]' in text
    # The sdist carries what a build from it needs.
    assert '{ path = "packaging/*.py", format = "sdist" }' in text and '{ path = "pgo/*", format = "sdist" }' in text


def test_the_backend_hands_maturin_the_profiles_flags_and_puts_the_environment_back(tmp_path, monkeypatch):
    """packaging/dupack_build.py with a stand-in for maturin's backend: the
    wheel hook sees the flags and the stamp, the sdist hook is maturin's own,
    and the process's environment is as it was after either."""
    seen = {}

    def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
        seen["flags"] = os.environ.get("CARGO_ENCODED_RUSTFLAGS")
        seen["stamp"] = os.environ.get(pgo.ENV_STAMP)
        return "dupack.whl"

    fake = types.ModuleType("maturin")
    fake.build_wheel = build_wheel
    for name in ("build_sdist", "get_requires_for_build_sdist", "get_requires_for_build_wheel",
                 "prepare_metadata_for_build_wheel"):
        setattr(fake, name, lambda *a, _n=name, **k: _n)
    monkeypatch.setitem(sys.modules, "maturin", fake)
    monkeypatch.delitem(sys.modules, "dupack_build", raising=False)
    backend = importlib.import_module("dupack_build")
    root = tree_with_profile(tmp_path / "tree")
    monkeypatch.chdir(root)
    monkeypatch.setenv("RUSTC", fake_rustc(tmp_path, "22.0.0"))
    monkeypatch.setenv("RUSTFLAGS", "-Cdebuginfo=1")
    monkeypatch.delenv("CARGO_ENCODED_RUSTFLAGS", raising=False)
    monkeypatch.delenv(pgo.ENV_SWITCH, raising=False)
    before = dict(os.environ)
    assert backend.build_wheel(str(tmp_path)) == "dupack.whl"
    assert seen["flags"].split("\x1f") == ["-Cdebuginfo=1", f"-Cprofile-use={root / pgo.PROFILE}",
                                           "-Cllvm-args=-no-pgo-warn-mismatch"]
    assert seen["stamp"].startswith("pgo/dupack.profdata (sources ")
    assert dict(os.environ) == before
    assert backend.build_sdist is fake.build_sdist
    # Without a usable profile, maturin builds as it always did.
    monkeypatch.setenv(pgo.ENV_SWITCH, "0")
    backend.build_wheel(str(tmp_path))
    assert seen["flags"] is None and seen["stamp"] is None
    monkeypatch.delitem(sys.modules, "dupack_build")


def test_the_installed_extension_was_built_with_the_profile_when_the_compiler_can_read_it():
    """What `pip install .` (README) built: guided by the profile recorded in
    pgo/ if there is one for these sources that the local compiler can read,
    plainly otherwise (a fresh clone has none)."""
    if pgo.switched_off(os.environ):
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


@pytest.mark.parametrize("meta", ["[]", "{}", '{"sources": "x"}', '{"llvm_major": "22", "sources": "DIGEST"}',
                                  '{"llvm_major": null, "sources": "DIGEST"}', '{"llvm_major": true, "sources": "DIGEST"}',
                                  "not json"])
def test_a_damaged_profile_description_builds_without_the_profile_rather_than_fail(tmp_path, meta):
    """pip install . must not end in a traceback over a hand-edited or
    half-written pgo/profile.json: the build goes on without the profile and
    says why."""
    root = tree_with_profile(tmp_path / "tree")
    (root / pgo.META).write_text(meta.replace("DIGEST", pgo.sources_digest(root)))
    profile, why = pgo.decide(root, env={"RUSTC": fake_rustc(tmp_path, "22.0.0")})
    assert profile is None and "no usable pgo/dupack.profdata and pgo/profile.json" in why
    env, _ = pgo.build_env(root, env={"RUSTC": fake_rustc(tmp_path, "22.0.0")})
    assert "CARGO_ENCODED_RUSTFLAGS" not in env and pgo.ENV_STAMP not in env
