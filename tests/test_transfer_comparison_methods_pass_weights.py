"""The comparison methods of Guo's sec. 5 pass the weights and ranks they are given.

``robustpca.transfer`` documents each method through its estimator: R-T-PCA is
:class:`RobustTransferPCA` with ``alpha_s = alpha_t = alpha`` and ``beta_s = beta_t =
beta``; R-PCA, R-S-PCA and R-2Step-PCA are :class:`RankConstrainedRobustPCA` fits with
``alpha`` and ``beta``. Existing tests call them with ``alpha = 1`` (the default) and
``n_source == n_target``, where a weight or rank silently replaced by its default, or
``n_source`` and ``n_target`` exchanged, gives the same numbers. Here ``alpha = 2``,
``beta = 0.3`` and ``n_source = 2 != n_target = 1``: each method must equal its
estimator fitted with those values.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from robustpca import RankConstrainedRobustPCA, RobustTransferPCA
from robustpca.transfer import r_2step_pca, r_pca, r_s_pca, r_t_pca

ALPHA, BETA = 2.0, 0.3
RANKS = {"n_shared": 2, "n_source": 2, "n_target": 1}
SOLVER = {"max_iter": 40, "tol": 1e-9}


@pytest.fixture
def pair():
    rng = np.random.default_rng(11)
    basis = rng.normal(size=(2, 14))
    source = rng.normal(size=(16, 2)) @ basis + 0.5 * rng.normal(size=(16, 1)) @ rng.normal(
        size=(1, 14)
    )
    clean = rng.normal(size=(12, 2)) @ basis
    target = np.where(rng.random(clean.shape) < 0.1, clean.max(), clean)
    return source, target


def _rpca(X, k):
    return RankConstrainedRobustPCA(n_components=k, alpha=ALPHA, beta=BETA, **SOLVER).fit(X)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_r_t_pca_is_the_estimator_with_equal_weights(pair):
    source, target = pair
    got = r_t_pca(source, target, **RANKS, alpha=ALPHA, beta=BETA, **SOLVER)
    model = RobustTransferPCA(
        **RANKS,
        alpha_source=ALPHA,
        alpha_target=ALPHA,
        beta_source=BETA,
        beta_target=BETA,
        **SOLVER,
    ).fit(target, source=source)
    np.testing.assert_array_equal(got, model.low_rank_)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_robust_baselines_are_rank_constrained_rpca_with_alpha_and_beta(pair):
    source, target = pair
    k = RANKS["n_shared"] + RANKS["n_target"]
    options = dict(**RANKS, alpha=ALPHA, beta=BETA, **SOLVER)
    np.testing.assert_array_equal(r_pca(source, target, **options), _rpca(target, k).low_rank_)
    stack = np.vstack([source, target])
    np.testing.assert_array_equal(
        r_s_pca(source, target, **options), _rpca(stack, k).low_rank_[len(source) :]
    )
    shared = _rpca(stack, RANKS["n_shared"]).low_rank_[len(source) :]
    own = _rpca(target - shared, RANKS["n_target"]).low_rank_
    np.testing.assert_allclose(r_2step_pca(source, target, **options), shared + own, atol=1e-12)


def test_the_weights_matter_here(pair):
    """The comparisons above are sensitive: alpha = 1 gives another R-T-PCA fit."""
    source, target = pair
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = r_t_pca(source, target, **RANKS, alpha=ALPHA, beta=BETA, **SOLVER)
        b = r_t_pca(source, target, **RANKS, alpha=1.0, beta=BETA, **SOLVER)
    assert np.abs(a - b).max() > 1e-6
