"""The start of OR-PCA keeps the median's direction where it is among the top ``r``.

``initial_directions`` documents: the median's direction is kept "where it is among the
top ``r`` directions of the batch's robust second moment (the median's energy
``b ||m||^2`` at least the ``r``-th eigenvalue of the clipped remainder)", as for a
video's background. A batch whose level is weaker than its strongest direction of
variation but stronger than its second must start, at ``r = 2``, on the median's
direction and the strongest variation; the existing tests cover a dominant level (a
video) and a centred stream (no level) only.
"""

import numpy as np

from robustpca.solvers.orpca_start import feature_median, initial_directions


def test_a_level_between_the_first_and_second_variances_is_kept():
    rng = np.random.default_rng(0)
    b, p = 100, 40
    m = np.ones(p) / np.sqrt(p)
    a1, a2 = np.linalg.qr(np.column_stack([m, rng.normal(size=(p, 2))]))[0][:, 1:].T
    Z = 5.0 * m + np.outer(rng.normal(size=b) * 10, a1) + np.outer(rng.normal(size=b) * 3, a2)
    Z += 0.1 * rng.normal(size=(b, p))
    median = feature_median(Z)
    energy = b * median @ median
    assert 100 * 9 < energy < 100 * 100  # between the two variances' energies
    U = initial_directions(Z, 2, np.random.default_rng(0))
    np.testing.assert_allclose(U.T @ U, np.eye(2), atol=1e-10)
    assert abs(U[:, 0] @ median) / np.linalg.norm(median) > 1 - 1e-9
    assert abs(U[:, 1] @ a1) > 0.99  # and the strongest variation
