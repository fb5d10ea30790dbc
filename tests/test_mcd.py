"""The MCD of robustpca.solvers.mcd equals robustbase's covMcd (rrcov's CovMcd).

Reference: ``tests/reference/rrcov_robust/mcd.csv`` (its ``make_fixtures.R``).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca.solvers.mcd import (
    fast_mcd_subset,
    h_alpha_n,
    mcd_consistency,
    mcd_small_sample,
    minimum_covariance_determinant,
    raw_log_det,
)

from .conftest import load_table

REFERENCE = Path(__file__).parent / "reference" / "rrcov_robust" / "mcd.csv"
with open(REFERENCE, encoding="utf-8", newline="") as _f:
    ROWS = {(r["table"], float(r["alpha"])): r for r in csv.DictReader(_f)}


def _numbers(text):
    return np.array([float(v) for v in text.split(";")])


@pytest.mark.realdata
@pytest.mark.parametrize(("table", "alpha"), sorted(ROWS))
def test_equals_robustbase(shared_data, table, alpha):
    """Every table with n > 2p, and each table's first column ("table:1"): robustbase's
    exact univariate MCD, whose raw scale divides the h-subset's sum of squares by h
    (its crit by h - 1). Ours divided by h - 1, a raw variance 16/15 too large on 30
    points at alpha = 0.5, which moved ROBPCA's reweighting on octane at k = 1."""
    name, _, column = table.partition(":")
    X = load_table(shared_data, name)
    if column:
        X = X[:, [int(column) - 1]]
    ref = ROWS[(table, alpha)]
    fit = minimum_covariance_determinant(X, alpha, random_state=0)
    p = X.shape[1]
    assert fit.h == int(ref["h"])
    # FAST-MCD is a random search: ours must be at least as good as robustbase's ...
    assert fit.log_det <= float(ref["crit"]) + 1e-9
    # ... and, where both found the same subset, the raw estimates are robustbase's
    if abs(fit.log_det - float(ref["crit"])) < 1e-9:
        if ref["best"]:  # (robustbase does not report the univariate h-subset)
            best = _numbers(ref["best"]).astype(int) - 1
            np.testing.assert_array_equal(np.flatnonzero(fit.raw_support), best)
        np.testing.assert_allclose(fit.raw_covariance.ravel(), _numbers(ref["raw_cov"]), rtol=1e-9)
    # the reweighted estimates agree on every table (hbk at 0.5: different raw subsets
    # of nearly equal determinant, the same reweighted set)
    np.testing.assert_allclose(fit.location, _numbers(ref["center"]), rtol=1e-9)
    np.testing.assert_allclose(fit.covariance.ravel(), _numbers(ref["cov"]), rtol=1e-9)
    assert fit.covariance.shape == (p, p)


with open(REFERENCE.with_name("mcd_alpha_one.csv"), encoding="utf-8", newline="") as _f:
    ALPHA_ONE_ROWS = {r["table"]: r for r in csv.DictReader(_f)}


@pytest.mark.realdata
@pytest.mark.parametrize("table", sorted(ALPHA_ONE_ROWS))
def test_alpha_one_reweights_the_classical_estimates_as_robustbase(shared_data, table):
    """At alpha = 1 (h = n) the classical mean and covariance are the raw estimates, and
    robustbase still reweights them (its covMcd's "h == n" branch). Ours returned the
    classical estimates: on starsCYG a first eigenvalue of 0.331 for rrcov's 0.340, and
    four flagged stars for six (tests/reference/inline_values/make_values.R)."""
    name, _, column = table.partition(":")
    X = load_table(shared_data, name)
    if column:
        X = X[:, [int(column) - 1]]
    ref = ALPHA_ONE_ROWS[table]
    fit = minimum_covariance_determinant(X, 1.0, random_state=0)
    assert fit.h == int(ref["h"]) == X.shape[0]
    np.testing.assert_allclose(fit.raw_location, _numbers(ref["raw_center"]), rtol=1e-12)
    np.testing.assert_allclose(fit.raw_covariance.ravel(), _numbers(ref["raw_cov"]), rtol=1e-12)
    np.testing.assert_allclose(fit.location, _numbers(ref["center"]), rtol=1e-12)
    np.testing.assert_allclose(fit.covariance.ravel(), _numbers(ref["cov"]), rtol=1e-12)


