"""The Gram route of :class:`robustpca.array_api_linalg.ArrayAPIWeightedPCAProblem`: the
loss's scale of data near the origin, and the choice of route.

The existing scale test (tests/test_array_api_gram_guards.py) uses data 2.0 from the
origin in 80 features, where the raw Gram matrix ``X X^T`` would lose more than
``RAW_GRAM_MAX_GAIN`` and is formed from centred rows instead. Data nearer the origin
take the raw Gram matrix, centred afterwards (``G - g 1^T - 1 g^T + c.c``): its trace is
the loss's scale (``mean_sq_distance``, the mean squared distance of the rows to their
mean, which sets the robust losses' thresholds), so it must be exact there too.

``route='auto'`` takes the Gram route when ``n_samples < n_features`` (the docstring),
as :class:`robustpca.linalg.WeightedPCAProblem` does: the two problems must agree on the
route, which decides whether an ``n x n`` or a ``d x d`` matrix is held on the device.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import config_context

from robustpca._array_api import get_namespace_and_device
from robustpca.array_api_linalg import ArrayAPIWeightedPCAProblem
from robustpca.linalg import WeightedPCAProblem

xps = pytest.importorskip("array_api_strict")


@pytest.fixture(autouse=True)
def scipy_array_api(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")


def _problem(X, k, route="auto"):
    X_xp = xps.asarray(X)
    xp, _, device = get_namespace_and_device(X_xp)
    return ArrayAPIWeightedPCAProblem(X_xp, k, np.random.default_rng(0), xp, device, route=route)


@pytest.mark.parametrize("offset", [0.0, 0.5, 1.5, 50.0])
def test_gram_scale_is_the_mean_squared_distance_at_any_offset(offset):
    """Unit-variance data at 0, 0.5, 1.5 and 50 from the origin (raw Gram matrix kept for
    the first ones, declined for the last): the loss's scale and every weighted solve's
    squared distances to the mean are the definition's."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(25, 60)) + offset
    expected = np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1))
    w = rng.uniform(0.5, 1.5, 25)
    with config_context(array_api_dispatch=True):
        problem = _problem(X, 2, "gram")
        scale = problem.mean_sq_distance()
        sub = problem.solve(w)
    assert scale == pytest.approx(expected, rel=1e-10)
    b = (w @ X) / w.sum()
    np.testing.assert_allclose(sub.sq_norms, np.sum((X - b) ** 2, axis=1), rtol=1e-9)
    assert sub.total_scatter == pytest.approx(w @ np.sum((X - b) ** 2, axis=1), rel=1e-9)


@pytest.mark.parametrize("shape", [(5, 9), (9, 9), (9, 5)], ids=["wide", "square", "tall"])
def test_auto_route_is_the_numpy_problems(shape):
    """Wide data take the Gram route, square and tall data the scatter route, as in the
    NumPy problem."""
    X = np.random.default_rng(2).normal(size=shape)
    with config_context(array_api_dispatch=True):
        problem = _problem(X, 2)
    reference = WeightedPCAProblem(X, 2, np.random.default_rng(0))
    assert problem.gram == reference.gram == (shape[0] < shape[1])
