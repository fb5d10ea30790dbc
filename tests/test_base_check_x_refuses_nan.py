"""``_check_X`` refuses NaN unless the caller asks for it, on estimators that take NaN.

``L21PCA`` fits data with missing entries, so its transforms accept NaN; its
``l21_objective`` documents "Samples (no NaN)" and validates through ``_check_X``
without ``allow_nan``. A NaN there must be the usual ``ValueError``, not a NaN
objective that compares false with every other value.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import L21PCA


def test_l21_objective_refuses_nan_on_an_estimator_that_fits_nan():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    model = L21PCA(n_components=2, random_state=0).fit(X)
    Y = X.copy()
    Y[0, 1] = np.nan
    assert np.isfinite(model.transform(Y)).all()  # the transforms take the gap
    with pytest.raises(ValueError, match="NaN"):
        model.l21_objective(Y)
