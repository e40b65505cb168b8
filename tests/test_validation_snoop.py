"""Scenario 5 of the ns-2 cross-validation, quick subset: dupack's Snoop
agent against ns-2.35's LL/LLSnoop (validation/s5_snoop.py,
docs/validation.md). Needs ns-2's `ns`, which scripts/test installs when it
can; otherwise the tests are skipped with the reason."""

from __future__ import annotations

import shutil

import pytest

from validation import s5_snoop
from validation.peers import PEERS

pytestmark = pytest.mark.skipif(
    shutil.which("ns") is None,
    reason="ns-2 (`ns`) is not installed: apt-get install ns2, or run scripts/test as root to have it installed",
)


def test_at_one_percent_loss_snoop_agrees_with_ns2_within_the_stated_tolerances() -> None:
    row = s5_snoop.run_case(0.01, PEERS, seeds=4)
    ch = s5_snoop.checks(row)
    assert all(ch.values()), (ch, row.metrics, row.gains)
    for tool in ("dupack", "ns2"):
        snoop = row.metrics[tool]["snoop"]
        assert snoop["local_rexmits"].mean > 0 and snoop["dupacks_suppressed"].mean > 0, (tool, snoop)


def test_at_five_percent_both_agents_hide_the_losses_and_dupack_is_ahead_for_the_known_causes() -> None:
    row = s5_snoop.run_case(0.05, PEERS, seeds=2)
    ch = s5_snoop.checks(row)
    # The qualitative agreement: both raise goodput several times and take
    # the fast retransmits away from the sender; without Snoop both agree.
    assert ch["Snoop helps (both)"] and min(g.mean for g in row.gains.values()) > 3, row.gains
    assert ch["fast retransmits cut (both)"], row.metrics
    assert ch["plain goodput"], row.metrics
    # With Snoop dupack is ahead, as its priority local retransmissions and
    # Karn-clean local timer predict (docs/validation.md, scenario 5:
    # `rexmit_priority`, `rtt_sampling`).
    d, n = row.metrics["dupack"]["snoop"]["goodput"].mean, row.metrics["ns2"]["snoop"]["goodput"].mean
    assert 1.1 * n < d < 1.6 * n, (d, n)
