"""Scenario and trace files must be regular files under a size limit.

`dupack run /dev/zero` used to read until memory ran out, a FIFO with no
writer hung for ever, and a trace `file = "/dev/zero"` was read to 4 GB
before failing. Each must now be one `error:` line and exit code 2, at once.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.conftest import QUICKSTART, run_subprocess


def refused(r, *fragments: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_is_not_read(device: str, tmp_path: Path) -> None:
    if not os.path.exists(device):
        pytest.skip(f"{device} does not exist here")
    r = run_subprocess("validate", device, cwd=tmp_path)
    refused(r, f"cannot read scenario file '{device}'", "character device", "regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("command", ["validate", "run", "sweep"])
def test_a_fifo_without_a_writer_does_not_hang(command: str, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    extra = ["-o", str(tmp_path / "out")] if command == "sweep" else []
    r = run_subprocess(command, str(fifo), *extra, cwd=tmp_path)  # run_subprocess times out after 600 s
    refused(r, "named pipe (FIFO)")


def test_a_symlink_to_a_device_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "zero.toml"
    link.symlink_to("/dev/zero")
    refused(run_subprocess("validate", str(link), cwd=tmp_path), "character device")


def test_a_large_file_is_refused_and_the_limit_can_be_raised(tmp_path: Path) -> None:
    text = QUICKSTART.read_text(encoding="utf-8")
    big = tmp_path / "big.toml"
    big.write_text(text + "#" * 4000 + "\n", encoding="utf-8")
    size = big.stat().st_size
    r = run_subprocess("validate", str(big), cwd=tmp_path, env={"DUPACK_MAX_SCENARIO_BYTES": "2000"})
    refused(r, f"too large ({size} bytes)", "at most 2000 bytes", "DUPACK_MAX_SCENARIO_BYTES")
    r = run_subprocess("validate", str(big), cwd=tmp_path, env={"DUPACK_MAX_SCENARIO_BYTES": str(size)})
    assert r.returncode == 0, r.stderr


def test_the_default_limit_is_16_mib(tmp_path: Path) -> None:
    from dupack.scenario import DEFAULT_MAX_SCENARIO_BYTES, load

    assert DEFAULT_MAX_SCENARIO_BYTES == 16 << 20
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:  # sparse: no 16 MiB written
        f.truncate(DEFAULT_MAX_SCENARIO_BYTES + 1)
    with pytest.raises(OSError, match="too large"):
        load(big)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_trace_file_that_is_a_device_is_refused(device: str, tmp_path: Path) -> None:
    sc = tmp_path / "trace.toml"
    sc.write_text(
        '[topology]\nkind = "chain"\n[[topology.hops]]\nrate = "10Mbps"\ndelay = "1ms"\n'
        f'fwd_trace = {{ file = "{device}" }}\n',
        encoding="utf-8",
    )
    r = run_subprocess("validate", str(sc), cwd=tmp_path)
    refused(r, "topology.hops[0].fwd_trace.file", f'trace file "{device}" is a character device')


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_trace_file_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.trace")
    sc = tmp_path / "trace.toml"
    sc.write_text(
        '[topology]\nkind = "chain"\n[[topology.hops]]\nrate = "10Mbps"\ndelay = "1ms"\n'
        'fwd_trace = { file = "pipe.trace" }\n',
        encoding="utf-8",
    )
    refused(run_subprocess("validate", str(sc), cwd=tmp_path), "named pipe (FIFO)")


def test_a_trace_file_over_its_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t.trace").write_text("1\n2\n3\n4\n", encoding="utf-8")
    sc = tmp_path / "trace.toml"
    sc.write_text(
        '[topology]\nkind = "chain"\n[[topology.hops]]\nrate = "10Mbps"\ndelay = "1ms"\n'
        'fwd_trace = { file = "t.trace" }\n',
        encoding="utf-8",
    )
    r = run_subprocess("validate", str(sc), cwd=tmp_path, env={"DUPACK_MAX_TRACE_BYTES": "4"})
    refused(r, "too large (8 bytes)", "DUPACK_MAX_TRACE_BYTES")
    assert run_subprocess("validate", str(sc), cwd=tmp_path).returncode == 0


