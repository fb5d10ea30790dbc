"""The Dask routes that fit uncentred data through ``d x d`` Gram matrices warn when a
large common offset costs them digits (``docs/dask.md``, "Data far from the origin").

AccAltProj, GoDec, and PCP and outlier pursuit at ``center=False`` take their
decompositions from ``X^T X`` on a dask array, which holds the offset squared; the
in-memory fits work on ``X``. Where the Gram matrix's rounding, ``eps ||m||^2``, passes
``OFFSET_LOSS`` of the rows' spread the fit warns and says what to do; below it the two
routes agree to better than that share (no loss passes silently).
"""

from __future__ import annotations

import warnings

import dask.array as da
import numpy as np
import pytest

from robustpca import AccAltProj, GoDec, OutlierPursuit, PrincipalComponentPursuit
from robustpca._dask.offset_precision import OFFSET_LOSS, offset_loss
from robustpca.solvers.row_spread import RowSpread

MAKERS = {
    "PCP": lambda: PrincipalComponentPursuit(),
    "outlier pursuit": lambda: OutlierPursuit(),
    "AccAltProj": lambda: AccAltProj(n_components=2, random_state=0),
    "GoDec": lambda: GoDec(n_components=2, random_state=0),
}


def _data(offset: float) -> np.ndarray:
    return np.random.default_rng(0).standard_normal((60, 5)) + offset


def _dask_fit(make, X):
    """The Dask fit and the warnings it gave about the offset."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        model = make().fit(da.from_array(X, chunks=20))
    return model, [str(w.message) for w in seen if "far from the origin" in str(w.message)]


@pytest.mark.parametrize("name", MAKERS)
def test_a_dask_fit_far_from_the_origin_warns_what_to_do(name):
    model, messages = _dask_fit(MAKERS[name], _data(1e6))
    assert len(messages) == 1
    assert type(model).__name__ in messages[0]
    assert "Subtract a typical row (the column medians)" in messages[0]
    assert ('center="median"' in messages[0]) == (name == "PCP")


@pytest.mark.parametrize("name", MAKERS)
def test_below_the_threshold_no_warning_and_the_routes_agree(name):
    """An offset of 1e3 standard deviations: ``eps ||m||^2`` is 2e-10 of the spread, no
    warning, and the Dask fit's outlyingness is the in-memory one's to within
    ``OFFSET_LOSS`` of its size."""
    X = _data(1e3)
    assert offset_loss(X.mean(axis=0), X.var(axis=0).sum()) < OFFSET_LOSS
    model, messages = _dask_fit(MAKERS[name], X)
    assert messages == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = MAKERS[name]().fit(X).decision_function(X)
    got = np.asarray(model.decision_function(X))
    assert np.max(np.abs(got - expected)) <= OFFSET_LOSS * np.max(np.abs(expected))


@pytest.mark.parametrize(
    "make",
    [
        lambda: PrincipalComponentPursuit(center="median"),
        lambda: PrincipalComponentPursuit(center=True),
        lambda: OutlierPursuit(center=True),
    ],
)
def test_centred_fits_do_not_warn_far_from_the_origin(make):
    assert _dask_fit(make, _data(1e8))[1] == []


def test_the_in_memory_fit_does_not_warn():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        GoDec(n_components=2, random_state=0).fit(_data(1e8))
    assert not [w for w in seen if "far from the origin" in str(w.message)]


def test_offset_loss_is_the_gram_rounding_over_the_spread():
    eps = np.finfo(np.float64).eps
    assert offset_loss(np.array([3.0, 4.0]), 5.0) == pytest.approx(eps * 25.0 / 5.0)
    assert offset_loss(np.zeros(3), 0.0) == 0.0  # no offset, nothing lost
    assert offset_loss(np.ones(2), 0.0) == 0.0  # constant rows: nothing to lose
    assert offset_loss(np.full(2, 1e8), 1e-20) == 0.0  # their mean's rounding only
    assert offset_loss(np.full(2, 1e8), 1.0) == pytest.approx(eps * 2e16)  # above 1: all lost


@pytest.mark.parametrize("name", MAKERS)
@pytest.mark.parametrize("value", [0.1, 1e150])
def test_constant_rows_far_from_the_origin_do_not_warn(name, value):
    """Identical rows have no spread to lose, though their rounded mean leaves a
    spread of about its rounding (0.1 is no binary fraction)."""
    X = np.tile(np.arange(1.0, 6.0) * value, (60, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the estimators' own warnings on such data
        messages = _dask_fit(MAKERS[name], X)[1]
    assert messages == []


def test_the_spread_of_chunks_is_that_of_their_union():
    """The first passes' :class:`RowSpread`, merged chunk by chunk, is the rows' spread
    about their mean, with no cancellation far from the origin."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 4)) + 1e7
    merged = RowSpread.of(X[:0])
    for start in range(0, 50, 7):
        merged = merged + RowSpread.of(X[start : start + 7])
    centred = X - X.mean(axis=0)
    assert merged.count == 50
    np.testing.assert_allclose(merged.mean, X.mean(axis=0), rtol=1e-15)
    np.testing.assert_allclose(merged.spread, (centred**2).sum() / 50, rtol=1e-8)
