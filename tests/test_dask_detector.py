"""The outlier-detector API after a Dask fit (issue 41): the training diagnostics by passes.

A Dask fit stores the reference statistics of its training diagnostics and ``offset_``
(:mod:`robustpca._dask.reference`), computed by exact counting passes
(:mod:`robustpca.solvers.chunked_reference`); they must equal the in-memory ones for the
same fitted model to rounding, for every chunked fit and rule, and ``predict``,
``decision_function``, ``score_samples`` and ``outlier_diagnostics`` of a dask array are
lazy and equal to the NumPy results on the computed array.
"""

from __future__ import annotations

import copy
import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robustpca._dask.reference as dask_reference
from robustpca import (
    HQPCA,
    L21PCA,
    PCA,
    R1PCA,
    ROBPCA,
    AccAltProj,
    AdaptiveNeighborsPCA,
    ConvexOptimalMeanPCA,
    CovariancePCA,
    GeneralizedMeanPCA,
    GoDec,
    OnlineRobustPCA,
    OptimalMeanPCA,
    OutlierPursuit,
    PrincipalComponentPursuit,
    SphericalPCA,
)
from robustpca.diagnostics import outlier_diagnostics
from robustpca.estimators._outlier_api import contamination_offset
from robustpca.robust_scale import weighted_mad as _mad
from robustpca.robust_scale import weighted_median as _median
from robustpca.solvers import chunked_reference, contamination_cut
from robustpca.solvers.chunked import NumpyPassRunner
from robustpca.solvers.chunked_reference import exact_statistics

from .conftest import load_table
from .test_dask import CountComputes

FIELDS = ("score_center", "score_scale", "od_location", "od_scale", "od_floor")
FIELDS += ("sd_location", "sd_scale", "span_od")

#: One estimator per chunked fit (``robustpca._dask.fit.FITS``), small and quick.
ESTIMATORS = {
    "pca": lambda: PCA(2),
    "optimal_mean": lambda: OptimalMeanPCA(2),
    "l21": lambda: L21PCA(2),
    "r1": lambda: R1PCA(2),
    "generalized_mean": lambda: GeneralizedMeanPCA(2),
    "adaptive_neighbors": lambda: AdaptiveNeighborsPCA(2),
    "hq": lambda: HQPCA(2),
    "pcp": lambda: PrincipalComponentPursuit(max_iter=30),
    "outlier_pursuit": lambda: OutlierPursuit(max_iter=30),
    "crpca_om": lambda: ConvexOptimalMeanPCA(max_iter=30),
    "accaltproj": lambda: AccAltProj(2),
    "robpca": lambda: ROBPCA(2, random_state=0),
    "covariance": lambda: CovariancePCA(2, random_state=0),
    "spherical": lambda: SphericalPCA(2),
    "godec": lambda: GoDec(2, random_state=0),
    "online": lambda: OnlineRobustPCA(2, random_state=0),
}


def test_every_chunked_fit_is_covered():
    from robustpca._dask.fit import FITS

    assert set(ESTIMATORS) == set(FITS)


def planted(n=400, d=6, k=2, share=0.1, seed=0):
    """Rank-k data plus noise, the first ``share`` of the rows shifted off it."""
    rng = np.random.default_rng(seed)
    X = 2.0 + rng.normal(size=(n, k)) @ rng.normal(size=(k, d)) + 0.1 * rng.normal(size=(n, d))
    m = int(share * n)
    X[:m] += 4.0 + rng.normal(size=(m, d))
    return X


@pytest.fixture(autouse=True)
def threads():
    with dask.config.set(scheduler="threads"):
        yield


@pytest.fixture(params=["whole", "counting"])
def route(request, monkeypatch):
    """``whole``: small data gathered whole; ``counting``: the counting passes of large
    data forced on small data (a pilot, bins, windows), with bins split."""
    if request.param == "counting":
        monkeypatch.setattr(chunked_reference, "SMALL_ROWS", 0)
        monkeypatch.setattr(dask_reference, "SMALL_ROWS", 0)
        monkeypatch.setattr(chunked_reference, "GATHER_BUDGET", 40)
    return request.param


def in_memory_reference(model, X, sample_weight=None):
    """The in-memory training diagnostics and offset of the same fitted model."""
    twin = copy.copy(model)
    twin._set_outlier_reference(X, sample_weight)
    return twin


