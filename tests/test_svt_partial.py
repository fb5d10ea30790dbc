"""The verified partial singular value thresholding of the convex ALM solvers.

Exactness is the contract (issue 14): the block SVT with Lin et al.'s rank prediction,
warm-started, computes one triplet more than it keeps and checks it falls below the
threshold, growing the block otherwise; every step then equals LAPACK's exact SVT to
about BLOCK_RTOL (5e-11), and whole fits follow the full-SVD iterates. (An unverified partial route,
truncated to the predicted rank, once ended 15% off on a planted problem.)
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import linalg as sla

from robustpca.estimators._convex import (
    ConvexOptimalMeanPCA,
    OutlierPursuit,
    PrincipalComponentPursuit,
)
from robustpca.solvers import alm_svt
from robustpca.solvers.alm import solve_crpca_om, solve_pcp
from robustpca.solvers.alm_svt import _block_svt, _SVTStep

from .conftest import occluded_faces


def exact_svt(M, tau):
    U, s, Vt = sla.svd(M, full_matrices=False)
    keep = s > tau
    return (U[:, keep] * (s[keep] - tau)) @ Vt[keep]


def dense(low):
    return (low.U * low.s) @ low.Vt


def spectrum_matrix(sigma, m, n, seed):
    rng = np.random.default_rng(seed)
    U = np.linalg.qr(rng.normal(size=(m, len(sigma))))[0]
    V = np.linalg.qr(rng.normal(size=(n, len(sigma))))[0]
    return (U * sigma) @ V.T


def candes_problem(n, seed, fraction=0.05):
    """Candès et al. (2011), sec. 4.1: rank 5% of n, a fraction of the entries set to
    +-1 to 5 times 10x the mean |L|."""
    rng = np.random.default_rng(seed)
    r = max(1, round(0.05 * n))
    L = rng.normal(size=(n, r)) @ rng.normal(size=(r, n))
    magnitude = 10 * np.abs(L).mean() * rng.uniform(1, 5, (n, n)) * rng.choice([-1, 1], (n, n))
    return L, L + np.where(rng.random((n, n)) < fraction, magnitude, 0.0)


def relative(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@pytest.mark.parametrize("seed", range(3))
def test_block_svt_is_the_exact_svt(seed):
    """Twelve singular values above the threshold, a flat tail just below it."""
    rng = np.random.default_rng(seed)
    sigma = np.concatenate([np.geomspace(50, 2, 12), rng.uniform(0, 0.9, 150)])
    M = spectrum_matrix(np.sort(sigma)[::-1], 300, 200, seed)
    low, Vt = _block_svt(M, 1.0, 14, None, rng)
    assert low.method == "partial" and low.s.size == 12
    assert (
        relative(dense(low), exact_svt(M, 1.0)) < 10 * alm_svt.BLOCK_RTOL
    )  # the residual tolerance, relative to sigma_1
    assert Vt.shape == (14 + 1 + alm_svt.BLOCK_OVERSAMPLES, 200)


def test_converged_triplets_are_locked_and_the_step_stays_exact(monkeypatch):
    """Ten well separated values converge in a pass or two; the one just above the
    threshold, next to a flat tail, takes many. The converged ones are locked: later
    passes multiply M by the unconverged columns only, and the result is still the exact
    SVT (with the same kept triplets as LAPACK's, orthonormal)."""
    sigma = np.concatenate([np.geomspace(100, 20, 10), [1.5], np.linspace(0.9, 0.5, 60)])
    M = spectrum_matrix(sigma, 300, 200, 3)
    widths = []
    small_svd = alm_svt._small_svd
    monkeypatch.setattr(alm_svt, "_small_svd", lambda B: widths.append(len(B)) or small_svd(B))
    low, Vt = _block_svt(M, 1.0, 12, None, np.random.default_rng(0))
    assert low.method == "partial" and low.s.size == 11
    assert len(widths) > 3 and widths[0] == 12 + 1 + alm_svt.BLOCK_OVERSAMPLES
    assert widths[-1] <= widths[0] - 10  # the ten leading triplets no longer iterated
    assert relative(dense(low), exact_svt(M, 1.0)) < 10 * alm_svt.BLOCK_RTOL
    np.testing.assert_allclose(low.U.T @ low.U, np.eye(11), atol=1e-12)
    np.testing.assert_allclose(low.Vt @ low.Vt.T, np.eye(11), atol=1e-9)
    assert Vt.shape == (widths[0], 200) and np.all(np.diff(low.s) <= 0)


def test_block_svt_asks_to_grow_when_the_next_value_is_above():
    """With a hint of 5 and 12 values above the threshold, the 6th Ritz value exceeds it:
    the step does not truncate, it asks for a larger block."""
    sigma = np.concatenate([np.geomspace(50, 2, 12), np.linspace(0.9, 0.01, 100)])
    M = spectrum_matrix(sigma, 200, 150, 0)
    verdict, Vt = _block_svt(M, 1.0, 5, None, np.random.default_rng(0))
    assert verdict == "grow" and Vt.shape[0] == 5 + 1 + alm_svt.BLOCK_OVERSAMPLES


def test_svt_step_grows_the_block_and_is_exact():
    sigma = np.concatenate([np.geomspace(80, 2, 30), np.linspace(0.95, 0.01, 200)])
    M = spectrum_matrix(sigma, 400, 300, 1)
    step = _SVTStep(M.shape, "partial", np.random.default_rng(0))
    step.hint = 4
    low = step(M, 1.0)
    assert low.method == "partial" and low.s.size == 30 and step.counts["grown"] >= 1
    assert (
        relative(dense(low), exact_svt(M, 1.0)) < 10 * alm_svt.BLOCK_RTOL
    )  # the residual tolerance, relative to sigma_1
    # Lin et al.'s rule (30 found, not fewer than the hint: 5% of 300 more); warm start kept
    assert step.hint == 45 and step.init is not None
    again = step(M * 1.001, 1.0)  # warm-started: one or two passes
    assert (
        relative(dense(again), exact_svt(M * 1.001, 1.0)) < 10 * alm_svt.BLOCK_RTOL
    )  # the residual tolerance, relative to sigma_1


@pytest.mark.slow
@pytest.mark.parametrize("n", [150, 300])
@pytest.mark.parametrize("solver", ["auto", "partial"])
def test_pcp_follows_the_full_svd_iterates(n, solver, monkeypatch):
    """Candès et al.'s setting: the objective after every iteration, the iteration count,
    the rank and the final L and S equal those of LAPACK's SVD every step."""
    monkeypatch.setattr(alm_svt, "PARTIAL_COST", 4)  # the partial route at these sizes
    # and after: never dearer than the Gram route
    monkeypatch.setattr(alm_svt._SVTStep, "_dearer", lambda self, tally: 0.0)
    L, X = candes_problem(n, seed=n)
    lam = 1 / np.sqrt(n)
    seen = {"full": [], solver: []}

    def run(route):
        def callback(iteration, state):
            seen[route].append(state.objective)

        return solve_pcp(
            X, lam=lam, rng=np.random.default_rng(0), svd_solver=route, callback=callback
        )

    full, part = run("full"), run(solver)
    assert part.info["svd_counts"]["partial"] >= part.n_iter - 3
    assert part.n_iter == full.n_iter and part.info["rank"] == full.info["rank"]
    np.testing.assert_allclose(seen[solver], seen["full"], rtol=1e-10)
    assert relative(part.info["low_rank"], full.info["low_rank"]) < 1e-10
    assert relative(part.info["sparse"], full.info["sparse"]) < 1e-9
    assert relative(part.info["low_rank"], L) < 1e-6


@pytest.mark.slow
@pytest.mark.parametrize("cls", [OutlierPursuit, ConvexOptimalMeanPCA, PrincipalComponentPursuit])
def test_estimators_partial_and_full_give_the_same_fit(cls, monkeypatch):
    """Planted low rank (5) with 10% outlying rows and 5% gross entries, 150 x 120."""
    monkeypatch.setattr(alm_svt, "PARTIAL_COST", 4)
    rng = np.random.default_rng(7)
    X = rng.normal(size=(150, 5)) @ rng.normal(size=(5, 120)) + 1.0
    X += np.where(rng.random(X.shape) < 0.05, 10 * rng.normal(size=X.shape), 0.0)
    X[:15] += 4 * rng.normal(size=(15, 120))
    part = cls(random_state=0, svd_solver="partial").fit(X)
    full = cls(random_state=0, svd_solver="full").fit(X)
    assert part.n_iter_ == full.n_iter_ and part.rank_ == full.rank_
    assert relative(part.low_rank_, full.low_rank_) < 1e-9
    assert part.objective_history_[-1] == pytest.approx(full.objective_history_[-1], rel=1e-11)


@pytest.mark.slow
def test_auto_gives_up_a_dear_partial_step_and_waits_in_proportion(monkeypatch):
    """A slowly decaying spectrum (200 x 4000, 0.9^i): the block iteration would need many
    passes. 'auto' gives it up once it has cost as much as the Gram route (so a step
    never costs more than twice the Gram route's), takes the Gram route for that step and
    for a number of steps in proportion, then tries the partial route again, warm-started
    by the Gram step's vectors."""
    tries = []
    block_svt = alm_svt._block_svt

    def spy(*args, **kwargs):
        out = block_svt(*args, **kwargs)
        tries.append(out[0])
        return out

    monkeypatch.setattr(alm_svt, "_block_svt", spy)
    sigma = 0.9 ** np.arange(200)
    M = spectrum_matrix(sigma, 200, 4000, seed=1)
    tau = 0.5 * (sigma[4] + sigma[5])
    step = _SVTStep(M.shape, "auto", np.random.default_rng(0))
    assert step(M, tau).method == "gram" and tries == []  # the first step is a Gram step
    step.init = None  # no warm start from it
    first = step(M, tau)
    assert first.method == "gram" and first.s.size == 5 and tries == [None]  # given up
    wait = step.skip
    assert wait >= alm_svt.PARTIAL_RETRY and step.wait == 2 * alm_svt.PARTIAL_RETRY
    routes = [step(M, tau) for _ in range(wait)]
    assert [low.method for low in routes] == ["gram"] * wait and len(tries) == 1
    routes.append(step(M, tau))  # tried again, warm-started by the Gram step's vectors
    assert len(tries) == 2
    for low in (first, routes[0], routes[-1]):
        assert relative(dense(low), exact_svt(M, tau)) < 1e-9
    forced = _SVTStep(M.shape, "partial", np.random.default_rng(0))
    low = forced(M, tau)  # 'partial' neither gives up nor waits
    assert low.method == "partial" and forced.skip == 0
    assert relative(dense(low), exact_svt(M, tau)) < 1e-9


def test_auto_takes_the_gram_route_where_the_block_would_grow(monkeypatch):
    """Thirty values above the threshold, a hint of four: 'partial' grows the block,
    'auto' takes the Gram route for the step (its spectrum sets the next hint) after
    one pass; both are the exact SVT."""
    monkeypatch.setattr(alm_svt._SVTStep, "_dearer", lambda self, tally: 0.0)
    sigma = np.concatenate([np.geomspace(80, 2, 30), np.linspace(0.95, 0.01, 200)])
    M = spectrum_matrix(sigma, 300, 400, 1)  # wide: the Gram route's factors form
    step = _SVTStep(M.shape, "auto", np.random.default_rng(0))
    step.gram_steps, step.hint = 1, 4  # after a first (Gram) step
    low = step(M, 1.0)
    assert low.method == "gram" and step.counts["grown"] == 1 and low.s.size == 30
    assert relative(dense(low), exact_svt(M, 1.0)) < 1e-9
    assert step.hint == 45  # Lin et al.'s rule from the rank the Gram step found


def test_dearer_weighs_thin_products_against_the_gram_route():
    """A partial step's cost is its count of products, each THIN_PRODUCT_COST flops of the
    Gram route, against the Gram route's: a count, the same on every run."""
    step = _SVTStep((200, 4000), "auto", np.random.default_rng(0))
    assert step._dearer(100.0) == pytest.approx(
        alm_svt.THIN_PRODUCT_COST * 100.0 / step._gram_cost()
    )
    assert step._dearer(step._gram_cost() / alm_svt.THIN_PRODUCT_COST) == pytest.approx(1.0)


def test_auto_takes_the_partial_route_on_candes_problem():
    """Candès et al.'s square problem (rank 5% of the side, 5% gross errors), where the
    partial route costs a fraction of a Gram step a step: ``'auto'`` takes it for every
    step after the first two. Weighing its thin products thrice a Gram flop had given 12
    of the 16 steps to the Gram route, which doubled the fit at 1000^2 to 3000^2."""
    rng = np.random.default_rng(0)
    L = rng.standard_normal((400, 20)) @ rng.standard_normal((20, 400))
    support = rng.random(L.shape) < 0.05
    X = L + np.where(support, 10 * np.abs(L).mean() * rng.choice([-1, 1], L.shape), 0.0)
    result = solve_pcp(X, lam=1 / 20, rng=np.random.default_rng(0))
    counts = result.info["svd_counts"]
    assert counts["partial"] >= result.n_iter - 2 and counts["gram"] <= 2, counts


def test_auto_repeats_bit_for_bit():
    """The route of each step is chosen by counts, never by the clock: two fits with the
    same random_state are identical, partial steps included."""
    _, X = candes_problem(200, seed=3)
    fits = [
        solve_pcp(X, lam=1 / np.sqrt(200), rng=np.random.default_rng(0), svd_solver="auto")
        for _ in range(2)
    ]
    assert fits[0].n_iter == fits[1].n_iter
    np.testing.assert_array_equal(fits[0].info["low_rank"], fits[1].info["low_rank"])
    np.testing.assert_array_equal(fits[0].info["sparse"], fits[1].info["sparse"])


def test_pass_cost_counts_the_reads_of_m_and_the_rayleigh_ritz():
    # a product with few columns reads all of M: as dear as with MEMORY_COLUMNS
    assert alm_svt._pass_cost(2, 10**12) == pytest.approx(2 * alm_svt.MEMORY_COLUMNS)
    assert alm_svt._pass_cost(64, 400) > 2 * 64  # the small SVD grows like a^2


@pytest.mark.realdata
def test_crpca_om_on_the_faces_takes_the_gram_route_and_stays_exact(orl):
    """CRPCA-OM on the occluded AT&T faces (400 x 1024, rank 22 at the end): the block
    iteration needs many passes per step (the singular values near the threshold are
    close), so 'auto' takes the Gram route on most steps; the fit is LAPACK's to 1e-9."""
    X, _ = occluded_faces(orl)
    gamma = ConvexOptimalMeanPCA(random_state=0).fit(X).gamma_

    def fit(route):
        return solve_crpca_om(X, gamma=gamma, rng=np.random.default_rng(0), svd_solver=route)

    auto, full = fit("auto"), fit("full")
    counts = auto.info["svd_counts"]
    assert counts["gram"] > 2 * counts["partial"]
    assert auto.n_iter == full.n_iter and auto.info["rank"] == full.info["rank"]
    assert relative(auto.info["low_rank"], full.info["low_rank"]) < 1e-9


def blas_threads() -> set[int]:
    from threadpoolctl import threadpool_info

    return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}


