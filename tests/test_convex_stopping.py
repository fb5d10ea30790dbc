"""The stopping rule of the convex ALM solvers: the certified relative duality gap.

Weak duality (the gap bounds the true suboptimality and is never negative), the default
target met on the occluded AT&T faces, Lin et al.'s rule kept with ``gap_tol=None``,
and problems with exact recovery stopping after exactly Lin et al.'s iterations.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from bench_convex import outlier_problem  # benchmarks/, put on the path by conftest
from robustpca.estimators._convex import (
    ConvexOptimalMeanPCA,
    OutlierPursuit,
    PrincipalComponentPursuit,
)
from robustpca.solvers import alm_gap
from robustpca.solvers.alm import (
    DUALITY_GAP,
    PRIMAL_RESIDUAL,
    gamma_max,
    solve_crpca_om,
    solve_outlier_pursuit,
    solve_pcp,
)
from robustpca.solvers.alm_schedule import STALL_WINDOW, _Schedule

from .conftest import corrupted_low_rank, occluded_faces

ESTIMATORS = [PrincipalComponentPursuit, OutlierPursuit, ConvexOptimalMeanPCA]


def problem(seed, n=40, d=25):
    """Rank 2 plus an offset, 5% gross entries and 10% outlying rows."""
    return corrupted_low_rank(seed, n, d, rank=2, offset=1.5, entry_scale=8, row_scale=3)


def solve(kind, X, **kwargs):
    """One of the three solvers with its default weight."""
    rng = np.random.default_rng(0)
    if kind == "pcp":
        return solve_pcp(X, lam=1 / np.sqrt(max(X.shape)), rng=rng, **kwargs)
    if kind == "op":
        return solve_outlier_pursuit(X, gamma=0.3 * gamma_max(X), rng=rng, **kwargs)
    return solve_crpca_om(X, gamma=0.3 * gamma_max(X - X.mean(axis=0)), rng=rng, **kwargs)


def optimum(kind, X) -> float:
    """A certified lower bound on the optimum, within 1e-8 of it: the best ``f (1 - gap)``
    of an ADMM tail with a fixed penalty of 30 times its start (up to 10000 iterations:
    PCP on a 5 x 3 table drawn by hypothesis, seed 1550, took 7177, its gap still 1.6e-6
    at 5000 on the default schedule) and, if that did not reach a gap of 1e-9, of the
    default schedule run to 1e-9 (up to 5000 iterations: PCP on a 3 x 8 table took 2302,
    its gap still 3.5e-7 at 1500)."""
    Xs = X - X.mean(axis=0) if kind == "om" else X
    mu = 1.25 / np.linalg.norm(Xs, 2)
    bound = -np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for kwargs in ({"gap_tol": None, "mu_max": 30 * mu, "tol": 1e-13}, {"gap_tol": 1e-9}):
            ref = solve(kind, X, max_iter=10000 if kwargs["gap_tol"] is None else 5000, **kwargs)
            bound = max(bound, float(ref.objective[-1]) * (1 - ref.info["duality_gap"]))
            if ref.info["duality_gap"] <= 1e-9:
                break
    assert bound > 0 and (ref.objective[-1] - bound) <= 1e-8 * ref.objective[-1]
    return bound


@pytest.mark.parametrize("kind", ["pcp", "op", "om"])
def test_the_gap_bounds_the_suboptimality_at_every_stop(kind):
    """Weak duality: at any iterate (stopped after 1 to 60 iterations, in both phases of
    the schedule) 0 <= (f - f*) / f <= gap, with f* from a run to a gap of 1e-11."""
    X = problem(1, n=30, d=20)
    best = optimum(kind, X)
    for max_iter in (1, 3, 10, 25, 60):
        res = solve(kind, X, max_iter=max_iter)
        f, gap = float(res.objective[-1]), res.info["duality_gap"]
        assert gap >= -1e-12
        assert (f - best) / f <= gap + 1e-8
    res = solve(kind, X)
    assert res.stop_reason == DUALITY_GAP and res.info["duality_gap"] <= 1e-3


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@given(
    n=st.integers(3, 9),
    d=st.integers(3, 9),
    seed=st.integers(0, 10_000),
    kind=st.sampled_from(["pcp", "op", "om"]),
    max_iter=st.integers(1, 40),
)
def test_weak_duality_on_small_random_problems(n, d, seed, kind, max_iter):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) + np.where(rng.random((n, d)) < 0.2, 5.0, 0.0)
    best = optimum(kind, X)
    res = solve(kind, X, max_iter=max_iter)
    f, gap = float(res.objective[-1]), res.info["duality_gap"]
    assert np.isfinite(gap) and gap >= -1e-12
    assert (f - best) / max(f, 1e-300) <= gap + 1e-9


@pytest.mark.parametrize("gap_tol", [1e-2, 1e-4])
@pytest.mark.parametrize("cls", ESTIMATORS)
def test_the_gap_target_is_met(cls, gap_tol):
    X = problem(2, n=60, d=30)
    model = cls(random_state=0, gap_tol=gap_tol).fit(X)
    assert model.converged_ and model.stop_reason_ == DUALITY_GAP
    assert 0 <= model.duality_gap_ <= gap_tol
    residual = np.linalg.norm(X - model.low_rank_ - model.sparse_)
    assert residual <= max(model.tol, gap_tol) * np.linalg.norm(X - model.mean_)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_gap_tol_none_is_lin_et_als_rule(cls):
    """``gap_tol=None``: the primal residual alone, with a larger gap here."""
    X = problem(3, n=60, d=30)
    lin = cls(random_state=0, gap_tol=None).fit(X)
    gap = cls(random_state=0).fit(X)
    assert lin.converged_ and lin.stop_reason_ == PRIMAL_RESIDUAL
    assert gap.duality_gap_ <= 1e-3
    assert gap.objective_history_[-1] <= lin.objective_history_[-1] * (1 + 1e-3)


def test_exact_recovery_stops_with_lin_et_als_iterates():
    """Candès et al.'s setting (rank 5%, 5% gross errors): the gap is met when Lin et
    al.'s rule is, so the fit is theirs iterate for iterate (to the accuracy of the
    singular value thresholding, whose route 'auto' picks by the clock)."""
    rng = np.random.default_rng(0)
    n, r = 200, 10
    L = rng.normal(size=(n, r)) @ rng.normal(size=(r, n))
    S = np.where(rng.random((n, n)) < 0.05, rng.uniform(-50, 50, (n, n)), 0.0)
    lin = PrincipalComponentPursuit(random_state=0, gap_tol=None).fit(L + S)
    gap = PrincipalComponentPursuit(random_state=0).fit(L + S)
    assert gap.stop_reason_ == DUALITY_GAP and gap.n_iter_ == lin.n_iter_
    np.testing.assert_allclose(gap.low_rank_, lin.low_rank_, rtol=1e-9, atol=1e-9)
    assert np.linalg.norm(gap.low_rank_ - L) < 1e-6 * np.linalg.norm(L)


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize(
    ("value", "error"),
    [(-1e-3, ValueError), (0.0, ValueError), (1.0, ValueError), (2.0, ValueError)],
)
def test_bad_gap_tol_names_the_parameter(cls, value, error):
    """A relative gap of 1 or more certifies nothing (2.0 had stopped a fit after 9
    iterations, rank 21 for a planted 10)."""
    with pytest.raises(error, match="gap_tol"):
        cls(gap_tol=value).fit(problem(4))


def test_residual_trace_is_recorded():
    res = solve("pcp", problem(5))
    trace = res.info["residuals"]
    assert len(trace["primal"]) == len(trace["dual"]) == len(trace["gap"]) == res.n_iter
    assert np.all(trace["primal"] >= 0)
    # the dual residual at every iteration (it ends Lin et al.'s phase early when it
    # stalls), the cheap gap after that phase
    assert np.all(np.isfinite(trace["dual"])) and np.all(trace["dual"] >= 0)
    measured = np.isfinite(trace["gap"])
    assert measured.any() and not measured[0]
    assert np.all(measured[np.argmax(measured) :])
    iterations, certified = np.asarray(trace["certified"]).T
    assert certified[-1] == res.info["duality_gap"] and iterations[-1] == res.n_iter


def lin_phase(duals, primal=1e-3, gap_tol=1e-3, mu_max=1e7):
    """Feed a schedule the dual residuals ``duals`` (primal residual fixed); return the
    iteration at which Lin et al.'s phase ended (None if it did not) and the penalties."""
    schedule, mu, mus = _Schedule(1.0, 1.5, mu_max, 1e-7, gap_tol), 1.0, []
    for k, dual in enumerate(duals, start=1):
        mus.append(mu)
        mu = schedule.next_mu(mu, primal, dual)
        if schedule.phase != "lin":
            return k, [*mus, mu]
    return None, [*mus, mu]


