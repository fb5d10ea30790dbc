"""Memory of PCA-GM and RWL-AN fits (issue 6): peak below the data size, flat in the
number of iterations.

Peaks are ``tracemalloc`` peaks of one ``fit`` above what was allocated before it (NumPy
reports its buffers to tracemalloc), as in ``benchmarks/_harness.py::peak_memory``;
fitted attributes count, since they are alive at the end of the fit. Measured on the
data below (5 iterations, ``tol=0``, a callback, 256 KiB blocks): before the blocked
passes of ``linalg.py`` (``c6d2597``), GeneralizedMeanPCA took 5.1-5.3x the data and
AdaptiveNeighborsPCA 4.1-4.3x on 200 x 3000 and 3000 x 200 float64 (10-12.6x on
float32, widened to float64 whole); now 0.41-0.66x (float64) and 0.81-1.13x (float32,
whose float64 fitted attributes weigh twice as much against the data). On the AT&T
faces shape (400 x 10304, k = 30, 1 MiB blocks): 3.01x and 4.12x before, 0.31x and
0.32x now.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import robustpca.linalg
from robustpca.estimators._adaptive_neighbors import AdaptiveNeighborsPCA
from robustpca.estimators._generalized_mean import GeneralizedMeanPCA

from .conftest import peak_memory

ESTIMATORS = (GeneralizedMeanPCA, AdaptiveNeighborsPCA)
SHAPES = [(200, 3000), (3000, 200)]
SHAPE_IDS = ["wide-gram", "tall-scatter"]


@pytest.fixture
def small_blocks(monkeypatch):
    """256 KiB blocks, so that a block is small against the data (as on the big shapes)."""
    monkeypatch.setattr(robustpca.linalg.blocked, "BLOCK_BYTES", 1 << 18)


def data(n, d, dtype=np.float64, seed=0):
    """Rank 4 + noise, off the origin, 5% gross outliers."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) @ rng.normal(size=(4, d)) + 3.0
    X += 0.1 * rng.normal(size=(n, d))
    X[: n // 20] += 5.0 * rng.normal(size=(n // 20, d))
    return X.astype(dtype)


def fit_peak(cls, X, n_components, max_iter=5):
    """Peak of a fit with the benchmark's settings: ``tol=0`` and a callback."""
    model = cls(n_components, max_iter=max_iter, tol=0.0, callback=lambda i, s: False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return peak_memory(lambda: model.fit(X))


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("n_components", [5, 20])
def test_fit_peak_is_below_the_data_size(small_blocks, cls, shape, n_components):
    """float64 data: a whole fit stays below 1x the data (the issue's budget is 3x; the
    code before the blocked passes took 4.1-5.3x here, now at most 0.66x)."""
    X = data(*shape)
    peak = fit_peak(cls, X, n_components)
    assert peak < 1.0 * X.nbytes, peak / X.nbytes


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
def test_float32_fit_is_not_widened_whole(small_blocks, cls, shape):
    """float32 data are widened block by block, never as a whole float64 copy (which
    alone would be 2x the data): below 1.5x (before: 10-12.6x, now at most 1.13x)."""
    X = data(*shape, dtype=np.float32)
    peak = fit_peak(cls, X, 20)
    assert peak < 1.5 * X.nbytes, peak / X.nbytes


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
def test_iterations_allocate_nothing_data_sized(small_blocks, cls, shape):
    """Twenty iterations peak less than a fifth of the data above two: nothing of the
    size of the data is allocated per iteration or kept across iterations. Measured
    (x data, 2 / 20 iterations): 0.29 / 0.41 for PCA-GM on 200 x 3000 (from iteration 5
    some samples lie on the subspace, p < 1/2, and the Gram route forms the residuals
    explicitly: a block and the d x k basis), 0.40-0.41 / 0.40-0.42 otherwise."""
    X = data(*shape)
    two, twenty = fit_peak(cls, X, 5, max_iter=2), fit_peak(cls, X, 5, max_iter=20)
    assert twenty - two < 0.2 * X.nbytes, (two / X.nbytes, twenty / X.nbytes)


@pytest.mark.slow
@pytest.mark.parametrize("cls", ESTIMATORS)
def test_benchmark_att_shape_peak(cls):
    """The benchmark's att shape (400 x 10304, k = 30, default blocks): 0.31-0.32x."""
    X = data(400, 10304)
    peak = fit_peak(cls, X, 30)
    assert peak < 1.0 * X.nbytes, peak / X.nbytes
