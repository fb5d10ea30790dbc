"""Mutation-audit additions for robustpca.solvers.outlyingness.

R reference values computed once with rrcov 1.7-x / robustbase (the R calls are
quoted next to each value; script: tests/reference/inline_values/make_values.R)."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.solvers import outlyingness as ol


def test_drawn_pairs_are_of_two_rows_so_every_direction_counts(monkeypatch):
    """With a generator the pairs are drawn as pairs of distinct rows (the second
    offset by 1..n-1), so max_directions directions reach the univariate MCDs; a pair
    of one row twice would be a zero direction, dropped."""
    seen = []
    real = ol.univariate_mcd

    def spy(Y, h):
        seen.append(Y.shape[1])
        return real(Y, h)

    monkeypatch.setattr(ol, "univariate_mcd", spy)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 3))  # C(12, 2) = 66 pairs > 60: drawn by rng
    ol.outlyingness(X, 8, max_directions=60, rng=np.random.default_rng(1), batch=1000)
    assert sum(seen) == 60


def test_univariate_mcd_takes_the_middle_of_tied_windows_as_rrcov_unimcd():
    """Three windows of h = 4 have the same variance; rrcov's unimcd takes the middle one
    (slutn[floor((ndup + 1) / 2)]).

    R> r <- rrcov:::unimcd(c(0:3, 100:103, 200:203), 4); c(r$tmcd, r$smcd)
    [1] 101.5 1.29099444873581
    """
    y = np.r_[0:4, 100:104, 200:204].astype(float)[:, None]
    location, scale = ol.univariate_mcd(y, 4)
    np.testing.assert_allclose(location, [101.5], rtol=1e-13)
    np.testing.assert_allclose(scale, [1.29099444873581], rtol=1e-12)


def test_univariate_mcd_of_h_equal_values_is_that_value_with_scale_zero():
    """h equal values: an exact fit. rrcov's unimcd returns NA here (0/0); ours the
    window's value as location and a zero scale (the 'degenerate' branch), so that a
    cutoff built from location + scale * z stays at the data."""
    y = np.r_[[5.0] * 8, 1.0, 2.0, 9.0, 20.0][:, None]
    with np.errstate(all="ignore"):
        location, scale = ol.univariate_mcd(y, 8)
    np.testing.assert_array_equal(location, [5.0])
    np.testing.assert_array_equal(scale, [0.0])


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_adjusted_fences_equal_robustbase(sign):
    """Hubert & Vandervieren (2008) fences, robustbase's a = -4, b = 3, coef = 1.5.

    R> set.seed(1); x <- round(exp(rnorm(40)), 6)
    R> adjboxStats(x, coef = 1.5, a = -4, b = 3)$fence   # 0.1577397 8.5897964
    R> fivenum(x)[c(2, 4)]                              # 0.6672515 2.1187525
    R> mc(x)                                            # 0.3630914
    For -x (negative medcouple) the fences are the negated, swapped ones.
    """
    q1, q3, mc = 0.6672515, 2.1187525, 0.3630914
    lower_r, upper_r = 0.1577397, 8.5897964
    if sign < 0:
        q1, q3, mc, lower_r, upper_r = -q3, -q1, -mc, -upper_r, -lower_r
    upper, lower = ol.adjusted_fences(np.array([q1]), np.array([q3]), np.array([mc]))
    np.testing.assert_allclose(upper, [upper_r], atol=2e-6)
    np.testing.assert_allclose(lower, [lower_r], atol=2e-6)
