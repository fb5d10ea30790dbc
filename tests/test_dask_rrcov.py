"""ROBPCA on dask arrays (issue 41, items 1 and 5): the in-memory fit, chunk by chunk.

The chunked fit must equal the NumPy fit (eigenvalues, centre and loadings to 1e-8, the
same h-subset, MCD support and flagged rows) on rrcov's five tables in 4 row blocks
(where it must also equal rrcov's ``PcaHubert``, ``tests/reference/rrcov_robust``) and on
planted data; order statistics are exact by counting passes (checked against sorting,
ties included); a worker lost mid-fit on a ``distributed`` cluster changes nothing.
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from distributed import Client, LocalCluster
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca import ROBPCA, CovariancePCA, SphericalPCA
from robustpca._dask import fit as dask_fit
from robustpca.diagnostics import outlier_diagnostics
from robustpca.solvers import chunked_histogram, chunked_smallest_subsets
from robustpca.solvers import chunked_order_statistics as order_statistics
from robustpca.solvers.chunked import NumpyPassRunner
from robustpca.solvers.chunked_order_statistics import pilot_indices, select_ranks
from robustpca.solvers.chunked_unimcd import univariate_mcd_chunked
from robustpca.solvers.outlyingness import univariate_mcd

from .conftest import fit_passes, load_table, reference_fits
from .test_dask import CountComputes
from .test_robpca import assert_equals_rrcov

HUBERT = reference_fits("PcaHubert")


class Columns:
    """The rows themselves as the values (picklable), or one of their columns."""

    def __init__(self, column=None):
        self.column = column

    def __call__(self, x):
        return x if self.column is None else x[:, self.column : self.column + 1]


def planted(n=10_000, d=20, k=3, share=0.1, seed=0):
    """Rank-k data plus noise, the first ``share`` of the rows shifted off it."""
    rng = np.random.default_rng(seed)
    X = 3.0 + 2.0 * rng.normal(size=(n, k)) @ rng.normal(size=(k, d))
    X += 0.3 * rng.normal(size=(n, d))
    m = int(share * n)
    X[:m] += 8.0 + 3.0 * rng.normal(size=(m, d))
    return X


@pytest.fixture
def threads():
    with dask.config.set(scheduler="threads"):
        yield


def chunked(X, blocks=4):
    return da.from_array(X, chunks=(-(-X.shape[0] // blocks), -1))


def assert_same_robpca(a, b, X, *, tol=1e-8):
    """``b`` (a dask fit) equals ``a`` (NumPy): spectrum, centre, loadings, subsets, flags."""
    assert b.n_components_ == a.n_components_ and b.rank_ == a.rank_ and b.h_ == a.h_
    top = max(a.explained_variance_.max(), 1e-300)
    np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, atol=tol * top)
    np.testing.assert_allclose(b.initial_eigenvalues_, a.initial_eigenvalues_, atol=tol * top)
    scale = max(np.abs(a.mean_).max(), 1.0)
    np.testing.assert_allclose(b.mean_, a.mean_, atol=tol * scale)
    np.testing.assert_allclose(b.components_, a.components_, atol=tol)  # signs normalised
    assert isinstance(b.support_, da.Array) and isinstance(b.h_subset_, da.Array)
    np.testing.assert_array_equal(b.support_.compute(), a.support_)
    np.testing.assert_array_equal(b.h_subset_.compute(), a.h_subset_)
    if a.outlyingness_ is None:
        assert b.outlyingness_ is None
    else:
        assert b.outlyingness_.chunks[0] == chunked(X).chunks[0]
        np.testing.assert_allclose(b.outlyingness_.compute(), a.outlyingness_, rtol=1e-9)
    flags_a = outlier_diagnostics(a, X).outliers
    flags_b = outlier_diagnostics(b, X, reference=X).outliers
    np.testing.assert_array_equal(flags_b, flags_a)


@pytest.mark.realdata
@pytest.mark.parametrize(("table", "k"), sorted(HUBERT))
def test_rrcov_tables_in_four_blocks(threads, shared_data, table, k):
    """Every (table, k) of rrcov's reference fits: the chunked fit is the NumPy fit and
    rrcov's ``PcaHubert`` (octane, 39 x 226, has more features than samples: its rows
    are whole in each block)."""
    X = load_table(shared_data, table)
    spec = "auto" if k == 0 else k
    a = ROBPCA(n_components=spec, random_state=0).fit(X)
    dX = chunked(X)
    with CountComputes() as counter:
        b = ROBPCA(n_components=spec, random_state=0).fit(dX)
    assert b.n_passes_ == counter.count
    assert_same_robpca(a, b, X)
    b._set_outlier_reference(X)  # the training diagnostics, from the NumPy data
    assert_equals_rrcov(b, X, HUBERT[(table, k)])


@pytest.mark.realdata
def test_random_directions(threads, shared_data):
    """Pairs drawn from ``random_state`` (and FAST-MCD's starts after them) as in memory."""
    X = load_table(shared_data, "wood")
    a = ROBPCA(n_components=2, directions="random", random_state=3).fit(X)
    b = ROBPCA(n_components=2, directions="random", random_state=3).fit(chunked(X))
    assert_same_robpca(a, b, X)


@pytest.mark.slow
def test_planted_outliers(threads):
    """10,000 x 20, 10% outliers, 4 blocks: the same fit and flags; the outliers are
    flagged, the fit is a few dozen passes, nothing computed by the lazy attributes."""
    X = planted()
    before = X.copy()
    a = ROBPCA(n_components=3, random_state=0).fit(X)
    dX = chunked(X)
    with CountComputes() as counter:
        b = ROBPCA(n_components=3, random_state=0).fit(dX)
    assert b.n_passes_ == counter.count <= 80
    assert_same_robpca(a, b, X)
    np.testing.assert_array_equal(X, before)
    flags = outlier_diagnostics(b, X, reference=X).outliers
    assert flags[:1000].all()
    assert isinstance(b.transform(dX), da.Array)
    assert isinstance(b.reconstruction_error(dX), da.Array)


def on_a_line(n=2000, d=6, share=0.9, seed=0):
    """``share`` of the rows exactly on a line (more than any h-subset), the rest
    Gaussian: an exact fit for the MCD."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    m = int(share * n)
    X[:m] = 1.0 + rng.normal(size=(m, 1)) @ rng.normal(size=(1, d))
    return X


def test_exact_fit_as_in_memory(threads):
    """More than h rows on a line: the raw MCD covariance is singular to rounding, by
    direct sums in memory and by QR moments on Dask alike, so both take robustbase's
    exact fit: the raw estimates of every row on the line, whichever h of them the
    search held (every such h-subset has determinant 0). So the two fits are the same,
    supports included (they were any h of the line's rows, not the same ones). (Deciding
    by the determinant's sign alone, the Dask fit reweighted here: eigenvalues 3.8 and
    0.6 where the line has 2.8 and 0.)"""
    X = on_a_line()
    line = np.arange(X.shape[0]) < int(0.9 * X.shape[0])
    a = ROBPCA(n_components=2, random_state=0).fit(X)
    b = ROBPCA(n_components=2, random_state=0).fit(chunked(X))
    for fit, support in ((a, a.support_), (b, b.support_.compute())):
        values = fit.explained_variance_
        assert values[1] < 1e-12 * values[0]
        np.testing.assert_array_equal(support, line)
    np.testing.assert_allclose(b.explained_variance_[0], a.explained_variance_[0], rtol=1e-9)
    assert abs(a.components_[0] @ b.components_[0]) > 1 - 1e-12
    np.testing.assert_allclose(b.mean_, a.mean_, rtol=1e-9)
    np.testing.assert_allclose(a.mean_, X[line].mean(axis=0), rtol=1e-12)


@pytest.mark.realdata
def test_exact_fit_on_breastw_as_in_memory(threads, adbench):
    """ADBench's breastw (integer scores 1-10, scaled by median and MAD as the outlier
    benchmark scales it): ROBPCA's MCD is an exact fit, 563 rows on a hyperplane. The
    Dask fit is the in-memory fit, support and flags included; before, each held its
    own h of those rows as its support. (Those h-subsets, ``h_subset_``, still differ:
    every h of the 563 has determinant 0.)"""
    import bench_outliers as bench  # (benchmarks/, on the path from conftest)

    X = bench.scale_columns(bench.load_table("4_breastw", adbench)[0])
    a = ROBPCA(n_components=0.95, random_state=0).fit(X)
    b = ROBPCA(n_components=0.95, random_state=0).fit(chunked(X))
    assert a.support_.sum() == 563 > a.h_
    for fit in (a, b):
        subset = np.asarray(fit.h_subset_)
        assert subset.size == a.h_ and a.support_[subset].all()
    np.testing.assert_array_equal(b.support_.compute(), a.support_)
    assert b.n_components_ == a.n_components_
    np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, rtol=1e-12)
    np.testing.assert_allclose(b.mean_, a.mean_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(np.abs(b.components_ @ a.components_.T), np.eye(6), atol=1e-10)
    flags = outlier_diagnostics(a, X).outliers
    np.testing.assert_array_equal(outlier_diagnostics(b, X, reference=X).outliers, flags)


@pytest.mark.slow
def test_c_steps_on_a_plane_as_in_memory(threads):
    """40 features (the projection route), 90% of the rows exactly on a plane of 3
    dimensions, k = 4: the C-steps' h-subset loses a dimension, and the Dask fit is
    still the NumPy fit, with the fourth eigenvalue 0."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 40))
    X[:2700] = 1.0 + rng.normal(size=(2700, 3)) @ rng.normal(size=(3, 40))
    a = ROBPCA(n_components=4, random_state=0).fit(X)
    b = ROBPCA(n_components=4, random_state=0).fit(chunked(X))
    assert a.explained_variance_[3] < 1e-12 * a.explained_variance_[0]
    assert_same_robpca(a, b, X)


