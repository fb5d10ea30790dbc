"""``PrincipalComponentPursuit(center='median')`` on tall dask arrays (issue 41, item 3).

The in-memory fit subtracts the exact column medians (``numpy.median``) and holds them in
``mean_`` and ``low_rank_``; the chunked fit finds the same medians by radix counting
passes over the row chunks (:func:`robustpca.solvers.chunked_order_statistics.
column_medians`; nothing ``n``-sized reaches the client, ties cost passes, not
transfers), then runs the chunked ALM about them. Every fitted array must equal the
NumPy fit to 1e-8, whatever the chunking.
"""

from __future__ import annotations

import warnings
from itertools import pairwise

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from robustpca.estimators._convex import OutlierPursuit, PrincipalComponentPursuit
from robustpca.solvers import chunked_order_statistics as order_statistics
from robustpca.solvers.chunked import combine_parts
from robustpca.solvers.chunked_order_statistics import GATHER_BUDGET, column_medians

from .test_dask_low_rank_sparse import CountComputes, RerunRunner, assert_same_fit, fit_passes


@pytest.fixture
def threads():
    with dask.config.set(scheduler="threads"):
        yield


class ChunkRunner:
    """An in-memory state runner over chunks of any sizes; it records the records that
    every pass gathers (what a cluster would send to the client)."""

    reuse_states = True

    def __init__(self, X: np.ndarray, sizes):
        edges = np.cumsum([0, *sizes])
        assert edges[-1] == X.shape[0]
        self.X, self.bounds = X, list(pairwise(edges.tolist()))
        self.states: list = [None] * len(self.bounds)
        self.n_samples, self.n_passes, self.gathered = X.shape[0], 0, []

    def __call__(self, kernel, **params) -> dict:
        self.n_passes += 1
        parts = []
        for i, (a, b) in enumerate(self.bounds):
            self.states[i], part = kernel(self.X[a:b], self.states[i], **params)
            parts.append(part)
        out = combine_parts(*parts)
        if "gathered" in out:
            self.gathered.append(out["gathered"].values.shape[0])
        return out


def planted(seed=0, n=3000, d=20, rank=2, share=0.05, offset=5.0):
    """Low rank plus an offset far from zero plus gross entries on ``share`` of them."""
    rng = np.random.default_rng(seed)
    X = offset + rng.normal(size=(n, rank)) @ rng.normal(size=(rank, d))
    gross = rng.random((n, d)) < share
    X[gross] += 10 * rng.normal(size=int(gross.sum()))
    return X


def both_fits(model, X, chunks):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = clone(model).fit(X)
        b = clone(model).fit(da.from_array(X, chunks=(chunks, -1)))
    return a, b


MEDIAN = PrincipalComponentPursuit(center="median", random_state=0)


# ------------------------------------------------------------------- parity
@pytest.mark.slow
@pytest.mark.parametrize(
    ("n", "chunks"),
    [
        (3000, 700),  # even n, a short last chunk
        (3001, 700),  # odd n: one middle rank
        (3000, (500, 1300, 200, 1000)),  # uneven chunks
        (3001, 3001),  # a single chunk
    ],
    ids=["even", "odd", "uneven", "one-chunk"],
)
def test_parity_planted(threads, n, chunks):
    """A planted tall problem: the NumPy fit (every attribute, 1e-8), ``mean_`` the
    exact column medians, ``low_rank_`` holding them, the truth recovered; the medians
    cost a few passes beyond the fit's own (two an iteration, three more)."""
    X = planted(n=n)
    before = X.copy()
    a, b = both_fits(MEDIAN, X, chunks)
    np.testing.assert_array_equal(X, before)
    row_chunks = da.from_array(X, chunks=(chunks, -1)).chunks[0]
    assert_same_fit(a, b, row_chunks)
    np.testing.assert_array_equal(b.mean_, np.median(X, axis=0))
    low = b.low_rank_.compute()
    np.testing.assert_allclose(np.median(low - b.mean_, axis=0), 0.0, atol=1.0)
    refined = len(b.residuals_["certified"])
    base = 2 * b.n_iter_ + 3
    assert base + 1 <= fit_passes(b) <= base + refined + 4


