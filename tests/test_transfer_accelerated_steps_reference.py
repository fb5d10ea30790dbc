"""The accelerated (FISTA) proximal projected gradient of the rank-constrained
RPCA (R-T-PCA's single-domain problem) takes its gradient at the extrapolated point
(Beck & Teboulle's step), with the restart of the module: checked against a dense
reference written out from those rules (a mutation keeps the residual of the current
point, so the gradient is the current point's).

``n_restarts`` counts the rejected momentum steps: an extrapolated step that does not
lower the objective is replaced by the plain step of Algorithm 1, and
``info["n_restarts"]`` / ``n_restarts_`` report how often (the same reference counts
them over 80 iterations, two restarts on this problem; the plain method reports none)."""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from robustpca import RankConstrainedRobustPCA
from robustpca.solvers.transfer import solve_rank_constrained_rpca


def reference(X, rank, alpha, beta, iters):
    """FISTA with the monotone restart (Beck & Teboulle's step at the extrapolated
    point); returns the final (M, E) and the number of rejected extrapolations."""
    eta = 2.0 * alpha

    def proj(A):
        U, s, Vt = np.linalg.svd(A, full_matrices=False)
        return (U[:, :rank] * s[:rank]) @ Vt[:rank]

    def soft(A, t):
        return np.sign(A) * np.maximum(np.abs(A) - t, 0.0)

    def obj(M, E):
        R = M + E - X
        return 0.5 * alpha * np.vdot(R, R) + beta * np.abs(E).sum()

    def step(M, E):
        G = (alpha / eta) * (M + E - X)
        return proj(M - G), soft(E - G, beta / eta)

    M = E = np.zeros_like(X)
    prev, t, restarts = None, 1.0, 0
    for _ in range(iters):
        t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        cand = None
        if prev is not None and t > 1.0:
            w = (t - 1.0) / t_next
            cand = step(M + w * (M - prev[0]), E + w * (E - prev[1]))
            if obj(*cand) > obj(M, E):
                cand, t_next = None, 1.0
                restarts += 1
        if cand is None:
            cand = step(M, E)
        prev, (M, E), t = (M, E), cand, t_next
    return M, E, restarts


def test_accelerated_iterates_match_the_fista_reference():
    rng = np.random.default_rng(3)
    n, d, rank = 30, 12, 2
    X = rng.normal(size=(n, rank)) @ rng.normal(size=(rank, d))
    X += np.where(rng.random((n, d)) < 0.1, rng.normal(scale=5.0, size=(n, d)), 0.0)
    alpha, beta = 1.0, 0.3
    for iters in (2, 3, 6):
        fit = solve_rank_constrained_rpca(
            X,
            rank,
            n_components=rank,
            rng=np.random.default_rng(0),
            alpha=alpha,
            beta=beta,
            accelerate=True,
            max_iter=iters,
            tol=0.0,
            exact_svd=True,
        )
        M, E, _ = reference(X, rank, alpha, beta, iters)
        assert fit.n_iter == iters
        np.testing.assert_allclose(fit.info["low_rank"], M, rtol=0, atol=1e-9)
        np.testing.assert_allclose(fit.info["sparse"], E, rtol=0, atol=1e-9)


def _data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2)) @ rng.normal(size=(2, 12))
    return X + np.where(rng.random((30, 12)) < 0.1, rng.normal(scale=5.0, size=(30, 12)), 0.0)


def test_restarts_match_the_reference_count():
    X = _data()
    M, _, restarts = reference(X, 2, 1.0, 0.3, 80)
    assert restarts >= 1  # the property is exercised
    fit = solve_rank_constrained_rpca(
        X,
        2,
        n_components=2,
        rng=np.random.default_rng(0),
        beta=0.3,
        accelerate=True,
        max_iter=80,
        tol=0.0,
        exact_svd=True,
    )
    assert fit.info["n_restarts"] == restarts
    np.testing.assert_allclose(fit.info["low_rank"], M, rtol=0, atol=1e-8)


def test_estimator_reports_restarts_and_none_without_momentum():
    X = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fast = RankConstrainedRobustPCA(2, beta=0.3, accelerate=True, max_iter=80, tol=0.0)
        plain = RankConstrainedRobustPCA(2, beta=0.3, max_iter=80, tol=0.0)
        fast.fit(X)
        plain.fit(X)
    assert fast.n_restarts_ == reference(X, 2, 1.0, 0.3, 80)[2]
    assert plain.n_restarts_ == 0
