"""FAST-MCD takes two C-steps from every start before choosing the best ten
(Rousseeuw & Van Driessen 1999, sec. 3.3 "selective iteration"; robustbase's
``rffastmcd.f``: ``csteps1 = 2``). Mutation audit: ``for _ in range(2)`` in
``_best_starts`` reduced to one step survived the whole suite.

On data small enough for robustbase's exhaustive search the starts are every
(p+1)-subset in lexicographic order (no randomness), so the fits the first stage keeps
can be recomputed here from the definition.
"""

from __future__ import annotations

import itertools

import numpy as np

from robustpca.solvers import mcd


def _mahalanobis_subset(X, mean, cov, h):
    inv = np.linalg.inv(cov + 1e-12 * np.trace(cov) / cov.shape[0] * np.eye(cov.shape[0]))
    d = np.einsum("ij,jk,ik->i", X - mean, inv, X - mean)
    return np.sort(np.argsort(d, kind="stable")[:h])


def test_the_first_stage_keeps_fits_after_two_c_steps_from_each_start():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((20, 2)) @ np.array([[2.0, 0.3], [0.0, 0.5]])
    X[:4] += [6.0, -4.0]  # a cluster of outliers
    n, p = X.shape
    h = mcd.h_alpha_n(0.5, n, p)
    assert mcd._exhaustive(n, p)  # every (p+1)-subset is a start: deterministic
    _means, covs = mcd._best_starts(X, h, 500, 10, np.random.default_rng(0))

    expected = []
    for start in itertools.combinations(range(n), p + 1):
        rows = np.array(start)
        mean, cov = X[rows].mean(axis=0), np.cov(X[rows], rowvar=False)
        for _ in range(2):  # the paper's two C-steps
            rows = _mahalanobis_subset(X, mean, cov, h)
            mean, cov = X[rows].mean(axis=0), np.cov(X[rows], rowvar=False)
        expected.append((np.linalg.slogdet(cov)[1], tuple(rows), mean, cov))
    best = {}
    for det, rows, mean, cov in sorted(expected, key=lambda e: e[0]):
        best.setdefault(rows, (det, mean, cov))
    top = sorted(best.values(), key=lambda e: e[0])[:10]

    got = sorted(np.linalg.slogdet(c)[1] for c in covs)
    np.testing.assert_allclose(got, [t[0] for t in top], rtol=0, atol=1e-9)