@pytest.mark.slow
def test_a_c_step_losing_rank_runs_fast_mcd_again_as_in_memory(threads, monkeypatch):
    """76% of the rows exactly on a plane of 3 dimensions, the others spread in 40, k =
    4: the outlyingness's h-subset holds rows off the plane (rank 4), the next C-step's
    does not (rank 3). The FAST-MCD run beside the C-steps in the same passes fits 4
    coordinates and is dropped; FAST-MCD runs again in 3 after them, as in memory."""
    from robustpca.solvers import chunked_rrcov

    runners = []
    mcd_chunked = chunked_rrcov.mcd_chunked

    def spy(run, *args, **kwargs):
        runners.append(getattr(run, "__qualname__", type(run).__name__))
        return mcd_chunked(run, *args, **kwargs)

    monkeypatch.setattr(chunked_rrcov, "mcd_chunked", spy)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 40))
    X[:1520] = 1.0 + rng.normal(size=(1520, 3)) @ rng.normal(size=(3, 40))
    a = ROBPCA(n_components=4, random_state=0).fit(X)
    b = ROBPCA(n_components=4, random_state=0).fit(chunked(X))
    assert len(runners) == 2 and runners[0].startswith("SharedPasses")
    assert not runners[1].startswith("SharedPasses")  # after the C-steps, on its own
    assert a.explained_variance_[3] < 1e-12 * a.explained_variance_[0]
    assert_same_robpca(a, b, X)


