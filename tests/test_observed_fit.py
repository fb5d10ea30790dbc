"""The observed-coordinates least squares under every fit with gaps
(:func:`robustpca.solvers.missing.observed_fit`): row by row it is the minimum-norm
least-squares fit on the observed coordinates, whichever of its two routes (LU where the
normal matrix is provably well conditioned, the eigendecomposition elsewhere) a row takes.
And the completion every such fit starts from (:func:`~robustpca.solvers.missing.
initial_fill`): NumPy's column medians of the observed entries, to the bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca.solvers import missing as missing_module
from robustpca.solvers.missing import GapPattern, initial_fill, observed_fit


def _problem(seed: int, n: int, d: int, k: int, rate: float):
    rng = np.random.default_rng(seed)
    comps = np.linalg.qr(rng.normal(size=(d, k)))[0].T
    mean = rng.normal(size=d)
    X = mean + rng.normal(size=(n, k)) @ comps + 0.1 * rng.normal(size=(n, d))
    missing = rng.random((n, d)) < rate
    missing[0, : d - k + 1] = True  # k - 1 observed: scores not identified
    missing[1, : d - k] = True  # exactly k observed
    X[missing] = np.nan
    return X, missing, mean, comps


def _row_by_row(X, missing, mean, comps):
    """``np.linalg.lstsq`` on each row's observed coordinates (minimum norm; singular
    values below 1e-5 of the largest cut, as ``_RANK_RTOL = 1e-10`` cuts their squares)."""
    scores = np.zeros((X.shape[0], comps.shape[0]))
    for i, (x, m) in enumerate(zip(X, missing, strict=True)):
        scores[i] = np.linalg.lstsq(comps[:, ~m].T, (x - mean)[~m], rcond=1e-5)[0]
    return scores


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(6, 30),
    k=st.integers(1, 5),
    rate=st.floats(0.0, 0.6),
    scipy_blas=st.booleans(),
)
def test_scores_are_the_minimum_norm_least_squares_fit_of_each_row(seed, d, k, rate, scipy_blas):
    """Against row-by-row ``lstsq``, with NumPy's products or SciPy's (``blas_matmul``,
    the scatter route's)."""
    from robustpca.linalg.blocked import blas_matmul

    X, missing, mean, comps = _problem(seed, 40, d, k, rate)
    X_before = X.copy()
    matmul = blas_matmul if scipy_blas else np.matmul
    scores, fitted, resid = observed_fit(X, missing, mean, comps, matmul=matmul)
    expected = _row_by_row(X, missing, mean, comps)
    np.testing.assert_allclose(scores, expected, atol=1e-9)
    np.testing.assert_allclose(fitted, mean + expected @ comps, atol=1e-9)
    r = np.where(missing, 0.0, np.nan_to_num(X) - fitted)
    np.testing.assert_allclose(resid, np.linalg.norm(r, axis=1), atol=1e-9)
    np.testing.assert_array_equal(X, X_before)  # NaN in place, untouched
    # a loop's pattern, made once, gives the same fit to the bit
    again = observed_fit(X, missing, mean, comps, matmul=matmul, pattern=GapPattern.of(missing))
    for a, b in zip(again, (scores, fitted, resid), strict=True):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(6, 30),
    k=st.integers(2, 5),
    rate=st.floats(0.0, 0.9),
    shift=st.floats(-50.0, 50.0),
    scaled=st.booleans(),
)
def test_a_metric_moves_only_the_scores_that_are_not_determined(seed, d, k, rate, shift, scaled):
    """``centre=c, scale=s``: a row with fewer than ``k`` observed coordinates gets, of
    the scores that fit them exactly, the nearest to ``c`` in the metric of ``s``
    (``c + S pinv(U_O S)(x_O - b_O - U_O c)``); every other row keeps its fit to the
    bit. A zero scale counts as the largest."""
    X, missing, mean, comps = _problem(seed, 40, d, k, rate)
    rng = np.random.default_rng(seed)
    centre = shift * rng.normal(size=k)
    scale = rng.uniform(0.1, 10.0, k) if scaled else None
    if scaled and k > 2:
        scale[-1] = 0.0
    base = observed_fit(X, missing, mean, comps)
    got = observed_fit(X, missing, mean, comps, centre=centre, scale=scale)
    under = (~missing).sum(axis=1) < k
    assert under[0]
    for a, b in zip(got, base, strict=True):
        np.testing.assert_array_equal(a[~under], b[~under])
    s = np.ones(k) if scale is None else np.where(scale > 0, scale, scale.max())
    tol = 1e-8 * (1 + abs(shift))
    for i in np.flatnonzero(under):
        U = comps[:, ~missing[i]].T
        rhs = (X[i] - mean)[~missing[i]] - U @ centre
        expected = centre + s * np.linalg.lstsq(U * s, rhs, rcond=1e-5)[0]
        np.testing.assert_allclose(got[0][i], expected, atol=tol * s.max() / s.min())
    np.testing.assert_allclose(got[1], mean + got[0] @ comps, atol=tol * s.max() / s.min())
    np.testing.assert_allclose(got[2], base[2], atol=tol * s.max() / s.min())  # still exact


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6), rate=st.floats(0.0, 0.9))
def test_the_eigenvalue_bound_is_a_lower_bound(seed, k, rate):
    rng = np.random.default_rng(seed)
    d = k + int(rng.integers(1, 20))
    comps = np.linalg.qr(rng.normal(size=(d, k)))[0].T
    missing = rng.random((50, d)) < rate
    A = missing_module._pattern_normal_matrices(GapPattern.of(missing), comps)
    bound = missing_module._smallest_eigenvalue_bound(A)
    assert np.all(bound <= np.linalg.eigvalsh(A)[:, 0] + 1e-12)


