"""Rows of affine leverage one and the subsets of the skew-adjusted outlyingness.

A row that alone reaches an affine direction (a sparse column non-zero on that row only,
say) has affine leverage one, and every regular ``p``-subset holds all such rows but at
most one (:func:`~robustpca.solvers.outlyingness.forced_rows`). The hyperplanes of
ROBPCA(skew=True) are then drawn among the subsets that hold them, uniformly among the
regular ones as before, without the singular draws that used up robustbase's bound on
the tries before enough directions were found. Subsets that miss the rows where two
columns differ from their most common value are singular too; the support test skips
them before their SVD without changing a direction. Where regular subsets stay rare
after all that, the rest are greedy bases of random orders of the rows.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from robustpca import ROBPCA
from robustpca.solvers.outlyingness import (
    SupportTest,
    affine_leverage,
    draw_subsets,
    draw_subsets_holding,
    fit_adjusted_outlyingness,
    forced_rows,
    greedy_subsets,
    hyperplane_normals,
    scatter_whitening,
)


def leverage_of(X: np.ndarray) -> np.ndarray:
    mean = X.mean(axis=0)
    return affine_leverage(X, mean, scatter_whitening(X - mean, X.shape[0]), X.shape[0])


def sparse_rows(seed: int, n: int, dense: int, private: int, reach: int = 1) -> np.ndarray:
    """``n`` rows of ``dense`` normal columns and ``private`` columns each non-zero on
    ``reach`` rows of its own among the first (a word, a pixel seen on one sample only).
    With ``reach=2`` no row is forced, yet a subset that misses both rows of two such
    columns is singular."""
    rng = np.random.default_rng(seed)
    X = np.zeros((n, dense + private))
    X[:, :dense] = rng.normal(size=(n, dense))
    rows = np.arange(private * reach)
    X[rows, dense + rows // reach] = rng.lognormal(size=rows.size)
    return X


def regular(P: np.ndarray) -> bool:
    s = np.linalg.svd(P, compute_uv=False)
    return bool(s[-1] > 1e-12 * s[0])


def span_scores(X: np.ndarray) -> np.ndarray:
    """The centred rows of ``X`` in coordinates of their span, as the fit's scores."""
    u, s, _ = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
    keep = s > 1e-10 * s[0]
    return u[:, keep] * s[keep]


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    extra=st.integers(1, 20),
    dense=st.integers(1, 4),
    private=st.integers(2, 5),
)
def test_a_subset_without_two_forced_rows_is_singular(seed, extra, dense, private):
    """The theorem behind the draws: the rows with a private column are exactly those
    of affine leverage one, and any ``p``-subset that leaves out two of them is
    singular, while one that holds them all is regular (the rows in general position)."""
    n = private + dense + 1 + extra  # more shared rows than their affine dimensions
    X = sparse_rows(seed, n, dense, private)
    X = X - X.mean(axis=0)  # the fit's scores are centred
    p = X.shape[1]
    np.testing.assert_array_equal(forced_rows(leverage_of(X)), np.arange(private))
    rng = np.random.default_rng(seed)
    free = np.arange(private, n)
    for _ in range(5):
        out = rng.choice(private, 2, replace=False)
        held = np.setdiff1d(np.arange(private), out)
        rows = np.concatenate([held, rng.choice(free, p - held.size, replace=False)])
        assert not regular(X[rows])
        rows = np.concatenate([np.arange(private), rng.choice(free, p - private, replace=False)])
        assert regular(X[rows])


def test_general_position_has_no_forced_rows():
    """With more rows than dimensions and no row alone in a direction, no leverage is
    one, so the fit draws as robustbase does."""
    X = np.random.default_rng(0).normal(size=(40, 6))
    assert forced_rows(leverage_of(X)).size == 0
    assert leverage_of(X).sum() == pytest.approx(7.0)  # the trace: p + 1


