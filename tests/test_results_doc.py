"""docs/results.md documents every column of every result table, in the
order and with the unit the core declares (``result_table!`` in
metrics/result.rs), and nothing that is not one: a column added to the core
fails here until its row is written."""

from __future__ import annotations

import re

import pytest

from dupack import _core
from dupack.result import FLOW_COLUMNS, LINK_COLUMNS, MEDIUM_COLUMNS, RUN_COLUMNS
from tests.conftest import ROOT

DOC = ROOT / "docs" / "results.md"
DECLARED = _core.result_columns()
# docs/results.md's section of each table.
SECTIONS = {"flows": "Flows", "links": "Links", "media": "Media", "run": "Run"}


def documented(section: str) -> list[tuple[str, str]]:
    """``(column, unit)`` for each column named in the first table of the
    ``## section`` of docs/results.md, in order (a row naming several
    columns gives each the row's unit)."""
    text = DOC.read_text(encoding="utf-8")
    m = re.search(rf"^## {re.escape(section)}.*?$(.*?)(?=^## )", text, re.M | re.S)
    assert m, f"no section '{section}' in docs/results.md"
    rows: list[tuple[str, str]] = []
    in_table = False
    for line in m.group(1).splitlines():
        if line.startswith(("| column | unit |", "| field | unit |")):
            in_table = True
            continue
        if in_table and line.startswith("|---"):
            continue
        if in_table and line.startswith("|"):
            cells = line.split("|")
            unit = cells[2].strip()
            rows += [(name, unit) for name in re.findall(r"`([a-z0-9_]+)`", cells[1])]
        elif in_table:
            break
    return rows


@pytest.mark.parametrize("table", SECTIONS)
def test_the_docs_list_the_declared_columns_in_order_with_their_units(table: str) -> None:
    rows = documented(SECTIONS[table])
    names = [name for name, _unit in rows]
    declared = [(name, unit) for name, _dtype, unit, _doc, _field in DECLARED[table]]
    assert len(names) == len(set(names)), f"a column documented twice in '{SECTIONS[table]}'"
    assert set(names) <= {n for n, _ in declared}, f"documented columns that do not exist in '{SECTIONS[table]}'"
    assert {n for n, _ in declared} <= set(names), f"undocumented columns in '{SECTIONS[table]}'"
    assert rows == declared, f"'{SECTIONS[table]}': order or units differ from metrics/result.rs"


@pytest.mark.parametrize(
    ("table", "columns"),
    [("flows", FLOW_COLUMNS), ("links", LINK_COLUMNS), ("media", MEDIUM_COLUMNS), ("run", RUN_COLUMNS)],
)
def test_the_python_tables_have_the_declared_columns(table: str, columns: tuple[str, ...]) -> None:
    assert columns == tuple(name for name, *_ in DECLARED[table])