def test_lin_et_als_phase_ends_when_the_multiplier_stalls():
    """The penalty stops growing once the dual residual has not fallen below 0.7 of its
    value three iterations before, twice in a row, while above 5 times the primal one:
    the growth is kept then, not undone."""
    falling = [0.5 * 0.6**k for k in range(20)]  # converging: 0.22 every three
    assert lin_phase(falling, primal=1e-4)[0] is None
    stalling = [0.09, 0.095, 0.096, 0.094, 0.09, 0.085, 0.08]  # the large faces, 8-14
    k, mus = lin_phase(stalling, primal=1e-3)
    assert k == STALL_WINDOW + 2 and mus[-1] == mus[-2] == 1.5 ** (k - 1)
    assert lin_phase(stalling, primal=0.05)[0] is None  # not 5 times the primal one
    assert lin_phase(stalling, gap_tol=None)[0] is None  # Lin et al.'s rule kept
    # at the cap the penalty no longer grows: the phase goes on to tol (Nie et al.'s
    # Figure 1 in its accurate mode, capped at 10 mu_0, relies on it)
    assert lin_phase(stalling, mu_max=1.5)[0] is None
    # once is noise (planted 200 x 200, exact recovery: 6.3e-3, 4.6e-3, 3.9e-3, 1.1e-3,
    # 4.2e-3, 1.6e-3 at iterations 13-18)
    assert lin_phase([6.3e-3, 4.6e-3, 3.9e-3, 1.1e-3, 4.2e-3, 1.6e-3], primal=1e-6)[0] is None
    # a rise from zero is the sparse part filling in (outlier pursuit, exact recovery)
    assert lin_phase([0.0, 8e-17, 9.5e-17, 4.1e-2, 0.23, 2.8e-2, 7.9e-4])[0] is None