@pytest.mark.parametrize("n, p, m", [(7, 3, 2), (8, 4, 3), (6, 4, 5), (9, 3, 4)])
def test_held_draws_are_uniform_on_the_subsets_that_hold_all_forced_rows_but_one(n, p, m):
    """Every draw holds at least ``m - 1`` of the forced rows, and every such subset
    comes as often as any other (a chi-square test on all of them)."""
    forced = np.arange(1, 2 * m, 2)[:m] % n
    forced = np.unique(forced)
    m = forced.size
    admissible = [
        c
        for c in itertools.combinations(range(n), p)
        if len(set(c) & set(forced.tolist())) >= m - 1
    ]
    draws = draw_subsets_holding(np.random.default_rng(1), 40 * len(admissible), n, p, forced)
    assert draws.shape == (40 * len(admissible), p)
    assert (np.diff(draws, axis=1) > 0).all()  # sorted, distinct
    counts = Counter(map(tuple, draws.tolist()))
    assert set(counts) <= set(admissible)
    observed = np.array([counts[c] for c in admissible])
    assert stats.chisquare(observed).pvalue > 1e-3


def test_held_draws_match_uniform_draws_given_regular():
    """On rows with private columns, the regular subsets among uniform draws and among
    held draws have the same distribution (compared per row: how often each is in)."""
    X = sparse_rows(3, 9, 2, 3)
    X -= X.mean(axis=0)
    n, p = X.shape
    forced = forced_rows(leverage_of(X))
    uniform = draw_subsets(np.random.default_rng(0), 40000, n, p)
    uniform = uniform[[regular(X[r]) for r in uniform]]
    held = draw_subsets_holding(np.random.default_rng(0), 8000, n, p, forced)
    held = held[[regular(X[r]) for r in held]]
    assert uniform.shape[0] > 500 and held.shape[0] > 2000
    rate_uniform = np.bincount(uniform.ravel(), minlength=n) / uniform.shape[0]
    rate_held = np.bincount(held.ravel(), minlength=n) / held.shape[0]
    np.testing.assert_allclose(rate_held, rate_uniform, atol=0.05)
    # every regular uniform draw holds the forced rows but at most one
    assert (np.isin(uniform, forced).sum(axis=1) >= forced.size - 1).all()


def test_hyperplanes_found_on_sparse_rows_where_uniform_draws_run_out():
    """60 rows with 12 private columns: uniform draws are regular about once in 2,400
    tries and stop at robustbase's bound with a few directions; held draws find all."""
    X = sparse_rows(0, 60, 4, 12)
    plain, held = normals_without_and_with_forced_rows(X - X.mean(axis=0), 50)
    assert plain.shape[1] < 10
    assert_hyperplanes_through_rows(X - X.mean(axis=0), held, 50)


def normals_without_and_with_forced_rows(X, n_directions):
    """:func:`hyperplane_normals` of the rows ``X``, drawn uniformly, then with the
    forced rows (and all that follows their discovery)."""

    def forced():
        return forced_rows(leverage_of(X))

    plain = hyperplane_normals(X.shape, X.__getitem__, n_directions, np.random.default_rng(0))
    rng = np.random.default_rng(0)
    return plain, hyperplane_normals(X.shape, X.__getitem__, n_directions, rng, forced)


def assert_hyperplanes_through_rows(X, B, n_directions):
    """``n_directions`` normals, each ``b`` that of a hyperplane ``x b = 1`` through
    ``p`` of the rows ``X``."""
    assert B.shape == (X.shape[1], n_directions)
    on_plane = np.isclose(X @ B, 1.0, atol=1e-8).sum(axis=0)
    assert (on_plane >= X.shape[1]).all()


