"""ROBPCA(skew=True) on dask arrays (issue 41, item 1): the in-memory fit, chunk by chunk.

The chunked fit draws the same hyperplanes and the same medcouple sample from the same
generator and takes the medians and quartiles of all rows by exact counting passes, so
its estimates, subsets, cutoffs and flags are the NumPy fit's, on planted skewed data
(with every row in the medcouples, and with a sample of them) and on rrcov's tables,
where they are also ``PcaHubert(skew = TRUE)``'s. The shared pieces (the subsets' draw,
NumPy's quantile arithmetic, the skewed cutoffs over chunks) are checked on their own.
"""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca import ROBPCA
from robustpca.diagnostics import outlier_diagnostics
from robustpca.robust_scale import skewed_cutoff
from robustpca.solvers import outlyingness
from robustpca.solvers.chunked import NumpyPassRunner
from robustpca.solvers.chunked_order_statistics import pilot_indices
from robustpca.solvers.chunked_skew import (
    median_of_pair,
    quantile_ranks,
    quantiles_of,
    skewed_cutoffs_chunked,
)
from robustpca.solvers.outlyingness import draw_subsets

from .conftest import load_table, reference_fits
from .test_dask import CountComputes
from .test_dask_rrcov import chunked, threads  # noqa: F401 (a fixture)
from .test_robpca import assert_equals_rrcov

SKEW = reference_fits("PcaHubertSkew")
pytestmark = pytest.mark.usefixtures("threads")  # dask's threaded scheduler


def skewed(n, p=6, share=0.05, seed=0):
    """Hubert, Rousseeuw & Verdonck's case: lognormal and normal scores in 2 of ``p``
    dimensions, the first ``share`` of the rows shifted orthogonally to them."""
    rng = np.random.default_rng(seed)
    U = np.linalg.qr(rng.normal(size=(p, 2)))[0]
    S = np.column_stack([3.0 * rng.lognormal(0.0, 0.8, n), rng.normal(size=n)])
    X = S @ U.T + 0.05 * rng.normal(size=(n, p))
    d = rng.normal(size=p)
    d -= U @ (U.T @ d)
    X[: int(share * n)] += 3.0 * d / np.linalg.norm(d)
    return X


def assert_same_skew_fit(a, b, X):
    """``b`` (a dask fit) equals ``a`` (NumPy): spectrum, centre, loadings, subsets,
    cutoffs, outlyingness and flags.

    The outlyingness is compared row by row only in its bulk: a hyperplane through ``p``
    rows ties their projections up to rounding, and where the tie sits at a direction's
    median the medcouple's rule for values equal to the median follows the rounding (as
    robustbase's does), so one direction's scale may differ between two routes of the
    same arithmetic. The subsets and flags must still agree."""
    assert b.n_components_ == a.n_components_ and b.rank_ == a.rank_ and b.h_ == a.h_
    top = a.explained_variance_.max()
    np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, atol=1e-8 * top)
    np.testing.assert_allclose(b.initial_eigenvalues_, a.initial_eigenvalues_, atol=1e-8 * top)
    np.testing.assert_allclose(b.mean_, a.mean_, atol=1e-8 * max(np.abs(a.mean_).max(), 1.0))
    np.testing.assert_allclose(b.components_, a.components_, atol=1e-8)
    np.testing.assert_array_equal(b.support_.compute(), a.support_)
    np.testing.assert_array_equal(b.h_subset_.compute(), a.h_subset_)
    outl = b.outlyingness_.compute()
    close = np.isclose(outl, a.outlyingness_, rtol=1e-9)
    assert close.mean() > 0.95, close.mean()
    np.testing.assert_allclose(outl, a.outlyingness_, rtol=1e-2)
    ra, rb = a._outlier_reference, b._outlier_reference
    assert rb.od_skew_cutoff == pytest.approx(ra.od_skew_cutoff, rel=1e-12)
    assert rb.sd_skew_cutoff == pytest.approx(ra.sd_skew_cutoff, rel=1e-9)
    dX = chunked(X)
    sd = b._skew_score_distances(dX)
    assert isinstance(sd, da.Array)
    np.testing.assert_allclose(sd.compute(), a._skew_score_distances(X), rtol=1e-9)
    flags = b.predict(dX)
    assert isinstance(flags, da.Array)
    np.testing.assert_array_equal(flags.compute(), a.predict(X))
    np.testing.assert_array_equal(
        outlier_diagnostics(b, dX).outliers.compute(), outlier_diagnostics(a, X).outliers
    )


