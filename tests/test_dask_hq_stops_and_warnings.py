"""HQPCA's own stopping rules and warnings on a dask array: the Dask fit wraps the
chunked RPCA-OM loop with HQPCA's monitor (user callback, exact fit) and its
all-weights-underflowed warning, and must stop and warn as the in-memory fit does."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from robustpca import HQPCA

da = pytest.importorskip("dask.array")


def _fit(X, **params):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = HQPCA(n_components=2, **params).fit(X)
    return model, sorted(str(w.message) for w in caught)


@pytest.mark.parametrize("shape", [(80, 6), (12, 40)], ids=["tall", "wide"])
def test_a_callback_that_returns_true_stops_the_fit(shape):
    """A ``callback`` returning True stops the fit after that iteration (the
    estimators' documented callback contract), on both routes, as in memory."""
    Xn = np.random.default_rng(0).normal(size=shape)
    seen = []

    def stop(iteration, state):
        seen.append(iteration)
        return True

    ours, _ = _fit(da.from_array(Xn, chunks=(20, 20)), callback=stop)
    theirs, _ = _fit(Xn, callback=stop)
    assert ours.n_iter_ == theirs.n_iter_ == 1
    assert ours.stop_reason_ == theirs.stop_reason_
    assert len(seen) == 2


@pytest.mark.parametrize("shape", [(80, 6), (12, 40)], ids=["tall", "wide"])
def test_a_width_so_small_that_every_weight_underflows_warns(shape):
    """With every correntropy weight underflowed (a fixed width far below the
    residuals), the fit returns the last subspace with a positive weight and warns to
    increase ``kernel_width``: the same stop reason and warnings as in memory."""
    Xn = np.random.default_rng(1).normal(size=shape)
    ours, ours_warned = _fit(da.from_array(Xn, chunks=(20, 20)), kernel_width=1e-3)
    theirs, theirs_warned = _fit(Xn, kernel_width=1e-3)
    assert ours.stop_reason_ == theirs.stop_reason_
    assert any("Increase kernel_width" in m for m in theirs_warned)
    assert ours_warned == theirs_warned