def assert_same_reference(a, b, rtol=1e-10, od_atol=1e-300):
    ra, rb = a._outlier_reference, b._outlier_reference
    assert ra.rule == rb.rule and ra.od_cutoff_applies == rb.od_cutoff_applies
    for field in FIELDS:
        va, vb = np.asarray(getattr(ra, field)), np.asarray(getattr(rb, field))
        atol = od_atol if field.startswith("od_") else 1e-300
        np.testing.assert_allclose(vb, va, rtol=rtol, atol=atol, err_msg=field)
    for q in (0.975, 0.9):
        assert rb.score_cutoff(q) == pytest.approx(ra.score_cutoff(q), rel=rtol)
        assert rb.orthogonal_cutoff(q) == pytest.approx(ra.orthogonal_cutoff(q), rel=rtol)


def assert_same_offset(model, twin, dX, sample_weight=None):
    """The Dask offset is the exact cut of the chunk-computed training scores, and equal
    to the in-memory one up to the rounding of those scores (BLAS kernels differ by
    block shape and CPU, so the scores of a block and of the whole table may differ by
    an ulp)."""
    scores = model.score_samples(dX).compute()
    cut = contamination_offset(scores, float(model.contamination), sample_weight)
    assert model.offset_ == cut
    assert model.offset_ == pytest.approx(twin.offset_, rel=1e-12)