@pytest.mark.slow
@pytest.mark.parametrize("k", [2, "auto"])
def test_planted_skewed_data_every_row_in_the_medcouples(k):
    """3,000 x 6 in 4 blocks (below MEDCOUPLE_ROWS), 60 directions: the same fit; the orthogonal
    outliers are flagged, the long tail of the lognormal scores mostly not."""
    X = skewed(3000)
    before = X.copy()
    a = ROBPCA(n_components=k, skew=True, max_directions=60, random_state=0).fit(X)
    with CountComputes() as counter:
        b = ROBPCA(n_components=k, skew=True, max_directions=60, random_state=0)
        b.fit(chunked(X))
    assert b.n_passes_ == counter.count <= 40
    np.testing.assert_array_equal(X, before)
    assert a._medcouple_rows is None and b._medcouple_rows is None
    assert_same_skew_fit(a, b, X)
    if k == 2:
        flags = a.predict(X) == -1
        assert flags[:150].all() and flags[150:].mean() < 0.02


@pytest.mark.slow
@pytest.mark.parametrize("contamination", ["auto", 0.1])
def test_planted_skewed_data_with_a_medcouple_sample(monkeypatch, contamination):
    """Above MEDCOUPLE_ROWS (lowered to 1,000 here) both routes take the medcouples of
    the same random rows, for the fit and for the diagnostics' cutoffs; a float
    contamination gives the same offset and flags that share of the rows."""
    monkeypatch.setattr(outlyingness, "MEDCOUPLE_ROWS", 1000)
    X = skewed(5000, seed=1)
    params = {"skew": True, "max_directions": 60, "contamination": contamination}
    a = ROBPCA(n_components=2, random_state=0, **params).fit(X)
    b = ROBPCA(n_components=2, random_state=0, **params).fit(chunked(X))
    assert a._medcouple_rows.size == 1000
    np.testing.assert_array_equal(b._medcouple_rows, a._medcouple_rows)
    assert_same_skew_fit(a, b, X)
    assert b.offset_ == pytest.approx(a.offset_, rel=1e-12)
    if contamination != "auto":
        assert np.mean(b.predict(chunked(X)).compute() == -1) == pytest.approx(0.1)


@pytest.mark.slow
def test_the_sample_changes_the_fit_only_a_little(monkeypatch):
    """The medcouples of 2,000 of 8,000 rows: the same subspace and the same orthogonal
    outliers as with every row."""
    X = skewed(8000, seed=2)
    full = ROBPCA(n_components=2, skew=True, max_directions=60, random_state=0).fit(X)
    monkeypatch.setattr(outlyingness, "MEDCOUPLE_ROWS", 2000)
    sampled = ROBPCA(n_components=2, skew=True, max_directions=60, random_state=0).fit(X)
    cosines = np.linalg.svd(full.components_ @ sampled.components_.T, compute_uv=False)
    assert cosines.min() > 0.999
    assert (sampled.predict(X)[:400] == -1).all()
    assert np.mean(sampled.predict(X)[400:] == -1) < 0.02


