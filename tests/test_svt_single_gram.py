"""The Gram route with its small part in single precision, for single-precision data.

The contract (``robustpca.solvers.alm_single_gram``): the Gram matrix is ``A A^T`` up to a
rounding of order ``eps32 ||R||^2`` (``R`` the part off the basis), so the SVT moves by
about ``eps32 ||R||^2 / tau``; the step keeps it only where that is a fraction of
``eps32 sigma_1`` (the data's own uncertainty), and repeats the step in double precision
otherwise. Double-precision data never take this route.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import linalg as sla

from robustpca import PrincipalComponentPursuit
from robustpca.solvers import alm_single_gram, alm_svt
from robustpca.solvers.alm import solve_pcp
from robustpca.solvers.alm_single_gram import single_precision_gram
from robustpca.solvers.alm_svt import _SVTStep

from .test_online_rpca import load_highway

EPS32 = float(np.finfo(np.float32).eps)


def exact_svt(M, tau):
    U, s, Vt = sla.svd(M, full_matrices=False)
    keep = s > tau
    return (U[:, keep] * (s[keep] - tau)) @ Vt[keep]


def thresholded(low, M):
    """The thresholded matrix of a step, whatever form its route left it in."""
    if low.kind == "factors":
        return (low.U * low.s) @ low.Vt
    if low.kind == "columns":
        return low.U @ ((low.gain[:, None] * low.U.T) @ M)
    return ((M @ low.Vt.T) * low.gain) @ low.Vt


def low_rank_plus_noise(n, d, rank, seed, top=1e3, noise=1.0):
    rng = np.random.default_rng(seed)
    U = np.linalg.qr(rng.normal(size=(n, rank)))[0]
    V = np.linalg.qr(rng.normal(size=(d, rank)))[0]
    sigma = top * np.geomspace(1.0, 0.1, rank)
    return (U * sigma) @ V.T + noise * rng.normal(size=(n, d)) / np.sqrt(max(n, d))


@settings(max_examples=15, deadline=None)
@given(
    n=st.integers(20, 90),
    d=st.integers(20, 90),
    rank=st.integers(1, 6),
    seed=st.integers(0, 2**31 - 1),
)
def test_gram_matrix_rounding_is_that_of_the_residual(n, d, rank, seed):
    """G equals A A^T to a rounding of eps32 ||R||^2 (not eps32 ||A||^2), from a stale
    basis; and the returned ||R||_2^2 is the residual's."""
    M = low_rank_plus_noise(n, d, rank, seed)
    wide = n <= d
    A = M if wide else M.T
    stale = A + 1e-3 * np.random.default_rng(seed + 1).normal(size=A.shape)
    U = sla.svd(stale, full_matrices=False)[0][:, :rank]
    G, r2 = single_precision_gram(M, U)
    R = A - U @ (U.T @ A)
    exact = A @ A.T
    long = A.shape[1]
    error = np.linalg.norm(G - exact, 2)
    assert error <= 4 * np.sqrt(long) * EPS32 * np.linalg.norm(R, 2) ** 2 + 1e-13 * np.linalg.norm(
        exact, 2
    )
    assert r2 == pytest.approx(np.linalg.norm(R, 2) ** 2, rel=1e-2)
    assert np.allclose(G, G.T, rtol=0, atol=1e-12 * np.linalg.norm(exact, 2))


@pytest.mark.parametrize("shape", [(70, 333), (333, 70)])
def test_residual_blocks_give_the_one_block_gram(monkeypatch, shape):
    """``R R^T`` summed over blocks of the long side (the last one partial) is the
    product of the whole residual: the same matrix to single-precision rounding, and the
    same norm estimate."""
    M = low_rank_plus_noise(*shape, 4, 11)
    U = sla.svd(M if shape[0] <= shape[1] else M.T, full_matrices=False)[0][:, :3]
    whole = single_precision_gram(M, U)
    monkeypatch.setattr(alm_single_gram, "BLOCK_BYTES", 4 * 70 * 16)  # 16 columns a block
    G, r2 = single_precision_gram(M, U)
    assert np.linalg.norm(G - whole[0], 2) <= 1e3 * EPS32 * whole[1]
    assert r2 == pytest.approx(whole[1], rel=1e-3)
    assert np.allclose(G, G.T, rtol=0, atol=1e-12 * np.linalg.norm(G, 2))


def steps(M_list, tau, single):
    step = _SVTStep(M_list[0].shape, "full" if single is None else "auto", np.random.default_rng(0))
    step.single = bool(single)
    return step, [step(M, tau) for M in M_list]