def blocks(X, count=4):
    return da.from_array(X, chunks=(-(-X.shape[0] // count), -1))


# ----------------------------------------------------------------- order statistics
def values_with_ties(data):
    n = data.draw(st.integers(2, 300))
    pool = data.draw(st.sampled_from(["continuous", "few", "one"]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    if pool == "continuous":
        v = rng.standard_cauchy(n)
    elif pool == "few":
        v = rng.integers(0, 4, n).astype(float)
    else:
        v = np.full(n, 1.5)
    return v


class Column:
    def __call__(self, x, w):
        weights = np.ones(x.shape[0]) if w is None else w  # the pilot's rows: none
        return x[:, :1], weights[:, None]


#: (SMALL_ROWS, GATHER_BUDGET): gathered whole; counting passes; counting with bins split
ROUTES = [(1 << 16, 1 << 20), (0, 1 << 20), (0, 8)]


def statistics_on_route(v, w, kinds, route, share=0.0):
    """``exact_statistics`` of the values ``v`` (weights ``w``) in three chunks, with a
    pilot, on one of the ``ROUTES``."""
    n = v.size
    old = chunked_reference.SMALL_ROWS, chunked_reference.GATHER_BUDGET
    chunked_reference.SMALL_ROWS, chunked_reference.GATHER_BUDGET = route
    try:
        run = NumpyPassRunner(v[:, None], chunk_rows=max(1, n // 3))
        pilot = (v[:: max(1, n // 7), None], None)
        return exact_statistics(run, w, Column(), kinds, n, pilot=pilot, share=share)
    finally:
        chunked_reference.SMALL_ROWS, chunked_reference.GATHER_BUDGET = old


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_exact_statistics_equal_sorting(data):
    """Median, MAD and the contamination offset equal the in-memory functions, ties and
    weights included, on the whole route and the counting route (bins split)."""
    v = values_with_ties(data)
    n = v.size
    w = None
    if data.draw(st.booleans()):
        w = np.random.default_rng(n).integers(0, 3, n).astype(float)
        w[0] = 1.0
    share = data.draw(st.sampled_from([0.05, 0.1, 0.5]))
    route = data.draw(st.sampled_from(ROUTES))
    (stats,), summary, _ = statistics_on_route(v, w, ["median_mad"], route)
    (offset,), _, _ = statistics_on_route(v, w, ["offset"], route, share=share)
    kept = v if w is None else v[w > 0]
    wk = None if w is None else w[w > 0]
    stats_w = None if w is None else w
    assert stats[0] == _median(kept, wk)
    assert stats[1] == pytest.approx(_mad(kept, wk), rel=1e-14, abs=1e-300)
    assert offset == contamination_offset(v, share, stats_w)
    assert summary.weight[0] == (n if w is None else w.sum())


# ------------------------------------------------------------- every chunked fit
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_chunked_fit_stores_the_in_memory_reference(name, route):
    """After every chunked fit the stored reference is the in-memory one of the same
    model (each rule), and the detector methods on dask input are lazy and equal."""
    X = planted()
    dX = blocks(X)
    with CountComputes() as counter:
        model = ESTIMATORS[name]().fit(dX)
    assert model.n_passes_ == counter.count
    # the diagnostics' passes, on top of the fit's own: one or two stages of one pass
    # each on small data (one more for a zero MAD), a pilot and counting passes above
    whole = route == "whole"
    assert 1 <= model._reference_passes <= 3 if whole else model._reference_passes >= 3
    assert model._reference_passes < model.n_passes_
    twin = in_memory_reference(model, X)
    assert_same_reference(twin, model)
    assert model.offset_ == -1.0
    # and the likelihood model of score(), from the same passes (tests/test_dask_score.py)
    assert model.score(dX) == pytest.approx(twin.score(X), rel=1e-10)
    for method in ("predict", "decision_function", "score_samples"):
        lazy = getattr(model, method)(dX)
        assert isinstance(lazy, da.Array)
        np.testing.assert_allclose(lazy.compute(), getattr(twin, method)(X), rtol=1e-10)
    diag = outlier_diagnostics(model, dX)
    assert isinstance(diag.score_distances, da.Array)
    assert isinstance(diag.outliers, da.Array)
    numpy_diag = outlier_diagnostics(twin, X)
    np.testing.assert_array_equal(diag.outliers.compute(), numpy_diag.outliers)
    assert diag.score_cutoff == pytest.approx(numpy_diag.score_cutoff, rel=1e-10)


@pytest.mark.parametrize("make", [lambda: ROBPCA(2, random_state=0), lambda: PCA(2)])
def test_new_rows_off_the_span_of_rank_k_training_data(make, route):
    """Training rows of rank k = 2 in 5 features: no OD cutoff (rrcov), and the chunked
    reference's span tolerance is the in-memory one, so new rows off the span are
    flagged on Dask as in memory, and rows on it are not."""
    rng = np.random.default_rng(1)
    X = 1.0 + rng.normal(size=(300, 2)) @ rng.normal(size=(2, 5))
    model = make().fit(blocks(X))
    twin = in_memory_reference(model, X)
    assert_same_reference(twin, model)
    assert not model._outlier_reference.od_cutoff_applies
    new = np.r_[X[:3] + 0.01 * rng.normal(size=(3, 5)), X[3:6]]
    flags = model.predict(blocks(new)).compute()
    np.testing.assert_array_equal(flags, twin.predict(new))
    np.testing.assert_array_equal(flags, [-1, -1, -1, 1, 1, 1])


@pytest.mark.parametrize(
    "make",
    [lambda: PCA(4), lambda: CovariancePCA(4, random_state=0), lambda: OptimalMeanPCA(4)],
)
def test_components_of_zero_scale_beyond_the_rank(make, route):
    """Heavy-tailed rows of rank 2 in 5 features fitted at k = 4: two components of zero
    scale, whose training scores are rounding. The chunked reference takes their
    rounding from the range of the training scores, as in memory: no training row is
    flagged by it, and a new row moved along such a component is. With the "scores"
    rule too (OptimalMeanPCA), where the robust scales of those scores are above
    ``eps`` times the norms and were counted."""
    rng = np.random.default_rng(3)
    X = (rng.standard_t(1.0, size=(300, 2)) * [1.0, 300.0]) @ rng.normal(size=(2, 5))
    model = make().fit(blocks(X))
    twin = in_memory_reference(model, X)
    assert_same_reference(twin, model)
    ours, theirs = model._outlier_reference, twin._outlier_reference
    zero = ours.score_scale == 0
    assert zero.sum() == 2 and not ours.od_cutoff_applies
    # both are the rounding of the training scores (which the two routes round alike
    # only to their own rounding), at least the rounding level of the ODs
    assert np.all(ours.score_rounding[zero] >= ours.od_floor)
    assert np.all(ours.score_rounding[zero] < 1e-6 * np.abs(X).max())
    assert np.all(theirs.score_rounding[zero] < 1e-6 * np.abs(X).max())
    np.testing.assert_array_equal(model.predict(blocks(X)).compute(), twin.predict(X))
    moved = X[:3] + 1e-3 * np.linalg.norm(X[:3], axis=1, keepdims=True) * model.components_[-1]
    assert np.all(model.predict(blocks(moved)).compute() == -1)


@pytest.mark.parametrize("make", [lambda: ROBPCA(2, random_state=0), lambda: PCA(2)])
def test_most_rows_at_one_point(make, route):
    """90% of the rows at one point: the chunked reference takes the centre's norm as
    its rounding level where the median norm is its rounding, as in memory
    (tests/test_diagnostics.py): the rows at the point are regular (ROBPCA flagged them
    all before), and ROBPCA flags the 200 others."""
    rng = np.random.default_rng(0)
    X = np.r_[np.ones((1800, 5)), rng.normal(size=(200, 5))]
    model = make().fit(blocks(X))
    twin = in_memory_reference(model, X)
    assert_same_reference(twin, model)
    flags = model.predict(blocks(X)).compute()
    np.testing.assert_array_equal(flags, twin.predict(X))
    assert (flags[:1800] == 1).all()  # classical PCA's fit misses a few of the others
    if isinstance(model, ROBPCA):
        assert (flags[1800:] == -1).all()


def test_reference_passes_are_few():
    """Small data: one pass for the rrcov rules, two for the "scores" rule (SD stage),
    one more for a float contamination; large data (the counting route): a pilot pass
    and two per stage."""
    X = planted()
    for make, extra in ((lambda: PCA(2), 1), (lambda: OptimalMeanPCA(2), 2)):
        base = make().fit(X)
        model = make().fit(blocks(X))
        with CountComputes() as counter:
            dask_reference.set_outlier_reference(model, blocks(X))
        assert counter.count == extra
        model.set_params(contamination=0.1)
        with CountComputes() as counter:
            dask_reference.set_outlier_reference(model, blocks(X))
        assert counter.count == extra + 1
        assert base.offset_ == -1.0


def test_counting_route_passes(monkeypatch):
    monkeypatch.setattr(chunked_reference, "SMALL_ROWS", 0)
    monkeypatch.setattr(dask_reference, "SMALL_ROWS", 0)
    X = planted()
    model = OptimalMeanPCA(2, contamination=0.1).fit(X)
    with CountComputes() as counter:
        dask_reference.set_outlier_reference(model, blocks(X))
    assert counter.count == 1 + 2 + 2 + 2  # pilot, first stage, SD stage, offset


# ----------------------------------------------------------------- variants
@pytest.mark.parametrize("contamination", [0.05, 0.1, 0.25])
def test_float_contamination(contamination, route):
    """``offset_`` from the training score_samples, by counting passes: equal to the
    in-memory threshold, so ``predict`` flags the same share of the rows."""
    X = planted()
    model = OptimalMeanPCA(2, contamination=contamination).fit(blocks(X))
    twin = in_memory_reference(model, X)
    assert_same_offset(model, twin, blocks(X))
    flags = model.predict(blocks(X)).compute()
    np.testing.assert_array_equal(flags, twin.predict(X))
    assert np.sum(flags == -1) == np.floor(contamination * X.shape[0] + 0.5)


@pytest.mark.parametrize("lazy_weights", [False, True])
def test_pca_sample_weight(lazy_weights, route):
    """Frequency weights (NumPy or dask): the weighted classical OD statistics, the
    weighted offset; rows of zero weight are left out as in memory."""
    X = planted()
    w = np.random.default_rng(1).integers(0, 4, X.shape[0]).astype(float)
    weights = blocks(w[:, None])[:, 0] if lazy_weights else w
    model = PCA(2, contamination=0.1).fit(blocks(X), sample_weight=weights)
    twin = in_memory_reference(model, X, w)
    assert_same_reference(twin, model)
    assert_same_offset(model, twin, blocks(X), w)


@pytest.mark.parametrize("make", [lambda: PCA(2), lambda: OptimalMeanPCA(2)])
def test_missing_entries(make, route):
    """Rows with NaN: observed-coordinates distances, rows with at most k observed
    coordinates left out of the OD statistics, as in memory."""
    X = planted()
    rng = np.random.default_rng(2)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[5, 2:] = np.nan  # two observed coordinates: fitted exactly, out of the OD stats
    model = make().fit(blocks(X))
    assert model.n_missing_ > 0
    assert_same_reference(in_memory_reference(model, X), model)


@pytest.mark.parametrize("make", [lambda: PCA(2), lambda: OptimalMeanPCA(2, contamination=0.1)])
def test_wide_route(make):
    """Fewer rows than features: the distances of the rows come back in one pass."""
    X = planted(n=40, d=120)
    dX = da.from_array(X, chunks=(40, 30))
    model = make().fit(dX)
    twin = in_memory_reference(model, X)
    assert_same_reference(twin, model)
    assert model.offset_ == pytest.approx(twin.offset_, rel=1e-12)  # float64 on this route
    np.testing.assert_array_equal(model.predict(dX).compute(), twin.predict(X))


def test_refit_in_memory_clears_nothing_stale():
    """A Dask fit then an in-memory fit (and back) store their own reference."""
    X = planted()
    model = OptimalMeanPCA(2).fit(blocks(X))
    dask_ref = model._outlier_reference
    model.fit(X)
    assert model._outlier_reference is not dask_ref and not hasattr(model, "n_passes_")
    model.fit(blocks(X))
    assert_same_reference(in_memory_reference(model, X), model)


@pytest.mark.realdata
@pytest.mark.parametrize("table", ["hbk", "bushfire", "starsCYG", "wood"])
@pytest.mark.parametrize(
    "make",
    [
        lambda: ROBPCA(2, random_state=0),
        lambda: CovariancePCA(2, random_state=0),
        lambda: SphericalPCA(2),
        lambda: PCA(2),
        lambda: OptimalMeanPCA(2),
    ],
    ids=["robpca", "covariance", "spherical", "pca", "om"],
)
def test_rrcov_tables_flag_as_in_memory(shared_data, table, make, route):
    """rrcov's tables in 4 row blocks: the Dask fit flags the rows the in-memory fit
    flags, with its cutoffs, and its reference is the in-memory one of its model."""
    X = load_table(shared_data, table)
    a = make().fit(X)
    b = make().fit(blocks(X))
    # With k equal to the number of features (starsCYG) the orthogonal distances are
    # rounding errors, whose 2/3 powers (~1e-11) differ between BLAS kernels.
    od_atol = 1e-9 if X.shape[1] <= 2 else 1e-300
    assert_same_reference(in_memory_reference(b, X), b, od_atol=od_atol)
    np.testing.assert_array_equal(b.predict(blocks(X)).compute(), a.predict(X))
    da_, db = outlier_diagnostics(a, X), outlier_diagnostics(b, blocks(X))
    assert db.orthogonal_cutoff == pytest.approx(da_.orthogonal_cutoff, rel=1e-8)
    assert db.score_cutoff == pytest.approx(da_.score_cutoff, rel=1e-8)


@pytest.mark.slow
@pytest.mark.parametrize("make", [lambda: PCA(3), lambda: OptimalMeanPCA(3, contamination=0.1)])
def test_large_planted_data_take_the_counting_route(make):
    """Above SMALL_ROWS rows the pilot, counting and gathering passes run as they would on
    data larger than memory (no forcing): the same reference, offset and flags."""
    X = planted(n=chunked_reference.SMALL_ROWS + 4000, d=5, k=3)
    dX = blocks(X, 6)
    model = make().fit(dX)
    twin = in_memory_reference(model, X)
    assert_same_reference(twin, model)
    if model.offset_ != -1.0:
        assert_same_offset(model, twin, dX)
    else:
        assert twin.offset_ == -1.0
    expected = 3 if model._outlier_reference.rule != "scores" else 5
    assert model._reference_passes == expected + (2 if model.offset_ != -1.0 else 0)
    np.testing.assert_array_equal(model.predict(dX).compute(), twin.predict(X))


def gathered(v, w, windows):
    """The :class:`Window` of each ``(low, high)`` over the values ``v`` (weights ``w``)."""
    low = np.array([[lo for lo, _ in windows]])
    high = np.array([[hi for _, hi in windows]])
    run = NumpyPassRunner(v[:, None], chunk_rows=7)
    got = run(chunked_reference.gather_pass, w, columns=Column(), low=low, high=high)
    found = chunked_reference._windows(got, low, high)
    return [found[(0, r)] for r in range(len(windows))]


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.data())
def test_windows_never_give_a_wrong_statistic(data):
    """Any window, however narrow: the offset, median and MAD resolved from it are exact
    or refused (None), never wrong; the whole line always resolves."""
    v = values_with_ties(data)
    w = None if data.draw(st.booleans()) else np.random.default_rng(v.size).integers(1, 3, v.size)
    w = None if w is None else w.astype(float) * data.draw(st.sampled_from([1.0, 0.5]))
    ww = np.ones(v.size) if w is None else w
    ends = np.concatenate([[-np.inf, np.inf], v])

    def window():
        a, b = sorted(data.draw(st.sampled_from(ends)) for _ in range(2))
        return float(a), float(b)

    share = data.draw(st.sampled_from([0.05, 0.2, 0.5]))
    total = float(ww.sum())
    exact_offset = contamination_offset(v, share, w)
    whole = (-np.inf, np.inf)
    for win, expect in ((window(), False), (whole, True)):
        (got,) = gathered(v, w, [win])
        target = contamination_cut.contamination_target(
            share, total, contamination_cut.whole_weights(ww)
        )
        offset = contamination_cut.offset_from_window(got, target)
        assert offset == exact_offset if expect else offset in (None, exact_offset)
    centre = _median(v, w)
    (mid,) = gathered(v, w, [window()])
    assert chunked_reference._median(mid, total) in (None, centre)
    lower, upper = gathered(v, w, [window(), window()])
    mad = chunked_reference._deviation_median(centre, lower, upper, total)
    exact_mad = _mad(v, w) / chunked_reference.MAD_CONSTANT
    assert mad is None or mad == pytest.approx(exact_mad, rel=1e-14, abs=1e-300)
    (both,) = gathered(v, w, [whole])
    assert chunked_reference._deviation_median(centre, both, None, total) == pytest.approx(
        exact_mad, rel=1e-14, abs=1e-300
    )


@pytest.mark.parametrize("make", [lambda: ROBPCA(3, random_state=0), lambda: CovariancePCA(3)])
def test_rrcov_fits_lend_their_pilot_rows(make, monkeypatch):
    """ROBPCA and CovariancePCA gather the pilot rows in their first pass: the counting
    route of their diagnostics reuses them (two passes, not three) and gives the
    in-memory reference."""
    monkeypatch.setattr(chunked_reference, "SMALL_ROWS", 0)
    monkeypatch.setattr(dask_reference, "SMALL_ROWS", 0)
    X = planted(n=2000, d=6, k=3)
    model = make().fit(blocks(X))
    assert model._reference_passes == 2 and not hasattr(model, "_dask_pilot_rows")
    twin = in_memory_reference(model, X)
    assert_same_reference(twin, model)
    np.testing.assert_array_equal(model.predict(blocks(X)).compute(), twin.predict(X))


@pytest.mark.parametrize("key", sorted(ESTIMATORS))
@pytest.mark.parametrize("value", [1e200, 1e300])
def test_entries_whose_squares_overflow_are_refused_as_in_memory(key, value):
    """A finite entry whose square overflows once summed: check_magnitude's ValueError,
    as in memory, and no overflow warning before it. PCP, outlier pursuit and
    SphericalPCA fitted such data silently; GoDec, ROBPCA, AccAltProj and CovariancePCA
    failed with errors that did not say why."""
    X = planted(n=120)
    X[50, 2] = value
    with pytest.raises(ValueError, match="whose squares") as in_memory:
        ESTIMATORS[key]().fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="whose squares") as chunked:
            ESTIMATORS[key]().fit(da.from_array(X, chunks=(25, 6)))
    start = f"X holds entries of magnitude up to {value:.3g} whose squares"
    assert str(chunked.value).startswith(start) and str(in_memory.value).startswith(start)


@pytest.mark.parametrize("cls", [PCA, OptimalMeanPCA, ROBPCA], ids=lambda c: c.__name__)
def test_lazy_scores_are_those_of_the_model_they_were_asked_of(cls):
    """A lazy ``score_samples``, ``decision_function`` or ``predict`` computed after a
    refit (the next fold of a search) is the result of the model it was asked of, as a
    lazy ``transform`` is: ``decision_function`` had subtracted the old ``offset_`` from
    the new model's scores."""
    rng = np.random.default_rng(0)
    X1 = rng.normal(size=(300, 6)) @ np.diag([5.0, 3.0, 1.0, 1.0, 1.0, 1.0])
    X2 = rng.normal(size=(300, 6)) @ np.diag([1.0, 1.0, 1.0, 1.0, 3.0, 5.0]) + 4.0
    Q = 2.0 * rng.normal(size=(60, 6))
    model = cls(n_components=2, contamination=0.1).fit(X1)
    names = ("score_samples", "decision_function", "predict", "transform")
    eager = {name: getattr(model, name)(Q) for name in names}
    lazy = {name: getattr(model, name)(da.from_array(Q, chunks=(25, 6))) for name in names}
    model.fit(X2)
    for name in names:
        np.testing.assert_array_equal(lazy[name].compute(), eager[name], err_msg=name)
