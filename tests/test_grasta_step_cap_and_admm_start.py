"""Two documented constants of GRASTA's solver.

* ``adaptive_step``: "t = c 2^-l min(sigma, sigma_1)/(1 + mu), at most pi/3". The first
  gradient fixes c so that its uncapped step is pi (1 + mu_min) / (2 (1 + mu)) = pi/2
  (mu = mu_min = 1 after a zero cosine), so the cap decides it: pi/3.
* ``admm_l1``: "the penalty starts at 1.25/||v||": after one iteration the sparse part
  is the residual of the least-squares weights soft-thresholded at ||v||/1.25.
"""

import numpy as np
import pytest

from robustpca.solvers.grasta import GrastaState, adaptive_step, admm_l1


def test_first_adaptive_step_is_capped_at_pi_over_three():
    rng = np.random.default_rng(0)
    U = np.linalg.qr(rng.normal(size=(30, 2)))[0]
    state = GrastaState.start(U, 5)
    gamma, w = rng.normal(size=30), rng.normal(size=2)
    sigma = float(np.linalg.norm(gamma) * np.linalg.norm(w))
    t = adaptive_step(state, gamma, w, sigma, min_iter=5, max_iter=60)
    assert t == pytest.approx(np.pi / 3)


def test_admm_first_iteration_thresholds_at_norm_over_1_25():
    rng = np.random.default_rng(1)
    U = rng.normal(size=(40, 3))
    v = U @ (0.1 * rng.normal(size=3)) + 0.1 * rng.normal(size=40)
    v[7] += 100.0  # one gross entry: most of ||v||, so the first threshold cuts it
    s, w, _y, n_iter = admm_l1(U, v, max_iter=1)
    w_ls = np.linalg.lstsq(U, v, rcond=None)[0]
    t = v - U @ w_ls
    bound = np.linalg.norm(v) / 1.25
    np.testing.assert_allclose(w, w_ls, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(s, t - np.clip(t, -bound, bound), atol=1e-8)
    assert n_iter == 1 and s[7] > 1.0