def spied_module(module, seen: dict):
    """``module`` (SciPy's ``linalg`` or a module of ours) with the functions named in
    ``seen`` recording the BLAS thread counts they run with into ``seen``."""

    def spy(name, real):
        def call(*args, **kwargs):
            seen[name] |= blas_threads()
            return real(*args, **kwargs)

        return call

    class Spied:
        def __getattr__(self, name):
            real = getattr(module, name)
            return spy(name, real) if name in seen else real

    return Spied()


def two_blas_threads():
    """Context with two BLAS threads; skips where the BLAS cannot run on two."""
    from threadpoolctl import threadpool_limits

    limits = threadpool_limits(2, user_api="blas")
    if blas_threads() != {2}:
        limits.unregister()
        pytest.skip("the BLAS cannot run on 2 threads here")
    return limits


def test_small_factorizations_run_on_one_blas_thread(monkeypatch):
    """The QR and SVD of the block iteration's few columns run on one BLAS thread (small
    LAPACK calls were 10-14x slower on OpenBLAS's threads), the products with the data on
    all of them; the iterates are those of the threaded run."""
    seen = {"qr": set(), "svd": set()}
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 12)) @ rng.normal(size=(12, 300))
    X[rng.random(X.shape) < 0.05] += 20.0
    reference = solve_pcp(X, lam=300**-0.5, svd_solver="partial", rng=np.random.default_rng(1))
    monkeypatch.setattr(alm_svt, "sla", spied_module(sla, seen))
    with two_blas_threads():
        result = solve_pcp(X, lam=300**-0.5, svd_solver="partial", rng=np.random.default_rng(1))
        assert blas_threads() == {2}  # restored after each small call
    assert seen["qr"] == {1} and seen["svd"] == {1}
    # singular vectors have arbitrary signs (the estimators fix them); the rest is equal
    signs = np.sign(np.sum(result.components * reference.components, axis=1, keepdims=True))
    np.testing.assert_allclose(signs * result.components, reference.components, atol=1e-10)
    assert result.n_iter == reference.n_iter
    for part in ("low_rank", "sparse"):
        np.testing.assert_allclose(result.info[part], reference.info[part], rtol=0, atol=1e-9)


