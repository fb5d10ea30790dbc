"""Rank bounds of R-T-PCA and the comparison methods at their documented limits.

The class documents ``k_c <= min(n_s + n_t, d)``, ``k_s <= min(n_s, d)``,
``k_t <= min(n_t, d)`` and, without ``n_components``, ``n_shared + n_target`` capped by
the shape of the target. Existing tests check ranks beyond the limits (refused) and
small ranks, never the limits themselves:

* a shared rank above ``n_t`` is legitimate (``M_c`` spans the stacked rows);
* each bound is inclusive;
* ``n_components`` defaults to ``min(n_shared + n_target, n_t, d)`` with a source and
  to ``n_shared + n_target`` without one;
* a rank equal to ``min(shape)`` makes the constraint void: the truncation (PCA) and
  the target-only R-PCA reproduce the data.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from robustpca import RobustTransferPCA
from robustpca.transfer import COMPARISON_METHODS, pca_recover, recover_target, s_pca


def _pair(seed=0, ns=20, nt=5, d=30):
    rng = np.random.default_rng(seed)
    basis = rng.normal(size=(3, d))
    return rng.normal(size=(ns, 3)) @ basis, rng.normal(size=(nt, 3)) @ basis + 0.01 * (
        rng.normal(size=(nt, d))
    )


def _fit(model, X, source=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X) if source is None else model.fit(X, source=source)


def test_shared_rank_above_the_target_rows_and_inclusive_bounds():
    """n_t = 5 target rows, n_s = 20, d = 30: k_c = 8 > n_t is allowed (8 <= 25), and
    the bounds are inclusive (k_s = 20 = min(n_s, d), k_t = 5 = min(n_t, d),
    k_c = 25 = min(n_s + n_t, d)); the default n_components is then n_t = 5, not
    k_c + k_t = 13."""
    source, X = _pair()
    model = _fit(RobustTransferPCA(n_shared=8, n_source=20, n_target=5, max_iter=20), X, source)
    assert np.linalg.matrix_rank(model.shared_) <= 8
    assert model.n_components_ == 5
    W = model.components_
    assert W.shape == (5, 30)
    np.testing.assert_allclose(W @ W.T, np.eye(5), atol=1e-8)
    top = _fit(RobustTransferPCA(n_shared=25, n_source=1, n_target=1, max_iter=5), X, source)
    assert top.n_components_ == 5  # k_c = n_s + n_t exactly is accepted


def test_target_only_rank_at_min_shape_reproduces_the_target():
    """Without a source, n_shared + n_target = min(n, d) is the void constraint: the
    documented R-PCA with rank min(n, d), whose fit is the data (M = X, E = 0)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(10, 4))
    model = _fit(RobustTransferPCA(n_shared=3, n_source=0, n_target=1), X)
    assert model.n_components_ == 4
    np.testing.assert_allclose(model.low_rank_, X, atol=1e-6)


def test_pca_baselines_at_full_rank_reproduce_the_data():
    """PCA (eq. 3) at rank min(n_t, d) is the target itself; S-PCA at rank
    min(n_s + n_t, d) returns the target rows of the stack."""
    rng = np.random.default_rng(2)
    source, target = rng.normal(size=(12, 6)), rng.normal(size=(8, 6))
    np.testing.assert_allclose(
        pca_recover(source, target, n_shared=6, n_target=0), target, atol=1e-12
    )
    np.testing.assert_allclose(s_pca(source, target, n_shared=4, n_target=2), target, atol=1e-12)


def test_target_only_default_rank_is_n_shared_plus_n_target():
    """Without a source the rank is ``n_components``, by default ``n_shared + n_target``
    (2 + 3 here; the existing test has n_target = 1, where a rank of n_shared + 1 agrees)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(10, 6))
    model = _fit(RobustTransferPCA(n_shared=2, n_source=4, n_target=3, max_iter=50), X)
    assert model.n_components_ == 5 and model.components_.shape == (5, 6)
    assert np.linalg.matrix_rank(model.low_rank_) == 5


def test_every_method_accepts_n_source_zero():
    """n_source = 0 drops R-T-PCA's source part ("0 drops it") and the five baselines,
    which do not use it, accept it too; R-T-PCA is then the estimator with no M_s."""
    source, X = _pair(4, ns=12, nt=10, d=8)
    for name in COMPARISON_METHODS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            out = recover_target(name, source, X, n_shared=2, n_source=0, n_target=1, max_iter=5)
        assert out.shape == X.shape, name
    model = _fit(RobustTransferPCA(n_shared=2, n_source=0, n_target=1, max_iter=5), X, source)
    assert not model.source_private_.any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        got = recover_target("R-T-PCA", source, X, n_shared=2, n_source=0, n_target=1, max_iter=5)
    np.testing.assert_array_equal(got, model.low_rank_)