def test_skewed_robpca_on_a_sparse_real_table(adbench):
    """The first 200 rows of ADBench's SpamBase (word and character frequencies, most
    zero; median/MAD scaled) have 49 dimensions and 7 rows each alone in some word. The
    skew step finds its 250 directions in both adjusted outlyingness fits (the first
    stopped at robustbase's bound with one); test_dask_skew checks the chunked fit."""
    X = np.load(adbench / "35_SpamBase.npz")["X"][:200].astype(float)
    median = np.median(X, axis=0)
    mad = stats.median_abs_deviation(X, axis=0, scale="normal")
    X = (X - median) / np.where(mad > 0, mad, 1.0)
    scores = span_scores(X)
    assert scores.shape[1] == 49
    assert forced_rows(leverage_of(scores)).size == 7
    model = fit_adjusted_outlyingness(scores, n_directions=250, rng=np.random.default_rng(0))
    assert model.directions.shape == (49, 250)
    before = X.copy()
    fit = ROBPCA(n_components=3, skew=True, random_state=0).fit(X)
    np.testing.assert_array_equal(X, before)
    assert np.isfinite(fit.components_).all() and np.isfinite(fit.score_samples(X)).all()
    labels = np.load(adbench / "35_SpamBase.npz")["y"][:200]
    assert 0 < (fit.predict(X) == -1).mean() < 0.5 and labels.sum() > 0


def sparse_counts(seed: int, n: int, q: int, density: float) -> np.ndarray:
    """``n`` rows of ``q`` sparse count columns (most entries zero, as word counts)."""
    rng = np.random.default_rng(seed)
    return rng.poisson(2.0, (n, q)) * (rng.random((n, q)) < density)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(10, 40),
    q=st.integers(2, 8),
    density=st.floats(0.05, 0.5),
)
def test_subsets_that_miss_two_supports_are_singular(seed, n, q, density):
    """The support test's claim: every subset it marks is singular in the coordinates
    of the data's span (the fit's scores); marked or not, the SVD decides the same."""
    X = sparse_counts(seed, n, q, density).astype(float)
    Xc = X - X.mean(axis=0)
    u, s, _ = np.linalg.svd(Xc, full_matrices=False)
    keep = s > max(X.shape) * np.finfo(float).eps * max(s[0], 1e-300)
    if keep.sum() == 0:
        return
    scores = u[:, keep] * s[keep]
    p = scores.shape[1]
    rows = draw_subsets(np.random.default_rng(seed), 200, n, p)
    marked = SupportTest(X)(rows)
    for r in rows[marked]:
        assert not regular(scores[r])


def test_the_support_test_changes_no_normal():
    """On sparse counts whose draws are mostly singular, the normals found with the
    support test are those found without it, bit for bit, and it spares most SVDs."""
    X = sparse_counts(2, 80, 30, 0.08).astype(float)
    scores = span_scores(X)

    def forced():
        return forced_rows(leverage_of(scores))

    svds = []

    def fetch(rows):
        svds.append(rows.shape[0])
        return scores[rows]

    args = (scores.shape, fetch, 40)
    plain = hyperplane_normals(*args, np.random.default_rng(0), forced)
    without = sum(svds)
    svds.clear()
    tested = hyperplane_normals(*args, np.random.default_rng(0), forced, SupportTest(X))
    np.testing.assert_array_equal(tested, plain)
    assert plain.shape[1] > 0
    assert sum(svds) < without / 2


def test_support_test_on_a_sparse_real_table(adbench):
    """SpamBase's first 200 rows: the skew fit with the support test (its default) finds
    the same directions as without it."""
    X = np.load(adbench / "35_SpamBase.npz")["X"][:200].astype(float)
    scores = span_scores(X)
    fits = [
        fit_adjusted_outlyingness(
            scores, n_directions=250, rng=np.random.default_rng(0), columns=columns
        )
        for columns in (None, X)
    ]
    np.testing.assert_array_equal(fits[0].directions, fits[1].directions)
    assert fits[1].directions.shape[1] == 250


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(8, 40),
    q=st.integers(2, 8),
    density=st.floats(0.05, 0.6),
)
def test_greedy_subsets_are_regular_and_none_where_the_rows_do_not_span(seed, n, q, density):
    """Every greedy subset is ``p`` linearly independent rows (a hyperplane through
    them exists); rows of lower rank than their width give none."""
    X = sparse_counts(seed, n, q, density).astype(float) + np.arange(q)  # no zero row
    rank = np.linalg.matrix_rank(X)
    subsets = greedy_subsets(np.random.default_rng(seed), X, 5)
    if rank < q:
        assert subsets.shape == (0, q)
        return
    assert subsets.shape == (5, q)
    for rows in subsets:
        assert np.unique(rows).size == q and regular(X[rows])


