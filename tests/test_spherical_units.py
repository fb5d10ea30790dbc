"""SphericalPCA and its units: rrcov's spatial median stops on an absolute step
(``delta * sqrt(p)``), so the fit depends on the data's units (the ``delta`` entry of
the docstring); a smaller ``delta`` takes the median closer to the spatial median."""

from __future__ import annotations

import numpy as np

from robustpca.solvers.spherical import spatial_median


def table(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.standard_t(3, size=(120, 5)) @ rng.normal(size=(5, 5))
    X[:10] += 15.0
    return X


def test_with_the_default_delta_small_units_stop_the_median_early():
    """The behaviour the docstring warns of: at a thousandth of the units the median
    stops after one step, far from the converged one."""
    X = table() * 1e-3
    converged = spatial_median(X, delta=1e-12, max_iter=100_000)[0]
    spread = float(np.median(np.linalg.norm(X - converged, axis=1)))
    centre, _, n_iter = spatial_median(X)
    assert n_iter <= 2
    assert np.linalg.norm(centre - converged) > 1e-3 * spread
    centre = spatial_median(X, delta=1e-6)[0]  # delta lowered in proportion
    assert np.linalg.norm(centre - converged) < 1e-3 * spread
