"""The public solvers of ``robustpca.solvers.transfer`` default to their estimators' fit.

``solve_robust_transfer_pca`` and ``solve_rank_constrained_rpca`` are public (in
``__all__``) and document the same weights and stopping rule as
:class:`RobustTransferPCA` and :class:`RankConstrainedRobustPCA` (alpha 1, beta 0.1,
``tol=1e-6``, step the Lipschitz constant). Called with their defaults they must give
the estimators' default fit: same iterations, same stop, same low-rank part, and the
same stopping rule (``max_iter``, ``tol``). The estimators always pass every option, so
a solver default drifting from the estimator's (a looser ``tol``, another weight or
cap) went unnoticed.
"""

import inspect

import numpy as np
import pytest

from robustpca import RankConstrainedRobustPCA, RobustTransferPCA
from robustpca.solvers.transfer import solve_rank_constrained_rpca, solve_robust_transfer_pca


def _pair(seed=0):
    rng = np.random.default_rng(seed)
    basis = rng.normal(size=(3, 16))
    source = rng.normal(size=(24, 3)) @ basis
    clean = rng.normal(size=(20, 3)) @ basis
    noisy = np.where(rng.random(clean.shape) < 0.1, clean + 6.0, clean)
    return source, noisy


def test_transfer_solver_defaults_are_the_estimator_defaults():
    source, X = _pair()
    ranks = dict(n_shared=3, n_source=1, n_target=1)
    model = RobustTransferPCA(**ranks, random_state=0).fit(X, source=source)
    res = solve_robust_transfer_pca(
        X, source, **ranks, n_components=4, rng=np.random.default_rng(0)
    )
    assert model.converged_ and res.converged
    assert res.n_iter == model.n_iter_ and res.stop_reason == model.stop_reason_
    assert res.info["eta"] == model.eta_
    np.testing.assert_array_equal(res.info["low_rank"], model.low_rank_)


def test_rank_constrained_solver_defaults_are_the_estimator_defaults():
    _, X = _pair(1)
    model = RankConstrainedRobustPCA(n_components=3, random_state=0).fit(X)
    res = solve_rank_constrained_rpca(X, 3, n_components=3, rng=np.random.default_rng(0))
    assert model.converged_ and res.converged
    assert res.n_iter == model.n_iter_ and res.info["eta"] == model.eta_
    np.testing.assert_array_equal(res.info["low_rank"], model.low_rank_)


@pytest.mark.parametrize(
    ("solver", "estimator"),
    [
        (solve_robust_transfer_pca, RobustTransferPCA),
        (solve_rank_constrained_rpca, RankConstrainedRobustPCA),
    ],
)
def test_solver_stopping_defaults_are_the_estimators(solver, estimator):
    """The stopping rule (max_iter, tol) too, which a converging fit does not reach."""
    params = inspect.signature(solver).parameters
    defaults = estimator().get_params()
    for name in ("max_iter", "tol"):
        assert params[name].default == defaults[name], name
