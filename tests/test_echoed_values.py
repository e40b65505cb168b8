"""Values echoed into error messages are shortened and escaped: every error
is one printable line of bounded length, whatever the input."""

from __future__ import annotations

from pathlib import Path

import pytest

from dupack.scenario import escape, shorten
from tests.conftest import QUICKSTART, run_subprocess

BASE = QUICKSTART.read_text(encoding="utf-8")


def one_printable_line(r, *fragments: str) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr[:300])
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr[:500]
    line = lines[0]
    assert len(line) < 500, line[:300]
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in line), repr(line)
    for f in fragments:
        assert f in line, (f, line)
    return line


def scenario(tmp_path: Path, text: str) -> str:
    p = tmp_path / "s.toml"
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_shorten_escapes_and_cuts() -> None:
    assert shorten("a\nb\x1b[0m\x00\u202e") == "a\\nb\\x1b[0m\\0\\u202e"
    assert shorten("x" * 100) == "x" * 77 + "..."
    assert escape("plain é") == "plain é"


def test_a_megabyte_variant_gives_a_short_line(tmp_path: Path) -> None:
    f = scenario(tmp_path, BASE.replace('variant = "newreno"', f'variant = "{"x" * (1 << 20)}"'))
    one_printable_line(run_subprocess("validate", f, cwd=tmp_path), "tcp.variant", "unknown TCP variant", "…")


@pytest.mark.parametrize("value", ["new\\nreno", "\\u001b[2J", "a\\u0000b", "\\u202eoner"])
def test_control_characters_in_a_value_stay_on_one_line(value: str, tmp_path: Path) -> None:
    f = scenario(tmp_path, BASE.replace('variant = "newreno"', f'variant = "{value}"'))
    one_printable_line(run_subprocess("validate", f, cwd=tmp_path), "tcp.variant")


@pytest.mark.parametrize("name", ["a\\u001b[31mb", "x\\ny", "nul\\u0000"])
def test_a_flow_name_with_control_characters_is_refused(name: str, tmp_path: Path) -> None:
    f = scenario(tmp_path, BASE + f'\n[[flows]]\nname = "{name}"\nfrom = "s0"\n')
    one_printable_line(run_subprocess("run", f, cwd=tmp_path), "flows[0].name", "control characters")
    assert not (tmp_path / "dupack-out").exists()


def test_a_newline_in_an_override_stays_on_one_line(tmp_path: Path) -> None:
    r = run_subprocess("validate", str(QUICKSTART), "-s", "run..seed=\n1\x1b", cwd=tmp_path)
    one_printable_line(r, "bad override")


@pytest.mark.parametrize("digits", ["18446744073709551616", "100000000000000000000000", "-9223372036854775809"])
def test_an_integer_beyond_64_bits_is_an_integer_out_of_range(digits: str, tmp_path: Path) -> None:
    f = scenario(tmp_path, BASE.replace("seed = 1 ", f"seed = {digits} "))
    line = one_printable_line(run_subprocess("validate", f, cwd=tmp_path), "run.seed", "out of range", digits)
    assert "e+" not in line, "not described as a float"
    r = run_subprocess("validate", str(QUICKSTART), "-s", f"run.seed={digits}", cwd=tmp_path)
    one_printable_line(r, "run.seed", "out of range")


def test_an_integer_of_thousands_of_digits_is_the_users_mistake(tmp_path: Path) -> None:
    huge = "1" + "0" * 5000
    f = scenario(tmp_path, BASE.replace("seed = 1 ", f"seed = {huge} "))
    one_printable_line(run_subprocess("validate", f, cwd=tmp_path), "thousands of digits")
    r = run_subprocess("validate", str(QUICKSTART), "-s", f"run.seed={huge}", cwd=tmp_path)
    one_printable_line(r, "thousands of digits")
    r = run_subprocess("sweep", str(QUICKSTART), "-o", str(tmp_path / "o"), "--vary", f"tcp.mss={huge},1", cwd=tmp_path)
    one_printable_line(r, "thousands of digits")
