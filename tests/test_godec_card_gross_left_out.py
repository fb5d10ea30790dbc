"""Mutation-audit additions for robustpca.solvers.godec_card."""

from __future__ import annotations

import numpy as np

from robustpca.solvers.godec_card import ResidualCutoff, gross_left_out


def test_gross_left_out_counts_only_entries_outside_s():
    """The warning counts the gross entries left in low_rank_, not those S holds."""
    rng = np.random.default_rng(1)
    R = rng.uniform(-1.0, 1.0, (30, 12))  # |R| <= 1: below 3 * 1.4826 * median |R|
    R[3, 4], R[7, 1] = 50.0, -60.0  # gross
    R[10, 10] = 70.0  # gross, left out of S
    S = np.zeros_like(R)
    S[3, 4], S[7, 1] = R[3, 4], R[7, 1]
    count, share = gross_left_out(R, S, None, ResidualCutoff(), 1.0)
    assert count == 1
    left = R - S
    assert abs(share - 70.0**2 / float(np.sum(left * left))) < 1e-12
