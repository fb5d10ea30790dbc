"""benchmarks/bench_outliers.py's two column scalings keep their documented definitions
(docs/outlier-detection.md, "The columns are scaled by their median and MAD ..."): the
robust one gives every column median 0 and normalised MAD 1, a column of zero MAD its
mean absolute deviation from the median; min-max puts every column on [0, 1]."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_outliers as bench


def _columns():
    """A skewed column (mean far from the median), a column of zero MAD (70% zeros,
    skewed tail) and a shifted, scaled Gaussian column."""
    rng = np.random.default_rng(3)
    skewed = rng.exponential(size=200) ** 2
    zero_mad = np.r_[np.zeros(140), 5.0 + rng.exponential(size=60)]
    gaussian = 10.0 + 4.0 * rng.normal(size=200)
    return np.column_stack([skewed, zero_mad, gaussian])


def test_robust_scaling_gives_median_zero_and_unit_normalised_mad():
    """A column with MAD > 0 is centred on its median and divided by 1.4826 MAD, so the
    scaled column has median 0 and 1.4826 * median|z| = 1 (an SD for Gaussian data)."""
    Z = bench.scale_columns(_columns(), "robust")
    for j in (0, 2):
        assert abs(np.median(Z[:, j])) < 1e-12
        assert 1.4826 * np.median(np.abs(Z[:, j])) == pytest.approx(1.0, rel=1e-12)


def test_zero_mad_column_is_scaled_by_its_mean_absolute_deviation_from_the_median():
    """The fallback is the mean absolute deviation about the median (not the mean), times
    sqrt(pi/2): the scaled column keeps its median at 0 and 1.2533 * mean|z| = 1."""
    X = _columns()
    assert np.median(np.abs(X[:, 1] - np.median(X[:, 1]))) == 0  # the MAD is zero
    z = bench.scale_columns(X, "robust")[:, 1]
    assert np.median(z) == 0.0
    assert 1.2533 * np.mean(np.abs(z)) == pytest.approx(1.0, rel=1e-12)


def test_minmax_scaling_maps_every_column_onto_the_unit_interval():
    """ADBench's scaling: each non-constant column's minimum goes to 0 and its maximum
    to 1, order kept; the copy leaves ``X`` alone."""
    X = _columns()
    before = X.copy()
    Z = bench.scale_columns(X, "minmax")
    assert np.array_equal(X, before)
    np.testing.assert_allclose(Z.min(axis=0), 0.0, atol=1e-15)
    np.testing.assert_allclose(Z.max(axis=0), 1.0, rtol=1e-15)
    for j in range(X.shape[1]):
        assert np.array_equal(
            np.argsort(Z[:, j], kind="stable"), np.argsort(X[:, j], kind="stable")
        )