@pytest.mark.parametrize("Estimator", [ROBPCA, CovariancePCA, SphericalPCA])
@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_errors_before_or_in_the_first_pass(threads, Estimator, value):
    """A NaN or an infinity is refused in the first pass, naming the estimator
    (SphericalPCA took a NaN as data and returned another fit; an infinity ended in an
    IndexError)."""
    X = planted(n=400, d=5)
    X[7, 2] = value
    name = Estimator.__name__
    match = f"NaN or infinity.*{name}" if np.isnan(value) else "contains infinity"
    with CountComputes() as counter, pytest.raises(ValueError, match=match):
        Estimator(n_components=2).fit(chunked(X))
    assert counter.count == 1


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(4, 300),
    m=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
    ties=st.booleans(),
    data=st.data(),
)
def test_order_statistics_and_univariate_mcd_are_exact(n, m, seed, ties, data):
    """Any rank of any column and rrcov's ``unimcd`` over all rows equal the sorted
    values and the in-memory ``univariate_mcd``, with ties and gross values, in any
    chunking."""
    rng = np.random.default_rng(seed)
    Y = rng.integers(-4, 5, size=(n, m)).astype(float) if ties else rng.normal(size=(n, m))
    Y[: n // 6] *= 1e3
    h = data.draw(st.integers(n // 2 + 1, n))
    run = NumpyPassRunner(Y, chunk_rows=data.draw(st.integers(1, n)))
    index, pilot = np.arange(n), Y[pilot_indices(n)]
    ranks = rng.integers(0, n, size=(m, 3))
    values, _ = select_ranks(run, index, Columns(), ranks, pilot)
    np.testing.assert_array_equal(values, np.take_along_axis(np.sort(Y, axis=0).T, ranks, 1))
    location, scale, passes = univariate_mcd_chunked(run, index, Columns(), m, n, h, pilot)
    expected = univariate_mcd(Y, h)
    np.testing.assert_allclose(location, expected[0], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(scale, expected[1], rtol=1e-9, atol=1e-9)
    assert passes <= 5 or h < n


def test_worker_killed_mid_fit_gives_the_same_fit(monkeypatch):
    """Two in-process workers, the data persisted on them; after the fourth pass one
    worker is closed without handing its chunks over. The scheduler recomputes them
    from the tasks that made them and the fit ends as the threaded one does."""
    X = planted(n=4000, d=8, k=2)
    dX = chunked(X, blocks=8)
    with dask.config.set(scheduler="threads"):
        reference = ROBPCA(n_components=2, random_state=0).fit(dX)
    original = dask_fit.DaskPassRunner.__call__
    lost = []
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):

        def call(self, kernel, rows=None, **params):
            out = original(self, kernel, rows, **params)
            if self.n_passes == 4 and not lost:
                worker = next(iter(cluster.workers.values()))
                lost.append(len(worker.state.data))
                cluster.sync(worker.close, reason="killed by the test")
            return out

        monkeypatch.setattr(dask_fit.DaskPassRunner, "__call__", call)
        persisted = client.persist(dX)
        with dask.config.set(scheduler=client):
            model = ROBPCA(n_components=2, random_state=0).fit(persisted)
            support = model.support_.compute()
        assert len(client.scheduler_info()["workers"]) == 1
    assert lost and lost[0] > 0  # the closed worker held chunks of X
    np.testing.assert_array_equal(model.explained_variance_, reference.explained_variance_)
    np.testing.assert_array_equal(model.components_, reference.components_)
    np.testing.assert_array_equal(support, reference.support_.compute())


# ------------------------------------------------------------------- CovariancePCA
def assert_same_covariance_pca(a, b, X):
    assert b.n_components_ == a.n_components_
    top = max(a.explained_variance_.max(), 1e-300)
    np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, atol=1e-8 * top)
    np.testing.assert_allclose(b.covariance_, a.covariance_, atol=1e-8 * top)
    np.testing.assert_allclose(b.mean_, a.mean_, atol=1e-8 * max(np.abs(a.mean_).max(), 1.0))
    np.testing.assert_allclose(b.components_, a.components_, atol=1e-8)
    np.testing.assert_array_equal(b.support_.compute(), a.support_)
    flags_a = outlier_diagnostics(a, X).outliers
    np.testing.assert_array_equal(outlier_diagnostics(b, X, reference=X).outliers, flags_a)


@pytest.mark.parametrize("value", [0.0, 3.0])
def test_covariance_pca_equal_rows(threads, value):
    """Every row the same point (no direction of variance; the MCD's distances under a
    zero covariance were NaN, and the Dask fit's counting pass raised IndexError): the
    point, no scatter and every row in the support, in memory and on Dask alike."""
    X = np.full((2000, 5), value)
    a = CovariancePCA(n_components=2, random_state=0).fit(X)
    b = CovariancePCA(n_components=2, random_state=0).fit(chunked(X))
    np.testing.assert_array_equal(a.mean_, X[0])
    assert not a.covariance_.any() and a.support_.all()
    assert_same_covariance_pca(a, b, X)
    assert np.isfinite(b.decision_function(chunked(X)).compute()).all()


def test_covariance_pca_most_rows_one_point(threads):
    """90% of the rows the same point: FAST-MCD's subsets of that point have a zero
    covariance, whose C-step distances were NaN (0 times an inverse ridge that
    overflowed; the Dask fit's counting pass raised IndexError). With the ridge at least
    the smallest normal float they are 0 and large: the same exact fit on both, the
    point with no scatter, and every row at it in the support (robustbase's weights;
    before, any h of them)."""
    rng = np.random.default_rng(0)
    X = np.r_[np.ones((1800, 5)), rng.normal(size=(200, 5))]
    a = CovariancePCA(n_components=2, random_state=0).fit(X)
    b = CovariancePCA(n_components=2, random_state=0).fit(chunked(X))
    np.testing.assert_array_equal(a.mean_, 1.0)
    np.testing.assert_array_equal(b.mean_, 1.0)
    assert not a.covariance_.any() and not b.covariance_.any()
    for support in (a.support_, b.support_.compute()):
        np.testing.assert_array_equal(support, np.arange(X.shape[0]) < 1800)
    flags_a = outlier_diagnostics(a, X).outliers
    np.testing.assert_array_equal(outlier_diagnostics(b, X, reference=X).outliers, flags_a)


def test_skew_fit_of_equal_rows(threads):
    """ROBPCA(skew=True) on rows that are all the same point has no adjusted
    outlyingness to fit (no direction of variance); its score distance is 0 there, as
    the plain fit's, and fitting no longer raises "exists for skew=True fits only"."""
    X = np.full((2000, 5), 3.0)
    a = ROBPCA(n_components=2, skew=True, random_state=0).fit(X)
    b = ROBPCA(n_components=2, skew=True, random_state=0).fit(chunked(X))
    assert a.rank_ == b.rank_ == 0
    np.testing.assert_array_equal(a.predict(X), 1)
    np.testing.assert_array_equal(b.predict(chunked(X)).compute(), 1)
    np.testing.assert_array_equal(b.decision_function(chunked(X)).compute(), a.decision_function(X))


@pytest.mark.realdata
@pytest.mark.parametrize("table", ["hbk", "bushfire", "starsCYG", "wood"])
@pytest.mark.parametrize("k", ["auto", 2])
def test_covariance_pca_tables(threads, shared_data, table, k):
    """Below 600 rows FAST-MCD starts from subsets of all the data: the rows are gathered
    (in the first pass, the only one) and the fit is the NumPy one."""
    X = load_table(shared_data, table)
    a = CovariancePCA(n_components=k, random_state=0).fit(X)
    b = CovariancePCA(n_components=k, random_state=0).fit(chunked(X))
    assert fit_passes(b) == 1
    assert_same_covariance_pca(a, b, X)


@pytest.mark.parametrize("rank_deficient", [False, True], ids=["full", "constant-column"])
def test_covariance_pca_planted(threads, rank_deficient):
    """FAST-MCD's nested subsets gathered by index, its C-steps over the chunks; with a
    constant column, the MCD within the rows' affine hull, as in memory."""
    X = planted(n=6000, d=8, k=2)
    if rank_deficient:
        X = np.hstack([X, np.full((X.shape[0], 1), 2.5)])
    a = CovariancePCA(n_components=2, random_state=0).fit(X)
    dX = chunked(X)
    with CountComputes() as counter:
        b = CovariancePCA(n_components=2, random_state=0).fit(dX)
    assert b.n_passes_ == counter.count
    assert_same_covariance_pca(a, b, X)


# ------------------------------------------------------------------- SphericalPCA
@pytest.mark.realdata
@pytest.mark.parametrize("table", ["hbk", "bushfire", "starsCYG", "wood", "octane"])
@pytest.mark.parametrize("scale_on", ["data", "sphere"])
def test_spherical_pca_tables(threads, shared_data, table, scale_on):
    """The spatial median's Weiszfeld steps (three passes each), the sphered rows' SVD
    and the MADs over chunks: the NumPy fit, iteration for iteration."""
    X = load_table(shared_data, table)
    a = SphericalPCA(scale_on=scale_on).fit(X)
    dX = chunked(X)
    with CountComputes() as counter:
        b = SphericalPCA(scale_on=scale_on).fit(dX)
    assert b.n_passes_ == counter.count and b.n_iter_ == a.n_iter_
    assert b.n_components_ == a.n_components_
    top = a.explained_variance_.max()
    np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, atol=1e-8 * top)
    np.testing.assert_allclose(b.mean_, a.mean_, atol=1e-8 * max(np.abs(a.mean_).max(), 1))
    np.testing.assert_allclose(b.components_, a.components_, atol=1e-8)
    flags = outlier_diagnostics(b, X, reference=X).outliers
    np.testing.assert_array_equal(flags, outlier_diagnostics(a, X).outliers)


def test_spherical_pca_planted(threads):
    X = planted(n=6000, d=8, k=2)
    a = SphericalPCA(n_components=2).fit(X)
    b = SphericalPCA(n_components=2).fit(chunked(X))
    np.testing.assert_allclose(b.components_, a.components_, atol=1e-8)
    np.testing.assert_allclose(b.mean_, a.mean_, atol=1e-8 * np.abs(a.mean_).max())
    np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, rtol=1e-8)


