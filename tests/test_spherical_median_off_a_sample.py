"""The spatial median when rrcov's start is a sample that is not the spatial median.

Mutation audit of ``solvers/spherical.py``, ``solvers/chunked_spherical.py`` and
``estimators/_spherical.py``: weighting a sample within the distance floor by
``1 / eps`` instead of rrcov's ``eps`` (which pins the iterate to that sample, so the
steps stop at once), in memory or in passes, and ignoring ``SphericalPCA(delta=...)``,
all left the suite passing: the tables never start the Weiszfeld steps on a sample.

Five points whose coordinatewise median, rrcov's start, is the sample ``(0, 0)``; Vardi
and Zhang's pull there is about 1.07 > 1, so the spatial median lies off it, near
``(0, 0.0939)``.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from robustpca import SphericalPCA
from robustpca.solvers.chunked import NumpyPassRunner
from robustpca.solvers.chunked_spherical import solve_spherical_pca_chunked
from robustpca.solvers.spherical import solve_spherical_pca, spatial_median

X = np.array([[0.0, 0.0], [-1.0, 5.0], [1.0, 5.0], [-2.0, -1.0], [2.0, -1.0]])


def pull(X, centre):
    """``||sum_i (x_i - m) / ||x_i - m||||``: the gradient of the sum of distances at a
    point that is no sample (0 at the spatial median)."""
    d = X - centre
    return float(np.linalg.norm((d / np.linalg.norm(d, axis=1)[:, None]).sum(axis=0)))


def test_the_start_is_a_sample_that_is_not_the_spatial_median():
    """The premise: the coordinatewise median is the first row, and the pull of the
    other rows there exceeds its multiplicity (Vardi and Zhang), so it is no median."""
    np.testing.assert_array_equal(np.median(X, axis=0), X[0])
    others = X[1:] - X[0]
    assert np.linalg.norm((others / np.linalg.norm(others, axis=1)[:, None]).sum(0)) > 1.05


def test_steps_leave_a_start_that_is_not_the_spatial_median():
    """The start lies within the distance floor of a sample, which rrcov weighs by
    ``eps``: the steps move off it to the spatial median, which a small ``delta``
    reaches (the gradient of the sum of distances vanishes there)."""
    centre, _, n_iter = spatial_median(X, delta=1e-7)
    assert n_iter > 2
    assert centre[1] > 0.09
    assert pull(X, centre) < 1e-4


@pytest.mark.parametrize("delta", [1e-3, 1e-7])
@pytest.mark.parametrize("scale_on", ["data", "sphere"])
def test_chunked_route_leaves_the_start_as_in_memory(delta, scale_on):
    """The passes weigh the rows within the floor as the in-memory steps do: same
    centre, iterations and eigenvalues over chunks of 2, 1 and 2 rows."""
    run = NumpyPassRunner(X, chunk_rows=5)
    run.bounds = list(pairwise([0, 2, 3, 5]))
    got, _ = solve_spherical_pca_chunked(run, np.arange(5), 5, 2, scale_on=scale_on, delta=delta)
    expected = solve_spherical_pca(X, scale_on=scale_on, delta=delta)
    assert got.n_iter == expected.n_iter > 2
    np.testing.assert_allclose(got.mean, expected.mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.eigenvalues, expected.eigenvalues, rtol=1e-8)


def test_delta_sets_the_precision_of_the_estimators_centre():
    """``SphericalPCA(delta=...)`` is the tolerance of its spatial median: ``mean_`` is
    :func:`spatial_median` at that ``delta``, and a smaller one comes closer to it."""
    coarse = SphericalPCA(n_components=1, delta=1e-2).fit(X).mean_
    fine = SphericalPCA(n_components=1, delta=1e-7).fit(X).mean_
    np.testing.assert_array_equal(coarse, spatial_median(X, delta=1e-2)[0])
    np.testing.assert_array_equal(fine, spatial_median(X, delta=1e-7)[0])
    assert pull(X, fine) < 1e-4 < pull(X, coarse)