@pytest.mark.parametrize("transpose", [False, True])
def test_step_keeps_the_svt_to_single_precision(monkeypatch, transpose):
    """Consecutive steps (the ALM's iterates move little): the second one is formed in
    single precision and equals LAPACK's SVT to far below eps32 of the top value."""
    monkeypatch.setattr(alm_svt, "PARTIAL_COST", 10**9)  # the Gram route every step
    monkeypatch.setattr(alm_svt, "SINGLE_GRAM_MIN_SIDE", 64)
    M0 = low_rank_plus_noise(80, 240, 5, 3)
    M1 = M0 + 1e-4 * np.random.default_rng(4).normal(size=M0.shape)
    M0, M1 = (M0.T, M1.T) if transpose else (M0, M1)
    tau = 0.5 * sla.svdvals(M1)[5] + 0.5 * sla.svdvals(M1)[4]
    step = _SVTStep(M0.shape, "auto", np.random.default_rng(0), single=True)
    step(M0, tau)
    assert step.counts["single"] == 0  # no basis yet
    low = step(M1, tau)
    assert step.counts["single"] == 1
    expected = exact_svt(M1, tau)
    top = sla.svdvals(M1)[0]
    assert np.linalg.norm(thresholded(low, M1) - expected) <= 0.1 * EPS32 * top
    # the same step in double precision is closer still (the route is not a no-op)
    double = _SVTStep(M0.shape, "auto", np.random.default_rng(0))
    double(M0, tau)
    assert double.counts["single"] == 0
    assert np.linalg.norm(thresholded(double(M1, tau), M1) - expected) <= 1e-12 * top


def test_a_rank_jump_repeats_the_step_in_double_precision(monkeypatch):
    """A large component off the last basis: ||R||^2 / tau is then far above
    SINGLE_GRAM_RATIO sigma_1, so the step is taken again in double precision (exact),
    and the route waits before it is tried again."""
    monkeypatch.setattr(alm_svt, "PARTIAL_COST", 10**9)
    monkeypatch.setattr(alm_svt, "SINGLE_GRAM_MIN_SIDE", 64)
    rng = np.random.default_rng(5)
    M0 = low_rank_plus_noise(80, 240, 3, 6)
    u, v = rng.normal(size=(80, 1)), rng.normal(size=(1, 240))
    M1 = M0 + 500 * (u / np.linalg.norm(u)) @ (v / np.linalg.norm(v))
    tau = 0.5 * sla.svdvals(M0)[3] + 0.5 * sla.svdvals(M0)[2]
    step = _SVTStep(M0.shape, "auto", np.random.default_rng(0), single=True)
    step(M0, tau)
    low = step(M1, tau)
    assert step.counts["single"] == 0 and step.single_skip == alm_svt.SINGLE_GRAM_RETRY
    top = sla.svdvals(M1)[0]
    assert np.linalg.norm(thresholded(low, M1) - exact_svt(M1, tau)) <= 1e-12 * top


@pytest.mark.parametrize("transpose", [False, True])
def test_vectors_below_the_threshold_leave_the_step_alone(transpose):
    """``below``: the step is the same SVT; ``extra`` holds the singular vectors of the
    short side whose values lie in (below, tau] (at most SINGLE_GRAM_EXTRA), orthonormal
    and orthogonal to the kept ones."""
    M = low_rank_plus_noise(70, 150, 12, 3)
    M = M.T if transpose else M
    s = sla.svdvals(M)
    tau, below = 0.5 * (s[2] + s[3]), 0.5 * (s[6] + s[7])
    plain = alm_svt._gram_step(M, tau)
    low = alm_svt._gram_step(M, tau, below=below)
    assert plain.extra is None and low.extra.shape == (70, 4)
    top = s[0]
    np.testing.assert_allclose(thresholded(low, M), thresholded(plain, M), atol=1e-12 * top)
    kept = low.U if low.U is not None else low.Vt.T
    basis = np.hstack([kept, low.extra])
    np.testing.assert_allclose(basis.T @ basis, np.eye(basis.shape[1]), atol=1e-10)
    short = M if not transpose else M.T  # the short side's vectors: left ones of M (70 x 150)
    values = np.linalg.norm(low.extra.T @ short, axis=1)  # their singular values
    np.testing.assert_allclose(values, s[3:7], rtol=1e-10)
    capped = alm_svt._gram_step(M, tau, below=0.5 * s[-1])
    assert capped.extra.shape[1] == alm_svt.SINGLE_GRAM_EXTRA


