"""The fast paths of robustpca.linalg: blocked passes, float64 accumulation, warm starts.

The weighted-PCA subproblem (Nie et al. 2014, problem 14) has the closed form
``b = X^T d / 1^T d`` and ``U`` = top eigenvectors of ``sum_i d_i (x_i - b)(x_i - b)^T``.
Every fast route must give that closed form to rounding, whatever the block size, and
must not allocate ``n x d`` temporaries.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

import robustpca.linalg as linalg
from robustpca import (
    HQPCA,
    L21PCA,
    PCA,
    R1PCA,
    AdaptiveNeighborsPCA,
    GeneralizedMeanPCA,
    OptimalMeanPCA,
)
from robustpca.linalg import WarmStartEigh, WeightedPCAProblem, top_eigh

from .conftest import peak_memory, projector, random_data


def closed_form(X, w, k):
    """Problem (14) of Nie et al. (2014) by dense linear algebra (the reference)."""
    b = (w @ X) / w.sum()
    Xc = X - b
    _, vecs = np.linalg.eigh(Xc.T @ (w[:, None] * Xc))
    U = vecs[:, ::-1][:, :k]
    R = Xc - (Xc @ U) @ U.T
    return b, U, np.linalg.norm(R, axis=1)


@pytest.fixture
def tiny_blocks(monkeypatch):
    """Blocks of a few rows or columns: every pass visits many blocks."""
    monkeypatch.setattr(linalg.blocked, "BLOCK_BYTES", 1)
    monkeypatch.setattr(linalg.blocked, "MIN_BLOCK", 4)


@pytest.fixture
def small_blocks(monkeypatch):
    """256 KiB blocks, so that the memory tests run on data much larger than a block."""
    monkeypatch.setattr(linalg.blocked, "BLOCK_BYTES", 1 << 18)


@pytest.mark.parametrize("route", ["scatter", "gram"])
@pytest.mark.parametrize(("n", "d"), [(300, 12), (40, 90)])
def test_blocked_passes_equal_the_closed_form(tiny_blocks, route, n, d):
    rng = np.random.default_rng(0)
    X = random_data(1, n, d) + 1e3  # a large offset: the passes must centre, not cancel
    problem = WeightedPCAProblem(X, 3, np.random.default_rng(0), route=route)
    for _ in range(3):  # successive weights: the scatter route updates its reference point
        w = rng.uniform(0.1, 2.0, n)
        sub = problem.solve(w)
    b, U, r = closed_form(X, w, 3)
    np.testing.assert_allclose(sub.mean(), b, rtol=0, atol=1e-9 * np.abs(X).max())
    np.testing.assert_allclose(projector(sub.basis().T), U @ U.T, atol=1e-9)
    np.testing.assert_allclose(sub.residuals(), r, rtol=1e-8, atol=1e-9 * r.max())


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(3, 60),
    d=st.integers(2, 40),
    seed=st.integers(0, 2**16),
    route=st.sampled_from(["scatter", "gram"]),
)
def test_blocked_passes_property(n, d, seed, route):
    """Any shape, any positive weights: the fast routes give problem (14)'s closed form."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10, d) + rng.normal(size=d)
    w = rng.uniform(0.1, 1.0, n)
    k = 1
    sub = WeightedPCAProblem(X, k, np.random.default_rng(0), route=route).solve(w)
    b, U, r = closed_form(X, w, k)
    vals = np.linalg.eigvalsh((X - b).T @ (w[:, None] * (X - b)))[::-1]
    np.testing.assert_allclose(sub.mean(), b, atol=1e-9 * (1 + np.abs(X).max()))
    if vals[0] - vals[min(1, d - 1)] > 1e-6 * vals[0]:  # a unique top direction
        np.testing.assert_allclose(projector(sub.basis().T), U @ U.T, atol=1e-6)
        np.testing.assert_allclose(sub.residuals(), r, atol=1e-6 * (1 + r.max()))


