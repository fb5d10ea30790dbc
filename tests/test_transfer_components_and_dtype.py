"""R-T-PCA's and R-PCA's ``components_`` and their float32 route.

* ``components_`` are "the top right singular vectors of ``low_rank_``" (the model has
  no offset, ``mean_`` is zero): each row is the singular vector of that rank, in
  order, not those of ``low_rank_`` centred by its column means. Existing tests check
  only the span (``L W^T W = L``), which the centred vectors share whenever they have
  full rank.
* "float32 data are solved in float64": a float32 input gives the fit of the same
  values in float64 (to float64 rounding), not a single-precision solve.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from robustpca import RankConstrainedRobustPCA, RobustTransferPCA
from robustpca.solvers.transfer import solve_rank_constrained_rpca


def _offset_low_rank(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 3)) @ rng.normal(size=(3, 12)) + 2.0  # not centred
    X[rng.random(X.shape) < 0.05] += 8.0
    return X


@pytest.mark.parametrize("with_source", [False, True])
def test_components_are_the_ordered_singular_vectors_of_low_rank(with_source):
    X = _offset_low_rank()
    if with_source:
        source = _offset_low_rank(1)[:20]
        model = RobustTransferPCA(n_shared=2, n_source=1, n_target=1, max_iter=300)
        fit = lambda: model.fit(X, source=source)  # noqa: E731
    else:
        model = RankConstrainedRobustPCA(n_components=3, max_iter=300)
        fit = lambda: model.fit(X)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit()
    np.testing.assert_array_equal(model.mean_, 0.0)
    _, s, Vt = np.linalg.svd(model.low_rank_)
    assert s[2] > 1e-3 * s[0]  # three well separated directions
    W = model.components_
    assert W.shape == (3, 12)
    for i in range(3):  # up to sign, in the order of the singular values
        assert abs(W[i] @ Vt[i]) == pytest.approx(1.0, abs=1e-8)


def test_float32_input_is_solved_in_float64():
    """The solver's documented route: float32 data give exactly the float64 solve of
    the same values (the estimator then returns its attributes in float32)."""
    X32 = _offset_low_rank(2).astype(np.float32)
    # eta = 3 (above 2 alpha): the step alpha / eta = 1/3 is not exact in float32
    params = dict(n_components=3, rng=np.random.default_rng(0), eta=3.0, max_iter=50, tol=0.0)
    single = solve_rank_constrained_rpca(X32, 3, **params)
    params["rng"] = np.random.default_rng(0)
    double = solve_rank_constrained_rpca(X32.astype(np.float64), 3, **params)
    np.testing.assert_array_equal(single.objective, double.objective)
    np.testing.assert_array_equal(single.info["low_rank"], double.info["low_rank"])
    assert single.info["low_rank"].dtype == np.float64
