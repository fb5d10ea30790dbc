"""``score_samples`` and ``decision_function`` have ``transform``'s dtype.

``_output_dtype``: float32 for float32 data on a float32 model, as ``transform``, else
float64. A float64 model scoring float32 rows, or a float32 model scoring float64 rows,
computes in float64 and must not round its scores to float32 (``test_float32.py`` checks
the matching dtypes only).
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA


@pytest.mark.parametrize("fit_dtype", [np.float32, np.float64])
@pytest.mark.parametrize("data_dtype", [np.float32, np.float64])
def test_scores_take_the_dtype_of_transform(fit_dtype, data_dtype):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 5)) + 0.1 * rng.normal(size=(40, 5))
    model = PCA(n_components=2, contamination=0.1).fit(X.astype(fit_dtype))
    Y = X[:7].astype(data_dtype)
    expected = model.transform(Y).dtype
    assert expected == (np.float32 if fit_dtype == data_dtype == np.float32 else np.float64)
    assert model.score_samples(Y).dtype == expected
    assert model.decision_function(Y).dtype == expected
