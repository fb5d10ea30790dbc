"""``score`` after a Dask fit (issue 41): the likelihood model from counting passes.

A Dask fit stores the Gaussian model of ``score`` (:mod:`robustpca.estimators._likelihood`)
beside its training diagnostics: the noise variance :math:`\\sigma^2` (the median of
:math:`OD^2`, or the classical weighted mean for PCA) and the background variance
:math:`\\tau` (the median of the squared norms) come from the same counting passes as the
diagnostics' reference (:mod:`robustpca._dask.reference`). The model must be the one the
in-memory path builds from the same fitted model, to rounding, so that ``score`` of a
dask or NumPy ``X`` equals the in-memory score; and the passes must not grow.
"""

from __future__ import annotations

import copy

import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.decomposition import PCA as SkPCA

import robustpca._dask.reference as dask_reference
from robustpca import PCA, ROBPCA, CovariancePCA, OptimalMeanPCA, SphericalPCA
from robustpca.solvers import chunked_reference
from robustpca.solvers.chunked import NumpyPassRunner
from robustpca.solvers.chunked_reference import exact_statistics

from . import test_dask_detector as _detector
from .conftest import load_table
from .test_dask import CountComputes
from .test_dask_detector import ROUTES, Column, planted, statistics_on_route

# the detector tests' fixtures: the threaded scheduler (autouse) and the two routes
threads = _detector.threads
route = _detector.route


