"""Dask fits over uneven row chunks (one chunk of a single row) against the in-memory
fit (mutation audit of ``_dask/fit.py`` and ``solvers/chunked_pca.py``).

Each test runs the synchronous scheduler and checks something the parity tests of
``test_dask.py`` (even chunks, generic data) leave open: the weights a global rule's
callback sees at the first iteration, fractional weights in one chunk only, the exact
fit's stopping rule, the routes' choice on square data and the warning of the
generalized mean's own iteration.
"""

from __future__ import annotations

import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from robustpca.estimators._adaptive_neighbors import AdaptiveNeighborsPCA
from robustpca.estimators._generalized_mean import GeneralizedMeanPCA
from robustpca.estimators._optimal_mean import OptimalMeanPCA
from robustpca.estimators._pca import PCA
from robustpca.estimators._r1 import R1PCA
from robustpca.metrics import projector_distance

from .conftest import fit_passes

#: Row chunks of the 61 rows below: uneven, one of a single row.
ROWS = (20, 1, 33, 7)


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _tall(seed=0, n=61, d=5):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) * np.array([3.0, 2.0, 1.0, 0.5, 0.2])[:d]


def _chunked(X, rows=ROWS):
    return da.from_array(X, chunks=(rows, (X.shape[1],)))


@pytest.mark.parametrize(
    "factory",
    [lambda cb: AdaptiveNeighborsPCA(2, callback=cb), lambda cb: R1PCA(2, callback=cb)],
    ids=["adaptive-neighbors", "r1-median-cutoff"],
)
def test_global_rule_callbacks_see_the_in_memory_weights(factory):
    """A global weight rule's callback gets the weight vector of every iteration; at
    the first one these are the starting weights (RWL-AN's ``1 / n``, R1-PCA's first
    re-weighting), which the chunked loop must hand over as the in-memory loop does."""

    def recorder(store):
        def callback(iteration, state):
            store.append((iteration, np.asarray(state.weights, dtype=np.float64).copy()))
            return iteration == 3

        return callback

    seen_numpy, seen_dask = [], []
    X = _tall()
    factory(recorder(seen_numpy)).fit(X)
    factory(recorder(seen_dask)).fit(_chunked(X))
    assert [i for i, _ in seen_dask] == [i for i, _ in seen_numpy] == [1, 2, 3]
    for (_, expected), (_, got) in zip(seen_numpy, seen_dask, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-14)


def test_fractional_weight_in_the_one_row_chunk():
    """Whole sample weights everywhere but in the chunk of a single row: the weights are
    then reliability weights (Kish's effective count in the variances' divisor), as the
    in-memory fit finds from the whole vector; the chunks' ``whole`` flags and sums of
    squared weights must combine to the same count."""
    X = _tall(1)
    w = np.ones(X.shape[0])
    w[ROWS[0]] = 0.5  # the chunk of one row
    a = PCA(2).fit(X, sample_weight=w)
    for weights in (w, da.from_array(w, chunks=(ROWS,))):
        b = PCA(2).fit(_chunked(X), sample_weight=weights)
        np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, rtol=1e-10)
        np.testing.assert_allclose(
            b.explained_variance_ratio_, a.explained_variance_ratio_, rtol=1e-10
        )


@pytest.mark.parametrize(
    ("factory", "shape"),
    [
        (lambda: OptimalMeanPCA(2), (61, 5)),
        (lambda: OptimalMeanPCA(2), (12, 40)),
        (lambda: GeneralizedMeanPCA(2, p=0.5, center="mean"), (61, 5)),
        (lambda: GeneralizedMeanPCA(2, p=0.5), (61, 5)),
    ],
    ids=["optimal-mean-tall", "optimal-mean-wide", "gm-mean-tall", "gm-generalized-tall"],
)
def test_an_exact_fit_stops_as_in_memory(factory, shape):
    """Rows on an affine plane: the first subspace reconstructs every weighted row to
    rounding, and the in-memory loop stops there (``stop_reason_`` EXACT, one
    iteration) instead of re-weighting rounding errors; the chunked loops must apply
    the same test. (The wide route of GeneralizedMeanPCA does not:
    ``test_dask_generalized_mean_exact_fit.py``.)"""
    n, d = shape
    rng = np.random.default_rng(2)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) + 3.0
    dX = _chunked(X) if n > d else da.from_array(X, chunks=((n,), (1, 20, d - 21)))
    a = factory().fit(X)
    b = factory().fit(dX)
    assert a.n_iter_ == 1
    assert (b.stop_reason_, b.n_iter_) == (a.stop_reason_, a.n_iter_)
    assert projector_distance(a.components_, b.components_) <= 1e-8


def test_square_data_take_the_tall_route_as_in_memory():
    """``n_samples == n_features`` is not wide: the in-memory solvers keep the ``d x d``
    scatter (the Gram route is for ``n < d``), and so does the Dask fit, with one pass
    per iteration after the first."""
    X = _tall(3, n=12, d=5)
    X = np.column_stack([X, X[:, :3] @ np.ones((3, 7)) * 0.1 + _tall(4, n=12, d=5)[:, :1]])
    assert X.shape == (12, 12)
    a = OptimalMeanPCA(2).fit(X)
    b = OptimalMeanPCA(2).fit(da.from_array(X, chunks=((5, 1, 6), (12,))))
    assert fit_passes(b) == b.n_iter_ + 1
    assert b.n_iter_ == a.n_iter_
    assert projector_distance(a.components_, b.components_) <= 1e-8


@pytest.mark.parametrize("shape", [(61, 5), (12, 40)], ids=["tall", "wide"])
def test_the_generalized_mean_warns_when_it_reaches_max_iter(shape):
    """``center='generalized'`` runs Algorithm 1 before the components: where it stops
    at ``max_iter`` the Dask fit warns as the in-memory fit does, on either route."""
    n, d = shape
    X = np.random.default_rng(5).normal(size=shape)
    dX = _chunked(X) if n > d else da.from_array(X, chunks=((n,), (1, 20, d - 21)))
    for data in (X, dX):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            GeneralizedMeanPCA(2, max_iter=1).fit(data)
        messages = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
        assert any("generalized sample mean (Algorithm 1)" in m for m in messages), messages
