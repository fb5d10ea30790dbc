"""``select_n_components`` takes a spectrum, not a matrix: a 2-D input was flattened and
its entries read as eigenvalues (``[[3, 2], [1, 0]]`` gave 2), silently."""

import numpy as np
import pytest

from robustpca.rank_selection import select_n_components


@pytest.mark.parametrize("n_components", [1, 0.9, "auto"])
def test_a_matrix_is_refused(n_components):
    with pytest.raises(
        ValueError, match=r"eigenvalues must be 1-D, got an array of shape \(2, 2\)"
    ):
        select_n_components([[3.0, 2.0], [1.0, 0.0]], n_components)


def test_a_spectrum_is_taken_as_before():
    assert select_n_components(np.array([6.0, 2.0, 1.0, 0.5, 0.5]), "auto") == 2
    assert select_n_components(np.float64(4.0), 1) == 1  # one eigenvalue
