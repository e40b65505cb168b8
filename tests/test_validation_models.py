"""The closed-form models of validation/models.py and the per-point PFTK
judgement of scenario 2 (nothing is simulated here)."""

from __future__ import annotations

import math

import pytest

from validation import models, s2_lossy
from validation.common import Estimate


@pytest.mark.parametrize("p", [0.001, 0.003, 0.01])
def test_pftk_timeout_share_is_about_three_over_w_for_small_p(p: float) -> None:
    # PFTK 1998 §2.2: Q̂(w) ≈ min(1, 3/w) when p is small.
    w = models.pftk_expected_window(p)
    assert abs(models.pftk_timeout_share(p, w) - 3 / w) < 0.05 * (1 + 30 * p)


def test_pftk_expected_window() -> None:
    # E[W] = (2 + b)/(3b) + sqrt(8(1 - p)/(3bp) + ((2 + b)/(3b))^2), b = 1: 1 + sqrt(264 + 1) at p = 1 %.
    assert models.pftk_expected_window(0.01) == pytest.approx(1 + math.sqrt(265))
    assert models.pftk_timeout_share(0.1, 2.5) == 1.0


def row(p: float, goodput: float, pftk: float, share: float) -> s2_lossy.Row:
    r = s2_lossy.Row("reno", p, 100, 100.0, {"dupack": Estimate(goodput, 0.0, 3)}, {}, pftk, 0.0)
    r.rtt_measured_s, r.pftk_measured_kbps, r.timeout_share = 0.1, pftk, share
    return r


def test_pftk_point_names_the_failing_assumption() -> None:
    q = models.pftk_timeout_share(0.03, models.pftk_expected_window(0.03))
    ratio, q_model, why = s2_lossy.pftk_point(row(0.03, 105, 100, 0.1))
    assert (ratio, why) == (1.05, "") and q_model == q
    _, _, why = s2_lossy.pftk_point(row(0.03, 120, 100, q / 2))
    assert "independent" in why and "loss to end its round" in why
    _, _, why = s2_lossy.pftk_point(row(0.03, 80, 100, min(1.0, q * 1.5)))
    assert "more than PFTK's Q̂" in why
    _, _, why = s2_lossy.pftk_point(row(0.03, 80, 100, q / 2))
    assert why.startswith("not the timeout share") and "T0 = 1 s" in why
