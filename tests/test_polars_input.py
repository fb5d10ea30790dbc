"""polars DataFrames as input, as scikit-learn's own estimators take them.

A polars frame is read as the NumPy array of its values (nulls are missing entries, as
NaN): every method of the estimators that take missing entries gives the NumPy results
(``observed_counts`` once took any frame for pandas); under ``array_api_dispatch`` a
frame is host input, as a pandas one is; ``fit(X, mask=...)`` keeps a polars frame a
polars frame, so that ``feature_names_in_`` is set.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import polars as pl
import pytest
from sklearn import config_context
from sklearn.base import clone
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.exceptions import ConvergenceWarning

import robustpca
from robustpca.diagnostics import observed_counts

from .conftest import make_estimator, random_data, random_gaps

#: The estimators that take missing entries (input tag ``allow_nan``).
NAN_ESTIMATORS = [
    name
    for name in robustpca.ESTIMATOR_NAMES
    if getattr(robustpca, name)().__sklearn_tags__().input_tags.allow_nan
]
#: The estimators with ``fit(X, mask=...)`` (PCP, outlier pursuit, CRPCA-OM, AccAltProj,
#: GoDec).
MASKED = [
    name
    for name in robustpca.ESTIMATOR_NAMES
    if "mask" in inspect.signature(getattr(robustpca, name).fit).parameters
]
COLUMNS = ["a", "b", "c", "d", "e", "f"]


def _estimator(name):
    """``name`` with 2 components, a (3, 2) image shape for the 2-D methods (6 columns),
    10% contamination (labels that do not rest on one cutoff rule's ties) and 50 MCD
    starts, not 500 (each refit of the imputation of gaps runs the MCD anew)."""
    estimator = make_estimator(name, n_components=2)
    settings = {"image_shape": (3, 2), "contamination": 0.1, "n_starts": 50}
    params = estimator.get_params()
    return estimator.set_params(**{k: v for k, v in settings.items() if k in params})


def _frame(X, columns=COLUMNS):
    """``X`` as a polars DataFrame, its NaN as nulls (polars' missing values)."""
    frame = pl.from_numpy(X, schema=list(columns), orient="row").fill_nan(None)
    assert frame.null_count().sum_horizontal().item() == np.isnan(X).sum()
    return frame


def _results(model, X) -> dict:
    """The outputs of the fitted ``model``'s prediction methods on ``X``."""
    methods = ["transform", "predict", "score_samples", "decision_function", "score"]
    return {m: getattr(model, m)(X) for m in methods if hasattr(model, m)}  # KernelL21PCA: no score


def _assert_same(results, expected):
    for method, value in expected.items():
        if method == "predict":
            np.testing.assert_array_equal(results[method], value, err_msg=method)
        else:
            np.testing.assert_allclose(results[method], value, rtol=1e-9, atol=1e-9, err_msg=method)


def _quiet(call, *args, **kwargs):
    """``call(*args, **kwargs)`` without the ConvergenceWarning of short fits (the same
    on both sides of a comparison)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return call(*args, **kwargs)


@pytest.mark.parametrize("gaps", [False, True], ids=["complete", "nulls"])
@pytest.mark.parametrize("name", NAN_ESTIMATORS)
def test_a_polars_frame_gives_the_numpy_results(name, gaps):
    """Fit, predict, score_samples, decision_function, score and fit_predict on a polars
    frame equal those on its NumPy array; with gaps, the frame's nulls are the array's
    NaN."""
    X = random_data(0, 60, 6)
    if gaps:
        X, _ = random_gaps(X, 0)
    frame = _frame(X)
    model = _quiet(_estimator(name).fit, frame)
    reference = _quiet(_estimator(name).fit, X)
    assert list(model.feature_names_in_) == COLUMNS
    _assert_same(_quiet(_results, model, frame), _quiet(_results, reference, X))
    labels = _quiet(_estimator(name).fit_predict, frame)
    np.testing.assert_array_equal(labels, _quiet(_estimator(name).fit_predict, X))


def test_observed_counts_read_polars_nulls_and_pandas_na():
    """The observed coordinates per row: a polars frame's nulls and a pandas frame's
    ``pd.NA`` (nullable dtype) count as NumPy's NaN; a complete frame has no gaps."""
    pd = pytest.importorskip("pandas")
    X, _ = random_gaps(random_data(1, 40, 6), 1)
    model = robustpca.PCA(n_components=2).fit(X)
    expected = (~np.isnan(X)).sum(axis=1)
    np.testing.assert_array_equal(observed_counts(model, _frame(X)), expected)
    nullable = pd.DataFrame(X, columns=COLUMNS).astype("Float64")
    assert nullable.isna().to_numpy().sum() == np.isnan(X).sum()
    np.testing.assert_array_equal(observed_counts(model, nullable), expected)
    assert observed_counts(model, _frame(np.nan_to_num(X))) is None


def _sklearn_refuses_frames_under_dispatch(frame) -> TypeError | None:
    """scikit-learn's own PCA's error for ``frame`` under ``array_api_dispatch``: its
    1.6 release looks for the namespace of any input (pandas too), later ones read a
    frame as NumPy data."""
    with config_context(array_api_dispatch=True):
        try:
            SklearnPCA(n_components=2).fit(frame)
        except TypeError as exc:
            return exc
    return None


@pytest.mark.parametrize("name", robustpca.ESTIMATOR_NAMES)
def test_a_polars_frame_under_array_api_dispatch_is_host_input(name):
    """With ``array_api_dispatch`` on, a polars frame is read as NumPy data (as a pandas
    one is, and as scikit-learn's estimators read it): NumPy results equal to the fit
    without dispatch, feature names recorded. Where scikit-learn itself refuses frames
    under dispatch (1.6), the estimators refuse it as it does."""
    X = random_data(2, 60, 6)
    frame = _frame(X)
    estimator = _estimator(name)
    if "max_iter" in estimator.get_params():  # short fits (the same on both sides)
        estimator.set_params(max_iter=100)
    reference = _quiet(clone(estimator).fit, X)
    if _sklearn_refuses_frames_under_dispatch(frame) is not None:
        with config_context(array_api_dispatch=True), pytest.raises(TypeError):
            _quiet(clone(estimator).fit, frame)
        return
    with config_context(array_api_dispatch=True):
        model = _quiet(clone(estimator).fit, frame)
        results = _quiet(_results, model, frame)
    assert list(model.feature_names_in_) == COLUMNS
    assert all(isinstance(value, np.ndarray | float) for value in results.values())
    _assert_same(results, _quiet(_results, reference, X))


@pytest.mark.parametrize("name", MASKED)
def test_a_masked_polars_fit_keeps_the_feature_names(name):
    """``fit(frame, mask=...)`` records the frame's column names and fits as the NumPy
    array with the same mask; the frame then transforms without a feature-name warning,
    and ``fit_transform`` and ``fit_predict`` with the mask agree with NumPy's."""
    X = random_data(3, 40, 6)
    mask = np.random.default_rng(3).random(X.shape) > 0.1
    frame = _frame(X)
    model = _quiet(_estimator(name).fit, frame, mask=mask)
    reference = _quiet(_estimator(name).fit, X, mask=mask)
    assert list(model.feature_names_in_) == COLUMNS
    np.testing.assert_allclose(model.low_rank_, reference.low_rank_, rtol=1e-9, atol=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "X has feature names, but ... without" is a UserWarning
        Z = model.transform(frame)
    np.testing.assert_allclose(Z, reference.transform(X), rtol=1e-9, atol=1e-9)
    estimator = _estimator(name)
    Z = _quiet(clone(estimator).fit_transform, frame, mask=mask)
    np.testing.assert_allclose(Z, _quiet(clone(estimator).fit_transform, X, mask=mask), atol=1e-9)
    labels = _quiet(clone(estimator).fit_predict, frame, mask=mask)
    np.testing.assert_array_equal(labels, _quiet(clone(estimator).fit_predict, X, mask=mask))


@pytest.mark.realdata
@pytest.mark.parametrize("name", ["PCA", "SphericalPCA"])
def test_breastw_as_a_polars_frame_of_integers(adbench, name):
    """ADBench's breast-cancer table (683 x 9 cytology scores, integers 1-10) as a polars
    frame of UInt8 columns, complete and with a tenth of its cells null: the outlier
    labels, scores and likelihood of the NumPy fit on the float table (NaN at the
    nulls)."""
    X = np.load(adbench / "4_breastw.npz")["X"].astype(np.float64)
    columns = [f"x{j}" for j in range(X.shape[1])]
    gappy, _ = random_gaps(X, 4)
    for data in (X, gappy):
        frame = _frame(data, columns).cast(pl.UInt8)
        model = _quiet(_estimator(name).fit, frame)
        reference = _quiet(_estimator(name).fit, data)
        assert list(model.feature_names_in_) == columns
        _assert_same(_quiet(_results, model, frame), _quiet(_results, reference, data))