def test_greedy_subsets_when_regular_draws_are_rare():
    """60 rows with 20 columns each on two rows of its own and no forced row: uniform
    draws find no regular subset within robustbase's bound (5,000 tries). The greedy
    subsets give all 50 directions, each through p rows."""
    X = sparse_rows(0, 60, 4, 20, reach=2)
    X -= X.mean(axis=0)
    assert forced_rows(leverage_of(X)).size == 0
    plain, found = normals_without_and_with_forced_rows(X, 50)
    assert plain.shape[1] == 0
    assert_hyperplanes_through_rows(X, found, 50)


@pytest.mark.realdata
def test_skewed_robpca_where_uniform_draws_find_no_hyperplane(adbench):
    """The first 1,000 rows of ADBench's optdigits (pixel counts, many columns non-zero
    on few rows): uniform draws found no hyperplane through 61 rows within robustbase's
    bound, so the adjusted outlyingness was zero for every row and the h-subset was the
    first rows in order. The greedy subsets give all 250 directions. Many of these
    hyperplanes hold most rows up to rounding: those are ties (their outlyingness had
    followed the rounding, and the two routes fitted different h-subsets), and the rows
    off them are outlying, the same in memory and chunk by chunk."""
    import dask.array as da

    X = np.load(adbench / "26_optdigits.npz")["X"][:1000].astype(float)
    scores = span_scores(X)
    model = fit_adjusted_outlyingness(
        scores, n_directions=250, rng=np.random.default_rng(0), columns=X
    )
    assert model.directions.shape == (scores.shape[1], 250)
    fits = []
    for data in (X, da.from_array(X, chunks=(250, -1))):
        fit = ROBPCA(n_components=5, skew=True, random_state=0).fit(data)
        outlying = np.asarray(fit.outlyingness_) > 0
        assert 0 < outlying.sum() < X.shape[0] - fit.h_
        assert not np.array_equal(np.sort(np.asarray(fit.h_subset_)), np.arange(fit.h_))
        fits.append(fit)
    a, b = fits
    np.testing.assert_array_equal(np.sort(np.asarray(b.h_subset_)), np.sort(a.h_subset_))
    np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, rtol=1e-9)


@pytest.mark.parametrize("chunked", [False, True])
def test_a_skew_fit_without_any_direction_warns(monkeypatch, chunked):
    """The greedy subsets draw from a sample of the rows above ``GREEDY_POOL_VALUES``
    values. Where that sample misses the few rows carrying some direction (here 20
    columns on two rows each among 400, the pool cut to 100 rows), no hyperplane is
    found: the outlyingness was then 0 for every row and the h-subset the first h rows,
    silently. Both routes now warn; with the pool of all rows nothing is said, and the
    directions mark the 40 rows with private columns as the outlying ones (the others
    tie on them)."""
    import warnings

    import dask.array as da

    from robustpca.solvers import outlyingness

    X = sparse_rows(0, 400, 4, 20, reach=2)
    data = da.from_array(X, chunks=(100, -1)) if chunked else X
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = ROBPCA(n_components=2, skew=True, random_state=0).fit(data)
    np.testing.assert_array_equal(np.flatnonzero(np.asarray(model.outlyingness_)), np.arange(40))
    monkeypatch.setattr(outlyingness, "GREEDY_POOL_VALUES", 100 * X.shape[1])
    with pytest.warns(UserWarning, match="no hyperplane .* first adjusted outlyingness"):
        model = ROBPCA(n_components=2, skew=True, random_state=0).fit(data)
    assert np.all(np.asarray(model.outlyingness_) == 0)
