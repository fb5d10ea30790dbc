"""The step 1/eta of Algorithm 1 (Guo 2013, Lemma 1) when the weights differ and a
private part is dropped.

The default eta is the Lipschitz constant of grad f, the largest eigenvalue of the
(constant) Hessian of f: max_j alpha_j c_j with c_j the variables covering matrix j.
With alpha_s != alpha_t and one private rank zero, c_s != c_t and the count must follow
the right matrix: counting the target's private part for the source (or the reverse)
gives a step that is too long (eta = 4 where the constant is 6 below), which voids
Lemma 1. Existing tests cover equal weights, where the two counts are interchangeable,
and ``lipschitz_constant`` itself, not what the estimator and the solver pass on.
An eta equal to the constant is the documented boundary ("values below it are
refused"): it must be accepted and fit as the default does.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from robustpca import RankConstrainedRobustPCA, RobustTransferPCA
from robustpca.solvers.transfer import solve_robust_transfer_pca

from .test_transfer import hessian_norm

CASES = [(1.0, 2.0, 1, 0, 2), (1.0, 2.0, 1, 2, 0), (2.0, 1.0, 1, 2, 0), (2.0, 1.0, 0, 0, 2)]


def _data(seed=0):
    rng = np.random.default_rng(seed)
    source = rng.normal(size=(15, 10))
    target = rng.normal(size=(12, 2)) @ rng.normal(size=(2, 10))
    target += 4.0 * rng.normal(size=target.shape) * (rng.random(target.shape) < 0.15)
    return source, target


@pytest.mark.parametrize(("a_s", "a_t", "kc", "ks", "kt"), CASES)
def test_default_eta_is_the_hessian_norm(a_s, a_t, kc, ks, kt):
    """Estimator and solver default to the Lipschitz constant of this problem, and the
    objective (13) never increases at that step (Lemma 1, eq. 21)."""
    source, target = _data()
    expected = hessian_norm(a_s, a_t, kc, ks, kt)
    model = RobustTransferPCA(
        n_shared=kc,
        n_source=ks,
        n_target=kt,
        alpha_source=a_s,
        alpha_target=a_t,
        max_iter=60,
        tol=0.0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(target, source=source)
    assert model.eta_ == pytest.approx(expected, rel=1e-12)
    history = np.r_[model.initial_objective_, model.objective_history_]
    assert np.all(np.diff(history) <= 1e-12 * history[0])
    res = solve_robust_transfer_pca(
        target,
        source,
        n_shared=kc,
        n_source=ks,
        n_target=kt,
        n_components=1,
        rng=np.random.default_rng(0),
        alpha_source=a_s,
        alpha_target=a_t,
        max_iter=1,
    )
    assert res.info["eta"] == pytest.approx(expected, rel=1e-12)


def test_eta_at_the_lipschitz_constant_is_accepted():
    """eta equal to the constant (3 max(alpha) for R-T-PCA, 2 alpha for R-PCA) is the
    smallest allowed value: accepted, and the same fit as the default."""
    source, target = _data(1)
    params = dict(n_shared=2, n_source=1, n_target=1, alpha_source=0.5, max_iter=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        given = RobustTransferPCA(eta=3.0, **params).fit(target, source=source)
        default = RobustTransferPCA(**params).fit(target, source=source)
        rpca = RankConstrainedRobustPCA(n_components=2, alpha=1.5, eta=3.0, max_iter=30)
        rpca_default = RankConstrainedRobustPCA(n_components=2, alpha=1.5, max_iter=30)
        rpca.fit(target)
        rpca_default.fit(target)
    assert given.eta_ == default.eta_ == 3.0
    np.testing.assert_array_equal(given.objective_history_, default.objective_history_)
    assert rpca.eta_ == rpca_default.eta_ == 3.0
    np.testing.assert_array_equal(rpca.low_rank_, rpca_default.low_rank_)
