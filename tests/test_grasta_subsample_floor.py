"""With a subsample so small that a row would be fitted
on fewer entries than components, GRASTA still draws at least ``2 r + 1`` of them
(documented in ``grasta_process``), so a planted subspace is still recovered."""

import numpy as np

from robustpca import GRASTA


def test_tiny_subsample_still_recovers_the_planted_subspace():
    rng = np.random.default_rng(1)
    n, p, r = 3000, 30, 3
    U = np.linalg.qr(rng.normal(size=(p, r)))[0]
    X = rng.normal(size=(n, r)) * 10 @ U.T + 0.01 * rng.normal(size=(n, p))
    # 0.02 of 30 entries: about 0.6 a row, far fewer than r = 3
    model = GRASTA(n_components=r, subsample=0.02, random_state=0).fit(X)
    V = model.components_
    # the principal angles between the fitted and planted subspaces are small
    cosines = np.linalg.svd(V @ U, compute_uv=False)
    assert cosines.min() > 0.99
