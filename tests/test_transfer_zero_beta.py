"""beta = 0 is a documented value (beta >= 0) of both Guo (2013) estimators.

With no l1 penalty the error matrices are free: the fit must be accepted and end with
``low_rank_ + sparse_`` reproducing the data (objective (6) / (13) at zero, stopped as
an exact fit). The parameter checks tests cover negative, infinite and string betas,
not the boundary, so a ``strict=True`` check refusing 0 went unnoticed for
:class:`RankConstrainedRobustPCA`.
"""

import numpy as np

from robustpca import RankConstrainedRobustPCA, RobustTransferPCA
from robustpca.solvers import StopReason


def test_rank_constrained_rpca_accepts_beta_zero():
    X = np.random.default_rng(0).normal(size=(20, 8))
    model = RankConstrainedRobustPCA(n_components=2, beta=0.0).fit(X)
    assert model.stop_reason_ == StopReason.EXACT
    np.testing.assert_allclose(model.low_rank_ + model.sparse_, X, atol=1e-6)
    assert np.linalg.matrix_rank(model.low_rank_) == 2


def test_transfer_pca_accepts_beta_zero():
    rng = np.random.default_rng(1)
    X, source = rng.normal(size=(12, 8)), rng.normal(size=(10, 8))
    model = RobustTransferPCA(
        n_shared=2, n_source=1, n_target=1, beta_source=0.0, beta_target=0.0
    ).fit(X, source=source)
    assert model.stop_reason_ == StopReason.EXACT
    np.testing.assert_allclose(model.low_rank_ + model.sparse_, X, atol=1e-6)
    source_fit = model.shared_[:10] + model.source_private_ + model.source_sparse_
    np.testing.assert_allclose(source_fit, source, atol=1e-6)
