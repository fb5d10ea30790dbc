"""The ALM's block SVT step (alm_svt._block_svt) accepts its triplets only once
the next Ritz value, within its residual, is below the threshold: Ritz values are lower
bounds, so without that margin a singular value just above the threshold can be left
out (a mutation; the same check in prox.svt_factors is tested by
test_prox.test_partial_svt_leaves_out_no_singular_value_above_the_threshold)."""

import numpy as np

from robustpca.solvers.alm_svt import _block_svt


def test_block_svt_leaves_out_no_singular_value_above_the_threshold():
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(300):
        m, n = int(rng.integers(40, 300)), int(rng.integers(40, 300))
        r = int(rng.integers(1, 15))
        X = 5 + rng.normal(size=(m, r)) @ rng.normal(size=(r, n)) * 3
        X += 0.1 * rng.normal(size=(m, n))
        X -= X.mean(axis=0)
        s = np.linalg.svd(X, compute_uv=False)
        tau = float(rng.uniform(s[min(len(s) - 1, r + 2)], s[0]))
        count = int(np.count_nonzero(s > tau))
        for hint in (1, 2):
            low, _ = _block_svt(X, tau, hint, None, np.random.default_rng(hint))
            if low is None or isinstance(low, str):
                continue  # asks for more columns, or gives up: not an answer
            checked += 1
            assert low.s.size == count, (m, n, r, hint)
            np.testing.assert_allclose(low.s, s[:count] - tau, rtol=1e-6, atol=1e-8 * s[0])
    assert checked > 100
