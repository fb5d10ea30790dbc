"""``OnlineRobustPCA.components_`` are the principal axes of
the low-rank part, ordered by its energy (``orthonormal_rows`` with OR-PCA's ``A``), not
only an orthonormal basis of its span: on a clean planted rank-3 stream with close
energies (standard deviations 10, 9, 8) each component is the matching right singular
vector of the planted low-rank matrix."""

import numpy as np
import pytest

from robustpca import OnlineRobustPCA


@pytest.mark.parametrize("seed", range(4))
def test_components_are_the_principal_axes_in_order_of_energy(seed):
    rng = np.random.default_rng(seed)
    n, p = 600, 50
    Q = np.linalg.qr(rng.normal(size=(p, 3)))[0]
    low = rng.normal(size=(n, 3)) * [10, 9, 8] @ Q.T
    X = low + 0.1 * rng.normal(size=(n, p))
    axes = np.linalg.svd(low, full_matrices=False)[2][:3]  # the planted principal axes
    model = OnlineRobustPCA(3, forgetting_factor=1.0, random_state=0).fit(X)
    cosines = np.abs(np.diag(model.components_ @ axes.T))
    assert np.all(cosines > 0.97), cosines
