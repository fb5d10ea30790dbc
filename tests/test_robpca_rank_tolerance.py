"""Gap in solvers/robpca.py (centred_rank), from mutation testing.

The rank tolerance is robustbase's rankMM: max(n, p) * eps * s_1 (rrcov's PcaHubert
uses it). Reference from R (robustbase; script: tests/reference/inline_values/make_values.R):
    set.seed(1); q <- qr.Q(qr(matrix(rnorm(200*3),200,3)))
    v <- qr.Q(qr(matrix(rnorm(9),3,3)))
    A <- q %*% diag(c(1,1,1e-14)) %*% t(v); robustbase::rankMM(A)   # 2
A tolerance of min(n, p) * eps * s_1 counted the third direction (rank 3) and went
unnoticed.
"""

import numpy as np

from robustpca.solvers.robpca import centred_rank


def test_rank_tolerance_is_rankmm_max_dimension():
    s = np.array([1.0, 1.0, 1e-14])
    assert centred_rank(s, 200, 3) == 2  # 1e-14 < 200 * eps
    assert centred_rank(s, 3, 200) == 2  # wide: max(n, p) too (and at most n - 1 = 2)
    assert centred_rank(np.array([1.0, 1.0, 1e-13]), 200, 3) == 3  # 1e-13 > 200 * eps


def test_rank_of_planted_matrix_matches_rankmm():
    rng = np.random.default_rng(1)
    q = np.linalg.qr(rng.normal(size=(200, 3)))[0]
    v = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    A = q @ np.diag([1.0, 1.0, 1e-14]) @ v.T
    s = np.linalg.svd(A, compute_uv=False)
    assert centred_rank(s, 200, 3) == 2
