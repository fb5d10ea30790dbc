"""``partial_fit`` refuses more components than features, as ``fit`` does.

``fit`` raises (``n_components`` between 1 and ``min(n_samples, n_features)``); a stream
cannot know its number of rows, so its first ``partial_fit`` checks ``n_components``
against the features only (``_rank``): more components than features would publish
``n_components_ > n_features`` rows that cannot be orthonormal.
"""

import numpy as np
import pytest

from robustpca import GRASTA, OnlineRobustPCA


@pytest.mark.parametrize("cls", [OnlineRobustPCA, GRASTA])
def test_partial_fit_refuses_more_components_than_features(cls):
    X = np.random.default_rng(0).normal(size=(50, 4))
    with pytest.raises(ValueError, match="n_components=5"):
        cls(n_components=5, random_state=0).partial_fit(X)
    model = cls(n_components=4, random_state=0).partial_fit(X)  # as many: fine
    assert model.components_.shape == (4, 4)