def test_a_stall_near_the_optimum_is_certified_at_once():
    """At the stall with the primal residual below ``max(tol, gap_tol)`` the certified gap
    is due at that very iteration; above it, not yet. A failed certificate without a
    cheap gap (NaN in Lin et al.'s phase) leaves the cheap-gap trigger armed."""
    stalling = [0.09, 0.095, 0.096, 0.094, 0.09, 0.085, 0.08]
    for primal, due in ((1e-3, True), (2e-3, False)):
        schedule, mu = _Schedule(1.0, 1.5, 1e7, 1e-7, 1e-3), 1.0
        for dual in stalling:
            mu = schedule.next_mu(mu, primal, dual)
            if schedule.phase != "lin":
                break
        k = len(schedule.duals)  # the iteration of the stall
        assert k == STALL_WINDOW + 2
        assert schedule.wants_certificate(k, primal, np.nan, mu) is due
    assert not schedule.done(k, np.nan, 2e-2)
    assert schedule.wants_certificate(k + 1, 1e-3, 5e-3, mu)  # cheap gap under 10 gap_tol


def test_crpca_om_stops_at_the_stall_when_the_gap_is_met():
    """CRPCA-OM on 600 x 300 data with 10% outlying samples: the dual residual stalls at
    4e-3 (iterations 10-13) while the primal one falls below gap_tol, and the certified
    gap is then 4.5e-4, so the fit stops at 13 (Lin et al.'s rule takes 19; before,
    the balancing took over from there, to a lower penalty and dearer iterations)."""
    X = outlier_problem(600, 300, 0)  # benchmarks/bench_convex.py's, smaller
    model = ConvexOptimalMeanPCA(random_state=0).fit(X)
    lin = ConvexOptimalMeanPCA(random_state=0, gap_tol=None).fit(X)
    assert model.stop_reason_ == DUALITY_GAP and model.duality_gap_ <= 1e-3
    (first, _), *_ = model.residuals_["certified"]
    assert first == model.n_iter_ < lin.n_iter_
    # the objective is that of Lin et al.'s run to within the gap
    assert model.objective_history_[-1] <= lin.objective_history_[-1] * (1 + 1e-3)


