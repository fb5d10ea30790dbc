"""Every route to Guo's (2013) sec. 5 methods defaults to the paper's settings.

Sec. 5 runs R-T-PCA with k_c, k_s, k_t = 8, 3, 3, alpha_s = alpha_t = 1 and beta_s =
beta_t = 0.1, and the baselines at rank k_c + k_t. The estimator and the six comparison
functions of ``robustpca.transfer`` state these defaults separately (the harness's grid
is checked by ``test_experiments_guo2013.py::test_full_grids``); a default changed in
one of them silently changes what "the paper's setting" means on that route
(``recover_target(name, source, target)`` and ``RobustTransferPCA()`` would no longer
fit the same problem). The values are the paper's, so they are compared with it and
with each other.
"""

import inspect
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from robustpca import RankConstrainedRobustPCA, RobustTransferPCA
from robustpca.transfer import COMPARISON_METHODS, recover_target

PAPER = {"n_shared": 8, "n_source": 3, "n_target": 3, "alpha": 1.0, "beta": 0.1}


def test_estimator_defaults_are_the_papers():
    p = RobustTransferPCA().get_params()
    assert (p["n_shared"], p["n_source"], p["n_target"]) == (8, 3, 3)
    assert p["alpha_source"] == p["alpha_target"] == 1.0
    assert p["beta_source"] == p["beta_target"] == 0.1
    q = RankConstrainedRobustPCA().get_params()
    assert (q["alpha"], q["beta"]) == (1.0, 0.1)


@pytest.mark.parametrize("name", sorted(COMPARISON_METHODS))
def test_comparison_functions_default_to_the_papers_settings(name):
    signature = inspect.signature(COMPARISON_METHODS[name])
    defaults = {k: v.default for k, v in signature.parameters.items() if k in PAPER}
    assert defaults == PAPER


def test_default_r_t_pca_is_the_default_estimator():
    """recover_target('R-T-PCA', ...) with no settings is RobustTransferPCA() (both at
    the paper's settings); a short run keeps it fast."""
    rng = np.random.default_rng(0)
    source, target = rng.random((20, 16)), rng.random((18, 16))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # 3 iterations
        got = recover_target("R-T-PCA", source, target, max_iter=3)
        want = RobustTransferPCA(max_iter=3).fit(target, source=source).low_rank_
    np.testing.assert_array_equal(got, want)
