"""``svt_factors`` returns only the triplets with sigma_i > tau ("``s`` holds
sigma_i - tau > 0, so ``len(s)`` is the rank of the result"), also when a singular value
equals the threshold exactly (a mutation keeps a zero one)."""

import numpy as np

from robustpca.prox import svt_factors


def test_a_singular_value_at_the_threshold_is_dropped():
    f = svt_factors(np.diag([3.0, 2.0, 1.0]), 2.0)
    np.testing.assert_array_equal(f.s, [1.0])
    assert f.U.shape == (3, 1) and f.Vt.shape == (1, 3)
    assert np.all(f.s > 0)


def test_threshold_at_the_top_singular_value_gives_rank_zero():
    f = svt_factors(np.diag([2.0, 2.0]), 2.0)
    assert f.s.size == 0
