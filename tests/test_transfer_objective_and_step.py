"""Gaps in solvers/transfer.py (Guo 2013, Algorithm 1), from mutation testing.

* The reported objective must be (13) / (6) itself, alpha/2 ||.||_F^2 + beta ||E||_1,
  when the data matrices share alpha and beta (the fast uniform branch of
  ``_Problem.objective``): doubling its quadratic part went unnoticed.
* ``solve_rank_constrained_rpca``'s default step eta must be the Lipschitz constant 2 alpha
  of grad f (two variables M and E cover X), so that Lemma 1's quadratic model majorises
  f; eta = alpha (half the Lipschitz constant) went unnoticed.
"""

import numpy as np
import pytest

from robustpca.solvers.transfer import (
    solve_rank_constrained_rpca,
    solve_robust_transfer_pca,
    transfer_objective,
)


def _planted(seed=0, n=25, d=12, k=2):
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(n, k)) @ rng.normal(size=(k, d))
    S = np.where(rng.random((n, d)) < 0.1, rng.normal(scale=8.0, size=(n, d)), 0.0)
    return L + S + 0.01 * rng.normal(size=(n, d))


@pytest.mark.parametrize("alpha,beta", [(1.0, 0.1), (2.5, 0.4)])
def test_rank_constrained_objective_is_eq6(alpha, beta):
    X = _planted()
    res = solve_rank_constrained_rpca(
        X, 2, n_components=2, rng=np.random.default_rng(0), alpha=alpha, beta=beta, max_iter=50
    )
    M, E = res.info["low_rank"], res.info["sparse"]
    R = M + E - X
    expected = 0.5 * alpha * np.sum(R * R) + beta * np.abs(E).sum()
    np.testing.assert_allclose(res.objective[-1], expected, rtol=1e-12)
    np.testing.assert_allclose(
        res.info["initial_objective"], 0.5 * alpha * np.sum(X * X), rtol=1e-12
    )


def test_transfer_objective_history_is_eq13_with_equal_weights():
    Xt, Xs = _planted(1), _planted(2, n=20)
    res = solve_robust_transfer_pca(
        Xt,
        Xs,
        n_shared=2,
        n_source=1,
        n_target=1,
        n_components=2,
        rng=np.random.default_rng(0),
        alpha_source=1.5,
        alpha_target=1.5,
        beta_source=0.2,
        beta_target=0.2,
        max_iter=40,
    )
    i = res.info
    expected = transfer_objective(
        Xs,
        Xt,
        i["shared"],
        i["source_private"],
        i["target_private"],
        i["source_sparse"],
        i["sparse"],
        alpha_source=1.5,
        alpha_target=1.5,
        beta_source=0.2,
        beta_target=0.2,
    )
    np.testing.assert_allclose(res.objective[-1], expected, rtol=1e-12)


@pytest.mark.parametrize("alpha", [0.5, 1.0, 3.0])
def test_default_eta_is_the_lipschitz_constant_and_majorises_f(alpha):
    X = _planted(3)
    res = solve_rank_constrained_rpca(
        X, 2, n_components=2, rng=np.random.default_rng(0), alpha=alpha, max_iter=2
    )
    eta = res.info["eta"]
    assert eta == pytest.approx(2.0 * alpha)
    # Lemma 1: f(T + D) <= f(T) + <grad f(T), D> + eta/2 ||D||^2 for every step D = (dM, dE);
    # the direction dM = dE is the one of largest curvature (2 alpha).
    rng = np.random.default_rng(1)

    def f(M, E):
        return 0.5 * alpha * np.sum((M + E - X) ** 2)

    M, E, D = (rng.normal(size=X.shape) for _ in range(3))
    grad = alpha * (M + E - X)
    model = f(M, E) + 2.0 * np.sum(grad * D) + 0.5 * eta * 2.0 * np.sum(D * D)
    assert f(M + D, E + D) <= model * (1 + 1e-12)
    res0 = solve_rank_constrained_rpca(
        X, 0, n_components=2, rng=np.random.default_rng(0), alpha=alpha, max_iter=2
    )
    assert res0.info["eta"] == pytest.approx(alpha)
