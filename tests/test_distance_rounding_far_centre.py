"""Rounding levels of the training distances on rows of small spread about a far centre,
from the mutation audit of ``robustpca._distance_rounding``.

Its docstring: the levels are never below the rounding of centring on ``mean_`` (64 eps
of its norm), which rows of small spread about a far centre reach (rank-1 rows at 257
with a spread of 1e-6 had a training row flagged by the rounding of its OD). Training rows
of rank ``r <= k`` lie in the fit: none may be flagged by its OD, whatever the centre's
distance from the origin; a row moved off their span by far more than that rounding still
is.
"""

from __future__ import annotations

import numpy as np
import pytest

import robustpca
from robustpca.diagnostics import outlier_diagnostics


def _far_line(seed, p=6, n=60, shift=2048.0, spread=1e-6):
    """Rank-1 rows of a spread of ``spread`` about ``shift`` in every coordinate."""
    rng = np.random.default_rng(seed)
    return shift + spread * (rng.normal(size=(n, 1)) @ rng.normal(size=(1, p)))


@pytest.mark.parametrize("name", ["PCA", "ROBPCA", "CovariancePCA"])
@pytest.mark.parametrize("k", [1, 2])
def test_rows_of_small_spread_about_a_far_centre_are_not_flagged_by_od(name, k):
    """Rank-1 rows with a spread of 1e-6 about a centre of norm 5e3: their ODs are the
    rounding of centring (a few eps times the centre's norm), not distances from the
    fit. None is flagged off the fit, and a row 1e-3 off their line is."""
    for seed in range(6):
        X = _far_line(seed)
        model = getattr(robustpca, name)(n_components=k)
        if "random_state" in model.get_params():
            model.set_params(random_state=0)
        model.fit(X)
        diag = outlier_diagnostics(model, X)
        assert not diag.orthogonal_outliers.any(), (seed, diag.orthogonal_distances.max())
        line = (X[1] - X[0]) / np.linalg.norm(X[1] - X[0])
        normal = np.linalg.qr(np.column_stack([line, np.eye(6)]))[0][:, -1]
        assert model.predict(X[:1] + 1e-3 * normal)[0] == -1


@pytest.mark.parametrize(
    "name, params",
    [("ROBPCA", {}), ("ROBPCA", {"skew": True}), ("CovariancePCA", {})],
)
def test_most_rows_at_a_far_point_set_the_floor_from_the_centre(name, params):
    """90% of the rows at one point far from the origin (an exact fit): their centred
    norms are the rounding of the centre, so the OD floor is ``ZERO_OD`` times the
    centre's norm (``DiagnosticReference.od_floor``), not the rounding of their norms.
    A new row within 1e-10 of the centre's norm of the point is on it: regular, as the
    training rows at the point are; the other rows are flagged."""
    from robustpca._distance_rounding import ZERO_OD

    rng = np.random.default_rng(0)
    point = 1000.0 * rng.uniform(0.5, 1.0, size=5) + 1.0 / 3.0
    X = np.r_[np.tile(point, (450, 1)), point + rng.normal(size=(50, 5))]
    model = getattr(robustpca, name)(n_components=2, **params).fit(X)
    centre = np.linalg.norm(model.mean_)
    assert model._outlier_reference.od_floor == pytest.approx(ZERO_OD * centre, rel=1e-9)
    np.testing.assert_array_equal(model.predict(X), np.r_[np.ones(450), -np.ones(50)])
    near = point + 1e-10 * centre * rng.normal(size=(3, 5)) / np.sqrt(5)
    np.testing.assert_array_equal(model.predict(near), [1, 1, 1])


@pytest.mark.parametrize("name", ["PCA", "ROBPCA", "CovariancePCA"])
def test_every_row_at_a_far_point_keeps_rows_within_its_rounding(name):
    """Every training row at one point far from the origin: the span level is ``ZERO_OD``
    times the centre's norm (the typical norm of an exact fit), so a new row within 1e-10
    of that norm from the point is on it, and a row 1e-6 of it away is off it."""
    rng = np.random.default_rng(1)
    point = 1000.0 * rng.uniform(0.5, 1.0, size=5) + 1.0 / 3.0
    model = getattr(robustpca, name)(n_components=2).fit(np.tile(point, (40, 1)))
    unit = rng.normal(size=(2, 5))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    size = np.linalg.norm(point)
    np.testing.assert_array_equal(model.predict(point + 1e-10 * size * unit), [1, 1])
    np.testing.assert_array_equal(model.predict(point + 1e-6 * size * unit), [-1, -1])
