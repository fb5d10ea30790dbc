"""Boundaries of the proximal operators and of the partial SVD route.

* ``l21_shrinkage`` documents that rows with norm *at most* the threshold become exactly
  zero: the prox is continuous, so a row exactly on the threshold (norm 5 at tau 5) is
  zero, not kept whole;
* ``truncated_svd``'s ``init`` is the start of the partial route: rows spanning the top
  right singular subspace make one pass enough, where a random start needs more (the
  route taken, ``method``, shows it);
* the zero matrix (the first iterate of every ALM) takes the partial route cleanly: its
  residuals are zero, with no 0/0 in the relative test (the suite turns RuntimeWarnings
  into errors);
* the documented route thresholds of ``'auto'`` (``min(m, n) > 64``, ``k + 10 <=
  min(m, n) / 5``) and of ``partial_svt_factors`` (None where ``rank_hint + 10 >=
  min(m, n)``), ``rank_hint=0`` taken as 1, and ``rank_truncation``'s errors naming
  ``rank``.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.prox import (
    l21_shrinkage,
    partial_svt_factors,
    rank_truncation,
    svt_factors,
    truncated_svd,
)


def test_rows_on_the_threshold_become_zero():
    X = np.array([[3.0, 4.0], [0.6, 0.8], [6.0, 8.0]])  # norms 5, 1, 10
    out = l21_shrinkage(X, 5.0)
    np.testing.assert_array_equal(out[:2], 0.0)
    np.testing.assert_allclose(out[2], 0.5 * X[2])
    # continuity at the threshold: just above it the row is nearly zero
    assert np.linalg.norm(l21_shrinkage(X[:1] * (1 + 1e-12), 5.0)) < 1e-10


def _gapped(seed=0, m=200, n=150, k=3):
    """A full-rank matrix whose top-k singular values are 10 and the rest 0.5 to 1: a
    random start of k + 10 directions is far from converged after one pass."""
    rng = np.random.default_rng(seed)
    U = np.linalg.qr(rng.normal(size=(m, n)))[0]
    V = np.linalg.qr(rng.normal(size=(n, n)))[0]
    s = np.concatenate([[10.0] * k, np.linspace(1.0, 0.5, n - k)])
    return (U * s) @ V.T, V[:, :k].T, s


def test_init_spanning_the_top_subspace_converges_in_one_pass():
    X, Vk, s = _gapped()
    warm = truncated_svd(X, 3, init=Vk, max_iter=1, rng=np.random.default_rng(0))
    cold = truncated_svd(X, 3, max_iter=1, rng=np.random.default_rng(0))
    assert warm.method == "partial"
    assert cold.method == "full"
    np.testing.assert_allclose(warm.s, s[:3], rtol=1e-10)
    np.testing.assert_allclose(cold.s, s[:3], rtol=1e-10)


def test_zero_matrix_on_the_partial_route():
    Z = np.zeros((120, 100))
    top = truncated_svd(Z, 2)
    assert top.method == "partial"
    assert np.all(top.s == 0)
    f = svt_factors(Z, 1.0, rank_hint=2)
    assert f.s.size == 0


def test_auto_route_thresholds_are_the_documented_ones():
    """``'auto'`` takes the partial route when ``min(m, n) > 64`` and ``k + 10 <=
    min(m, n) / 5``: both ends of both conditions."""
    rng = np.random.default_rng(0)
    for side, k, route in (
        (64, 2, "full"),
        (65, 2, "partial"),
        (100, 10, "partial"),
        (100, 11, "full"),
    ):
        X = rng.normal(size=(side, 3)) @ rng.normal(size=(3, 200))
        assert truncated_svd(X, k, rng=np.random.default_rng(1)).method == route, (side, k)


def test_rank_hint_zero_is_a_hint_of_one():
    """``rank_hint=0`` is accepted and used as 1 (as ``partial_svt_factors`` documents):
    with ``grow=False`` the top triplet above the threshold is kept, not dropped."""
    X = _gapped()[0]
    zero = svt_factors(X, 5.0, rank_hint=0, grow=False, rng=np.random.default_rng(0))
    one = svt_factors(X, 5.0, rank_hint=1, grow=False, rng=np.random.default_rng(0))
    assert zero.s.size == one.s.size == 1
    np.testing.assert_array_equal(zero.s, one.s)


def test_partial_svt_factors_declines_when_the_directions_fill_the_smaller_side():
    """``None`` where ``rank_hint + 10 >= min(m, n)`` (documented): the caller's own
    fallback, not a subspace iteration on every direction."""
    X = np.random.default_rng(0).normal(size=(20, 60))
    assert partial_svt_factors(X, 100.0, rank_hint=10) is None
    assert partial_svt_factors(X, 100.0, rank_hint=9) is not None


def test_rank_truncation_names_its_rank_parameter():
    with pytest.raises(ValueError, match="rank"):
        rank_truncation(np.ones((3, 5)), 4)