def test_h_and_consistency_factor_match_r():
    """Values printed by R: h.alpha.n(0.75, 75, 3) = 57 and .MCDcons(3, 0.5) = 2.457368
    (tests/reference/inline_values/make_values.R)."""
    assert h_alpha_n(0.75, 75, 3) == 57
    assert h_alpha_n(0.5, 20, 5) == 13
    assert mcd_consistency(3, 0.5) == pytest.approx(2.457368, rel=1e-6)
    assert mcd_consistency(2, 1.0) == 1.0


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**16))
def test_c_steps_find_a_subset_no_worse_than_the_clean_one(seed):
    """Rousseeuw & Van Driessen's Theorem 1 in use: the search reaches a determinant no
    larger than that of the clean samples' best C-step fixed point, and with 30%
    gross outliers its subset holds none of them."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 3))
    X[:18] = rng.normal(size=(18, 3)) * 0.1 + 20.0
    h = h_alpha_n(0.5, 60, 3)
    support = fast_mcd_subset(X, h, n_starts=50, rng=np.random.default_rng(0))
    assert support.sum() == h and not support[:18].any()


def test_univariate_mcd_is_the_exact_window():
    x = np.array([0.0, 0.1, 0.2, 0.3, 5.0, 9.0, 13.0])
    support = fast_mcd_subset(x[:, None], 4, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(np.flatnonzero(support), [0, 1, 2, 3])


def test_univariate_mcd_takes_the_middle_of_tied_windows():
    """Where several windows share the least variance (equally spaced or integer data),
    robustbase's rfmcduni takes the middle one. Values of R 4.x, robustbase 0.99
    (tests/reference/inline_values/make_values.R):
    covMcd(0:11)$raw.center = 5; x <- c(0:9, 14): covMcd(x)$raw.center = 4.5,
    $center = 5.363636, $cov = 16.454545; PcaHubert(x) flags nothing (the first window
    gave 3, 2.5, 4.5 and 15.45, and flagged row 11)."""
    from robustpca import ROBPCA

    mcd = minimum_covariance_determinant

    assert mcd(np.arange(12.0)[:, None], random_state=0).raw_location[0] == pytest.approx(5.0)
    x = np.r_[np.arange(10.0), 14.0][:, None]
    fit = mcd(x, random_state=0)
    assert fit.raw_location[0] == pytest.approx(4.5)
    assert fit.location[0] == pytest.approx(5.363636, abs=1e-6)
    assert fit.covariance[0, 0] == pytest.approx(16.454545, abs=1e-6)
    assert not (ROBPCA(random_state=0).fit(x).predict(x) == -1).any()


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(20, 300),
    p=st.integers(2, 6),
    rounding=st.sampled_from([None, 0]),
)
def test_final_c_steps_of_the_moving_fits_only_end_as_all_together(seed, n, p, rounding):
    """FAST-MCD's last C-steps leave the fits whose subset stopped moving (fixed points)
    and go on with the others by the routes of the whole batch: the h-subset is the one
    of stepping all the fits until none moves (discrete data too: ties in distances)."""
    from robustpca.solvers import mcd

    data = np.random.default_rng(seed)
    X = data.standard_normal((n, p)) * data.uniform(0.5, 5.0, p)
    X[: n // 5] += 6.0 * data.standard_normal(p)
    if rounding is not None:
        X = np.round(X, rounding)
    h = (n + p + 1) // 2
    got = mcd.fast_mcd_subset(X, h, n_starts=50, rng=np.random.default_rng(seed))

    means, covs = mcd._best_starts(X, h, 50, 10, np.random.default_rng(seed))
    subsets, means, covs = mcd._c_step(X, means, covs, h)
    for _ in range(99):  # every fit, until none moves
        new_subsets, means, covs = mcd._c_step(X, means, covs, h)
        if np.array_equal(new_subsets, subsets):
            break
        subsets = new_subsets
    expected = np.zeros(n, dtype=bool)
    expected[subsets[int(np.argmin(mcd._log_dets(covs)))]] = True
    np.testing.assert_array_equal(got, expected)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    extra=st.integers(1, 110),
    p=st.integers(2, 16),
    n_fits=st.integers(1, 400),
)
def test_batched_c_step_is_one_fit_at_a_time(seed, extra, p, n_fits):
    """A C-step over a batch of fits (chunked, gathered (m, B, p); distances in
    (B, p, n) layout up to ``_FEW_FEATURES`` features, one GEMM a fit above) computes
    each fit's mean, covariance and h nearest samples as the plain formulas do for that
    fit alone: ``np.cov`` of the subset, and the Mahalanobis distances
    ``(x - mu)' P (x - mu)`` under the inverse of the ridge-regularised covariance (the
    selection is checked against distances with a margin, which rounding cannot cross)."""
    from robustpca.solvers import mcd

    n = p + 1 + extra
    data = np.random.default_rng(seed)
    X = data.standard_normal((n, p)) * data.uniform(0.1, 10.0, p) + data.uniform(-50, 50, p)
    m, h = p + 1, (n + p + 1) // 2
    starts = np.argpartition(data.random((n_fits, n)), m - 1, axis=1)[:, :m]
    means, covs = mcd._batched_cov(X, starts)
    for b in range(n_fits):
        np.testing.assert_allclose(means[b], X[starts[b]].mean(axis=0), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(covs[b], np.cov(X[starts[b]].T), rtol=1e-9, atol=1e-9)
    covs = covs + np.eye(p)  # regular, so that the distances are well defined
    subsets, new_means, new_covs = mcd._c_step(X, means, covs, h)
    for b in range(n_fits):
        precision = np.linalg.inv(covs[b] + 1e-12 * np.trace(covs[b]) / p * np.eye(p))
        centred = X - means[b]
        distances = np.einsum("ij,jk,ik->i", centred, precision, centred)
        chosen = np.zeros(n, dtype=bool)
        chosen[subsets[b]] = True
        assert subsets[b].size == h and np.all(np.diff(subsets[b]) > 0)
        if chosen.all():
            continue
        margin = 1e-9 * distances.max()
        assert distances[chosen].max() <= distances[~chosen].min() + margin
        np.testing.assert_allclose(new_means[b], X[subsets[b]].mean(axis=0), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(new_covs[b], np.cov(X[subsets[b]].T), rtol=1e-9, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(10, 200),
    p=st.sampled_from([2, 3, 12, 13]),
    chunk=st.sampled_from([1, 500, 32_768]),
)
def test_a_fit_steps_alike_in_any_batch_and_chunk(seed, n, p, chunk):
    """The last C-steps go on with the moving fits only, which relies on a fit being
    computed to the same bits whatever the other fits of its batch and wherever the
    chunks of ``_VECTORISED`` numbers split it (both distance routes)."""
    from robustpca.solvers import mcd

    data = np.random.default_rng(seed)
    X = np.round(data.standard_normal((n + p, p)) * data.uniform(0.5, 5.0, p), 1)
    h = (X.shape[0] + p + 1) // 2
    means, covs = mcd._best_starts(X, h, 40, 20, np.random.default_rng(seed))
    precisions = np.linalg.inv(covs)
    subsets = np.sort(np.argsort(data.random((means.shape[0], X.shape[0])))[:, :h], axis=1)
    whole = (mcd._distances(X, means, precisions), *mcd._batched_cov(X, subsets))
    keep = np.flatnonzero(data.random(means.shape[0]) < 0.5)
    old = mcd._VECTORISED
    try:
        mcd._VECTORISED = chunk
        part = (
            mcd._distances(X, means[keep], precisions[keep]),
            *mcd._batched_cov(X, subsets[keep]),
        )
    finally:
        mcd._VECTORISED = old
    for got, expected in zip(part, whole, strict=True):
        np.testing.assert_array_equal(got, expected[keep])


def test_mahalanobis_by_cholesky_and_by_least_squares_on_a_singular_covariance():
    """The reweighting's distances: by the Cholesky factor as by a solve where the
    covariance is positive definite; by least squares (the distances within its range)
    where it is singular (an exact fit), not an error or NaN."""
    from robustpca.solvers.mcd import _mahalanobis_sq

    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 3)) * [3.0, 1.0, 0.2] + 10.0
    location, covariance = X.mean(axis=0), np.cov(X.T)
    centred = X - location
    expected = np.einsum("ij,ij->i", centred @ np.linalg.inv(covariance), centred)
    np.testing.assert_allclose(_mahalanobis_sq(X, location, covariance), expected, rtol=1e-12)
    flat = X.copy()
    flat[:, 2] = 1.0  # on a hyperplane: a singular covariance
    got = _mahalanobis_sq(flat, flat.mean(axis=0), np.cov(flat.T))
    plane = flat[:, :2] - flat[:, :2].mean(axis=0)
    within = np.einsum("ij,ij->i", plane @ np.linalg.inv(np.cov(plane.T)), plane)
    np.testing.assert_allclose(got, within, rtol=1e-9)


EXHAUSTIVE = Path(__file__).parent / "reference" / "rrcov_robust" / "mcd_exhaustive.csv"
with open(EXHAUSTIVE, encoding="utf-8", newline="") as _f:
    EXHAUSTIVE_ROWS = list(csv.DictReader(_f))


@pytest.mark.realdata
@pytest.mark.parametrize(
    "ref", EXHAUSTIVE_ROWS, ids=lambda r: f"{r['table']}[:{r['n']}]-{r['alpha']}"
)
def test_exhaustive_search_on_tiny_data_is_robustbase_whatever_the_seed(shared_data, ref):
    """Up to 22, 17, 15 or 14 samples for p = 2..5, robustbase starts from every
    (p+1)-subset (``make_exhaustive.R``: its fit is the same under six seeds), and so
    does ours: the same h-subset, raw and reweighted estimates under any seed and any
    ``n_starts``. At alpha = 0.5 these sizes also take robustbase's simulated
    small-sample factors (14 x 5: the fitted formula's was 16% larger)."""
    from robustpca.solvers import mcd

    assert int(ref["seeds"]) == 1
    X = load_table(shared_data, ref["table"])[: int(ref["n"])]
    n, p = X.shape
    assert mcd._exhaustive(n, p) and not mcd._exhaustive(mcd.EXHAUSTIVE_MAX_N[p + 1] + 1, p)
    best = _numbers(ref["best"]).astype(int) - 1
    for seed, n_starts in ((0, 500), (1, 500), (2, 3)):
        fit = minimum_covariance_determinant(
            X, float(ref["alpha"]), n_starts=n_starts, random_state=seed
        )
        assert fit.h == int(ref["h"])
        np.testing.assert_array_equal(np.flatnonzero(fit.raw_support), best)
        assert fit.log_det == pytest.approx(float(ref["crit"]), abs=1e-10)
        np.testing.assert_allclose(fit.raw_covariance.ravel(), _numbers(ref["raw_cov"]), rtol=1e-9)
        np.testing.assert_allclose(fit.location, _numbers(ref["center"]), rtol=1e-9)
        np.testing.assert_allclose(fit.covariance.ravel(), _numbers(ref["cov"]), rtol=1e-9)


SIMULATED = Path(__file__).parent / "reference" / "rrcov_robust" / "mcd_simulated.csv"


def test_simulated_small_sample_factors_are_robustbases():
    """``_SIMULATED_CNP2`` holds robustbase's simulated factors (``make_mcd_simulated.R``)
    for exactly the (p, n) that robustbase covers, and ``mcd_small_sample`` takes them
    at alpha = 0.5 only (elsewhere the fitted formula, continuous in alpha)."""
    from robustpca.solvers import mcd_factors

    with open(SIMULATED, encoding="utf-8", newline="") as f:
        table = {
            (int(r["p"]), int(r["n"])): (float(r["raw"]), float(r["reweighted"]))
            for r in csv.DictReader(f)
        }
    assert table == mcd_factors._SIMULATED_CNP2
    for (p, n), (raw, reweighted) in table.items():
        assert mcd_small_sample(p, n, 0.5) == pytest.approx(raw, rel=1e-12)
        assert mcd_small_sample(p, n, 0.5, reweighted=True) == pytest.approx(reweighted, rel=1e-12)
    # 5 variables, 14 samples: robustbase's .MCDcnp2(5, 14, alpha)
    # (tests/reference/inline_values/make_values.R)
    assert mcd_small_sample(5, 14, 0.5) == pytest.approx(1.877996, rel=1e-12)
    assert mcd_small_sample(5, 14, 0.75) == pytest.approx(1.575407, rel=1e-6)
    assert mcd_small_sample(5, 17, 0.5) == pytest.approx(
        mcd_small_sample(5, 17, 0.5 + 1e-12), rel=1e-9
    )  # outside the table: the formula


@pytest.mark.parametrize(
    ("n", "sizes"),
    [
        (600, [300, 300]),
        (899, [449, 450]),  # odd: n/2 and n/2 + 1
        (901, [300, 301, 300]),  # 3 (n/3) = n - 1
        (1199, [399, 400, 400]),
        (1202, [300, 301, 301, 300]),  # 4 (n/4) = n - 2
        (1499, [374, 375, 375, 375]),
        (1500, [300] * 5),
        (123_457, [300] * 5),
    ],
)
def test_nested_groups_are_robustbases(n, sizes):
    """The subdatasets of the nested extension, as ``rffastmcd.f`` sizes them (its
    ``mini``): below 1,500 samples 2-4 groups share all of them; from there five of
    300. The groups' h is ``int(size * h / n)`` of the first, as robustbase truncates."""
    from robustpca.solvers import mcd

    assert mcd._group_sizes(n) == sizes
    assert sum(sizes) == min(n, mcd.KMINI * mcd.NMINI)


def test_nested_h_is_truncated_as_robustbase(monkeypatch):
    """1,000 samples in 10 dimensions, h = 505: three groups of 333-334 searched with
    robustbase's ``int(333 * 0.505) = 168``, and the merged set (all 1,000) with 505."""
    from robustpca.solvers import mcd

    seen = {"groups": [], "merged": []}
    best_starts, c_step = mcd._best_starts, mcd._c_step

    def spy_starts(X, h, *args):
        seen["groups"].append((X.shape[0], h))
        return best_starts(X, h, *args)

    def spy_step(X, means, covs, h):
        seen["merged"].append((X.shape[0], h))
        return c_step(X, means, covs, h)

    monkeypatch.setattr(mcd, "_best_starts", spy_starts)
    monkeypatch.setattr(mcd, "_c_step", spy_step)
    X = np.random.default_rng(0).standard_normal((1000, 10))
    mcd.fast_mcd_subset(X, 505, n_starts=30, rng=np.random.default_rng(0))
    assert seen["groups"] == [(333, 168), (334, 168), (333, 168)]
    assert set(seen["merged"]) == {(333, 168), (334, 168), (1000, 505)}


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(6, 60), p=st.integers(2, 5))
def test_singular_starts_are_enlarged_as_one_at_a_time(seed, n, p):
    """Singular starts (ties, a repeated pattern of rows) are replaced all at once by
    what enlarging each in turn gives: the same random orders, drawn one start after
    another, and for each the least size above p + 1 with a regular covariance (the
    first h samples if there is none)."""
    from robustpca.solvers import mcd

    data = np.random.default_rng(seed)
    X = data.integers(0, 2, (n, p)).astype(float)  # binary: many singular subsets
    h, m, count = (n + p + 1) // 2, p + 1, 7
    means, covs = mcd._enlarged_starts(X, h, m, count, np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    for b in range(count):
        order = rng.permutation(n)
        rows = order[:h]
        for size in range(m + 1, h):  # the old loop, one start and one size at a time
            if np.isfinite(mcd._log_dets(mcd._batched_cov(X, order[None, :size])[1]))[0]:
                rows = order[:size]
                break
        np.testing.assert_allclose(means[b], X[rows].mean(axis=0), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(covs[b], np.cov(X[rows].T), rtol=1e-9, atol=1e-12)


SMALL = Path(__file__).parent / "reference" / "rrcov_robust" / "mcd_small.csv"
with open(SMALL, encoding="utf-8", newline="") as _f:
    SMALL_ROWS = list(csv.DictReader(_f))
SMALL_TABLES = {
    int(r["case"]): _numbers(r["x"]).reshape(int(r["n"]), int(r["p"])) for r in SMALL_ROWS if r["x"]
}


@pytest.mark.parametrize(
    "ref", SMALL_ROWS, ids=lambda r: f"{r['case']}-{r['n']}x{r['p']}-{r['alpha']}"
)
def test_small_random_tables_are_robustbases(ref):
    """``make_mcd_small.R``: 24 random tables from 8 x 2 to 40 x 12 at both alphas,
    across the exhaustive search, the simulated small-sample factors and the random
    starts. Where robustbase's own seeds agree (44 of 48), the h-subset, raw and
    reweighted estimates are robustbase's. Elsewhere the search is unsettled in both
    libraries (over 30 seeds each, the same minima at the same rates: 20 x 6 87% and
    87%, 40 x 9 10% and 17%, 30 x 12 23% and 20%), and the best of ten of our seeds must
    reach a determinant at least as low as robustbase's first seed."""
    X = SMALL_TABLES[int(ref["case"])]
    fit = minimum_covariance_determinant(X, float(ref["alpha"]), random_state=0)
    assert fit.h == int(ref["h"])
    if int(ref["seeds"]) > 1:
        alpha = float(ref["alpha"])
        fits = [minimum_covariance_determinant(X, alpha, random_state=s) for s in range(10)]
        assert min(f.log_det for f in fits) <= float(ref["crit"]) + 1e-9
        return
    best = _numbers(ref["best"]).astype(int) - 1
    np.testing.assert_array_equal(np.flatnonzero(fit.raw_support), np.sort(best))
    assert fit.log_det == pytest.approx(float(ref["crit"]), abs=1e-9)
    np.testing.assert_allclose(fit.raw_covariance.ravel(), _numbers(ref["raw_cov"]), rtol=1e-9)
    np.testing.assert_allclose(fit.location, _numbers(ref["center"]), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(fit.covariance.ravel(), _numbers(ref["cov"]), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("share", [0.6, 0.9])
def test_exact_fit_keeps_the_raw_estimates(share):
    """More than h rows exactly on a line: the raw covariance is singular to rounding
    (its determinant, summed directly, can still come out positive: ``raw_log_det``
    goes by the rank), so the MCD takes robustbase's exact fit: the raw estimates of
    every row on the line (the h-subset's affine hull), the support those rows, and the
    covariance of rank 1. robustbase's one hyperplane would also take in rows off the
    line that happen to lie on it (``tests/test_mcd_exact_fit.py``)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 6))
    m = int(share * X.shape[0])
    X[:m] = 1.0 + rng.normal(size=(m, 1)) @ rng.normal(size=(1, 6))
    line = X[:m] - X[:m].mean(axis=0)
    assert raw_log_det(line.T @ line / (m - 1)) == -np.inf
    fit = minimum_covariance_determinant(X, 0.5, random_state=0)
    assert fit.log_det == -np.inf
    np.testing.assert_array_equal(fit.support, np.arange(X.shape[0]) < m)
    assert fit.raw_support.sum() == fit.h and not fit.raw_support[m:].any()
    np.testing.assert_allclose(fit.location, X[:m].mean(axis=0), rtol=1e-12)
    values = np.linalg.eigvalsh(fit.covariance)
    assert values[-2] < 1e-12 * values[-1]


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n_fits=st.integers(1, 40),
    n_kinds=st.integers(1, 12),
    n_best=st.integers(1, 12),
)
def test_best_fits_are_distinct_subsets_in_order_of_determinant(seed, n_fits, n_kinds, n_best):
    """The kept fits: the first ``n_best`` distinct subsets in order of determinant
    (ties by position), as robustbase stores only a solution unlike those stored."""
    from robustpca.solvers.mcd import _distinct_best

    rng = np.random.default_rng(seed)
    kinds = np.sort(rng.choice(50, size=(n_kinds, 5), replace=True), axis=1)
    which = rng.integers(0, n_kinds, size=n_fits)
    subsets = kinds[which]
    dets = rng.normal(size=n_kinds)[which]  # equal subsets, equal determinants
    top = _distinct_best(subsets, dets, n_best)
    expected, seen = [], set()
    for i in np.argsort(dets, kind="stable"):
        if subsets[i].tobytes() not in seen:
            seen.add(subsets[i].tobytes())
            expected.append(i)
    np.testing.assert_array_equal(top, expected[:n_best])


@pytest.mark.realdata
def test_search_finds_the_optimum_on_cardio_under_every_seed(adbench, monkeypatch):
    """ROBPCA's MCD on the 11 scores of ADBench's cardio (scaled by median and MAD, as
    the outlier benchmark scales it): robustbase's covMcd reaches a log-determinant of
    about -1.01 under ten seeds out of ten. Keeping copies of one subset among the best
    ten, ours stopped at -0.47 under these five seeds (5 of 20), and the detector's AUC
    fell from 0.94 to 0.72; with distinct subsets every seed finds the optimum."""
    import bench_outliers as bench  # (benchmarks/, on the path from conftest)
    from robustpca import ROBPCA
    from robustpca.solvers import robpca

    X = bench.scale_columns(bench.load_table("6_cardio", adbench)[0])
    seen = []

    def noted(scores, alpha, **kwargs):
        fit = minimum_covariance_determinant(scores, alpha, **kwargs)
        seen.append((scores.shape, fit.log_det))
        return fit

    monkeypatch.setattr(robpca, "minimum_covariance_determinant", noted)
    for seed in (3, 5, 6, 13, 16):
        ROBPCA(n_components=0.95, random_state=seed).fit(X)
    assert [shape for shape, _ in seen] == [(1831, 11)] * 5
    assert max(log_det for _, log_det in seen) < -1.0, seen
