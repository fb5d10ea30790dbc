"""The chunked univariate MCD (issue 41): exact windows, bounds that tighten as the bins
narrow, and passes whose per-chunk results do not grow with the rows.

ROBPCA's outlyingness stage runs rrcov's ``unimcd`` on 250 projections at once; a
counting pass returns ``250 x bins`` arrays per chunk, so the bins a refining pass
counts must stay bounded whatever the table's length, and the refinement must end.
"""

from __future__ import annotations

import itertools
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca.solvers import chunked, chunked_histogram, chunked_unimcd
from robustpca.solvers import chunked_order_statistics as order_statistics
from robustpca.solvers.chunked import NumpyPassRunner
from robustpca.solvers.chunked_histogram import histogram_pass
from robustpca.solvers.chunked_mcd import AffineRows
from robustpca.solvers.chunked_order_statistics import pilot_indices
from robustpca.solvers.chunked_rrcov import Outlyingness, Projections
from robustpca.solvers.chunked_unimcd import (
    REFINE_BINS_PER_COLUMN,
    least_variance_windows,
    univariate_mcd_chunked,
)
from robustpca.solvers.outlyingness import univariate_mcd


class Columns:
    """The rows themselves as the values (picklable)."""

    def __call__(self, x):
        return x


class Recording(NumpyPassRunner):
    """The in-memory runner, noting each pass's kernel and its largest per-chunk result
    (the floats of its arrays)."""

    def __init__(self, X, chunk_rows):
        super().__init__(X, chunk_rows)
        self.passes: list[tuple[str, int, tuple]] = []

    def __call__(self, kernel, rows=None, **params):
        sizes, shapes = [], []

        def noted(x, r, **p):
            out = kernel(x, r, **p)
            arrays = [v for v in out.values() if isinstance(v, np.ndarray)]
            sizes.append(sum(v.size for v in arrays))
            shapes.append(tuple(v.shape for v in arrays))
            return out

        out = super().__call__(noted, rows, **params)
        self.passes.append((kernel.__name__, max(sizes), shapes[0]))
        return out


def window_sums(v, h):
    """Every window's sum of squares about its mean, of the sorted ``v``."""
    c1 = np.concatenate([[0.0], np.cumsum(v)])
    c2 = np.concatenate([[0.0], np.cumsum(v * v)])
    sums = c1[h:] - c1[:-h]
    return (c2[h:] - c2[:-h]) - sums * sums / h


def binned(v, edges, h):
    """The binned sums of the sorted ``v`` and its start bins: ``cum, c1, c2, bounds, a,
    s_lo, s_hi``, as :func:`chunked_unimcd._window_candidates` forms them."""
    n = v.size
    counts = np.diff(np.concatenate([[0], np.searchsorted(v, edges), [n]])).astype(float)
    at = np.concatenate([[0], np.cumsum(counts)]).astype(int)
    s1 = np.array([v[a:b].sum() for a, b in itertools.pairwise(at)])
    s2 = np.array([(v[a:b] ** 2).sum() for a, b in itertools.pairwise(at)])
    cum = at.astype(float)
    c1, c2 = np.concatenate([[0.0], np.cumsum(s1)]), np.concatenate([[0.0], np.cumsum(s2)])
    bounds = np.concatenate([[v[0]], edges, [v[-1]]])
    a = np.flatnonzero((counts > 0) & (cum[:-1] <= n - h))
    s_lo, s_hi = cum[a], np.minimum(cum[a + 1] - 1, n - h)
    return cum, c1, c2, bounds, a, s_lo, s_hi