@pytest.mark.parametrize("side_max", [alm_svt.GRAM_EIGH_ONE_THREAD_MAX, 10])
def test_gram_eigensolver_and_certificate_run_on_one_blas_thread(monkeypatch, side_max):
    """With two BLAS threads the Gram route's eigensolver runs on one up to
    ``GRAM_EIGH_ONE_THREAD_MAX`` (SciPy's LAPACK between NumPy's products: the two
    OpenBLAS libraries' threads fought, and the fit on the occluded faces took 11.9 s
    against 7.1 s), on both above it; the certified gap's ``syrk`` and eigensolver on one
    always (PCP on wide data forms the certificate's Gram matrices by NumPy's products, on
    every thread: no ``syrk``); the iterates are those of the run on one thread."""
    from robustpca.solvers import alm_gap

    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 8)) @ rng.normal(size=(8, 600))
    X[rng.random(X.shape) < 0.1] += 15.0
    X += 0.05 * rng.normal(size=X.shape)  # no exact recovery: the gap is certified

    def fit():
        return solve_pcp(X, lam=600**-0.5, rng=np.random.default_rng(1))

    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, user_api="blas"):
        reference = fit()
    seen = {"eigh": set(), "eigh_index_range": set(), "_syrk_upper": set()}
    monkeypatch.setattr(alm_svt, "GRAM_EIGH_ONE_THREAD_MAX", side_max)
    monkeypatch.setattr(alm_svt, "sla", spied_module(sla, seen))
    for name in ("eigh_index_range", "_syrk_upper"):  # the certificate's
        monkeypatch.setattr(alm_gap, name, getattr(spied_module(alm_gap, seen), name))
    with two_blas_threads():
        result = fit()
        assert blas_threads() == {2}
    assert result.info["svd_counts"]["gram"] == result.n_iter  # every step by the Gram route
    assert len(result.info["residuals"]["certified"]) >= 1
    if side_max >= 40:  # also the small eigensolver of the returned components
        assert seen["eigh"] == {1}
    else:
        assert 2 in seen["eigh"]
    assert seen["eigh_index_range"] == {1} and not seen["_syrk_upper"]
    assert result.n_iter == reference.n_iter
    for part in ("low_rank", "sparse"):
        np.testing.assert_allclose(result.info[part], reference.info[part], rtol=0, atol=1e-9)
