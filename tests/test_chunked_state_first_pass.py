"""The first pass of the chunked convex solvers and their ``gamma='auto'`` norm, over
uneven row chunks (mutation audit of ``solvers/chunked_state.py``).

The state runner adds the chunks' dictionaries key by key: moments by Chan's update,
column extremes by the maximum, unit-row Gram matrices by the sum. The chunks here are
uneven, with an empty chunk (a dask array may have one) and a chunk of a single row.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from robustpca.solvers.alm_norms import gamma_max
from robustpca.solvers.chunked_state import (
    Max,
    NumpyStateRunner,
    first_pass,
    gamma_max_chunked,
)

#: Row chunks of the 60 rows below: uneven, one empty and one of a single row.
SIZES = [17, 0, 1, 30, 12]


def _runner(X):
    run = NumpyStateRunner(X, chunk_rows=X.shape[0])
    run.bounds = list(pairwise(np.cumsum([0, *SIZES]).tolist()))
    run.states = [None] * len(run.bounds)
    return run


def _table(d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(sum(SIZES), d)) * rng.uniform(0.1, 3.0, d) + rng.normal(size=d)
    X[5] = 0.0  # a zero row: its unit row stays zero
    return X


@pytest.mark.parametrize("row_gram", [False, True])
def test_first_pass_combines_the_chunks(row_gram):
    """Mean and centred scatter with unit weights, the column maxima and negated minima
    (``hi``, ``lo``: the range that ``check_mu_scale`` reads) and, when asked, the Gram
    matrix of the rows scaled to unit norm, all of the whole data."""
    X = _table(6)
    out = _runner(X)(first_pass, row_gram=row_gram)
    moments = out["moments"]
    assert moments.weight == X.shape[0]
    np.testing.assert_allclose(moments.mean, X.mean(axis=0), rtol=1e-13, atol=1e-15)
    Xc = X - X.mean(axis=0)
    np.testing.assert_allclose(moments.scatter, Xc.T @ Xc, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(out["hi"].value, X.max(axis=0))
    np.testing.assert_array_equal(out["lo"].value, -X.min(axis=0))
    if row_gram:
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        G = np.divide(X, norms, out=np.zeros_like(X), where=norms > 0)
        np.testing.assert_allclose(out["row_gram"], G.T @ G, rtol=1e-12, atol=1e-14)
    else:
        assert "row_gram" not in out


@pytest.mark.parametrize("d", [6, 45], ids=["exact", "lanczos"])
@pytest.mark.parametrize("centred", [False, True])
def test_gamma_max_chunked_is_the_in_memory_gamma_max(d, centred):
    """:func:`gamma_max_chunked` (the spectral norm of the unit rows of ``X - c``, from
    their ``d x d`` Gram matrix: LAPACK up to 40 columns, Lanczos above) equals
    :func:`~robustpca.solvers.alm_norms.gamma_max` on the whole array."""
    X = _table(d, seed=d)
    center = X.mean(axis=0) if centred else None
    expected = gamma_max(X, center)
    assert gamma_max_chunked(_runner(X), center) == pytest.approx(expected, rel=1e-9)


def test_max_adds_by_the_maximum_whatever_the_order():
    """:class:`Max` (entry norms summed by a runner) adds by the maximum."""
    values = [Max(2.0), Max(-1.0), Max(5.5), Max(0.0)]
    assert sum(values[1:], values[0]).value == 5.5
    assert sum(values[::-1][1:], values[-1]).value == 5.5
