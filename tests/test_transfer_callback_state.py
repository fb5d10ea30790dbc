"""What a callback sees during R-T-PCA and rank-constrained R-PCA.

``callback(iteration, state)``: ``state.objective`` is objective (13) after that
iteration and ``state.components`` (lazy) the top right singular vectors of the current
low-rank estimate. Existing tests check only the shape of ``state.components``; here,
at the last iteration they must span the same directions as the fitted
``components_`` (the same iterate), and differ from those of the data, which a
callback computing them from the wrong matrix would return.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from robustpca import RankConstrainedRobustPCA, RobustTransferPCA


def _data(seed=0):
    rng = np.random.default_rng(seed)
    clean = rng.normal(size=(20, 2)) @ rng.normal(size=(2, 9))
    noisy = clean + 10.0 * (rng.random(clean.shape) < 0.2)
    source = rng.normal(size=(14, 2)) @ rng.normal(size=(2, 9))
    return source, noisy


def _projector(W):
    return W.T @ W


@pytest.mark.parametrize("with_source", [True, False])
def test_last_callback_components_are_the_fitted_ones(with_source):
    """The callback's components after the last iteration are the model's components
    (as subspaces: signs are fixed after the fit), the top right singular vectors of
    low_rank_, and the objective it sees is objective_history_."""
    source, X = _data()
    seen = []

    def callback(iteration, state):
        seen.append((state.objective, state.components))

    if with_source:
        model = RobustTransferPCA(
            n_shared=1, n_source=1, n_target=1, max_iter=4, tol=0.0, callback=callback
        )
        fit = lambda: model.fit(X, source=source)  # noqa: E731
    else:
        model = RankConstrainedRobustPCA(n_components=2, max_iter=4, tol=0.0, callback=callback)
        fit = lambda: model.fit(X)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit()
    assert [s[0] for s in seen] == list(model.objective_history_)
    last = seen[-1][1]
    np.testing.assert_allclose(_projector(last), _projector(model.components_), atol=1e-10)
    _, _, Vt = np.linalg.svd(model.low_rank_)
    np.testing.assert_allclose(_projector(last), _projector(Vt[:2]), atol=1e-8)
    _, _, Vx = np.linalg.svd(X)
    assert np.linalg.norm(_projector(last) - _projector(Vx[:2])) > 1e-3