@pytest.mark.slow
def test_same_fit_as_centred_by_hand(threads):
    """The median fit is the uncentred fit of ``X - median`` plus the median, iteration
    for iteration, with the same passes but those of the medians."""
    X = planted(1, n=2000, d=15)
    med = np.median(X, axis=0)
    dX = da.from_array(X, chunks=(600, -1))
    b = clone(MEDIAN).fit(dX)
    c = PrincipalComponentPursuit(random_state=0).fit(da.from_array(X - med, chunks=(600, -1)))
    assert b.n_iter_ == c.n_iter_ and b.stop_reason_ == c.stop_reason_
    top = np.abs(X).max()
    np.testing.assert_allclose(b.low_rank_.compute(), c.low_rank_.compute() + med, atol=1e-8 * top)
    np.testing.assert_allclose(b.sparse_.compute(), c.sparse_.compute(), atol=1e-8 * top)
    runner = ChunkRunner(X, [600, 600, 600, 200])
    column_medians(runner, *X.shape)
    # the first counts ride on the first pass: one pass fewer than column_medians alone
    assert fit_passes(b) == fit_passes(c) + runner.n_passes - 1


@pytest.mark.slow
def test_integer_data_with_ties(threads):
    """Integer-valued data whose columns are mostly ties (a few distinct values, even
    n: the two middle values are often equal, sometimes not): the NumPy fit."""
    rng = np.random.default_rng(3)
    X = np.round(planted(2, n=2400, d=12, offset=0.0) / 2)
    X[:, :3] = rng.integers(0, 2, size=(2400, 3))  # binary columns
    X[:1200, 3], X[1200:, 3] = 4.0, 7.0  # middle values 4 and 7: the median 5.5
    a, b = both_fits(MEDIAN, X, (1000, 900, 500))
    assert_same_fit(a, b, (1000, 900, 500))
    np.testing.assert_array_equal(b.mean_, np.median(X, axis=0))
    assert b.mean_[3] == 5.5


@pytest.mark.slow
def test_float32_input(threads):
    """Float32 frames: float32 attributes, the NumPy fit to the data's rounding (the
    chunked passes compute in float64, the in-memory solver partly in float32)."""
    X = planted(4, n=1500, d=12).astype(np.float32)
    a, b = both_fits(MEDIAN, X, 400)
    assert b.mean_.dtype == np.float32 and b.low_rank_.dtype == np.float32
    np.testing.assert_allclose(b.mean_, a.mean_, rtol=1e-6)
    np.testing.assert_allclose(b.low_rank_.compute(), a.low_rank_, atol=1e-5 * np.abs(X).max())
    np.testing.assert_allclose(b.sparse_.compute(), a.sparse_, atol=1e-5 * np.abs(X).max())


def test_constant_columns_and_data_equal_to_the_median(threads):
    """Data equal to their medians: the exact solution at once, no NaN, as NumPy."""
    X = np.tile(np.array([3.0, -1.0, 0.0, 2.5]), (60, 1))
    a, b = both_fits(MEDIAN, X, 25)
    assert_same_fit(a, b, (25, 25, 10))
    assert np.isfinite(b.low_rank_.compute()).all() and np.isfinite(b.components_).all()


def test_outlier_pursuit_refuses_the_median_as_in_memory(threads):
    """Only PCP takes ``center='median'``: outlier pursuit raises the same error on
    NumPy and dask data, the dask one before any pass."""
    X = planted(n=100, d=5)
    model = OutlierPursuit(center="median")
    with pytest.raises(TypeError, match="center") as numpy_error:
        clone(model).fit(X)
    with CountComputes() as counter, pytest.raises(TypeError, match="center") as dask_error:
        clone(model).fit(da.from_array(X, chunks=(30, -1)))
    assert str(dask_error.value) == str(numpy_error.value) and counter.count == 0


