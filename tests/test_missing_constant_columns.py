"""Constant columns with missing entries (:mod:`robustpca.solvers.informative_coordinates`):
the entries of a column whose observed entries are all equal carry nothing, so a row
whose other observed coordinates number at most ``k`` is fitted exactly. Counted as
observed, a constant fourth column on rrcov's hbk with gaps moved the subspace of the
eight majorize-minimize estimators by up to 0.65 (PCA's EM ran to ``max_iter``) and
changed up to 14 flags; the diagnostics of the others, whose subspaces did not move,
changed up to 11."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.linalg import subspace_angles

import robustpca
from robustpca import PCA, GoDec, OptimalMeanPCA, PrincipalComponentPursuit
from robustpca.diagnostics import observed_counts
from robustpca.solvers.chunked_missing import ColumnRange
from robustpca.solvers.informative_coordinates import (
    ConstantColumns,
    constant_columns,
    informative_counts,
    informative_rows,
    model_constants,
    observed_od,
    od_correction,
    uninformative_entries,
)

from .conftest import random_gaps

#: the uncentred models keep a nonzero constant column as a direction of the data
UNCENTRED = {"AccAltProj", "GoDec", "GRASTA", "OnlineRobustPCA"}
#: centred on request
CENTRED_ON_REQUEST = {"PrincipalComponentPursuit", "OutlierPursuit"}
#: their penalty sets the rank
PENALISED = {"PrincipalComponentPursuit", "OutlierPursuit", "ConvexOptimalMeanPCA"}
CENTRED = [
    name
    for name in robustpca.ESTIMATOR_NAMES
    if getattr(robustpca, name)._supports_missing and name not in UNCENTRED
]
#: SphericalPCA's spatial median stops on steps below ``delta * sqrt(p)`` (rrcov's rule):
#: one more column moves where it stops (by 2e-6 in the projectors here)
DIMENSION_TOLERANCE = {"SphericalPCA": 1e-5}


def _model(name: str):
    cls = getattr(robustpca, name)
    params = cls().get_params()
    kwargs = {"center": True} if name in CENTRED_ON_REQUEST else {}
    if "random_state" in params:
        kwargs["random_state"] = 0
    if "n_components" in params and name not in PENALISED:
        kwargs["n_components"] = 2
    return cls(**kwargs)


def _fit(name: str, X):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = _model(name).fit(X)
    return model, sorted({type(w.message).__name__ for w in caught})


def _projector_gap(A: np.ndarray, B: np.ndarray) -> float:
    return float(np.abs(A.T @ A - B.T @ B).max())


@pytest.fixture(scope="module")
def hbk(shared_data):
    return np.loadtxt(shared_data / "rrcov" / "hbk.csv", delimiter=",", skiprows=1)


def _assert_constants(found, mask, values):
    np.testing.assert_array_equal(found.mask, mask)
    np.testing.assert_array_equal(found.values, values)
    assert np.isfinite(found.values).all() and found.values.dtype == np.float64


def test_constant_columns_ignore_the_missing_entries():
    X = np.array([[1.0, 2.0, np.nan, 4.0], [1.0, np.nan, np.nan, 5.0], [1.0, 2.0, np.nan, 6.0]])
    mask, values = [True, True, False, False], [1.0, 2.0, 0.0, 0.0]
    _assert_constants(constant_columns(X), mask, values)
    filled = np.nan_to_num(X, nan=9.0)  # the same entries marked by a mask instead
    _assert_constants(constant_columns(filled, np.isnan(X)), mask, values)
    assert constant_columns(np.arange(6.0).reshape(3, 2)) is None
    ranges = ColumnRange.of(X[:1]) + ColumnRange.of(X[1:])  # the chunked route's
    _assert_constants(ranges.constants(), mask, values)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    dtype=st.sampled_from([np.float64, np.float32]),
    gap=st.booleans(),
)
def test_a_fit_with_no_nan_takes_its_checks_from_the_column_ranges(seed, dtype, gap):
    """A fit whose data hold no NaN takes the magnitude check and the constant columns
    from one pass of column minima and maxima (``column_ranges``): the same constants as
    the NaN-ignoring reductions, and None where a NaN makes the ranges NaN."""
    from robustpca._validation import column_ranges

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(7, 5)).astype(dtype)
    X[:, rng.random(5) < 0.4] = dtype(rng.normal())  # some constant columns
    X[:, 0] = -0.0 if rng.random() < 0.5 else X[:, 0]  # -0.0 equals 0.0
    if gap:
        X[rng.integers(7), rng.integers(5)] = np.nan
    ranges = column_ranges(X)
    assert (ranges is None) == gap
    if ranges is not None:
        fast, slow = constant_columns(X, ranges=ranges), constant_columns(X)
        assert (fast is None) == (slow is None)
        if fast is not None:
            _assert_constants(fast, slow.mask, slow.values)
        model = PCA(n_components=2).fit(X)  # the fit's own constants agree
        expected = model_constants(slow, model.mean_, model.components_)
        assert (model._unmodelled_constants is None) == (expected is None)


def test_the_informative_entries_leave_out_the_constant_columns():
    X = np.array([[1.0, 2.0, 3.0], [1.0, np.nan, 4.0], [np.nan, 6.0, 5.0]])
    missing = np.isnan(X)
    constants = constant_columns(X)
    expected = [[True, False, False], [True, True, False], [True, False, False]]
    np.testing.assert_array_equal(uninformative_entries(missing, constants), expected)
    assert uninformative_entries(missing, None) is missing
    counts, p = informative_counts(missing, constants)
    np.testing.assert_array_equal(counts, [2, 1, 2])
    assert p == 2
    counts, p = informative_counts(missing, None)
    np.testing.assert_array_equal(counts, [3, 2, 2])
    assert p == 3


def test_the_od_keeps_a_deviation_from_a_constant_whole():
    """``observed_od``: a complete row's distance is its residual norm; the informative
    residual of a row with gaps takes ``od_correction``, its deviation from a constant
    column does not."""
    X = np.array([[5.0, 1.0, 2.0, 3.0], [8.0, np.nan, 2.0, 3.0], [5.0, np.nan, 2.0, 3.0]])
    missing = np.isnan(X)
    constants = ConstantColumns(np.array([True, False, False, False]), np.array([5.0, 0, 0, 0]))
    r = np.array([0.5, 5.0, 0.5])  # row 1: the deviation 3 and an informative residual 4
    od = observed_od(r, X, missing, constants, 1)
    np.testing.assert_allclose(od, [0.5, np.hypot(3.0, 4.0 * np.sqrt(2.0)), 0.5 * np.sqrt(2.0)])
    np.testing.assert_allclose(
        observed_od(r, X, missing, None, 1), r * od_correction([4, 3, 3], 4, 1)
    )


def test_model_constants_need_the_mean_at_the_constant_and_no_loading():
    constants = ConstantColumns(np.array([False, True, True]), np.array([0.0, 5.0, 0.0]))
    components = np.array([[1.0, 0.0, 0.0]])
    kept = model_constants(constants, np.array([3.0, 5.0, 0.0]), components)
    _assert_constants(kept, [False, True, True], [0.0, 5.0, 0.0])
    loaded = np.array([[0.8, 0.6, 0.0]])
    kept = model_constants(constants, np.array([3.0, 5.0, 0.0]), loaded)
    _assert_constants(kept, [False, False, True], [0.0, 0.0, 0.0])
    through_origin = model_constants(constants, np.zeros(3), components)
    _assert_constants(through_origin, [False, False, True], [0.0, 0.0, 0.0])
    assert model_constants(constants, np.array([3.0, 4.0, 1.0]), components) is None
    assert model_constants(None, np.zeros(3), components) is None


@pytest.mark.realdata
@pytest.mark.parametrize("seed", [0, 1, 3])
@pytest.mark.parametrize("name", CENTRED)
def test_a_constant_column_changes_nothing_with_gaps(hbk, name, seed):
    """hbk (``k = 2`` of 3 columns) with random gaps and a constant column (5.0, a dead
    sensor) appended: the fit, its warnings and its flags are those of the table without
    the column, to 1e-9 in the projectors (SphericalPCA: ``DIMENSION_TOLERANCE``), and
    the column has no loading. The row counts
    of the diagnostics leave the constant entries out."""
    Xm, mask = random_gaps(hbk, seed)
    padded = np.column_stack([Xm, np.full(len(hbk), 5.0)])
    reference, reference_warnings = _fit(name, Xm)
    model, model_warnings = _fit(name, padded)
    k = min(2, reference.n_components_)
    gap = _projector_gap(model.components_[:k, :3], reference.components_[:k])
    assert gap < DIMENSION_TOLERANCE.get(name, 1e-9)
    assert np.abs(model.components_[:, 3]).max() < 1e-8
    assert model_warnings == reference_warnings
    np.testing.assert_array_equal(model.predict(padded), reference.predict(Xm))
    np.testing.assert_array_equal(observed_counts(model, padded), 3 - mask.sum(axis=1))


@pytest.mark.realdata
def test_the_rows_left_out_count_the_informative_entries(hbk):
    """The arithmetic-mean-centred EM runs on the rows with more than ``k`` informative
    entries: with the constant column, the same rows as without it."""
    Xm, mask = random_gaps(hbk, 0)
    padded = np.column_stack([Xm, np.full(len(hbk), 5.0)])
    rows = informative_rows(padded, np.isnan(padded), 2)
    np.testing.assert_array_equal(rows, np.flatnonzero(mask.sum(axis=1) == 0))


@pytest.mark.realdata
@pytest.mark.parametrize("cls", [PCA, OptimalMeanPCA], ids=lambda c: c.__name__)
def test_the_dask_route_counts_the_informative_entries(hbk, cls):
    """The tall dask route (column ranges from its first pass): with the constant column
    it finds its own subspace without the column, and its lazy scores of new rows are
    the in-memory model's."""
    da = pytest.importorskip("dask.array")
    Xm, _ = random_gaps(hbk, 1)
    padded = np.column_stack([Xm, np.full(len(hbk), 5.0)])
    kw = {} if cls is PCA else {"tol": 1e-10, "max_iter": 1000}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = cls(2, random_state=0, **kw).fit(da.from_array(Xm, chunks=(25, 3)))
        chunked = cls(2, random_state=0, **kw).fit(da.from_array(padded, chunks=(25, 4)))
        memory = cls(2, random_state=0, **kw).fit(padded)
    angles = subspace_angles(chunked.components_[:, :3].T, plain.components_.T)
    assert np.sin(angles.max()) < 1e-9
    _assert_constants(chunked._unmodelled_constants, [False] * 3 + [True], [0.0] * 3 + [5.0])
    new = padded[:10].copy()
    new[::2, 3] = 6.0  # informative: differs from the training constant
    lazy = memory.score_samples(da.from_array(new, chunks=(5, 4))).compute()
    np.testing.assert_allclose(lazy, memory.score_samples(new), rtol=1e-12, atol=1e-12)


