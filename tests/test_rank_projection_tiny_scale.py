"""The rank projection's warm start near the underflow: data of scale 1e-154 (accepted
by the input check) have Ritz values near 1e-308, whose inverses overflowed. Every
iteration then warned "overflow encountered in divide" (953 warnings on hbk) and fell
back to the exact projection. The warm start is now dropped where an inverse is not
finite, and the fits are the same as in the data's own units.

``beta`` is in data units (problem (13): ``alpha/2 ||R||^2 + beta ||E||_1``), so it is
scaled with the data; ``alpha`` weighs a square and is not.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from robustpca import RankConstrainedRobustPCA, RobustTransferPCA
from tests.conftest import load_table


def _models(scale):
    return [
        RobustTransferPCA(2, n_shared=1, n_source=1, n_target=1, beta_target=0.1 * scale),
        RankConstrainedRobustPCA(2, beta=0.1 * scale),
    ]


@pytest.mark.realdata
@pytest.mark.parametrize("scale", [1e-154, 1e-150])
@pytest.mark.parametrize("which", [0, 1])
def test_tiny_data_fit_silently_as_in_their_units(shared_data, scale, which):
    X = load_table(shared_data, "hbk")
    reference = _models(1.0)[which].fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = _models(scale)[which].fit(X * scale)
    assert model.n_iter_ == reference.n_iter_
    np.testing.assert_allclose(model.components_, reference.components_, atol=1e-9)
    np.testing.assert_allclose(model.mean_, reference.mean_ * scale, atol=1e-9 * scale)