# ------------------------------------------------------------- the medians
@st.composite
def tables_and_chunks(draw):
    n = draw(st.integers(1, 90))
    d = draw(st.integers(1, 4))
    values = st.one_of(
        st.integers(-3, 3).map(float),  # ties
        st.sampled_from([0.0, -0.0, 1e-300, -1e-300, 1e300, -1e300, 5e-324]),
        st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
    )
    X = draw(hnp.arrays(np.float64, (n, d), elements=values))
    cuts = sorted(draw(st.sets(st.integers(1, max(n - 1, 1)), max_size=6)) if n > 1 else [])
    sizes = np.diff([0, *cuts, n]).tolist()
    budget = draw(st.sampled_from([1, 3, 50, GATHER_BUDGET]))
    return X, sizes, budget


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(tables_and_chunks())
def test_chunked_column_medians_are_numpys(case):
    """Any data (ties, signed zeros, subnormals, huge values), any chunking, any gather
    budget: ``numpy.median``'s column medians to the bit, and no pass gathers more than
    the budget's worth of values (past it, the counts go on to the last bit)."""
    X, sizes, budget = case
    runner = ChunkRunner(X, sizes)
    got = column_medians(runner, *X.shape, budget=budget)
    expected = np.median(X, axis=0)
    np.testing.assert_array_equal(got, expected)
    assert all(size <= budget for size in runner.gathered)


def test_ties_cost_passes_not_transfers():
    """Binary columns, 20,000 rows, a gathering budget of 100 values: the medians are
    found by counting to the last bit, with nothing gathered at all."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(20_000, 3)).astype(float)
    runner = ChunkRunner(X, [5000] * 4)
    got = column_medians(runner, *X.shape, budget=100)
    np.testing.assert_array_equal(got, np.median(X, axis=0))
    assert runner.gathered == [] and runner.n_passes <= 5


def test_median_kernels_can_run_again_from_their_inputs():
    """A ``distributed`` cluster may run a task again after losing a worker: the median
    passes leave their input alone and give the same result twice, to the bit."""
    X = planted(5, n=500, d=6)
    runner = RerunRunner(X, 120)
    np.testing.assert_array_equal(column_medians(runner, *X.shape), np.median(X, axis=0))


def test_signed_keys_order_as_the_values():
    values = np.array([-np.inf, -1e300, -1.5, -5e-324, -0.0, 0.0, 5e-324, 2.0, 1e300, np.inf])
    keys = order_statistics.order_keys(values, signed=True)
    assert np.all(np.diff(keys.astype(object)) >= 0)
    assert keys[4] == keys[5]  # -0.0 is 0.0
    back = order_statistics._values_of_keys(keys, signed=True)
    np.testing.assert_array_equal(back, values)
    assert not np.signbit(back[4])


@pytest.mark.parametrize("signed", [False, True])
def test_keys_of_a_big_endian_array_order_as_the_values(signed):
    """The unsigned keys had been the big-endian bit patterns, which do not order."""
    values = np.array([3.0, 1.0, 2.0, 0.5, 7.25])
    keys = order_statistics.order_keys(values.astype(">f8"), signed=signed)
    np.testing.assert_array_equal(keys, order_statistics.order_keys(values, signed=signed))
    np.testing.assert_array_equal(np.argsort(keys), np.argsort(values))


# ---------------------------------------------------------------- real data
@pytest.mark.realdata
@pytest.mark.parametrize("table", ["19_landsat", "26_optdigits"])
def test_adbench_table_parity(threads, shared_data, table):
    """ADBench's landsat (6,435 x 36) and optdigits (5,216 x 64, integer pixels: many
    ties and constant columns) in blocks of 1,000 rows: the NumPy fit."""
    X = np.load(shared_data / "adbench" / f"{table}.npz")["X"].astype(np.float64)
    a, b = both_fits(MEDIAN, X, 1000)
    assert_same_fit(a, b, da.from_array(X, chunks=(1000, -1)).chunks[0])
    np.testing.assert_array_equal(b.mean_, np.median(X, axis=0))
