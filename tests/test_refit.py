"""A refit is a fresh fit: no fitted attribute of the previous data survives it.

PCP, outlier pursuit and CRPCA-OM fitted on complete data and then refitted with gaps
kept the first fit's ``residuals_`` (its trace of the primal and dual residuals), which
the gap route does not store; a Dask fit's ``n_passes_`` survived a NumPy refit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import robustpca

from .conftest import load_table, make_estimator, random_gaps

#: the convex programs' penalty sets their rank; R-T-PCA's ranks are three parameters
PENALISED = {"PrincipalComponentPursuit", "OutlierPursuit", "ConvexOptimalMeanPCA"}
PARAMS = {"RobustTransferPCA": {"n_shared": 1, "n_source": 1, "n_target": 1, "max_iter": 300}}


def _model(name: str):
    params = PARAMS.get(name, {} if name in PENALISED else {"n_components": 2})
    return make_estimator(name, **params)


def _fitted(model) -> dict:
    return {k: v for k, v in vars(model).items() if k.endswith("_") and not k.startswith("_")}


def _fit(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X)


SEQUENCES = [(False, False)] + [(a, b) for a in (False, True) for b in (False, True) if a or b]
CASES = [
    (name, first, second)
    for name in robustpca.ESTIMATOR_NAMES
    for first, second in SEQUENCES
    if not (first or second) or getattr(robustpca, name)._supports_missing
]


@pytest.mark.realdata
@pytest.mark.parametrize(("name", "first_gaps", "second_gaps"), CASES)
def test_a_refit_equals_a_fresh_fit(shared_data, name, first_gaps, second_gaps):
    """bushfire, then wood (complete or with a tenth missing): the same fitted
    attributes, by name and value, as a fit of wood alone."""
    A = load_table(shared_data, "bushfire")
    B = load_table(shared_data, "wood")
    A = random_gaps(A, 0)[0] if first_gaps else A
    B = random_gaps(B, 1)[0] if second_gaps else B
    refitted = _fit(_fit(_model(name), A), B)
    fresh = _fit(_model(name), B)
    assert sorted(_fitted(refitted)) == sorted(_fitted(fresh))
    for key, value in _fitted(fresh).items():
        _assert_same(getattr(refitted, key), value, key)


def _assert_same(other, value, key: str) -> None:
    if isinstance(value, dict):
        assert sorted(other) == sorted(value), key
        for k in value:
            _assert_same(other[k], value[k], f"{key}[{k}]")
    elif isinstance(value, np.ndarray | list | tuple) and not isinstance(value, str):
        np.testing.assert_allclose(np.asarray(other, float), np.asarray(value, float), err_msg=key)
    elif isinstance(value, float):
        assert other == value or (np.isnan(value) and np.isnan(other)), key
    elif not callable(value):
        assert other == value, key


def test_a_numpy_refit_drops_the_dask_fit_s_passes():
    da = pytest.importorskip("dask.array")
    X = np.random.default_rng(0).normal(size=(200, 6))
    model = robustpca.R1PCA(n_components=2).fit(da.from_array(X, chunks=(50, 6)))
    assert model.n_passes_ >= 1
    model.fit(X)
    assert not hasattr(model, "n_passes_")