@pytest.mark.slow
def test_k_as_the_rank_above_the_h_subsets_rank():
    """``n_components=None`` asks for every direction, beyond the rank (4: rank-3 data
    and a shifted group), and the h-subset has rank 3: both routes fit 3 components of
    positive variance, completed to 6 (in memory this raised a reshape error before)."""
    rng = np.random.default_rng(3)
    X = rng.lognormal(size=(2000, 3)) @ rng.normal(size=(3, 6))
    X[:50] += np.linspace(1.0, 2.0, 6)
    params = {"n_components": None, "skew": True, "max_directions": 40, "random_state": 0}
    a = ROBPCA(**params).fit(X)
    b = ROBPCA(**params).fit(chunked(X))
    assert a.rank_ == b.rank_ == 4
    assert a.n_components_ == b.n_components_ == 6
    assert np.sum(a.explained_variance_ > 0) == np.sum(b.explained_variance_ > 0) == 3
    assert np.isfinite(b.components_).all() and np.isfinite(b.predict(chunked(X))).all()


@pytest.mark.realdata
@pytest.mark.parametrize(("table", "k"), sorted(key for key in SKEW if key[0] != "octane"))
def test_rrcov_tables_in_four_blocks(shared_data, table, k):
    """rrcov's tables (octane, wider than tall, left out as in test_robpca) in 4 row
    blocks: the chunked skew fit is ``PcaHubert(skew = TRUE)``'s at k = 1."""
    X = load_table(shared_data, table)
    b = ROBPCA(n_components=k, skew=True, random_state=0).fit(chunked(X))
    b._set_outlier_reference(X)  # the training diagnostics, from the NumPy data
    assert_equals_rrcov(b, X, SKEW[(table, k)])


@pytest.mark.realdata
def test_a_sparse_real_table_with_forced_rows(adbench, monkeypatch):
    """The first 200 rows of ADBench's SpamBase, median/MAD scaled: 7 rows each alone in
    some word, so the hyperplanes are drawn through subsets that hold them
    (test_forced_rows). The chunked fit finds the same rows by one pass and draws the
    same subsets, so the same directions, in a bounded number of passes. Most rows tie
    with the median on most directions here, up to rounding, which the BLAS decides
    differently on each route: those deviations count as ties
    (``solvers/adjusted_boxplot.py``), so the fits are equal (before, 4 of the 152 rows
    of the h-subsets differed, the eigenvalues by up to 16% and 1% of the flags)."""
    from scipy import stats

    X = np.load(adbench / "35_SpamBase.npz")["X"][:200].astype(float)
    mad = stats.median_abs_deviation(X, axis=0, scale="normal")
    X = (X - np.median(X, axis=0)) / np.where(mad > 0, mad, 1.0)
    seen = []
    normals = outlyingness.hyperplane_normals

    def spy(shape, fetch, n_directions, rng, forced=None, singular=None):
        B = normals(shape, fetch, n_directions, rng, forced, singular)
        seen.append(fetch(np.arange(shape[0])[None, :])[0] @ B)  # every row's projections
        return B

    monkeypatch.setattr(outlyingness, "hyperplane_normals", spy)
    monkeypatch.setattr("robustpca.solvers.chunked_skew.hyperplane_normals", spy)
    a = ROBPCA(n_components=3, skew=True, random_state=0).fit(X)
    in_memory = len(seen)
    with CountComputes() as counter:
        b = ROBPCA(n_components=3, skew=True, random_state=0).fit(chunked(X))
    assert b.n_passes_ == counter.count <= 25
    assert b.n_components_ == a.n_components_ == 3 and b.rank_ == a.rank_ == 49 and b.h_ == a.h_
    first_a, first_b = seen[0], seen[in_memory]  # each route's first outlyingness
    assert first_a.shape == first_b.shape == (200, 250)
    np.testing.assert_allclose(first_b, first_a, rtol=1e-7, atol=1e-7 * np.abs(first_a).max())
    np.testing.assert_array_equal(np.sort(b.h_subset_.compute()), np.sort(a.h_subset_))
    np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, rtol=1e-9)
    np.testing.assert_array_equal(b.predict(chunked(X)).compute(), a.predict(X))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(2, 30_000),
    p=st.integers(1, 8),
    batch=st.integers(1, 300),
)
def test_subsets_are_uniform_draws_of_distinct_rows(seed, n, p, batch):
    """Both regimes of the draw: sorted distinct rows in range, reproducible."""
    p = min(p, n)
    rows = draw_subsets(np.random.default_rng(seed), batch, n, p)
    assert rows.shape == (batch, p)
    assert (rows >= 0).all() and (rows < n).all()
    assert (np.diff(rows, axis=1) > 0).all()
    np.testing.assert_array_equal(rows, draw_subsets(np.random.default_rng(seed), batch, n, p))


