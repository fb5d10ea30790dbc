"""Stahel-Donoho and adjusted outlyingness against rrcov / robustbase (mutation audit).

R reference values computed once with rrcov 1.7-2 and robustbase (the R calls are
quoted next to each value; script: tests/reference/inline_values/make_values.R).
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from robustpca.solvers import outlyingness as ol

#: 7 points on a line and 2 off it, whose difference is normal to the line up to rounding
#: (the direction of that pair sees the line's points at one value, scale ~1e-16)
LINE_AND_TWO = np.array(
    [
        [-0.09817306320076169, 0.8809433383449498],
        [1.1389998904579017, -0.4189554647389332],
        [2.4384138968740965, -1.7842510013538324],
        [1.9462840173404752, -1.2671696672721717],
        [-0.3299069124361592, 1.1244263148877944],
        [-1.1043753934550549, 1.93816108699502],
        [-0.21896537791694048, 1.0078599386933065],
        [3.158232754537527, 1.8109576424788782],
        [4.389657904197385, 2.982961098440163],
    ]
)


def test_univariate_mcd_with_full_coverage_is_the_mean_and_sd():
    """h = n: rrcov's unimcd returns the mean and standard deviation (no reweighting,
    which would drop the 40 here).

    R> y <- c(1.5, 2.25, 0.75, 3.0, 2.5, 40.0, 1.0, 2.0)
    R> r <- rrcov:::unimcd(y, length(y)); c(r$tmcd, r$smcd)
    [1] 6.625 13.506612137341156
    """
    y = np.array([1.5, 2.25, 0.75, 3.0, 2.5, 40.0, 1.0, 2.0])[:, None]
    location, scale = ol.univariate_mcd(y, 8)
    np.testing.assert_allclose(location, [6.625], rtol=1e-14)
    np.testing.assert_allclose(scale, [13.506612137341156], rtol=1e-13)


def test_univariate_mcd_windows_tied_up_to_rounding_take_the_middle():
    """Three windows of h = 3 with the same variance mathematically, whose sums of
    squares differ in the last bits: they count as tied, and the middle one is taken
    (rrcov compares exactly and takes whichever rounding makes least, here the last:
    R> rrcov:::unimcd(c(0.1, 0.2, 0.3, 1.1, 1.2, 1.3, 2.1, 2.2, 2.3), 3)$tmcd  # 2.2)."""
    y = np.array([0.1, 0.2, 0.3, 1.1, 1.2, 1.3, 2.1, 2.2, 2.3])[:, None]
    location, scale = ol.univariate_mcd(y, 3)
    np.testing.assert_allclose(location, [1.2], rtol=1e-13)
    np.testing.assert_allclose(scale, [0.1], rtol=1e-12)


def test_all_pairs_when_their_number_equals_max_directions():
    """C(5, 2) = 10 = maxdir: rrcov's outl takes all pairs (``all <- ndir == alldir``);
    with maxdir = 9 its generator's pairs, which give another second value.

    R> X <- matrix(c(0, 1, 2, 3, 9,  0, 2, 1, 4, -3), ncol = 2)
    R> rrcov:::outl(X, maxdir = 10, h = 3)
    [1] 4.5355736761107268 1.1239029738980328 3.3823772986578833 6.9999999999999973
    [5] 28.25921678556103
    R> rrcov:::outl(X, maxdir = 9, h = 3)[2]
    [1] 1
    """
    X = np.array([[0.0, 0.0], [1.0, 2.0], [2.0, 1.0], [3.0, 4.0], [9.0, -3.0]])
    expected = [4.5355736761107268, 1.1239029738980328, 3.3823772986578833, 7.0, 28.25921678556103]
    np.testing.assert_allclose(ol.outlyingness(X, 3, max_directions=10), expected, rtol=1e-12)
    assert ol.outlyingness(X, 3, max_directions=9)[1] == pytest.approx(1.0, rel=1e-12)


def test_a_direction_of_rounding_level_scale_is_skipped_as_in_rrcov():
    """The pair of the two off-line points gives a direction in which the seven points
    on the line project to one value up to rounding (MCD scale ~1e-16): rrcov skips it
    (``smcd < 1e-12``) instead of dividing by rounding noise.

    R> rrcov:::outl(X, maxdir = 250, h = 6)   # X = LINE_AND_TWO
    """
    expected = [
        0.73576516154020832, 0.72352276904332846, 2.0185304174660685, 1.5280693674338943,
        0.8649270341911548, 1.5122451514228914, 0.80309137056000379, 32.76697972817157,
        51.52714403869475,
    ]  # fmt: skip
    np.testing.assert_allclose(ol.outlyingness(LINE_AND_TWO, 6), expected, rtol=1e-9)


@pytest.mark.parametrize("unit", [1e-14, 1e14])
def test_outlyingness_does_not_depend_on_the_datas_unit(unit):
    """rrcov's zero thresholds are absolute; here they are relative to ``unit`` (the
    data's scale), so data in another unit get the same outlyingness."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    X[:3] += 8.0
    expected = ol.outlyingness(X, 16)
    np.testing.assert_allclose(ol.outlyingness(X * unit, 16, unit=unit), expected, rtol=1e-9)


def test_outlyingness_by_batches_of_directions_is_the_same():
    """``batch`` bounds the memory only: every batch of directions counts."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(25, 4))
    X[0] += 10.0 * rng.normal(size=4)
    whole = ol.outlyingness(X, 14, max_directions=200, batch=1000)
    np.testing.assert_array_equal(ol.outlyingness(X, 14, max_directions=200, batch=7), whole)


def test_adjusted_outlyingness_drops_infinite_ratios():
    """A direction whose scale on a row's side is zero gives that row an infinite ratio,
    which robustbase drops (``max(x[is.finite(x)])``): the largest finite ratio over
    the other directions is the outlyingness, not 0."""
    model = ol.AdjustedOutlyingness(
        directions=np.eye(2), median=np.zeros(2), upper=np.array([0.0, 2.0]), lower=np.ones(2)
    )
    np.testing.assert_allclose(model(np.array([[1.0, 3.0], [-2.0, -1.0]])), [1.5, 2.0])


def test_adjusted_outlyingness_of_positive_one_dimensional_data_equals_robustbase():
    """For one positive column every hyperplane normal is +1, so robustbase's random
    directions are all the same and its adjusted outlyingness is deterministic: the
    scales are the distances from the median to the most extreme values inside the
    adjusted-boxplot fences (not the fences themselves).

    R> x <- c(exp(sin((1:40) * 1.3)), 30)
    R> adjOutlyingness(matrix(x), ndir = 50, only.outlyingness = TRUE)[c(1, 2, 5, 23, 41)]
    [1] 0.93662137802623691 0.2946651864811709 0 1 19.505657821881851
    """
    x = np.r_[np.exp(np.sin(np.arange(1, 41) * 1.3)), 30.0][:, None]
    model = ol.fit_adjusted_outlyingness(x, n_directions=50, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(model.directions, 1.0)
    out = model(x)
    expected = [0.93662137802623691, 0.2946651864811709, 0.0, 1.0, 19.505657821881851]
    np.testing.assert_allclose(out[[0, 1, 4, 22, 40]], expected, rtol=1e-10, atol=1e-14)


def test_affine_leverages_of_rank_deficient_data_sum_to_one_plus_the_rank():
    """The affine leverages are the diagonal of the hat matrix of the centred rows
    plus 1/n, so they sum to 1 + rank. A column that is an exact combination of two
    others (rank 2 of 3, up to rounding) must not count: its singular value at rounding
    level is outside the numerical range, else its inverse inflates every leverage."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    X = np.c_[X, X[:, 0] - 2.0 * X[:, 1]]
    mean = X.mean(axis=0)
    leverage = ol.affine_leverage(X, mean, ol.scatter_whitening(X - mean, 30), 30)
    assert leverage.sum() == pytest.approx(3.0, rel=1e-10)
    assert ol.forced_rows(leverage).size == 0


@pytest.mark.parametrize(("n", "p", "forced"), [(8, 4, [2, 5]), (9, 3, [0, 4, 8])])
def test_held_draws_hold_every_forced_row_as_often_as_uniform_regular_draws_do(n, p, forced):
    """Among the p-subsets that hold all m forced rows but at most one, those holding all
    m are C(n-m, p-m) of C(n-m, p-m) + m C(n-m, p-m+1) (the docstring's probability); the
    share among 20,000 draws is within 5 standard errors of it (the chi-square test of
    the subsets' counts has little power against a wrong share)."""
    forced = np.array(forced)
    m = forced.size
    every = comb(n - m, p - m)
    share = every / (every + m * comb(n - m, p - m + 1))
    draws = ol.draw_subsets_holding(np.random.default_rng(0), 20_000, n, p, forced)
    observed = np.mean(np.isin(draws, forced).sum(axis=1) == m)
    assert abs(observed - share) < 5.0 * np.sqrt(share * (1 - share) / 20_000)


def test_ill_conditioned_subsets_are_regular_to_robustbases_tolerance():
    """Every pair of these rows spans a hyperplane with condition number ~1e10: regular
    for robustbase (``qr(P, tol = 1e-12)$rank == p``), so the normals are found (all
    ``(1, 0)``: each hyperplane is ``x_1 = 1``)."""
    X = np.c_[np.ones(8), 1.0 + 1e-10 * np.arange(8)]
    B = ol.hyperplane_normals(X.shape, X.__getitem__, 5, np.random.default_rng(0))
    assert B.shape == (2, 5)
    np.testing.assert_allclose(B, np.repeat([[1.0], [0.0]], 5, axis=1), atol=1e-5)


def test_unit_normals_drop_normals_below_rounding_as_robustbase():
    """robustbase keeps a normal where ``Bnorm * mean(abs(x)) > 1e-12`` and scales the
    kept ones to unit length."""
    B = np.array([[3.0, 1e-13, 0.0], [4.0, 0.0, 2e-12]])
    np.testing.assert_allclose(ol.unit_normals(B, 1.0), [[0.6, 0.0], [0.8, 1.0]])
    np.testing.assert_allclose(ol.unit_normals(B, 100.0), [[0.6, 1.0, 0.0], [0.8, 0.0, 1.0]])
