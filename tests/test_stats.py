"""dupack.stats: intervals of means, paired and Welch comparisons, Jain's index."""

from __future__ import annotations

import math

import pytest

from dupack.stats import compare, estimate, jain, t95


def test_estimate_is_the_student_t_interval() -> None:
    e = estimate([1.0, 2.0, 3.0, 4.0])
    assert e.n == 4 and e.mean == 2.5
    assert math.isclose(e.sd, math.sqrt(5 / 3))
    assert math.isclose(e.half, 3.182 * math.sqrt(5 / 3) / 2)
    one = estimate([7.0])
    assert one.mean == 7.0 and math.isnan(one.sd) and math.isnan(one.half)


def test_paired_comparison_by_seed() -> None:
    c = compare({1: 10.0, 2: 12.0, 3: 11.0}, {1: 8.0, 2: 9.0, 3: 9.0})
    assert c.method == "paired"
    # Differences 2, 3, 2: mean 7/3, sd 1/sqrt(3), half-width t95(2)·sd/sqrt(3).
    assert math.isclose(c.diff, 7 / 3)
    assert math.isclose(c.diff_half, 4.303 / 3)
    assert math.isclose(c.rel, 11 / (26 / 3) - 1)
    # Delta method: residuals a_i - R·b_i have sd 0.51745; divided by sqrt(n)·mean(b).
    assert c.rel_half == pytest.approx(4.303 * 0.517449 / (math.sqrt(3) * 26 / 3), rel=1e-4)
    assert c.rel_low < c.rel < c.rel_high and c.rel_low > 0
    assert c.excludes_zero()


def test_pairing_needs_the_same_seeds_otherwise_welch() -> None:
    c = compare({1: 1.0, 2: 2.0, 3: 3.0}, {1: 4.0, 2: 5.0, 4: 6.0})
    assert c.method == "welch"
    # Equal sizes and variances: Welch's degrees of freedom are 2n - 2 = 4.
    assert math.isclose(c.df, 4.0)
    assert math.isclose(c.diff, -3.0)
    assert math.isclose(c.diff_half, t95(4) * math.sqrt(2 / 3))
    with pytest.raises(ValueError, match="seeds"):
        compare({1: 1.0, 2: 2.0}, {1: 1.0, 3: 2.0}, paired=True)


def test_paired_and_welch_differ_where_pairing_helps() -> None:
    a = {s: 100.0 + 10 * s + 1.0 for s in range(1, 6)}
    b = {s: 100.0 + 10 * s for s in range(1, 6)}
    paired, welch = compare(a, b), compare(list(a.values()), list(b.values()))
    assert paired.method == "paired" and welch.method == "welch"
    assert paired.diff == welch.diff == pytest.approx(1.0)
    assert paired.diff_half == 0.0 and welch.diff_half > 10


def test_fewer_than_two_values_give_no_interval() -> None:
    c = compare({1: 3.0}, {1: 2.0})
    assert c.diff == 1.0 and math.isnan(c.diff_half) and math.isnan(c.rel_half)
    assert not c.excludes_zero()


def test_jain() -> None:
    assert jain([5.0, 5.0, 5.0]) == pytest.approx(1.0)
    assert jain([1.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert jain([100.0, 300.0]) == pytest.approx(400.0**2 / (2 * (100.0**2 + 300.0**2)))
    assert math.isnan(jain([]))
