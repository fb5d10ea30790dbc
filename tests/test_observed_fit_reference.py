"""``observed_fit`` against least squares on the observed entries, with components
orthonormal only to float32 rounding (the module's "U U^T itself, not I"; a mutation
uses I), exact zeros for rows with exactly k observed entries, and
MissingPCAProblem.mean_sq_distance as the mean squared distance to the mean."""

import numpy as np

from robustpca.solvers.missing import MissingPCAProblem, observed_fit


def _components(rng, k, d):
    Q = np.linalg.qr(rng.normal(size=(d, k)))[0].T
    return Q.astype(np.float32).astype(np.float64)  # orthonormal to float32's rounding


def test_scores_are_least_squares_on_the_observed_entries():
    rng = np.random.default_rng(0)
    n, d, k = 25, 12, 3
    C = _components(rng, k, d)
    assert 1e-9 < np.abs(C @ C.T - np.eye(k)).max() < 1e-6
    X = rng.normal(size=(n, k)) @ C + 0.3 * rng.normal(size=(n, d))
    mean = rng.normal(size=d)
    missing = rng.random((n, d)) < 0.15  # few gaps per row: the complement branch
    missing[:, 0] |= np.arange(n) < 5
    scores, _fitted, r = observed_fit(X, missing, mean, C)
    for i in np.flatnonzero(missing.any(axis=1)):  # complete rows: scores = C x (projection)
        obs = ~missing[i]
        expected, *_ = np.linalg.lstsq(C[:, obs].T, X[i, obs] - mean[obs], rcond=None)
        np.testing.assert_allclose(scores[i], expected, rtol=1e-10, atol=1e-10)
        res = (X[i] - mean - expected @ C)[obs]
        assert r[i] == np.float64(r[i]) and abs(r[i] - np.linalg.norm(res)) <= 1e-10


def test_rows_with_exactly_k_observed_entries_fit_exactly():
    rng = np.random.default_rng(2)
    n, d, k = 30, 9, 3
    C = np.linalg.qr(rng.normal(size=(d, k)))[0].T
    X = rng.normal(scale=1e3, size=(n, d))
    missing = np.zeros((n, d), bool)
    for i in range(n):
        missing[i, rng.permutation(d)[: d - k]] = True  # k observed entries in every row
    _, _, r = observed_fit(X, missing, X.mean(axis=0), C)
    np.testing.assert_array_equal(r, 0.0)


def test_mean_sq_distance_is_the_mean_squared_distance_to_the_mean():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 5))
    missing = np.zeros(X.shape, bool)
    problem = MissingPCAProblem(X, missing, 2, rng)
    expected = np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1))
    assert abs(problem.mean_sq_distance() - expected) <= 1e-12 * expected