@pytest.mark.realdata
@pytest.mark.parametrize(("cls", "before"), list(zip(ESTIMATORS, (38, 35, 36), strict=True)))
def test_default_gap_target_on_occluded_faces(orl, cls, before):
    """AT&T faces (400 x 1024), 20% of the images with a block of 1/4 of the image: by
    default the three fits stop with a certified gap of at most 1e-3 (Lin et al.'s rule
    alone: 5.7e-2, 1.6e-2, 1.7e-2). Measured: 33, 25 and 19 iterations, where 94, 35
    and 36 were needed before Lin et al.'s phase could end early on a stalled
    multiplier, PCP took 53 before its balancing phase was over-relaxed and 38 before
    its refined certificate (``alm_gap._refined_gap``)."""
    X, _ = occluded_faces(orl)
    model = cls(random_state=0).fit(X)
    assert model.converged_ and model.stop_reason_ == DUALITY_GAP
    assert 0 <= model.duality_gap_ <= 1e-3
    assert model.n_iter_ < before


@pytest.mark.realdata
def test_the_refined_certificate_stops_pcp_sooner_on_occluded_faces(orl, monkeypatch):
    """At each of PCP's certificates on the occluded faces (400 x 1024) the refined dual
    point gives a smaller certified gap than the scaled multiplier, and the fit stops at
    an earlier certificate (33 iterations against 38)."""
    X, _ = occluded_faces(orl)
    model = PrincipalComponentPursuit(random_state=0).fit(X)
    monkeypatch.setattr(alm_gap, "_refined_gap", lambda *args: np.inf)
    plain = PrincipalComponentPursuit(random_state=0).fit(X)
    assert model.stop_reason_ == plain.stop_reason_ == DUALITY_GAP
    assert model.duality_gap_ <= 1e-3 and plain.duality_gap_ <= 1e-3
    assert model.n_iter_ < plain.n_iter_
    refined, scaled = model.residuals_["certified"], plain.residuals_["certified"]
    assert len(refined) < len(scaled)
    for (k, gap), (k_plain, gap_plain) in zip(refined, scaled, strict=False):
        assert k == k_plain and gap < 0.7 * gap_plain
    # the same iterates (to the accuracy of the SVT, whose route 'auto' picks by the
    # clock): the certificate changes only where the loop stops
    np.testing.assert_allclose(
        model.objective_history_, plain.objective_history_[: model.n_iter_], rtol=1e-10
    )


def test_a_certificate_in_the_balancing_phase_keeps_the_balanced_penalty(monkeypatch):
    """Only the certificate that ends Lin et al.'s phase takes the penalty back to the
    one that froze; later certificates leave the balancing's changes alone."""

    def next_mu(self, mu, primal, dual):  # balancing from the first iteration: x2
        self.phase = "balance"
        return 2.0 * mu

    monkeypatch.setattr(_Schedule, "next_mu", next_mu)
    monkeypatch.setattr(_Schedule, "wants_certificate", lambda self, *args: True)
    monkeypatch.setattr(_Schedule, "done", lambda self, *args: False)
    res = solve("pcp", problem(2), max_iter=6)
    mus = res.info["residuals"]["mu"]
    np.testing.assert_allclose(mus[1:] / mus[:-1], 2.0)
    assert len(res.info["residuals"]["certified"]) == 6