def bound_over(cum, c1, c2, bounds, a, s_lo, s_hi, h):
    """Each start bin's bound minimised by evaluating it at every start rank (the
    definition)."""
    nb = cum.size - 1
    last_e = np.minimum(np.searchsorted(cum, s_hi + h - 1, side="right") - 1, nb - 1)
    hi_c, nc, mc, ssc = chunked_unimcd._full_bins(cum, c1, c2, a, s_lo, h)
    out = np.empty(a.size)
    for i in range(a.size):
        t0 = min(cum[a[i] + 1] - s_hi[i], h)
        t1 = min(cum[a[i] + 1] - s_lo[i], h)
        t = np.arange(t0, t1 + 1)
        f = chunked_unimcd._bound_at(
            t, nc[i], mc[i], ssc[i], bounds[a[i]], bounds[a[i] + 1], bounds[hi_c[i]],
            bounds[last_e[i] + 1], h,
        )  # fmt: skip
        out[i] = f.min()
    return out


def bin_lower_bounds(v, edges, h):
    """The lower bound of every start bin for the sorted ``v`` binned by ``edges``, with
    the true least sum of squares of the windows starting in each bin."""
    cum, c1, c2, bounds, a, s_lo, s_hi = binned(v, edges, h)
    lower = chunked_unimcd._start_bin_lower(cum, c1, c2, bounds, a, s_lo, s_hi, h)
    ss = window_sums(v, h)
    least = np.array([ss[int(lo) : int(hi) + 1].min() for lo, hi in zip(s_lo, s_hi, strict=True)])
    return lower, least


def random_binning(n, bins, seed, share):
    """Sorted heavy-tailed values with ties (rounded), ``h`` and random bin edges."""
    rng = np.random.default_rng(seed)
    v = np.sort(np.round(rng.standard_t(2, size=n), int(rng.integers(0, 3))))
    h = min(max(int(share * n), 2), n - 1)
    return v, h, np.sort(rng.uniform(v[0] - 1, v[-1] + 1, size=bins))


def exact_fit(Y, m, chunks):
    """The chunked univariate MCD of ``Y``'s ``m`` columns in ``chunks`` chunks, recorded,
    checked equal to the in-memory one; the recording runner and the pass count."""
    n = Y.shape[0]
    h = (3 * n) // 4
    run = Recording(Y, chunk_rows=n // chunks)
    index, pilot = np.arange(n), Y[pilot_indices(n)]
    location, scale, passes = univariate_mcd_chunked(run, index, Columns(), m, n, h, pilot)
    expected = univariate_mcd(Y, h)
    np.testing.assert_allclose(location, expected[0], rtol=1e-12)
    np.testing.assert_allclose(scale, expected[1], rtol=1e-12)
    return run, passes


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(8, 400),
    bins=st.integers(1, 60),
    seed=st.integers(0, 2**32 - 1),
    share=st.floats(0.5, 0.95),
)
def test_window_lower_bounds_hold(n, bins, seed, share):
    """Every start bin's lower bound is at most the sum of squares of every window of
    ``h`` ranks starting in it, for any binning (gross values, ties, empty bins)."""
    v, h, edges = random_binning(n, bins, seed, share)
    lower, least = bin_lower_bounds(v, edges, h)
    assert np.all(lower <= least + 1e-9 * max(np.abs(least).max(), 1.0))


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(8, 400),
    bins=st.integers(1, 30),
    seed=st.integers(0, 2**32 - 1),
    share=st.floats(0.5, 0.95),
)
def test_start_bin_bound_is_its_least_value_over_the_bin(n, bins, seed, share):
    """The closed form (a few points per bin) is the bound's least value over the start
    ranks, evaluated at every one of them, to rounding (a missed piece, vertex or
    neighbouring integer would leave it above)."""
    v, h, edges = random_binning(n, bins, seed, share)
    args = (*binned(v, edges, h), h)
    closed = chunked_unimcd._start_bin_lower(*args)
    ranks = bound_over(*args)
    np.testing.assert_allclose(closed, ranks, rtol=1e-12, atol=1e-12 * np.abs(ranks).max())