def blocks(X, count=4):
    return da.from_array(X, chunks=(-(-X.shape[0] // count), -1))


def in_memory_twin(model, X, sample_weight=None):
    """The same fitted model with its diagnostics and likelihood built in memory."""
    twin = copy.copy(model)
    twin._set_outlier_reference(X, sample_weight)
    return twin


def assert_same_model(twin, model, rtol=1e-12):
    a, b = twin._likelihood_model(), model._likelihood_model()
    assert b.n_features == a.n_features and b.n_components == a.n_components
    assert b.noise_variance == pytest.approx(a.noise_variance, rel=rtol, abs=1e-300)
    assert b.background_variance == pytest.approx(a.background_variance, rel=rtol, abs=1e-300)
    np.testing.assert_allclose(b.variances, a.variances, rtol=1e-10)
    np.testing.assert_allclose(b.center, a.center, rtol=1e-10, atol=1e-12)


def assert_same_score(twin, model, X, rtol=1e-10):
    expected = twin.score(X)
    assert np.isfinite(expected)
    assert model.score(X) == pytest.approx(expected, rel=rtol)
    assert model.score(blocks(X)) == pytest.approx(expected, rel=rtol)


# ------------------------------------------------------------------ the order statistic
def _lower_median(v, w):
    """The first value in sorted order whose cumulative weight reaches half the total."""
    order = np.argsort(v, kind="stable")
    cum = np.cumsum(w[order])
    return float(v[order][np.searchsorted(cum, 0.5 * cum[-1])])


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_lower_median_equals_the_weighted_median(data):
    """``"lower_median"`` of the counting passes is the lower weighted median (the first
    value whose cumulative weight reaches half), ties, zero weights and fractional
    weights included, on every route."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    n = data.draw(st.integers(1, 300))
    pool = data.draw(st.sampled_from(["continuous", "few", "one"]))
    v = {
        "continuous": lambda: rng.standard_cauchy(n),
        "few": lambda: rng.integers(0, 4, n).astype(float),
        "one": lambda: np.full(n, 1.5),
    }[pool]()
    w = rng.integers(0, 4, n).astype(float)
    fractional = data.draw(st.booleans())
    if fractional:
        w = w * 0.37  # sums not exact in binary
    w[0] = max(w[0], 1.0)
    route = data.draw(st.sampled_from(ROUTES))
    (got,), _, _ = statistics_on_route(v, w, ["lower_median"], route)
    if not fractional:  # exact sums: the very value
        assert got == _lower_median(v, w)
        return
    # a cumulative weight of exactly half the total in exact arithmetic may round
    # either side of it, in memory as in passes (other summation orders): either middle
    order = np.argsort(v, kind="stable")
    cum, half = np.cumsum(w[order]), 0.5 * w.sum()
    sides = [np.searchsorted(cum, half * (1 + s * 1e-9), side="left") for s in (-1, 1)]
    assert got in {float(v[order][min(i, n - 1)]) for i in sides}


def test_lower_median_of_no_weight_is_zero():
    run = NumpyPassRunner(np.arange(5.0)[:, None], chunk_rows=2)
    (got,), _, _ = exact_statistics(run, np.zeros(5), Column(), ["lower_median"], 5)
    assert got == 0.0


# ------------------------------------------------------------------ the fits
@pytest.mark.parametrize(
    "make",
    [
        lambda: PCA(2),
        lambda: OptimalMeanPCA(2),
        lambda: ROBPCA(2, random_state=0),
        lambda: SphericalPCA(2),
    ],
    ids=["pca", "om", "robpca", "spherical"],
)
def test_score_after_a_dask_fit_is_the_in_memory_score(make, route):
    """The classical rule (PCA), the "scores" rule (RPCA-OM) and the rrcov rules: the
    stored model is the in-memory one of the same fit, and score of NumPy or dask X
    equals its score, held-out rows included."""
    X = planted()
    model = make().fit(blocks(X))
    twin = in_memory_twin(model, X)
    assert_same_model(twin, model)
    assert_same_score(twin, model, X)
    held_out = planted(n=120, seed=5)
    assert_same_score(twin, model, held_out)


def test_the_passes_do_not_grow():
    """The variances ride the first stage of the diagnostics: as many passes as the
    diagnostics alone took (test_dask_detector's counts), all counted in n_passes_."""
    X = planted()
    for make, passes in ((lambda: PCA(2), 1), (lambda: OptimalMeanPCA(2), 2)):
        with CountComputes() as counter:
            model = make().fit(blocks(X))
        assert model.n_passes_ == counter.count
        assert model._reference_passes == passes
        assert model._likelihood_model() is not None


def test_counting_route_passes(monkeypatch):
    monkeypatch.setattr(chunked_reference, "SMALL_ROWS", 0)
    monkeypatch.setattr(dask_reference, "SMALL_ROWS", 0)
    X = planted()
    model = OptimalMeanPCA(2).fit(X)
    with CountComputes() as counter:
        dask_reference.set_outlier_reference(model, blocks(X))
    assert counter.count == 1 + 2 + 2  # pilot, first stage, SD stage
    assert_same_model(in_memory_twin(model, X), model)


def test_large_data_take_the_counting_route():
    """Above SMALL_ROWS rows (no forcing): the same model, three passes for PCA."""
    X = planted(n=chunked_reference.SMALL_ROWS + 4000, d=5, k=3)
    model = PCA(3).fit(blocks(X, 6))
    assert model._reference_passes == 3
    twin = in_memory_twin(model, X)
    assert_same_model(twin, model)
    assert model.score(X[:3000]) == pytest.approx(twin.score(X[:3000]), rel=1e-10)


@pytest.mark.parametrize("lazy_weights", [False, True])
def test_pca_sample_weight(lazy_weights, route):
    """PCA's Dask fit with frequency weights (NumPy or dask): the classical noise
    variance of the weighted ODs, rows of zero weight left out, as in memory."""
    X = planted()
    w = np.random.default_rng(1).integers(0, 4, X.shape[0]).astype(float)
    weights = blocks(w[:, None])[:, 0] if lazy_weights else w
    model = PCA(2).fit(blocks(X), sample_weight=weights)
    twin = in_memory_twin(model, X, w)
    assert_same_model(twin, model)
    assert_same_score(twin, model, X)


@pytest.mark.parametrize("fractional", [False, True])
def test_robust_rules_with_weights(fractional, route):
    """The weighted medians (the lower middle value) of the robust rules: no robust
    Dask fit takes weights, so the diagnostics of a fitted RPCA-OM and ROBPCA are
    computed with them directly, against the in-memory ones."""
    X = planted()
    w = np.random.default_rng(3).integers(0, 3, X.shape[0]).astype(float)
    w = w * 0.5 if fractional else w
    for model in (OptimalMeanPCA(2).fit(X), ROBPCA(2, random_state=0).fit(X)):
        dask_reference.set_outlier_reference(model, blocks(X), sample_weight=w)
        twin = in_memory_twin(model, X, w)
        assert_same_model(twin, model)
        assert_same_score(twin, model, X)


@pytest.mark.parametrize("make", [lambda: PCA(2), lambda: OptimalMeanPCA(2)])
def test_missing_entries(make, route):
    """Rows with NaN: observed-coordinates distances, rows with at most k observed
    coordinates left out of both variances, as in memory."""
    X = planted()
    rng = np.random.default_rng(2)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[5, 2:] = np.nan  # two observed coordinates: fitted exactly, left out
    model = make().fit(blocks(X))
    assert model.n_missing_ > 0
    twin = in_memory_twin(model, X)
    assert_same_model(twin, model)
    assert model.score(X) == pytest.approx(twin.score(X), rel=1e-10)


def test_wide_route():
    """Fewer rows than features: the distances come back in one pass and the model is
    built in memory from them."""
    X = planted(n=40, d=120)
    dX = da.from_array(X, chunks=(40, 30))
    model = OptimalMeanPCA(2).fit(dX)
    assert model._reference_passes == 1
    twin = in_memory_twin(model, X)
    assert_same_model(twin, model, rtol=1e-10)
    assert model.score(X) == pytest.approx(twin.score(X), rel=1e-10)


def test_score_is_finite_when_the_fit_holds_every_coordinate():
    """k = d: no orthogonal coordinate, no noise variance (0 as in memory)."""
    X = planted(d=3, k=3, share=0.0)
    model = PCA(3).fit(blocks(X))
    twin = in_memory_twin(model, X)
    assert_same_model(twin, model)
    assert model.score(X) == pytest.approx(twin.score(X), rel=1e-10)


def test_a_model_without_reference_still_says_so():
    X = planted()
    model = OptimalMeanPCA(2).fit(blocks(X))
    model._outlier_reference = None
    with pytest.raises(ValueError, match="no training statistics"):
        model.score(X)


# ------------------------------------------------------------------ real data
@pytest.mark.realdata
@pytest.mark.parametrize("table", ["hbk", "bushfire", "starsCYG", "wood"])
def test_rrcov_tables_score_as_in_memory(shared_data, table, route):
    """rrcov's tables in 4 row blocks: the Dask PCA fit scores as the in-memory fit and
    scikit-learn's PCA.score; ROBPCA's Dask fit as the in-memory model of its fit."""
    X = load_table(shared_data, table)
    a, b = PCA(2).fit(X), PCA(2).fit(blocks(X))
    assert b.score(blocks(X)) == pytest.approx(a.score(X), rel=1e-8)
    assert b.score(X) == pytest.approx(SkPCA(2).fit(X).score(X), rel=1e-8)
    model = ROBPCA(2, random_state=0).fit(blocks(X))
    twin = in_memory_twin(model, X)
    assert_same_model(twin, model)
    assert_same_score(twin, model, X)


@pytest.mark.realdata
@pytest.mark.parametrize("make", [lambda: CovariancePCA(3), lambda: OptimalMeanPCA(3)])
def test_adbench_table_scores_as_in_memory(adbench, make, route):
    """An ADBench table (cardio: 1,831 rows, 21 features, 10% anomalies) in 5 row
    blocks: the model and score of the Dask fit are the in-memory ones of its fit."""
    data = np.load(adbench / "6_cardio.npz")
    X = np.asarray(data["X"], dtype=np.float64)
    model = make().fit(blocks(X, 5))
    twin = in_memory_twin(model, X)
    assert_same_model(twin, model)
    assert_same_score(twin, model, X)
