"""Gap in solvers/adaptive_neighbors.py (simplex_weights), from mutation testing.

Problem (6) with gamma = 0 is a linear program whose minimisers put all the mass on the
smallest errors; the docstring promises it "spreads the mass evenly over the smallest
errors". Dropping the shift ``w = g - g.min()`` returned NaN for positive errors and
went unnoticed. Problem (6) is also invariant to adding a constant to every error.
"""

import numpy as np
import pytest

from robustpca.solvers.adaptive_neighbors import simplex_weights


def test_gamma_zero_spreads_the_mass_over_the_smallest_positive_errors():
    p = simplex_weights([4.0, 1.0, 3.0, 1.0, 7.0], 0.0)
    np.testing.assert_array_equal(p, [0.0, 0.5, 0.0, 0.5, 0.0])


@pytest.mark.parametrize("gamma", [0.0, 0.3, 2.5, 40.0])
def test_weights_are_invariant_to_a_common_shift_of_the_errors(gamma):
    g = np.array([4.0, 0.0, 3.0, 9.0, 0.5, 2.0])
    np.testing.assert_allclose(
        simplex_weights(g + 5.0, gamma), simplex_weights(g, gamma), atol=1e-12
    )
    assert np.isclose(simplex_weights(g + 5.0, gamma).sum(), 1.0)