def test_window_lower_bounds_meet_the_sums_as_bins_narrow():
    """With a value a bin, near the least window the bound meets the windows' sums of
    squares to a small part of one value's share of them, so that refining ends (a bound
    that leaves a value of the window out stays several shares below however fine the
    bins, and the candidates never narrow)."""
    rng = np.random.default_rng(3)
    v = np.sort(rng.normal(size=4000))
    h = 3000
    edges = (v[1:] + v[:-1]) / 2  # one value a bin
    lower, least = bin_lower_bounds(v, edges, h)
    share = least.min() / h  # a value's share of a window's sum of squares
    assert np.all(lower <= least)
    near = least <= least.min() + 20 * share
    assert near.sum() > 100
    assert np.max(least[near] - lower[near]) < 0.1 * share


def planted(n, m=2, seed=0):
    rng = np.random.default_rng(seed)
    Y = rng.normal(size=(n, m)) * np.arange(1, m + 1)
    Y[: n // 10] += 6.0 + rng.normal(size=(n // 10, m))
    return Y


@pytest.mark.slow
@pytest.mark.parametrize("n", [300_000, 1_200_000])
def test_refining_passes_are_bounded_and_exact(monkeypatch, n):
    """With a budget that forces refining, the windows are unimcd's exactly, the
    refinement ends after one refining pass, and what a refining pass returns per chunk
    is at most about REFINE_BINS_PER_COLUMN bins a column, whatever the rows (four times
    as many rows: the same sizes)."""
    monkeypatch.setattr(order_statistics, "GATHER_BUDGET", n // 200)
    monkeypatch.setattr(chunked_unimcd, "GATHER_BUDGET", n // 200)
    Y = planted(n)
    run, passes = exact_fit(Y, 2, 8)
    histograms = [p for p in run.passes if p[0] == "histogram_pass"]
    assert passes == len(run.passes)
    # the pilot's bins, one refining pass, then the scaled residuals' bins
    assert len(histograms) <= 3
    first, refining = histograms[0], histograms[1]
    assert first[2][0] == (2, pilot_indices(n).size + 1)  # counts: pilot bins + 1
    bins = refining[2][0][1]
    assert REFINE_BINS_PER_COLUMN // 2 <= bins <= REFINE_BINS_PER_COLUMN + 64
    assert refining[1] == 3 * 2 * bins  # counts, s1, s2


def test_refined_and_unrefined_windows_agree(monkeypatch):
    """The least-variance windows found after refining equal those found without."""
    n = 200_000
    Y = planted(n, m=3, seed=4)
    h = n // 2 + 1
    index, pilot = np.arange(n), Y[pilot_indices(n)]
    plain = least_variance_windows(NumpyPassRunner(Y, 50_000), index, Columns(), 3, n, h, pilot)
    monkeypatch.setattr(chunked_unimcd, "GATHER_BUDGET", 300)
    refined = least_variance_windows(NumpyPassRunner(Y, 50_000), index, Columns(), 3, n, h, pilot)
    assert refined[3] > plain[3]
    assert [f[0] for f in refined[2]] == [f[0] for f in plain[2]]
    np.testing.assert_allclose(refined[0], plain[0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(refined[1], plain[1], rtol=1e-11)


@pytest.mark.parametrize("end", [False, True])
def test_refining_passes_count_only_the_split_bins(monkeypatch, end):
    """A refining pass counts and sums only the pieces of the bins it splits
    (``wanted``); the merged histograms, the windows and their sums are those of passes
    that count every bin, to the last bit. ``end``: a window starting below the pilot's
    least value, so that the split bin is an open end bin and its lowest piece is one of
    the bins the comparisons count."""
    n = 200_000
    Y = planted(n, m=3, seed=4)
    h = n - 40 if end else n // 2 + 1
    index, pilot = np.arange(n), Y[pilot_indices(n)]
    monkeypatch.setattr(chunked_unimcd, "GATHER_BUDGET", 20)
    seen, skipped = [], []

    def every_bin(x, rows=None, *, wanted=None, **params):
        seen.append(wanted)
        out = histogram_pass(x, rows, **params)
        if wanted is not None:  # what the pass with ``wanted`` counts, where wanted
            cut = histogram_pass(x, rows, wanted=wanted, **params)
            for key in ("counts", "s1", "s2"):
                np.testing.assert_array_equal(cut[key][wanted], out[key][wanted])
            skipped.append((cut["counts"][~wanted] < out["counts"][~wanted]).any())
        return out

    runs = {}
    for name in ("wanted", "every bin"):
        if name == "every bin":
            monkeypatch.setattr(chunked_unimcd, "histogram_pass", every_bin)
        held: list = []
        got = least_variance_windows(
            NumpyPassRunner(Y, 50_000), index, Columns(), 3, n, h, pilot, histograms=held
        )
        runs[name] = got, held
    (a, held_a), (b, held_b) = runs["wanted"], runs["every bin"]
    assert any(skipped)  # refining passes ran, and left bins out
    if end:
        assert any(w is not None and w[:, 0].any() for w in seen)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert [f[0] for f in a[2]] == [f[0] for f in b[2]]
    for col_a, col_b in zip(held_a[0], held_b[0], strict=True):
        for key in ("edges", "counts", "s1", "s2"):
            np.testing.assert_array_equal(getattr(col_a, key), getattr(col_b, key))


def test_histogram_pass_sums_only_when_asked():
    """Counts and extremes; the binned sums of ``v - shift`` only with ``shift``, equal
    to the sums of each bin's values."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5000, 3))
    edges = np.sort(rng.normal(size=(3, 40)), axis=1)
    plain = histogram_pass(x, values=Columns(), edges=edges)
    assert set(plain) == {"counts", "extremes"}
    shift = np.array([0.5, -1.0, 2.0])
    full = histogram_pass(x, values=Columns(), edges=edges, shift=shift)
    for j in range(3):
        where = np.searchsorted(edges[j], x[:, j], side="right")
        d = x[:, j] - shift[j]
        np.testing.assert_array_equal(full["counts"][j], np.bincount(where, minlength=41))
        np.testing.assert_allclose(full["s1"][j], np.bincount(where, d, 41), atol=1e-9)
        np.testing.assert_allclose(full["s2"][j], np.bincount(where, d * d, 41), rtol=1e-9)
    np.testing.assert_array_equal(full["extremes"].low, x.min(axis=0))


@pytest.mark.parametrize("shift", [None, np.array([0.5, -1.0, 2.0, 0.0, 1.0])])
def test_histogram_pass_with_narrow_edges(shift, monkeypatch):
    """Edges around a few values of each column (a refining pass's: one range, two ranges
    far apart, one edge, none): the open end bins and the widest inner bin are counted
    and summed by comparisons, and the pass equals searchsorted and bincount, values on
    the edges included."""
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=(20_000, 5)), 2)
    edges = np.full((5, 40), np.inf)
    ranges = [
        np.linspace(0.0, 0.05, 21),
        np.concatenate([np.linspace(-0.7, -0.65, 6), np.linspace(0.6, 0.66, 7)]),
        np.concatenate([np.linspace(-0.1, -0.05, 11), np.linspace(0.5, 0.55, 11)]),
        np.array([0.3]),
    ]
    for j, e in enumerate(ranges):
        e = np.unique(np.round(e, 2))
        edges[j, : e.size] = e

    def all_values(self, V):
        raise AssertionError("the comparisons' path was not taken")

    monkeypatch.setattr(chunked_histogram.EdgeGrid, "bins", all_values)
    full = histogram_pass(x, values=Columns(), edges=edges, shift=shift)
    # the bins a caller reads: those are counted and summed as in full, whichever
    # columns of a group want a compared bin and whichever do not
    wanted = np.random.default_rng(4).random((5, 41)) < 0.5
    cut = histogram_pass(x, values=Columns(), edges=edges, shift=shift, wanted=wanted)
    for key in ("counts", "s1", "s2") if shift is not None else ("counts",):
        np.testing.assert_array_equal(cut[key][wanted], full[key][wanted])
    for j in range(5):
        where = np.searchsorted(edges[j], x[:, j], side="right")
        np.testing.assert_array_equal(full["counts"][j], np.bincount(where, minlength=41))
        if shift is not None:
            d = x[:, j] - shift[j]
            np.testing.assert_allclose(full["s1"][j], np.bincount(where, d, 41), atol=1e-9)
            np.testing.assert_allclose(full["s2"][j], np.bincount(where, d * d, 41), rtol=1e-12)


@pytest.mark.parametrize("width", [1, 2, 3, 7])
def test_histogram_pass_by_groups_of_columns(width, monkeypatch):
    """Columns taken ``width`` at a time over several sub-blocks of rows: columns whose
    values are located among all their edges, columns counted mostly by comparisons, a
    column with NaN and infinite values and one with no edge, in one group or split
    across groups; each column as searchsorted and bincount count and sum it."""
    rng = np.random.default_rng(5)
    rows, m = 3000, 7
    x = np.round(rng.normal(size=(rows, m)), 2)
    x[::97, 4] = np.nan
    x[::101, 4] = -np.inf
    edge_lists = [
        np.unique(np.round(rng.normal(size=30), 2)),  # dense: a pilot's edges
        np.unique(np.round(np.linspace(0.0, 0.05, 21), 2)),  # narrow: comparisons
        np.unique(np.round(rng.normal(size=5), 2)),
        np.unique(np.round(np.r_[np.linspace(-0.7, -0.6, 11), np.linspace(0.6, 0.7, 11)], 2)),
        np.unique(np.round(rng.normal(size=12), 2)),
        np.array([]),
        np.array([0.3]),
    ]
    edges = np.full((m, 30), np.inf)
    for j, e in enumerate(edge_lists):
        edges[j, : e.size] = e
    shift = rng.normal(size=m)
    monkeypatch.setattr(chunked, "VALUE_BLOCK_ROWS", 700)
    monkeypatch.setattr(chunked_histogram, "HISTOGRAM_GROUP_VALUES", 700 * width)
    got = histogram_pass(x, values=Columns(), edges=edges, shift=shift)
    for j in range(m):
        where = np.searchsorted(edges[j], x[:, j], side="right")
        np.testing.assert_array_equal(got["counts"][j], np.bincount(where, minlength=31))
        if j == 4:  # NaN sums are NaN wherever they land
            continue
        d = x[:, j] - shift[j]
        np.testing.assert_allclose(got["s1"][j], np.bincount(where, d, 31), atol=1e-9)
        np.testing.assert_allclose(got["s2"][j], np.bincount(where, d * d, 31), rtol=1e-12)
    np.testing.assert_array_equal(got["extremes"].low, np.min(x, axis=0))
    np.testing.assert_array_equal(got["extremes"].high, np.max(x, axis=0))


def test_outlyingness_by_blocks_of_rows():
    """ROBPCA's outlyingness of a large chunk on 250 directions: the formula's values,
    with temporaries that do not grow with the chunk."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=(40_000, 6))
    B = rng.normal(size=(250, 6))
    B /= np.linalg.norm(B, axis=1, keepdims=True)
    location, scale = rng.normal(size=250), rng.uniform(0.5, 2.0, size=250)
    outl = Outlyingness(Projections(AffineRows(), B), location, scale)
    tracemalloc.start()
    got = outl(x)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    expected = (np.abs(x @ B.T - location) / scale).max(axis=1)
    np.testing.assert_allclose(got[:, 0], expected, rtol=1e-13)
    assert peak < 40e6  # all rows at once: three 80 MB temporaries


def test_first_pass_bins_thinned_for_many_columns(monkeypatch):
    """With more columns than PASS_BINS allows the pilot's bins for, the first counting
    pass takes every few pilot values as edges (at most PASS_BINS / columns a column);
    the windows, and rrcov's unimcd, stay exact."""
    monkeypatch.setattr(chunked_unimcd, "PASS_BINS", 1024)
    monkeypatch.setattr(chunked_unimcd, "REFINE_BINS_PER_COLUMN", 128)
    n = 300_000
    Y = planted(n, m=4, seed=6)
    run, _ = exact_fit(Y, 4, 4)
    first = run.passes[0]
    assert first[0] == "histogram_pass"
    assert 200 <= first[2][0][1] <= 1024 // 4 + 1  # bins a column: thinned pilot values


def test_subset_gathers_stay_within_the_budget_in_floats(monkeypatch):
    """The rows of least value gathered with their ``k`` coordinates (``4 + k`` floats a
    row) are at most ``4 GATHER_BUDGET`` floats: a guessed bracket that would hold more
    is not gathered, the counting passes find a narrower one, and the subset is exact."""
    from robustpca.solvers import chunked_smallest_subsets

    monkeypatch.setattr(chunked_smallest_subsets, "GATHER_BUDGET", 4000)
    n, k = 300_000, 20
    X = np.random.default_rng(7).normal(size=(n, k))
    gathered = []

    class Noting(NumpyPassRunner):
        def __call__(self, kernel, rows=None, **params):
            out = super().__call__(kernel, rows, **params)
            if "records" in out:
                gathered.append(out["records"].values.size)
            return out

    values = Outlyingness(Projections(AffineRows(), np.eye(k)[:1]), np.zeros(1), np.ones(1))
    h = n // 2 + 1
    run = Noting(X, n // 4)
    (subset,), (moments,), passes = chunked_smallest_subsets.smallest_subsets(
        run, np.arange(n), AffineRows(), values, h, X[pilot_indices(n)]
    )
    assert passes >= 2 and gathered and max(gathered) <= 4 * 4000
    chosen = np.argsort(np.abs(X[:, 0]), kind="stable")[:h]
    np.testing.assert_allclose(moments.mean, X[chosen].mean(axis=0), atol=1e-12)
    member = subset.member(X, np.arange(n))
    assert member.sum() == h and member[chosen].all()


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(4, 400),
    bins=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1),
    ties=st.booleans(),
    data=st.data(),
)
def test_residual_brackets_hold_the_hth_residual(n, bins, seed, ties, data):
    """From any histogram of the values, the bounds hold the ``h``-th smallest scaled
    residual ``(v - centre)**2 / var`` (as ``_Scaled`` forms it), and the bins counted as
    the load hold every value whose residual lies between them."""
    rng = np.random.default_rng(seed)
    v = rng.integers(-5, 6, size=n).astype(float) if ties else rng.normal(size=n) * 10
    v[: n // 7] *= 1e3
    edges = np.unique(rng.choice(v, size=min(bins, n)) + data.draw(st.sampled_from([0, 0.5])))
    counts = np.diff(np.concatenate([[0], np.searchsorted(np.sort(v), edges), [n]]))
    column = chunked_unimcd._Column(edges, counts.astype(float), counts * 0.0, counts * 0.0)
    centre = data.draw(st.floats(-20, 20))
    var = data.draw(st.floats(1e-3, 1e3))
    h = data.draw(st.integers(1, n))
    r_lo, r_hi, load = chunked_unimcd.residual_brackets(column, v.min(), v.max(), centre, var, h)
    res = np.sort((v - centre) ** 2 / var)
    assert r_lo <= res[h - 1] <= r_hi
    assert load >= np.count_nonzero((res >= r_lo) & (res <= r_hi))


def test_hth_residual_by_one_gathering_pass(monkeypatch):
    """On 200,000 values, the window's histogram brackets the ``h``-th scaled residual of
    every column: one gathering pass, neither the pilot's guess nor counting passes
    (``select_ranks``), with the same unimcd."""

    def unused(*args, **kwargs):
        raise AssertionError("select_ranks ran")

    monkeypatch.setattr(chunked_unimcd, "select_ranks", unused)
    n, m = 200_000, 3
    Y = np.random.default_rng(3).standard_t(3, size=(n, m))
    run, passes = exact_fit(Y, m, 8)
    kernels = [p[0] for p in run.passes]
    assert kernels.count("histogram_pass") + kernels.count("gather_pass") <= 4
    assert kernels[-2:] == ["gather_pass", "reweighted_sums_pass"]
    assert passes == len(kernels)


@settings(max_examples=60, deadline=None)
@given(
    m=st.integers(1, 4),
    n_edges=st.integers(0, 40),
    n=st.integers(0, 300),
    seed=st.integers(0, 2**32 - 1),
    spread=st.sampled_from([1e-12, 1e-3, 1.0, 1e6, 1e300]),
    decimals=st.integers(0, 3),
    crowded=st.booleans(),
)
def test_edge_grid_locates_as_searchsorted(m, n_edges, n, seed, spread, decimals, crowded):
    """EdgeGrid gives numpy's searchsorted(side="right") exactly: values on the edges,
    clusters of edges in one cell, columns with no or one finite edge, values far outside
    the edges, float32 values, and ranges down to a few ulps or near overflow."""
    rng = np.random.default_rng(seed)
    edges = np.full((m, max(n_edges + n_edges // 2, 1)), np.inf)
    values = np.empty((m, n))
    for j in range(m):
        centre = rng.normal() * spread
        e = np.round(centre + spread * rng.standard_t(2, size=n_edges), decimals)
        if crowded:  # a refining pass's edges: a cluster far narrower than the range
            e = np.concatenate([e, centre + spread * 1e-6 * np.arange(int(n_edges / 2))])
        e = np.unique(e[np.isfinite(e)])
        k = int(rng.integers(0, e.size + 1))
        edges[j, :k] = e[:k]  # columns end in +inf padding, as _padded gives them
        pool = np.concatenate([e, centre + 2 * spread * rng.standard_t(2, size=max(n, 1))])
        values[j] = rng.choice(pool[np.isfinite(pool)], size=n)
    grid = chunked_histogram.EdgeGrid(edges)
    singles = [values.astype(np.float32)] if spread < 1e30 else []
    for V in (values, *singles):
        expected = [np.searchsorted(edges[j], V[j], side="right") for j in range(m)]
        offsets = (edges.shape[1] + 1) * np.arange(m)[:, None]
        located = np.reshape(expected, (m, n)) + offsets
        np.testing.assert_array_equal(grid.bins(V), located)
        keep = rng.random((m, n)) < 0.3  # some values of each column, as flat arrays
        column = np.nonzero(keep)[0]
        np.testing.assert_array_equal(grid.bins_of(V[keep], column), located[keep])
        # the columns from ``start`` on, their bins counted from that column's
        start = int(rng.integers(0, m + 1))
        local = located[start:] - start * (edges.shape[1] + 1)
        np.testing.assert_array_equal(grid.bins(V[start:], start), local)
        part = keep[start:]
        column = np.nonzero(part)[0]
        np.testing.assert_array_equal(grid.bins_of(V[start:][part], column, start), local[part])


def test_counting_pass_takes_numpy_order_for_non_finite_values():
    """Values that are NaN or infinite are binned where numpy's searchsorted puts them."""
    x = np.array([[0.5], [np.inf], [-np.inf], [np.nan], [2.0]])
    edges = np.array([[0.0, 1.0, np.inf]])
    hist = histogram_pass(x, np.arange(5), values=Columns(), edges=edges)
    expected = np.bincount(np.searchsorted(edges[0], x[:, 0], side="right"), minlength=4)
    np.testing.assert_array_equal(hist["counts"][0], expected)
