"""docs/results.md documents every column of every table, and nothing that
is not one: a column added to the core (metrics/result.rs) and to the
Python dtypes (dupack.result) fails here until its row is written."""

from __future__ import annotations

import re

import pytest

from dupack.result import FLOW_COLUMNS, LINK_COLUMNS, MEDIUM_COLUMNS
from tests.conftest import ROOT

DOC = ROOT / "docs" / "results.md"


def documented(section: str) -> list[str]:
    """The column names in the first table of the ``## section`` of docs/results.md."""
    text = DOC.read_text(encoding="utf-8")
    m = re.search(rf"^## {re.escape(section)}.*?$(.*?)(?=^## )", text, re.M | re.S)
    assert m, f"no section '{section}' in docs/results.md"
    names: list[str] = []
    in_table = False
    for line in m.group(1).splitlines():
        if line.startswith("| column"):
            in_table = True
            continue
        if in_table and line.startswith("|---"):
            continue
        if in_table and line.startswith("|"):
            first = line.split("|")[1]
            names += re.findall(r"`([a-z0-9_]+)`", first)
        elif in_table:
            break
    return names


@pytest.mark.parametrize(
    ("section", "columns"),
    [("Flows", FLOW_COLUMNS), ("Links", LINK_COLUMNS), ("Media", MEDIUM_COLUMNS)],
)
def test_every_result_column_has_its_row_in_the_docs(section: str, columns: tuple[str, ...]) -> None:
    names = documented(section)
    assert len(names) == len(set(names)), f"a column documented twice in '{section}'"
    assert set(columns) - set(names) == set(), f"undocumented columns in '{section}'"
    assert set(names) - set(columns) == set(), f"documented columns that do not exist in '{section}'"