def test_both_routes_are_taken_and_agree_with_the_eigendecomposition(monkeypatch):
    """One problem whose rows split between the routes; forcing every row through the
    eigendecomposition (the bound set to -inf) changes the scores by rounding only."""
    X, missing, mean, comps = _problem(5, 300, 20, 4, 0.3)
    A = missing_module._pattern_normal_matrices(GapPattern.of(missing), comps)
    safe = missing_module._smallest_eigenvalue_bound(A) >= missing_module._WELL_CONDITIONED
    assert 0 < safe.sum() < safe.size
    fast = observed_fit(X, missing, mean, comps)
    monkeypatch.setattr(
        missing_module, "_smallest_eigenvalue_bound", lambda A: np.full(A.shape[0], -np.inf)
    )
    slow = observed_fit(X, missing, mean, comps)
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_no_missing_rows_and_no_components():
    X, missing, mean, comps = _problem(1, 10, 8, 2, 0.0)
    missing[:] = False
    X = np.nan_to_num(X)
    scores, fitted, _ = observed_fit(X, missing, mean, comps)
    np.testing.assert_allclose(scores, (X - mean) @ comps.T, atol=1e-12)
    missing[:, 0] = True
    scores, fitted, resid = observed_fit(X, missing, mean, comps[:0])
    assert scores.shape == (10, 0)
    np.testing.assert_allclose(fitted, np.broadcast_to(mean, X.shape))
    assert np.all(np.isfinite(resid))


def test_the_em_step_takes_the_products_of_its_route(monkeypatch):
    """``MissingPCAProblem`` re-completes by ``observed_fit``, and the training distances
    of a fit with gaps are its observed fits, through SciPy's BLAS on tall data (the
    scatter route's library) and NumPy's on wide data (the Gram route's):
    NumPy products between SciPy's made RPCA-OM with 5% gaps on 20,000 x 100 0.94 s at
    two BLAS threads against 0.67 s at one."""
    from robustpca import OptimalMeanPCA
    from robustpca.linalg.blocked import blas_matmul

    seen, patterns = [], []
    original = missing_module.observed_fit

    def spy(*args, matmul=np.matmul, pattern=None, **kwargs):
        seen.append(matmul)
        patterns.append(pattern)
        return original(*args, matmul=matmul, pattern=pattern, **kwargs)

    monkeypatch.setattr(missing_module, "observed_fit", spy)
    for shape, expected in (((200, 12), blas_matmul), ((12, 200), np.matmul)):
        X, *_ = _problem(3, *shape, 2, 0.05)
        seen.clear()
        patterns.clear()
        OptimalMeanPCA(2, random_state=0, max_iter=5).fit(X)
        assert seen and set(seen) == {expected}
        # every EM step reuses the problem's pattern (made once, not once a step); the
        # training distances at the end make their own
        steps = [p for p in patterns if p is not None]
        assert len(steps) >= 5 and len({id(p) for p in steps}) == 1
        assert isinstance(steps[0], GapPattern)


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 40),
    d=st.integers(1, 12),
    rate=st.floats(0.0, 1.0),
    block_cols=st.integers(1, 5),
    ties=st.booleans(),
    dtype=st.sampled_from([np.float64, np.float32]),
)
def test_the_first_completion_is_numpys_column_medians(seed, n, d, rate, block_cols, ties, dtype):
    """Each missing entry gets the :func:`numpy.median` of its column's observed entries
    (0 where none is observed), whatever the blocks of columns the medians are taken in;
    the input is left alone."""
    rng = np.random.default_rng(seed)
    scale = 1e30 if dtype is np.float32 else 1e300  # large, far from overflowing
    X = (rng.integers(-3, 4, size=(n, d)) if ties else rng.normal(size=(n, d)) * scale).astype(
        dtype
    )
    missing = rng.random((n, d)) < rate
    X[missing] = np.nan
    before = X.copy()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(missing_module, "BLOCK_BYTES", 8 * n * block_cols)
        filled = initial_fill(X, missing)
    expected = np.array(X, dtype=np.float64)
    for j in range(d):
        seen = ~missing[:, j]
        expected[~seen, j] = np.median(expected[seen, j]) if seen.any() else 0.0
    assert filled.dtype == np.float64
    np.testing.assert_array_equal(filled, expected)
    np.testing.assert_array_equal(X, before)