def test_the_keyed_draw_is_unchanged_for_small_data():
    """Below the size where the keys would be large, the draw is the one the in-memory
    fits made before (ranking uniform keys), so their results do not move."""
    rng = np.random.default_rng(5)
    expected = np.sort(np.argpartition(rng.random((7, 40)), 2, axis=1)[:, :3], axis=1)
    np.testing.assert_array_equal(draw_subsets(np.random.default_rng(5), 7, 40, 3), expected)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(1, 400),
    levels=st.integers(0, 5),
)
def test_quantiles_from_order_statistics_are_numpys(seed, n, levels):
    """NumPy's median and type-7 quartiles to the bit, from the order statistics at
    :func:`quantile_ranks` (ties included: ``levels`` distinct values)."""
    rng = np.random.default_rng(seed)
    Y = rng.integers(0, levels, (n, 3)).astype(float) if levels else rng.normal(size=(n, 3))
    ordered = np.sort(Y, axis=0)
    ranks = quantile_ranks(n).astype(int)
    q = quantiles_of(ordered[ranks].T, n)
    np.testing.assert_array_equal(q, np.quantile(Y, [0.25, 0.5, 0.75], axis=0).T)
    pair = ordered[[(n - 1) // 2, n // 2]].T
    np.testing.assert_array_equal(median_of_pair(pair, n), np.median(Y, axis=0))


class _Columns:
    def __call__(self, x):
        return x


@pytest.mark.parametrize("n", [50, 20_000])
def test_skewed_cutoffs_over_chunks_are_the_in_memory_ones(n):
    """With every row as the sample, the cutoffs over chunks equal ``skewed_cutoff``
    exactly: lognormal (skewed) and normal columns, and one with a large tie."""
    rng = np.random.default_rng(n)
    V = np.column_stack([rng.lognormal(size=n), rng.normal(size=n), rng.integers(0, 3, n)])
    run = NumpyPassRunner(V, chunk_rows=max(n // 7, 1))
    got, _ = skewed_cutoffs_chunked(run, np.arange(n), _Columns(), n, V, V[pilot_indices(n)])
    expected = [skewed_cutoff(V[:, j]) for j in range(3)]
    np.testing.assert_array_equal(got, expected)


def test_an_h_subset_that_is_one_point_fits_as_in_memory():
    """Nine of ten rows coincide: the skew fit has no scores to model (it failed on
    zero columns); its support is the h-subset, and the flags are memory's."""
    X = np.zeros((10, 4))
    X[9] = np.random.default_rng(0).standard_normal(4)
    memory = ROBPCA(n_components=1, skew=True, random_state=0).fit(X)
    lazy = ROBPCA(n_components=1, skew=True, random_state=0).fit(da.from_array(X, chunks=5))
    np.testing.assert_allclose(lazy.mean_, memory.mean_, atol=1e-15)
    np.testing.assert_array_equal(np.asarray(lazy.support_), memory.support_)
    np.testing.assert_array_equal(np.asarray(lazy.predict(X)), memory.predict(X))
    assert memory.predict(X)[9] == -1 and memory.support_[:8].all()