def test_a_falling_threshold_brings_its_next_vectors_into_the_basis(monkeypatch):
    """Thresholds falling by a constant ratio (PCP's continuation) over a fixed matrix:
    the third step's rank jumps by the direction of value 1,850; off the kept basis it
    makes ``||R||^2 = 1850^2`` fail the check (``0.25 tau_3 sigma_1 = 3.2e6``), while
    with the vectors below the second threshold in the basis it passes. Each step stays
    the SVT."""
    monkeypatch.setattr(alm_svt, "PARTIAL_COST", 10**9)
    monkeypatch.setattr(alm_svt, "SINGLE_GRAM_MIN_SIDE", 64)
    rng = np.random.default_rng(2)
    sigma = np.array([1e4, 5e3, 1850, 1000, 900, 800, 700, 600])
    U = np.linalg.qr(rng.normal(size=(80, sigma.size)))[0]
    V = np.linalg.qr(rng.normal(size=(240, sigma.size)))[0]
    M = (U * sigma) @ V.T
    taus = [3100.0, 2000.0, 2000.0**2 / 3100.0]
    counts = {}
    for extra in (0, alm_svt.SINGLE_GRAM_EXTRA):
        monkeypatch.setattr(alm_svt, "SINGLE_GRAM_EXTRA", extra)
        step = _SVTStep(M.shape, "auto", np.random.default_rng(0), single=True)
        for tau in taus:
            low = step(M, tau)
            assert np.linalg.norm(thresholded(low, M) - exact_svt(M, tau)) <= 1e-6 * sigma[0]
        counts[extra] = step.counts["single"]
    assert counts == {0: 1, alm_svt.SINGLE_GRAM_EXTRA: 2}


def planted(n, d, rank, density, seed):
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(n, rank)) @ rng.normal(size=(rank, d))
    S = np.where(rng.random((n, d)) < density, rng.uniform(-50, 50, size=(n, d)), 0.0)
    return L, S


@pytest.mark.slow
def test_pcp_on_single_precision_data_follows_the_double_precision_fit(monkeypatch):
    """PCP on float32 data (short side >= SINGLE_GRAM_MIN_SIDE) takes single-precision
    Gram steps, recovers the planted parts and ends where the fit of the same values in
    float64 (no such step) ends, to far below the data's float32 rounding; both gaps
    certified. The Gram route is forced: at this low rank ``'auto'`` takes the partial
    route."""
    monkeypatch.setattr(alm_svt, "PARTIAL_COST", 10**9)  # the partial route never pays
    L, S = planted(520, 1100, 4, 0.05, 7)
    X32 = (L + S).astype(np.float32)
    single = solve_pcp(X32, lam=1 / np.sqrt(1100), rng=np.random.default_rng(0))
    double = solve_pcp(X32.astype(np.float64), lam=1 / np.sqrt(1100), rng=np.random.default_rng(0))
    assert single.info["svd_counts"]["single"] > 0
    assert double.info["svd_counts"]["single"] == 0
    Ls, Ld = single.info["low_rank"], double.info["low_rank"]
    assert np.linalg.norm(Ls - Ld) <= 1e-5 * np.linalg.norm(Ld)
    assert np.linalg.norm(Ld - L) <= 1e-3 * np.linalg.norm(L)
    assert single.info["duality_gap"] <= 1e-3 and double.info["duality_gap"] <= 1e-3


@pytest.mark.realdata
def test_highway_frames_in_single_precision(shared_data, monkeypatch):
    """600 real frames of CDnet's highway (80 x 60), as ``robustpca video`` fits them:
    the float32 fit takes single-precision Gram steps and gives the background and
    foreground of the float64 fit of the same values."""
    frames, _ = load_highway(shared_data, first=750, n=600)
    calls = []

    def counted(M, U):
        calls.append(M.shape)
        return single_precision_gram(M, U)

    monkeypatch.setattr(alm_svt, "single_precision_gram", counted)
    model = dict(lam="video", center="median", random_state=0)
    single = PrincipalComponentPursuit(**model).fit(frames)
    assert calls
    del calls[:]
    double = PrincipalComponentPursuit(**model).fit(frames.astype(np.float64))
    assert not calls
    Ls, Ld = single.low_rank_, double.low_rank_
    assert np.linalg.norm(Ls - Ld) <= 1e-6 * np.linalg.norm(Ld)
    assert single.rank_ == double.rank_
