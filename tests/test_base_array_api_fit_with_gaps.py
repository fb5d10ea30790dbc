"""Array-API data with NaN are fitted on the host, as the NumPy data with the same gaps.

The namespace solvers of ``PCA``, ``OptimalMeanPCA`` and ``HQPCA`` take complete data
only; ``_fit`` sends array-API data with NaN to the host route of
``solvers.missing`` (module docstring of ``estimators._base``). The fitted model and its
detector are then those of the NumPy fit, moved back to the input's namespace; with a
float ``contamination`` the training scores that set ``offset_`` are computed with the
fitted attributes where they now live (the host data moved to them), giving the NumPy
fit's ``offset_``.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn

import robustpca

xps = pytest.importorskip("array_api_strict")


def test_array_api_fit_with_gaps_is_the_numpy_fit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 5)) + 0.1 * rng.normal(size=(40, 5))
    X[rng.random(X.shape) < 0.1] = np.nan
    host = robustpca.PCA(n_components=2, contamination=0.1).fit(X)
    with sklearn.config_context(array_api_dispatch=True):
        model = robustpca.PCA(n_components=2, contamination=0.1).fit(xps.asarray(X))
        decision = np.asarray(model.decision_function(xps.asarray(X)))
    assert model.n_missing_ == host.n_missing_ > 0
    assert model.offset_ == pytest.approx(host.offset_, rel=1e-10)
    np.testing.assert_allclose(np.asarray(model.mean_), host.mean_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(decision, host.decision_function(X), rtol=1e-8, atol=1e-10)