# ------------------------------------------------------------------- guessed brackets
def test_brackets_of_a_column_without_edges():
    """A column whose pilot held no finite value has no edge: one bin holds every value,
    and its bracket is the whole line (indexing the empty edges raised IndexError)."""
    counts = np.array([[10.0], [4.0]])
    extremes = chunked_histogram.Extremes(np.array([1.0, 2.0]), np.array([5.0, 2.0]))
    bins, brackets = order_statistics._bins_of(
        [np.array([]), np.array([])], counts, extremes, np.array([[0, 9], [3, 3]])
    )
    np.testing.assert_array_equal(bins, 0)
    np.testing.assert_array_equal(brackets.low, -np.inf)
    np.testing.assert_array_equal(brackets.high, np.inf)
    np.testing.assert_array_equal(brackets.exact, [[np.nan, np.nan], [2.0, 2.0]])


def test_guessed_brackets_with_ties_on_many_rows():
    """Past 4,096 rows the pilot is large enough to guess the brackets: the order
    statistics and rrcov's ``unimcd`` of integer data (many ties) stay exact."""
    rng = np.random.default_rng(5)
    n = 20_000
    Y = np.column_stack([rng.integers(-30, 31, n), rng.normal(size=n), rng.integers(0, 3, n)])
    Y = Y.astype(float)
    Y[:2000, 1] += 50.0
    run = NumpyPassRunner(Y, chunk_rows=3000)
    index, pilot = np.arange(n), Y[pilot_indices(n)]
    ranks = np.array([[0, 9_999, 14_999, n - 1]] * 3)
    values, passes = select_ranks(run, index, Columns(), ranks, pilot)
    assert passes <= 3  # a tie at a guessed bracket's open end: counting passes then
    np.testing.assert_array_equal(values, np.take_along_axis(np.sort(Y, axis=0).T, ranks, 1))
    location, scale, _ = univariate_mcd_chunked(run, index, Columns(), 3, n, 15_000, pilot)
    second = Columns(column=1)
    values, passes = select_ranks(run, index, second, ranks[1:2, 1:3], second(pilot))
    assert passes == 1  # continuous values: the guessed brackets hold the ranks
    expected = univariate_mcd(Y, 15_000)
    np.testing.assert_allclose(location, expected[0], rtol=1e-12)
    np.testing.assert_allclose(scale, expected[1], rtol=1e-12)


