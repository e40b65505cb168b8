"""The help of the main commands reads as it is typed: flags without a value
placeholder, arguments without typer's braces."""

from __future__ import annotations

import re

import pytest

from tests.conftest import run_cli


@pytest.mark.parametrize(
    ("command", "usage", "flags"),
    [
        ("run", r"Usage: dupack run \[OPTIONS\] FILE\.toml\s", ["--json", "--quiet", "--help"]),
        ("sweep", r"Usage: dupack sweep \[OPTIONS\] FILE\.toml\s", ["--no-resume", "--quiet", "--help"]),
        # An optional argument: [NAME] in recent typer versions, NAME in older ones.
        ("reproduce", r"Usage: dupack reproduce \[OPTIONS\] \[?NAME\]?\s", ["--full", "--list", "--quiet", "--help"]),
    ],
)
def test_help_reads_well(command: str, usage: str, flags: list[str]) -> None:
    r = run_cli(command, "--help", env={"COLUMNS": "100", "TERM": "dumb"})
    assert r.exit_code == 0, r.stderr
    text = r.stdout
    assert re.search(usage, text), text
    assert "<bool>" not in text and "{" not in text and "}" not in text
    for flag in flags:
        # The flag's row: the name, maybe its short form, then straight to the help.
        row = next(line for line in text.splitlines() if re.search(rf"\s{flag}\b", line))
        after = row.split(flag, 1)[1]
        assert not re.match(r"\s+(-\w\s+)?<", after), row


def test_the_scenario_docs_the_help_names_exist_where_it_says() -> None:
    from tests.conftest import ROOT

    r = run_cli("run", "--help", env={"COLUMNS": "200"})
    assert "docs/scenario.md in the source distribution" in " ".join(r.stdout.split())
    assert (ROOT / "docs" / "scenario.md").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '{ path = "docs/scenario.md", format = "sdist" }' in pyproject
