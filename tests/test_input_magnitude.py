"""Entries too large to square: a ``ValueError`` naming ``X``, and clean fits up to it.

Every estimator sums squares of the data (variances, distances, Gram matrices). Before
:func:`robustpca._validation.check_magnitude`, one row at 1e160 among standard normal
ones ended, depending on the estimator, in a ``LinAlgError`` ("SVD did not converge"),
an ``OverflowError`` (GoDec), a ``ZeroDivisionError`` (PCA-L21), a ``kernel_width=inf``
error (HQ-PCA) or infinite ``score_samples``; float32 data did the same from 1.8e19,
where their squares overflow float32 (scikit-learn's ``PCA`` returns an infinite
``explained_variance_`` there, then fails in ``score_samples``). Data of the largest
magnitude allowed, on the other hand, must fit with finite attributes and scores and
without an overflow warning: ROBPCA's C-steps multiplied the eigenvalues (rrcov's
determinant) and overflowed there, so that they ran to their 100th step.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import robustpca
from robustpca._validation import check_magnitude, magnitude_limit

from .conftest import load_table, make_estimator

IMAGES = {"TwoDPCA", "GLRAM", "Robust2DPCA", "CappedRobust2DPCA", "L21TwoDPCA"}
#: R-T-PCA at its default ranks needs more than bushfire's 5 columns
PARAMS = {"RobustTransferPCA": {"n_shared": 1, "n_source": 1, "n_target": 1, "max_iter": 300}}
NAMES = list(robustpca.ESTIMATOR_NAMES)
DTYPES = [np.float64, np.float32]


def _estimator(name: str):
    model = make_estimator(name, **PARAMS.get(name, {}))
    if model.get_params().get("n_components") == "auto":  # rrcov's: 1 or 2 on bushfire
        model.set_params(n_components=3)  # ROBPCA's C-steps overflowed with k >= 2
    return model


def _at_limit(X: np.ndarray, dtype, how: str) -> np.ndarray:
    """``X`` in ``dtype`` with its largest entry at 0.99 of the limit: every entry
    scaled (``'all'``), or one row moved out there (``'row'``, a gross outlier)."""
    limit = 0.99 * magnitude_limit(dtype, X.size)
    if how == "all":
        return (X / np.abs(X).max() * limit).astype(dtype)
    X = X.copy()
    X[7] = limit * np.where(X[7] < 0, -1.0, 1.0)
    return X.astype(dtype)


@pytest.mark.realdata
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", NAMES)
def test_entries_past_the_limit_are_refused(shared_data, name, dtype):
    """Bushfire with one entry just past the limit: a ``ValueError`` that names ``X``,
    gives the magnitude and the bound, at ``fit`` (and for new data at ``transform``)."""
    X = load_table(shared_data, "bushfire")
    limit = magnitude_limit(dtype, X.size)
    bad = X.astype(dtype)
    bad[3, 2] = 1.01 * limit
    with pytest.raises(ValueError, match=r"X holds entries of magnitude up to .* overflow"):
        _estimator(name).fit(bad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = _estimator(name).fit(X.astype(dtype))
    with pytest.raises(ValueError, match=r"X holds entries of magnitude up to .* overflow"):
        model.score_samples(bad)


@pytest.mark.realdata
@pytest.mark.parametrize("table", ["bushfire", "wood"])  # wood: ROBPCA's C-steps (n < 5 p)
@pytest.mark.parametrize("how", ["all", "row"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", NAMES)
def test_entries_at_the_limit_fit_cleanly(shared_data, name, dtype, how, table):
    """A table at the largest magnitude allowed (every entry scaled there, or one row
    moved there): finite attributes, transforms and scores, and no overflow warning."""
    X = _at_limit(load_table(shared_data, table), dtype, how)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", RuntimeWarning)  # an overflow anywhere fails
        model = _estimator(name).fit(X)
        outputs = [model.transform(X), model.score_samples(X), model.decision_function(X)]
    for attribute in ("components_", "mean_", "explained_variance_"):
        value = getattr(model, attribute, None)
        if value is not None:
            assert np.all(np.isfinite(value)), attribute
    for out in outputs:
        assert np.all(np.isfinite(out))
    if how == "row" and name not in IMAGES | {"KernelL21PCA"}:
        assert model.predict(X)[7] == -1  # the row out there is an outlier


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_the_limit_is_where_the_summed_squares_overflow(dtype):
    """The bound is half the square root of ``max / size``: the squares of entries at
    it, summed over every entry, are a quarter of the largest float, so that centring
    (which can double an entry) leaves the sum finite."""
    size = 1000
    limit = magnitude_limit(dtype, size)
    X = np.full((100, 10), limit, dtype=dtype)
    check_magnitude(X)  # at the bound: accepted
    total = np.sum(X * X, dtype=dtype)
    assert total <= 0.2501 * np.finfo(dtype).max
    assert np.isfinite(np.sum((2 * X[:-1]) ** 2, dtype=dtype))  # centred at the opposite end
    X[5, 5] = np.nextafter(dtype(limit), dtype(np.inf))
    with pytest.raises(ValueError, match="X holds entries"):
        check_magnitude(X)
    X[5, 5] = np.nan  # NaN (a missing entry) is not a magnitude
    check_magnitude(X)
    if dtype == np.float32:
        with pytest.raises(ValueError, match="pass it as float64"):
            check_magnitude(np.full((10, 10), 1e19, dtype=np.float32))
        check_magnitude(np.full((10, 10), 1e19))  # the same values in float64


def test_source_of_transfer_pca_is_checked():
    rng = np.random.default_rng(0)
    X, source = rng.normal(size=(30, 6)), rng.normal(size=(20, 6))
    source[0, 0] = 1e160
    with pytest.raises(ValueError, match="source holds entries"):
        robustpca.RobustTransferPCA(n_shared=1, n_source=1, n_target=1).fit(X, source=source)


@pytest.mark.parametrize(
    "shape, gap",
    [((200, 5), False), ((200, 5), True), ((5, 200), False)],  # the wide route takes no NaN
    ids=["tall", "tall-gaps", "wide"],
)
def test_dask_fit_refuses_overflowing_data_in_its_first_pass(shape, gap):
    """The Dask route finds the overflow in its first pass's scatter or Gram matrix,
    with no pass of its own."""
    import dask.array as da

    X = np.random.default_rng(0).normal(size=shape)
    X[0, 0] = 1e160
    if gap:
        X[1, 1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(ValueError, match="overflow float64"):
            robustpca.PCA(n_components=2).fit(da.from_array(X, chunks=(50, 50)))