@pytest.mark.slow
def test_missed_guesses_fall_back_to_counting(threads, monkeypatch):
    """Brackets that miss the wanted rank are seen in the counts of their pass; counting
    passes then find it, and the fit is the same."""
    X = planted(n=6000, d=8, k=2)
    a = ROBPCA(n_components=2, random_state=0).fit(chunked(X))
    c = CovariancePCA(n_components=2, random_state=0).fit(chunked(X))

    def wrong(pilot_values, ranks, n):
        shape = np.shape(ranks)
        return np.full(shape, np.inf), np.full(shape, np.inf)  # every row below

    monkeypatch.setattr(order_statistics, "guess_brackets", wrong)
    monkeypatch.setattr(chunked_smallest_subsets, "guess_brackets", wrong)
    b = ROBPCA(n_components=2, random_state=0).fit(chunked(X))
    d = CovariancePCA(n_components=2, random_state=0).fit(chunked(X))
    assert b.n_passes_ > a.n_passes_ and d.n_passes_ > c.n_passes_
    np.testing.assert_allclose(b.components_, a.components_, atol=1e-12)
    np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, rtol=1e-12)
    np.testing.assert_allclose(d.covariance_, c.covariance_, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(b.support_.compute(), a.support_.compute())


def test_one_coordinate_mcd(threads):
    """ROBPCA with ``k = 1`` (its MCD of one score) and the MCD of one column on 5,000
    rows: robustbase's exact univariate h-subset over the chunks, not gathered."""
    X = planted(n=5000, d=6, k=1)
    a = ROBPCA(n_components=1, random_state=0).fit(X)
    b = ROBPCA(n_components=1, random_state=0).fit(chunked(X))
    assert_same_robpca(a, b, X)
    Y = X[:, :1].copy()
    c = CovariancePCA(n_components=1, random_state=0).fit(Y)
    with CountComputes() as counter:
        d = CovariancePCA(n_components=1, random_state=0).fit(chunked(Y))
    assert d.n_passes_ == counter.count <= 6
    np.testing.assert_allclose(d.covariance_, c.covariance_, rtol=1e-12)
    np.testing.assert_allclose(d.mean_, c.mean_, rtol=1e-12)
    np.testing.assert_array_equal(d.support_.compute(), c.support_)


def test_window_bounds_do_not_grow_with_the_rows_per_bin():
    """The univariate MCD's lower bounds per start bin take a few points a bin, whatever
    the rows a bin holds (at 14,000,000 rows and 4,096 pilot bins, every start rank would
    be 560 MB at once and minutes of the client's time at 150,000,000 rows), and equal
    the bound's least value over the start ranks to rounding."""
    import tracemalloc

    from robustpca.solvers import chunked_unimcd as cos

    n, nb = 4096 * 3418, 4096  # 14,000,128 rows, 3,418 a bin
    counts = np.full(nb, n / nb)
    cum = np.concatenate([[0.0], np.cumsum(counts)])
    bounds = np.linspace(-3.0, 3.0, nb + 1)
    mid = (bounds[:-1] + bounds[1:]) / 2
    c1 = np.concatenate([[0.0], np.cumsum(counts * mid)])
    c2 = np.concatenate([[0.0], np.cumsum(counts * (mid**2 + 1e-4))])
    h = n // 2
    a = np.flatnonzero(cum[:-1] <= n - h)
    s_lo, s_hi = cum[a], np.minimum(cum[a + 1] - 1, n - h)
    tracemalloc.start()
    lower = cos._start_bin_lower(cum, c1, c2, bounds, a, s_lo, s_hi, h)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 5e6
    hi_c, nc, mc, ssc = cos._full_bins(cum, c1, c2, a, s_lo, h)
    last_e = np.minimum(np.searchsorted(cum, s_hi + h - 1, side="right") - 1, nb - 1)
    for i in (0, 1000, 1024, 1500, a.size - 1):
        t = np.arange(cum[a[i] + 1] - s_hi[i], cum[a[i] + 1] - s_lo[i] + 1).clip(max=h)
        every = cos._bound_at(t, nc[i], mc[i], ssc[i], bounds[a[i]], bounds[a[i] + 1],
                              bounds[hi_c[i]], bounds[last_e[i] + 1], h)  # fmt: skip
        np.testing.assert_allclose(lower[i], every.min(), rtol=1e-12)


def test_warns_where_the_final_mcd_is_not_nonnegative_definite():
    """As in memory: 13 rows for k = 8 give the reweighted MCD a negative small-sample
    factor; the chunked fit set every eigenvalue to 0 without a word."""
    X = np.random.default_rng(0).standard_normal((13, 20))
    with pytest.warns(UserWarning, match="not non-negative definite"):
        ROBPCA(n_components=8, alpha=0.5, random_state=0).fit(da.from_array(X, chunks=(5, 20)))


@pytest.mark.parametrize("n", [60, 700])
@pytest.mark.parametrize("cls", [ROBPCA, CovariancePCA])
def test_alpha_one_reweights_the_classical_estimate(cls, n):
    """At alpha = 1 (h = n) robustbase's covMcd reweights the classical estimate; the
    chunked MCD returned it unweighted (plain PCA: every row in support_)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, 8)) + 0.05 * rng.normal(size=(n, 8))
    X[: n // 10] += 5 * rng.normal(size=(n // 10, 8))
    a = cls(2, alpha=1.0, random_state=0).fit(X)
    b = cls(2, alpha=1.0, random_state=0).fit(da.from_array(X, chunks=(97, 8)))
    np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, rtol=1e-9)
    np.testing.assert_array_equal(np.asarray(b.support_), np.asarray(a.support_))
    assert 0 < np.sum(a.support_) < n
