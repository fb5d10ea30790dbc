"""A one-row target is refused by R-T-PCA on every route.

Every estimator's ``fit`` (``BaseSubspaceEstimator``) refuses fewer than two samples,
and the six comparison functions of ``robustpca.transfer`` check the target for it
themselves (``_check_pair``), before any estimator: the PCA baselines, which fit no
estimator, rely on that check alone. :class:`RobustTransferPCA` has its own ``fit``
(for ``source``) and must keep the contract too, with and without a source.
"""

import numpy as np
import pytest

from robustpca import RankConstrainedRobustPCA, RobustTransferPCA
from robustpca.transfer import COMPARISON_METHODS, recover_target


def test_one_row_target_is_refused_like_everywhere_else():
    rng = np.random.default_rng(0)
    X, source = rng.normal(size=(1, 6)), rng.normal(size=(8, 6))
    model = RobustTransferPCA(n_shared=1, n_source=1, n_target=1)
    with pytest.raises(ValueError, match="minimum of 2 is required"):
        model.fit(X, source=source)
    with pytest.raises(ValueError, match="minimum of 2 is required"):
        RobustTransferPCA(n_components=1, n_shared=1, n_target=0).fit(X)
    with pytest.raises(ValueError, match="minimum of 2 is required"):
        RankConstrainedRobustPCA(n_components=1).fit(X)
    for name in COMPARISON_METHODS:  # the PCA baselines included
        with pytest.raises(ValueError, match="minimum of 2 is required"):
            recover_target(name, source, X, n_shared=1, n_source=1, n_target=0)