@pytest.mark.realdata
def test_a_new_row_off_a_constant_keeps_that_deviation(hbk):
    """A new row with one gap (2 of hbk's 3 columns observed, ``k = 2``: fitted exactly)
    has orthogonal distance 0 at the training constant, and its deviation from it (10)
    as its distance otherwise, which is flagged; complete rows keep their residual norm,
    whatever the other rows of the batch."""
    Xm, _ = random_gaps(hbk, 0)
    padded = np.column_stack([Xm, np.full(len(hbk), 5.0)])
    model = PCA(2).fit(padded)
    rows = np.array([[np.nan, 2.0, 3.0, 5.0], [np.nan, 2.0, 3.0, 15.0], [1.0, 2.0, 3.0, 9.0]])
    od = model.reconstruction_error(rows)
    assert od[0] == 0.0
    assert od[1] == pytest.approx(10.0, rel=1e-12)
    assert od[2] == pytest.approx(model.reconstruction_error(rows[2:])[0], rel=1e-12)
    np.testing.assert_array_equal(observed_counts(model, rows), [2, 2, 3])
    np.testing.assert_array_equal(model.predict(rows), [1, -1, -1])


@pytest.mark.realdata
def test_uncentred_models_keep_a_constant_column(hbk):
    """GoDec (no offset) and PCP without ``center`` model the nonzero constant column as
    a direction of the data: nothing is left out for them."""
    Xm, _ = random_gaps(hbk, 0)
    padded = np.column_stack([Xm, np.full(len(hbk), 5.0)])
    for model in (GoDec(2, random_state=0), PrincipalComponentPursuit()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(padded)
        assert model._unmodelled_constants is None
    zero = PCA(2).fit(np.column_stack([hbk, np.zeros(len(hbk))]))._unmodelled_constants
    _assert_constants(zero, [False] * 3 + [True], [0.0] * 4)  # through the origin too


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(10, 40),
    d=st.integers(3, 5),
    rate=st.floats(0.05, 0.3),
    where=st.integers(0, 5),
    value=st.sampled_from([0.0, -3.5, 1e3]),
)
def test_inserting_a_constant_column_changes_no_pca_fit(seed, n, d, rate, where, value):
    """PCA with gaps at ``k = d - 1`` (many rows fitted exactly): a constant column
    inserted anywhere leaves the subspace (to 1e-7 in sine), the mean elsewhere and the
    flags unchanged, and the column gets no loading."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + 5.0
    missing = rng.random(X.shape) < rate
    missing[missing.all(axis=1), 0] = False
    k = d - 1
    assume(missing.any() and (~missing).sum() > d + k * (d - k) + n * k)  # else refused
    Xm = np.where(missing, np.nan, X)
    where = min(where, d)
    padded = np.insert(Xm, where, value, axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = PCA(k).fit(Xm)
        model = PCA(k).fit(padded)
    assume(reference.converged_)
    assert model.converged_
    kept = np.delete(model.components_, where, axis=1)
    assert np.sin(subspace_angles(kept.T, reference.components_.T).max()) < 1e-7
    assert np.abs(model.components_[:, where]).max() < 1e-8
    assert model.mean_[where] == pytest.approx(value, abs=1e-9 * max(1.0, abs(value)))
    scale = float(np.nanmax(np.abs(Xm)))
    np.testing.assert_allclose(
        np.delete(model.mean_, where), reference.mean_, rtol=0, atol=1e-6 * scale
    )
    np.testing.assert_array_equal(model.predict(padded), reference.predict(Xm))


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(1, 40),
    d=st.integers(1, 6),
    block=st.integers(1, 30),
    order=st.sampled_from("CF"),
    nan_row=st.one_of(st.none(), st.integers(0, 39)),
)
def test_column_ranges_by_blocks_of_rows(seed, n, d, block, order, nan_row):
    """The column ranges are read by blocks of rows: the minima and maxima of the whole
    columns whatever the block and the memory order, and None for a NaN in any block
    (the last included)."""
    from robustpca import _validation

    rng = np.random.default_rng(seed)
    X = np.asarray(rng.normal(size=(n, d)) * 10.0 ** rng.integers(-3, 4, d), order=order)
    if nan_row is not None:
        X[min(nan_row, n - 1), rng.integers(d)] = np.nan
    before = X.copy()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_validation, "_RANGE_BLOCK_ELEMENTS", block)
        ranges = _validation.column_ranges(X)
    np.testing.assert_array_equal(X, before)
    if nan_row is not None:
        assert ranges is None
    else:
        np.testing.assert_array_equal(ranges[0], X.min(axis=0))
        np.testing.assert_array_equal(ranges[1], X.max(axis=0))
