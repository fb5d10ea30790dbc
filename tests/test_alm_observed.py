"""The convex estimators on the observed entries (issue 12): robust matrix completion.

Candès, Li, Ma & Wright (2011, sec. 1.6 and 4): ``min ||L||_* + lam ||P_Omega(S)||_1``
subject to ``P_Omega(L + S) = P_Omega(X)``; the l2,1 analogues for outlier pursuit and
CRPCA-OM (``robustpca.solvers.alm_observed``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import subspace_angles

from robustpca import ConvexOptimalMeanPCA, OutlierPursuit, PrincipalComponentPursuit
from robustpca.solvers.alm import solve_pcp
from robustpca.solvers.alm_observed import solve_observed


def candes_problem(n=400, d=300, rank=10, corrupt=0.05, missing=0.2, seed=0):
    """L = A B^T, gross errors of random sign and 1-5 times 10 times the mean |L|."""
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(n, rank)) @ rng.normal(size=(rank, d))
    S = np.zeros((n, d))
    hit = rng.random((n, d)) < corrupt
    S[hit] = (
        rng.choice([-1.0, 1.0], hit.sum()) * rng.uniform(1, 5, hit.sum()) * 10 * np.abs(L).mean()
    )
    observed = rng.random((n, d)) >= missing
    return L, L + S, observed


def row_outliers(n=200, d=50, rank=3, n_out=20, missing=0.1, seed=0):
    rng = np.random.default_rng(seed)
    U = np.linalg.qr(rng.normal(size=(d, rank)))[0]
    X = 3.0 * rng.normal(size=(n, rank)) @ U.T
    X[:n_out] = 3.0 * rng.normal(size=(n_out, d))
    X += 5.0
    observed = rng.random((n, d)) >= missing
    return U, np.where(observed, X, np.nan)


def test_pcp_recovers_l_with_a_fifth_of_the_entries_missing():
    """The issue's criterion: 400 x 300, rank 10, 5% gross errors, 20% missing: L to
    1e-3 relative error over all entries (measured 5e-7), the gaps included."""
    L, X, observed = candes_problem()
    Xn = np.where(observed, X, np.nan)
    model = PrincipalComponentPursuit(random_state=0).fit(Xn)
    error = np.linalg.norm(model.low_rank_ - L) / np.linalg.norm(L)
    gaps = np.linalg.norm((model.low_rank_ - L)[~observed]) / np.linalg.norm(L[~observed])
    assert error < 1e-3 and gaps < 1e-3
    assert model.rank_ == 10 and model.n_missing_ == int((~observed).sum())
    assert 0.0 <= model.duality_gap_ < 1e-2
    assert np.all(model.sparse_[~observed] == 0.0)


def test_mask_and_nan_mark_the_same_entries():
    _, X, observed = candes_problem(n=80, d=60, rank=4)
    a = PrincipalComponentPursuit(random_state=0).fit(np.where(observed, X, np.nan))
    b = PrincipalComponentPursuit(random_state=0).fit(X, mask=observed)
    np.testing.assert_array_equal(a.low_rank_, b.low_rank_)
    # a NaN is missing even where the mask says observed
    Xn = X.copy()
    Xn[0, 0] = np.nan
    c = PrincipalComponentPursuit(random_state=0).fit(Xn, mask=np.ones_like(observed))
    assert c.n_missing_ == 1
    # an all-True mask on complete data is the complete-data fit
    d = PrincipalComponentPursuit(random_state=0).fit(X, mask=np.ones_like(observed))
    e = PrincipalComponentPursuit(random_state=0).fit(X)
    np.testing.assert_array_equal(d.low_rank_, e.low_rank_)


@pytest.mark.parametrize(
    "name",
    ["PrincipalComponentPursuit", "OutlierPursuit", "ConvexOptimalMeanPCA", "AccAltProj", "GoDec"],
)
def test_a_masked_fit_keeps_feature_names_and_float32(name):
    """``fit(X, mask=...)`` is the fit of ``X`` with NaN where the mask is False: a
    DataFrame keeps its column names (they were lost, and ``predict(df)`` warned), and
    float32 data a float32 model (a mask made it float64)."""
    pd = pytest.importorskip("pandas")
    import robustpca

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 6))
    mask = np.ones(X.shape, dtype=bool)
    mask[3, 1] = False
    df = pd.DataFrame(X, columns=list("abcdef"))
    make = getattr(robustpca, name)
    model = make(n_components=2, random_state=0).fit(df, mask=mask)
    assert list(model.feature_names_in_) == list("abcdef")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        model.predict(df)
    nan = make(n_components=2, random_state=0).fit(df.mask(~mask))
    np.testing.assert_array_equal(model.components_, nan.components_)
    X32 = X.astype(np.float32)
    m32 = make(n_components=2, random_state=0).fit(X32, mask=mask)
    assert m32.components_.dtype == np.float32 and m32.transform(X32).dtype == np.float32
    assert not np.isnan(df.to_numpy()).any()  # the input is not modified


def test_fully_observed_problem_agrees_with_the_complete_data_solver():
    L, X, _ = candes_problem(n=120, d=90, rank=5, missing=0.0)
    everything = np.ones(X.shape, dtype=bool)
    lam = 1.0 / np.sqrt(120)
    masked = solve_observed(X, everything, lam=lam, rng=np.random.default_rng(0))
    full = solve_pcp(X, lam=lam, gap_tol=None, rng=np.random.default_rng(0))
    scale = np.linalg.norm(L)
    assert np.linalg.norm(masked.info["low_rank"] - full.info["low_rank"]) < 1e-5 * scale


@pytest.mark.parametrize(
    "estimator", [OutlierPursuit(center=True, random_state=0), ConvexOptimalMeanPCA(random_state=0)]
)
def test_row_sparse_programs_find_the_outlying_samples_with_gaps(estimator):
    """10% of the entries missing: the planted 3-D subspace and exactly the 20 outlying
    samples (outliers_), the mean of CRPCA-OM within 0.25 of the planted 5."""
    U, Xn = row_outliers()
    model = estimator.fit(Xn)
    assert model.converged_
    assert np.sin(subspace_angles(model.components_[:3].T, U)).max() < 0.05
    np.testing.assert_array_equal(np.flatnonzero(model.outliers_), np.arange(20))
    if isinstance(estimator, ConvexOptimalMeanPCA):
        assert np.abs(model.mean_ - 5.0).max() < 0.25


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16), rate=st.sampled_from([0.05, 0.2, 0.4]))
def test_outputs_are_finite_feasible_and_inputs_untouched(seed, rate):
    _, X, observed = candes_problem(n=40, d=30, rank=2, missing=rate, seed=seed)
    Xn = np.where(observed, X, np.nan)
    copy = Xn.copy()
    for gap_tol, feasible in ((1e-3, 1e-3), (None, 1e-5)):
        # the gap stop needs the primal residual below max(tol, gap_tol); Lin et al.'s
        # rule alone below tol (1e-7)
        model = PrincipalComponentPursuit(gap_tol=gap_tol, random_state=0).fit(Xn)
        np.testing.assert_array_equal(np.isnan(Xn), np.isnan(copy))
        np.testing.assert_array_equal(Xn[observed], copy[observed])
        for attr in ("low_rank_", "sparse_", "components_", "mean_"):
            assert np.isfinite(getattr(model, attr)).all()
        assert np.isfinite(model.duality_gap_)
        if gap_tol is not None and model.converged_:
            assert model.duality_gap_ <= gap_tol
        residual = (model.low_rank_ + model.sparse_ - X)[observed]
        assert np.linalg.norm(residual) <= feasible * np.linalg.norm(X[observed])


@pytest.mark.parametrize(
    ("mask", "error", "match"),
    [(np.ones((5, 5), dtype=bool), ValueError, "shape"), (np.ones((10, 6)), TypeError, "boolean")],
)
def test_bad_masks_name_themselves(mask, error, match):
    X = np.random.default_rng(0).normal(size=(10, 6))
    with pytest.raises(error, match=match):
        PrincipalComponentPursuit().fit(X, mask=mask)


def test_wide_data_with_gaps_are_fitted_as_their_transpose():
    """Wide data (n < d) with gaps: ``n_components=None`` resolved to ``min(n, d)`` and
    the observed-entries count of a rank-``n`` model refused any gap (1% was enough).
    The penalty sets the rank, so only empty rows and columns are refused now. PCP is
    symmetric under transposition: the wide fit is the tall fit of ``X^T``, and it
    recovers ``L`` as the tall problem does."""
    L, X, observed = candes_problem(n=120, d=300, rank=5)
    Xn = np.where(observed, X, np.nan)
    model = PrincipalComponentPursuit(random_state=0).fit(Xn)
    tall = PrincipalComponentPursuit(random_state=0).fit(Xn.T)
    scale = np.abs(L).max()
    np.testing.assert_allclose(model.low_rank_, tall.low_rank_.T, atol=1e-9 * scale)
    assert np.linalg.norm(model.low_rank_ - L) / np.linalg.norm(L) < 1e-3
    assert model.rank_ == 5
    with pytest.raises(ValueError, match="column"):
        PrincipalComponentPursuit().fit(np.where(np.arange(300) == 7, np.nan, Xn))


@pytest.mark.slow
@pytest.mark.parametrize(
    "estimator",
    [
        PrincipalComponentPursuit(random_state=0),
        OutlierPursuit(random_state=0),
        ConvexOptimalMeanPCA(random_state=0),
    ],
)
def test_octane_with_gaps_flags_its_alcohol_samples(shared_data, estimator):
    """rrcov's octane NIR spectra (39 x 226, wide) with a tenth of the cells missing: the
    convex programs fit (they were refused) and flag the six samples with added alcohol
    (25, 26, 36-39, 1-based), as on the complete table. (PCP missed some of 36-39 when
    the tests read octane's response ``y`` as a 227th column.)"""
    from .conftest import load_table, random_gaps

    octane = load_table(shared_data, "octane")
    complete = np.flatnonzero(estimator.fit(octane).predict(octane) == -1)
    for seed in range(3):
        Xm, _ = random_gaps(octane, seed)
        flagged = np.flatnonzero(estimator.fit(Xm).predict(Xm) == -1)
        assert {24, 25, 35, 36, 37, 38} <= set(flagged)
        assert flagged.size <= complete.size + 5


def _primal_objective(model, X, observed, lam, row_sparse):
    """``||L||_* + lam r(P_Omega(X - L - 1 b^T))`` of a fitted model's feasible point."""
    sigma = np.linalg.svd(model.low_rank_ - model.mean_, compute_uv=False)
    R = np.where(observed, X - model.low_rank_, 0.0)
    penalty = np.linalg.norm(R, axis=1).sum() if row_sparse else np.abs(R).sum()
    return sigma.sum() + lam * penalty


@pytest.mark.slow
@pytest.mark.parametrize(
    ("cls", "row_sparse"),
    [(PrincipalComponentPursuit, False), (OutlierPursuit, True), (ConvexOptimalMeanPCA, True)],
)
def test_the_observed_problem_stops_on_its_certified_gap(shared_data, cls, row_sparse):
    """rrcov's octane spectra (39 x 226) with a tenth of the cells missing. Lin et al.'s
    rule alone (``gap_tol=None``, the only rule before) stopped the three programs with
    certified gaps of 5.3-6.7%, PCP at rank 20 (its fit of the complete table has rank
    10). The default now goes on to a gap of at most 1e-3 (PCP at rank 9), and by weak
    duality the objective is then within 1e-3 of a fit to ``gap_tol=1e-5``."""
    from .conftest import load_table, random_gaps

    octane = load_table(shared_data, "octane")
    Xm, mask = random_gaps(octane, 0)
    observed = ~mask
    lin = cls(gap_tol=None, random_state=0).fit(Xm)
    model = cls(random_state=0).fit(Xm)
    precise = cls(gap_tol=1e-5, max_iter=20000, random_state=0).fit(Xm)
    assert model.converged_ and model.duality_gap_ <= 1e-3 < lin.duality_gap_
    assert precise.converged_ and precise.duality_gap_ <= 1e-5
    lam = 1.0 / model.gamma_ if row_sparse else model.lam_  # gamma = 1 / lam (papers)
    ours = _primal_objective(model, octane, observed, lam, row_sparse)
    best = _primal_objective(precise, octane, observed, lam, row_sparse)
    # weak duality: ours is within its gap of the optimum p* <= best (1 + 1e-5)/(...)
    assert ours <= best / (1 - 1e-3) and best <= ours * (1 + 2e-5)
    if cls is PrincipalComponentPursuit:
        assert lin.rank_ >= 15 and abs(model.rank_ - cls(random_state=0).fit(octane).rank_) <= 1