@pytest.mark.parametrize("route", ["scatter", "gram"])
def test_float32_data_are_widened_block_by_block(tiny_blocks, route):
    """float32 input is never copied to float64 yet solved in float64: the result equals
    the float64 solve of the same (rounded) values up to the order of summation."""
    X32 = random_data(2, 200, 15).astype(np.float32)
    if route == "gram":
        X32 = random_data(2, 20, 60).astype(np.float32)
    w = np.random.default_rng(3).uniform(0.5, 1.5, X32.shape[0])
    subs = [
        WeightedPCAProblem(X, 2, np.random.default_rng(0), route=route).solve(w)
        for X in (X32, X32.astype(np.float64))
    ]
    np.testing.assert_allclose(subs[0].mean(), subs[1].mean(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        projector(subs[0].basis().T), projector(subs[1].basis().T), atol=1e-10
    )
    np.testing.assert_allclose(subs[0].residuals(), subs[1].residuals(), rtol=1e-9)
    assert subs[0].mean().dtype == np.float64


def test_problem_neither_copies_nor_modifies_the_data():
    X = random_data(3, 100, 8)
    X.setflags(write=False)  # a write would raise
    problem = WeightedPCAProblem(X, 2, np.random.default_rng(0))
    problem.solve(np.ones(100))
    assert problem.X is X


@pytest.mark.parametrize(("n", "d"), [(40_000, 32), (60, 8000)])
def test_weighted_solve_allocates_no_n_by_d_temporary(small_blocks, n, d):
    """An iteration of the scatter route (tall) or the Gram route (wide) needs memory of
    the order of one block, the d x d scatter or the n x n Gram matrix: never n x d."""
    X = np.random.default_rng(0).normal(size=(n, d))
    problem = WeightedPCAProblem(X, 3, np.random.default_rng(0))
    w = np.random.default_rng(1).uniform(0.5, 1.5, n)
    problem.solve(w)  # warm up the workspace
    peak = peak_memory(lambda: problem.solve(w))
    assert peak < 0.25 * X.nbytes, peak / X.nbytes


@pytest.mark.parametrize(
    "make",
    [
        lambda: OptimalMeanPCA(3, max_iter=4, tol=0),
        lambda: HQPCA(3, max_iter=4, tol=0),
        lambda: GeneralizedMeanPCA(3, p=0.5, max_iter=4, tol=0),
        lambda: AdaptiveNeighborsPCA(3, n_neighbors=15_000, max_iter=4, tol=0),
        lambda: PCA(3),
        lambda: R1PCA(3, max_iter=4, tol=0),
        lambda: L21PCA(3, max_iter=4, tol=0),
    ],
)
def test_in_memory_fit_peak_memory_below_three_times_the_data(small_blocks, make):
    """The issue's memory budget: a whole fit (validation included) stays below 3x the
    data; the reweighting estimators built on WeightedPCAProblem stay near 1x."""
    X = np.random.default_rng(0).normal(size=(20_000, 40))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        peak = peak_memory(lambda: make().fit(X))
    assert peak < 3 * X.nbytes, peak / X.nbytes


def test_float32_fit_does_not_widen_the_data(small_blocks):
    """float32 data fitted by RPCA-OM: the passes widen blocks, never the whole array."""
    X = np.random.default_rng(0).normal(size=(20_000, 40)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        peak = peak_memory(lambda: OptimalMeanPCA(3, max_iter=3, tol=0).fit(X))
    assert peak < 1.5 * X.nbytes, peak / X.nbytes


def slowly_changing_matrices(n, n_steps, seed=0):
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(n, 30)) * np.geomspace(30, 1, 30)
    A = B @ B.T
    for _ in range(n_steps):
        sw = np.sqrt(rng.uniform(0.99, 1.01, n))
        yield sw[:, None] * A * sw[None, :]


def test_warm_start_eigh_matches_lapack():
    """Warm-started Rayleigh-Ritz steps give LAPACK's top eigenpairs (to WARM_RTOL) and
    are used from the second matrix on."""
    solver = WarmStartEigh(5, min_size=100)
    for A in slowly_changing_matrices(300, 5):
        vals, vecs = solver(A)
        ref_vals, ref_vecs = top_eigh(A, 5)
        np.testing.assert_allclose(vals, ref_vals, rtol=1e-10)
        np.testing.assert_allclose(projector(vecs.T), projector(ref_vecs.T), atol=1e-8)
    assert solver.n_exact == 1 and solver.n_warm == 4


def test_warm_start_sees_a_dominant_direction_outside_its_block():
    """Converged Ritz pairs are eigenpairs, not necessarily the largest: a dominant block
    appearing where the previous vectors have no component (samples of weight 0 that get
    a weight) was never found, and [10, 9, 8] came back for [100, 90, 80]."""
    rng = np.random.default_rng(0)

    def spd(m, top):
        Q = np.linalg.qr(rng.standard_normal((m, m)))[0]
        return (Q * np.r_[top, np.linspace(1, 0.01, m - len(top))]) @ Q.T

    n, h = 300, 150
    first = np.zeros((n, n))
    first[:h, :h] = spd(h, [10.0, 9.0, 8.0])
    second = first.copy()
    second[h:, h:] = spd(n - h, [100.0, 90.0, 80.0])
    solver = WarmStartEigh(3, min_size=100)
    solver(first)
    vals, vecs = solver(second)
    np.testing.assert_allclose(vals, [100.0, 90.0, 80.0], rtol=1e-10)
    assert np.linalg.norm(vecs[:h]) < 1e-8


def test_deflated_top_bounds_the_rest_of_the_spectrum():
    """The check's Ritz value is a lower bound on the largest eigenvalue outside the
    block, and reaches it on a spectrum with a gap."""
    rng = np.random.default_rng(1)
    Q = np.linalg.qr(rng.standard_normal((200, 200)))[0]
    values = np.r_[50.0, 40.0, 30.0, 20.0, np.linspace(1.0, 0.0, 196)]
    A = (Q * values) @ Q.T
    top = linalg.eigen.deflated_top(A, Q[:, :3], 12, rng)
    assert top <= 20.0 * (1 + 1e-12) and top == pytest.approx(20.0, rel=1e-6)
    assert linalg.eigen.deflated_top(A, Q, 12, rng) == 0.0  # no complement


def test_warm_start_falls_back_when_it_cannot_converge(monkeypatch):
    """A matrix unrelated to the previous one: the steps fail and LAPACK answers."""
    monkeypatch.setattr(linalg.eigen, "WARM_MAX_STEPS", 1)
    solver = WarmStartEigh(3, min_size=50)
    rng = np.random.default_rng(0)
    for _ in range(2):
        B = rng.normal(size=(200, 200))
        A = B @ B.T
        vals, _ = solver(A)
        np.testing.assert_allclose(vals, top_eigh(A, 3)[0], rtol=1e-12)
    assert solver.n_exact == 2 and solver.n_warm == 0


def test_small_eigenproblems_stay_exact():
    """Below WARM_START_MIN (e.g. the 400 x 400 Gram matrix of the ORL faces) every call
    goes to LAPACK, which is faster there (measurements in robustpca.linalg)."""
    solver = WarmStartEigh(5)
    for A in slowly_changing_matrices(linalg.WARM_START_MIN - 1, 2):
        solver(A)
    assert solver.n_warm == 0


def test_warm_started_fit_equals_the_exact_fit(monkeypatch):
    """RPCA-OM with warm starts forced on a wide problem: the same fit as with LAPACK."""
    X = random_data(4, 150, 400)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        exact = OptimalMeanPCA(3, max_iter=15, tol=0).fit(X)
        monkeypatch.setattr(linalg.eigen, "WARM_START_MIN", 50)
        warm = OptimalMeanPCA(3, max_iter=15, tol=0).fit(X)
    np.testing.assert_allclose(projector(warm.components_), projector(exact.components_), atol=1e-7)
    # tol=0 stops a run only when the objective repeats to the last bit, which one of the
    # two may do before max_iter (it does with NumPy 1.x's OpenBLAS): compare the common run.
    n = min(len(warm.objective_history_), len(exact.objective_history_))
    assert n >= 8
    np.testing.assert_allclose(warm.objective_history_[:n], exact.objective_history_[:n], rtol=1e-9)


# -- the tridiagonal route of top_eigh -----------------------------------------------------
def _lapack_top(A, k):
    vals, vecs = np.linalg.eigh(A)
    return vals[::-1][:k], vecs[:, ::-1][:, :k]


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 120),
    k_frac=st.floats(0.01, 1.0),
    seed=st.integers(0, 2**31 - 1),
    spectrum=st.sampled_from(["random", "decaying", "clustered", "low_rank"]),
)
def test_tridiagonal_route_equals_lapack(n, k_frac, seed, spectrum):
    """Eigenvalues to 1e-12 of the largest, eigen-residuals to 1e-11, orthonormal vectors,
    and the same invariant subspace wherever the k-th eigenvalue is separated."""
    rng = np.random.default_rng(seed)
    k = max(1, int(k_frac * n))
    Q = np.linalg.qr(rng.standard_normal((n, n)))[0]
    lam = {
        "random": rng.standard_normal(n),
        "decaying": 1.0 / np.arange(1, n + 1) ** 0.3,
        "clustered": np.repeat(rng.uniform(1, 2, n // 4 + 1), 4)[:n],
        "low_rank": np.r_[rng.uniform(1, 3, min(3, n)), np.zeros(max(0, n - 3))],
    }[spectrum]
    A = (Q * lam) @ Q.T
    A = 0.5 * (A + A.T)
    found = linalg.top_eigh_tridiagonal(A, k)
    ref_vals, ref_vecs = _lapack_top(A, k)
    assert found is not None  # none of these spectra should trip the checks
    vals, vecs = found
    scale = max(np.abs(lam).max(), 1e-300)
    np.testing.assert_allclose(vals, ref_vals, atol=1e-12 * scale)
    assert np.all(np.diff(vals) <= 1e-12 * scale)  # decreasing
    np.testing.assert_allclose(vecs.T @ vecs, np.eye(k), atol=1e-10)
    residual = np.linalg.norm(A @ vecs - vecs * vals, axis=0).max()
    assert residual <= 1e-11 * scale
    all_vals = np.sort(lam)[::-1]
    if k < n and all_vals[k - 1] - all_vals[k] > 1e-3 * scale:
        assert np.abs(projector(vecs) - projector(ref_vecs)).max() < 1e-9


@pytest.mark.parametrize("A", [np.zeros((5, 5)), np.diag([3.0, 1.0, 2.0, 0.0, 5.0]), np.eye(6)])
def test_tridiagonal_route_degenerate_matrices(A):
    """Zero, diagonal (every off-diagonal zero: the tridiagonal matrix splits) and
    identity matrices: exact eigenvalues, orthonormal vectors, no NaN."""
    vals, vecs = linalg.top_eigh_tridiagonal(A, 2)
    np.testing.assert_allclose(vals, np.sort(np.diag(A))[::-1][:2], atol=1e-14)
    np.testing.assert_allclose(vecs.T @ vecs, np.eye(2), atol=1e-14)
    np.testing.assert_allclose(A @ vecs, vecs * vals, atol=1e-14)


def test_top_eigh_falls_back_to_syevr_when_a_check_fails(monkeypatch):
    """With the checks made impossible the route gives None and top_eigh still answers
    (through syevr), with the same pairs."""
    rng = np.random.default_rng(3)
    B = rng.standard_normal((60, 80))
    A = B @ B.T
    expected = top_eigh(A, 5)
    monkeypatch.setattr(linalg.eigen, "TRIDIAGONAL_RTOL", -1.0)
    assert linalg.top_eigh_tridiagonal(A, 5) is None
    vals, vecs = top_eigh(A, 5)
    np.testing.assert_allclose(vals, expected[0], rtol=1e-12)
    np.testing.assert_allclose(np.abs(vecs.T @ expected[1]), np.eye(5), atol=1e-8)


def test_top_eigh_routes_by_size_and_dtype(monkeypatch):
    """The tridiagonal route is taken for float64 matrices up to TRIDIAGONAL_MAX rows with a
    small k, and not for float32 ones or larger ones."""
    calls = []
    real = linalg.top_eigh_tridiagonal
    monkeypatch.setattr(
        linalg.eigen, "top_eigh_tridiagonal", lambda A, k: calls.append(A.shape[0]) or real(A, k)
    )
    rng = np.random.default_rng(0)
    for n, dtype in [(50, np.float64), (50, np.float32), (80, np.float64)]:
        B = rng.standard_normal((n, n)).astype(dtype)
        top_eigh(B @ B.T, 3)
    monkeypatch.setattr(linalg.eigen, "TRIDIAGONAL_MAX", 60)
    B = rng.standard_normal((80, 80))
    top_eigh(B @ B.T, 3)
    assert calls == [50, 80]


# -- the raw Gram route -------------------------------------------------------------------
@pytest.mark.parametrize("offset", [0.0, 1.0, 3.0])
def test_raw_centred_gram_equals_the_blocked_one(offset):
    """Near the origin the raw Gram matrix, centred afterwards, equals the explicitly
    centred blocked one to rounding."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 500)) + offset
    c = X.mean(axis=0)
    G = linalg.raw_centred_gram(X, c)
    assert G is not None
    reference = (X - c) @ (X - c).T
    np.testing.assert_allclose(G, reference, atol=1e-12 * np.abs(reference).max())


def test_raw_centred_gram_refuses_data_far_from_the_origin():
    """Data whose offset dwarfs their spread (trace ratio 1e8) would lose 8 digits: the
    raw route declines, and centred_gram's blocked route is accurate."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((20, 300)) + 1e4
    c = X.mean(axis=0)
    assert linalg.raw_centred_gram(X, c) is None
    reference = (X - c) @ (X - c).T
    G = linalg.centred_gram(X, c)
    np.testing.assert_allclose(G, reference, atol=1e-9 * np.abs(reference).max())


@pytest.mark.parametrize("offset", [0.5, 1e4])
def test_gram_route_with_and_without_raw_products_agree(offset):
    """The subproblem's basis, mean and residuals are the same whether the raw products
    were accepted (offset 0.5) or not (1e4), and equal the dense closed form."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((25, 200)) * np.linspace(3, 0.1, 200) + offset
    w = rng.uniform(0.2, 2.0, 25)
    problem = WeightedPCAProblem(X, 3, np.random.default_rng(0))
    assert problem._raw_products == (offset < 1.0)
    sub = problem.solve(w)
    b, U, r = closed_form(X, w, 3)
    np.testing.assert_allclose(sub.mean(), b, atol=1e-10 * (1 + offset))
    assert np.abs(projector(sub.basis()) - projector(U)).max() < 1e-8
    np.testing.assert_allclose(sub.residuals(), r, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("route", ["gram", "scatter"])
def test_mean_sq_distance_is_the_spread_about_the_mean(route):
    rng = np.random.default_rng(5)
    X = rng.standard_normal((40, 30)) + 2.0
    problem = WeightedPCAProblem(X, 2, np.random.default_rng(0), route=route)
    expected = np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1))
    assert problem.mean_sq_distance() == pytest.approx(expected, rel=1e-12)


def test_scatter_solve_without_residuals_gives_the_same_subspace():
    """``residuals=False`` skips the residual pass and nothing else."""
    X = random_data(3, 300, 12)
    w = np.random.default_rng(0).uniform(0.5, 1.5, 300)
    full = WeightedPCAProblem(X, 3, np.random.default_rng(0), route="scatter").solve(w)
    lean = WeightedPCAProblem(X, 3, np.random.default_rng(0), route="scatter").solve(
        w, residuals=False
    )
    np.testing.assert_array_equal(lean.basis(), full.basis())
    np.testing.assert_array_equal(lean.eigvals, full.eigvals)
    with pytest.raises(ValueError, match="residuals=False"):
        lean.residuals()


def test_hopeless_warm_start_gives_up_after_two_steps(monkeypatch):
    """A start whose residual shrinks too slowly to reach WARM_RTOL within WARM_MAX_STEPS
    is abandoned after two block-Krylov steps (not all of them): a flat spectrum and a
    random start."""
    rng = np.random.default_rng(0)
    n, k = 300, 5
    Q = np.linalg.qr(rng.standard_normal((n, n)))[0]
    A = (Q * np.linspace(1.0, 0.9, n)) @ Q.T
    V = np.linalg.qr(rng.standard_normal((n, k + linalg.WARM_EXTRA)))[0]
    steps = []
    real_qr = np.linalg.qr
    monkeypatch.setattr(
        np.linalg, "qr", lambda M, *a, **kw: steps.append(1) or real_qr(M, *a, **kw)
    )
    assert linalg._krylov_ritz(A, V, k, linalg.WARM_MAX_STEPS, linalg.WARM_RTOL) is None
    assert len(steps) == 2 < linalg.WARM_MAX_STEPS


def test_warm_start_eigh_on_the_rows_of_positive_weight():
    """Rows and columns of zero weight are left out of the eigenproblem: the same
    eigenvalues, the vectors zero off the kept rows, and warm starts across calls whose
    kept rows differ."""
    rng = np.random.default_rng(1)
    n, k = 120, 4
    solver = WarmStartEigh(k, min_size=50)
    for drop in (10, 25, 10):
        B = rng.standard_normal((n, 200)) * np.linspace(3, 0.1, 200)
        A = B @ B.T
        rows = np.sort(rng.choice(n, n - drop, replace=False))
        mask = np.zeros(n, bool)
        mask[rows] = True
        A[~mask] = 0.0
        A[:, ~mask] = 0.0
        vals, vecs = solver(A, rows)
        ref_vals, ref_vecs = top_eigh(A, k)
        np.testing.assert_allclose(vals, ref_vals, rtol=1e-10)
        assert np.all(vecs[~mask] == 0.0)
        assert np.abs(projector(vecs) - projector(ref_vecs)).max() < 1e-8


def test_pca_reads_tall_data_once(monkeypatch):
    """PCA's objective is ``trace(S) - sum of the top-k eigenvalues``: no residual pass
    (one pass over the data in all), and it equals the explicit weighted squared error."""
    X = random_data(7, 2000, 16)
    calls = []
    real = WeightedPCAProblem._scatter_residuals
    monkeypatch.setattr(
        WeightedPCAProblem,
        "_scatter_residuals",
        lambda self, *a: calls.append(1) or real(self, *a),
    )
    model = PCA(3).fit(X)
    assert calls == []
    explicit = float(np.sum(model.reconstruction_error(X) ** 2))
    np.testing.assert_allclose(model.objective_history_[0], explicit, rtol=1e-10)


def test_gram_solve_without_residuals_skips_the_explicit_pass(monkeypatch):
    """Exactly low-rank wide data make every iteration degenerate (residuals at rounding
    level), where the Gram route forms residuals explicitly, a pass over the data;
    ``residuals=False`` (PCA's solve) skips that pass and keeps basis and mean."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2)) @ rng.normal(size=(2, 400)) + 1.0
    w = np.ones(30)
    full = WeightedPCAProblem(X, 3, np.random.default_rng(0)).solve(w)
    calls = []
    real = WeightedPCAProblem._exact_residuals
    monkeypatch.setattr(
        WeightedPCAProblem, "_exact_residuals", lambda self, *a: calls.append(1) or real(self, *a)
    )
    lean = WeightedPCAProblem(X, 3, np.random.default_rng(0)).solve(w, residuals=False)
    assert calls == []
    np.testing.assert_array_equal(lean.basis(), full.basis())
    np.testing.assert_array_equal(lean.mean(), full.mean())
    with pytest.raises(ValueError, match="residuals=False"):
        lean.residuals()
    WeightedPCAProblem(X, 3, np.random.default_rng(0)).solve(w)
    assert calls == [1]  # the control: with residuals the degenerate pass runs


@pytest.mark.parametrize("route", ["scatter", "gram"])
def test_residuals_of_a_completed_basis(route):
    """Weighted data spanning fewer directions than k: the basis is completed with
    arbitrary orthonormal columns, drawn once (they were drawn again at every call), and
    completed_residuals() are those of that basis (residuals(), those of the r < k
    directions with variance, are the loop's)."""
    X = np.random.default_rng(0).standard_normal((40, 6))
    w = np.zeros(40)
    w[:2] = 1.0  # a weighted scatter of rank 1
    sol = WeightedPCAProblem(X, 3, np.random.default_rng(0), route=route).solve(w)
    U, b = sol.basis(), sol.mean()
    np.testing.assert_array_equal(sol.basis(), U)
    expected = np.linalg.norm((X - b) - ((X - b) @ U) @ U.T, axis=1)
    np.testing.assert_allclose(sol.completed_residuals(), expected, rtol=1e-10, atol=1e-12)
    assert sol.residuals().max() > expected.max() + 0.1


def test_capped_fit_residuals_match_its_components():
    """OptimalMeanPCA(loss='capped') whose weighted inliers span one direction for k = 3:
    residuals_ are the distances to components_ and mean_."""
    rng = np.random.default_rng(0)
    inliers = np.outer(rng.standard_normal(30), rng.standard_normal(6)) * 3 + 1
    X = np.vstack([inliers, rng.standard_normal((8, 6)) * 50])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = OptimalMeanPCA(n_components=3, loss="capped", threshold=20.0).fit(X)
    C, m = model.components_, model.mean_
    expected = np.linalg.norm((X - m) - ((X - m) @ C.T) @ C, axis=1)
    np.testing.assert_allclose(model.residuals_, expected, rtol=1e-9, atol=1e-9)


def test_top_eigh_of_no_pair():
    vals, vecs = top_eigh(np.eye(5), 0)
    assert vals.shape == (0,) and vecs.shape == (5, 0)


def test_warm_start_check_settled_by_the_frobenius_bound(monkeypatch):
    """Low rank plus small noise: the norm of A outside the block bounds every other
    eigenvalue below the k-th, so no Lanczos check runs (its products are memory-bound)."""
    calls = []
    original = linalg.eigen.deflated_top
    monkeypatch.setattr(linalg.eigen, "deflated_top", lambda *a: calls.append(1) or original(*a))
    solver = WarmStartEigh(5, min_size=100)
    for A in slowly_changing_matrices(300, 3):
        solver(A)
    assert solver.n_warm == 2 and not calls


@pytest.mark.parametrize("common", [1.0, 2.5, 1e-3])
@pytest.mark.parametrize("route", ["scatter", "gram"])
def test_equal_weights_give_the_weighted_scatter_eigenvalues(tiny_blocks, route, common):
    """Equal weights (PCA's, a first iteration's) scale the scatter once rather than every
    row: the eigenvalues and the total scatter are still those of problem (14)'s
    ``sum_i d_i (x_i - b)(x_i - b)^T``, as for the same weights made unequal by one ulp."""
    X = random_data(3, 60, 7) + 10.0
    w = np.full(60, common)
    uneven = w.copy()
    uneven[0] = np.nextafter(common, 1.0)
    for weights in (w, uneven):
        sub = WeightedPCAProblem(X, 3, np.random.default_rng(0), route=route).solve(weights)
        b = (weights @ X) / weights.sum()
        S = (X - b).T @ (weights[:, None] * (X - b))
        expected = np.linalg.eigvalsh(S)[::-1][:3]
        np.testing.assert_allclose(sub.eigvals, expected, rtol=1e-10)
        np.testing.assert_allclose(sub.total_scatter, np.trace(S), rtol=1e-10)
