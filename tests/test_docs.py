"""The complete scenarios in docs/scenario.md, along the path users take.

The Rust test `every_documented_example_parses` (crates/dupack-sim/tests/
scenario_parse.rs) feeds the same examples to the parser directly; here
they go through a file, `dupack.load`, `Scenario.validate`, `dupack run`
and `dupack validate`, as a reader who copies one would. The convention is
the Rust test's: a block opened by a line that is exactly ```toml and whose
first line is not `# fragment` is a complete scenario.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import dupack
from tests.conftest import ROOT, run_cli

DOCS = ROOT / "docs" / "scenario.md"


def doc_examples(text: str) -> list[str]:
    """The complete ```toml blocks of a Markdown document, in order."""
    out: list[str] = []
    block: list[str] | None = None
    for line in text.splitlines():
        if block is None:
            if line.rstrip() == "```toml":
                block = []
        elif line.rstrip() == "```":
            body = "".join(block)
            if not body.startswith("# fragment"):
                out.append(body)
            block = None
        else:
            block.append(line + "\n")
    return out


EXAMPLES = doc_examples(DOCS.read_text(encoding="utf-8"))


def test_the_extraction_finds_every_complete_example():
    # As in the Rust test: one complete example per topology kind.
    assert len(EXAMPLES) == 4
    kinds = {dupack.Scenario.from_toml(t).to_dict()["topology"]["kind"] for t in EXAMPLES}
    assert kinds == {"dumbbell", "chain", "star", "custom"}


def test_fragments_are_left_out():
    text = "```toml\n# fragment\nx = 1\n```\n\n```toml\nname = \"a\"\n```\n```sh\nls\n```\n"
    assert doc_examples(text) == ['name = "a"\n']


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_documented_example_is_valid(index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = EXAMPLES[index]
    path = tmp_path / f"example{index}.toml"
    path.write_text(text, encoding="utf-8")

    sc = dupack.load(path)
    sc.validate()
    assert sc == dupack.Scenario.from_toml(text)

    r = run_cli("validate", str(path))
    assert (r.exit_code, r.stdout.splitlines()[0], r.stderr) == (0, "ok", ""), r.stderr

    # And it runs: briefly, since only "it is accepted and simulates" is at stake.
    monkeypatch.chdir(tmp_path)
    res = dupack.run(path, seed=1, overrides=["run.duration=2s"])
    assert len(res.flows) >= 1
    assert res.run["sim_time_s"] <= 2


def test_mechanisms_table_is_generated_from_the_current_code() -> None:
    """docs/mechanisms.md's scenario table is the script's output, not hand-typed."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    r = subprocess.run(
        [sys.executable, str(root / "scripts" / "mechanisms_table.py"), "--check"],
        capture_output=True, text=True, timeout=600,
    )
    assert r.returncode == 0, r.stderr
