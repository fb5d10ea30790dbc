"""The scatter route's products through SciPy's BLAS (linalg/blocked.py, "One BLAS library
per loop"): they equal NumPy's products and leave their inputs alone, and the tall
scatter route's residual pass, its weighted mean and the training distances at the end
of its fits use them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca.linalg.blocked import Projector, add_weighted_rows, sum_weighted_rows


def _record_shapes(monkeypatch, owner, name: str, *, method: bool = False) -> list:
    """Patch ``owner.name`` to record the shape of the array each call works on (the
    first argument, or the one after ``self``); returns the list it fills."""
    shapes = []
    original = getattr(owner, name)

    def spy(*args):
        shapes.append(args[1 if method else 0].shape)
        return original(*args)

    monkeypatch.setattr(owner, name, spy)
    return shapes


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 40), d=st.integers(1, 12), k=st.integers(0, 4), seed=st.integers(0, 999))
def test_products_equal_numpys(rows, d, k, seed):
    rng = np.random.default_rng(seed)
    k = min(k, d)
    U = np.linalg.qr(rng.normal(size=(d, d)))[0][:, :k]
    B = np.ascontiguousarray(rng.normal(size=(rows, d)))
    expected = B - (B @ U) @ U.T
    U0 = U.copy()
    scores = B @ U
    np.testing.assert_allclose(Projector(U).project_out(B), scores, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(B, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(U, U0)
    w, total = rng.random(rows), rng.normal(size=d)
    expected_total = total + w @ expected
    np.testing.assert_allclose(
        add_weighted_rows(total.copy(), w, B), expected_total, rtol=1e-12, atol=1e-12
    )


def test_the_tall_scatter_iterations_make_no_numpy_product(monkeypatch):
    """RPCA-OM on tall data takes the scatter route, whose residual pass in every
    iteration must be the SciPy one (a spy on ``Projector``): a NumPy ``@`` there wakes
    NumPy's OpenBLAS threads between SciPy's calls (2.7x slower at 2 threads, measured)."""
    from robustpca import OptimalMeanPCA

    calls = _record_shapes(monkeypatch, Projector, "project_out", method=True)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3)) @ rng.normal(size=(3, 20)) + 0.01 * rng.normal(size=(3000, 20))
    model = OptimalMeanPCA(3, random_state=0).fit(X)
    assert len(calls) >= model.n_iter_


def test_the_tridiagonal_eigensolver_runs_on_one_blas_thread(monkeypatch):
    """``top_eigh``'s tridiagonal route (at most TRIDIAGONAL_MAX rows) runs on one BLAS
    thread, the caller's thread count restored after; the eigenpairs are unchanged."""
    import pytest
    from threadpoolctl import threadpool_info, threadpool_limits

    from robustpca.linalg import eigen

    def blas_threads() -> set[int]:
        return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}

    seen: list[set[int]] = []
    original = eigen.top_eigh_tridiagonal

    def spy(A, k):
        seen.append(blas_threads())
        return original(A, k)

    rng = np.random.default_rng(0)
    F = rng.normal(size=(200, 30))
    A = F @ F.T
    with threadpool_limits(2, user_api="blas"):
        if blas_threads() != {2}:
            pytest.skip("the BLAS cannot run on 2 threads here")
        expected = eigen.top_eigh(A, 5)
        monkeypatch.setattr(eigen, "top_eigh_tridiagonal", spy)
        vals, vecs = eigen.top_eigh(A, 5)
        assert blas_threads() == {2}
    assert seen == [{1}]
    np.testing.assert_array_equal(vals, expected[0])
    np.testing.assert_array_equal(vecs, expected[1])


@settings(max_examples=25, deadline=None)
@given(
    m=st.integers(1, 30),
    k=st.integers(1, 30),
    n=st.integers(1, 30),
    seed=st.integers(0, 999),
    layouts=st.sampled_from(["CC", "CF", "FC", "FF"]),
)
def test_blas_matmul_is_the_product(m, k, n, seed, layouts):
    """``blas_matmul`` equals NumPy's ``@`` to rounding for every memory layout, and
    leaves its operands alone."""
    from robustpca.linalg.blocked import blas_matmul

    rng = np.random.default_rng(seed)
    A = np.asarray(rng.normal(size=(m, k)), order=layouts[0])
    B = np.asarray(rng.normal(size=(k, n)), order=layouts[1])
    A0, B0 = A.copy(), B.copy()
    np.testing.assert_allclose(blas_matmul(A, B), A @ B, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(A, A0)
    np.testing.assert_array_equal(B, B0)


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 40),
    d=st.integers(1, 12),
    seed=st.integers(0, 999),
    layout=st.sampled_from(["C", "F", "strided"]),
)
def test_sum_weighted_rows_is_the_product(n, d, seed, layout):
    """``sum_weighted_rows`` (SciPy's ``gemv`` on contiguous data) equals ``w @ X`` for
    every layout and leaves ``X`` and ``w`` alone."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2 * d) if layout == "strided" else (n, d))
    X = X[:, ::2] if layout == "strided" else np.asarray(X, order=layout)
    w = rng.random(n)
    X0, w0 = X.copy(), w.copy()
    np.testing.assert_allclose(sum_weighted_rows(X, w), w @ X, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(w, w0)


def _reference_both_ways(model, X):
    """The training scores and ODs of ``model`` through SciPy's and NumPy's BLAS."""
    model._tall_fit_blas = "scipy"
    by_scipy = model._reference_distances(X)
    model._tall_fit_blas = "numpy"
    by_numpy = model._reference_distances(X)
    del model._tall_fit_blas
    return by_scipy, by_numpy


@pytest.mark.realdata
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("table", ["hbk", "bushfire", "wood"])
def test_the_training_distances_through_scipy_equal_numpys(shared_data, table, order):
    """The SciPy route of the training distances (the scatter-route estimators, tall data)
    gives NumPy's scores and orthogonal distances to rounding on rrcov's tables, for C- and
    F-ordered data, and leaves the data alone."""
    from robustpca import OptimalMeanPCA

    path = shared_data / "rrcov" / f"{table}.csv"
    X = np.asarray(np.loadtxt(path, delimiter=",", skiprows=1), order=order)
    X0 = X.copy()
    model = OptimalMeanPCA(2, random_state=0).fit(X)
    (s1, od1), (s2, od2) = _reference_both_ways(model, X)
    scale = np.abs(X - model.mean_).max()
    np.testing.assert_allclose(s1, s2, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(od1, od2, rtol=0, atol=1e-12 * scale)
    np.testing.assert_array_equal(X, X0)


@pytest.mark.parametrize(
    "name", ["PCA", "OptimalMeanPCA", "HQPCA", "GeneralizedMeanPCA", "AdaptiveNeighborsPCA"]
)
def test_the_tall_scatter_fits_take_their_training_distances_through_scipy(monkeypatch, name):
    """At the end of a fit on tall float64 data the scatter-route estimators compute the
    training distances by ``Projector`` (SciPy's BLAS), as their iterations do: a NumPy
    product there woke NumPy's OpenBLAS threads against SciPy's (PCA on 20,000 x 100 at
    two BLAS threads: 0.07-0.15 s, against 0.03-0.04 s at one). Wide data (the Gram route)
    and float32 data keep NumPy's products."""
    import robustpca

    blocks = _record_shapes(monkeypatch, Projector, "project_out", method=True)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3)) @ rng.normal(size=(3, 12)) + 0.01 * rng.normal(size=(300, 12))
    cls = getattr(robustpca, name)
    model = cls(3).fit(X)
    blocks.clear()
    model._set_outlier_reference(X)
    assert sum(rows for rows, _ in blocks) == X.shape[0]
    for data in (X.T[:, :20].copy(), X.astype(np.float32)):
        model = cls(3).fit(data)
        blocks.clear()
        model._set_outlier_reference(data)
        assert blocks == []


def test_the_weighted_mean_follows_the_route(monkeypatch):
    """PCA's weighted mean (its reference weights) is SciPy's ``gemv`` on the scatter
    route, whose passes are SciPy's, and NumPy's product on the Gram route, whose Gram
    matrix and basis are NumPy's; the two give the same mean to rounding."""
    from robustpca.linalg import weighted_pca
    from robustpca.linalg.weighted_pca import WeightedPCAProblem

    calls = _record_shapes(monkeypatch, weighted_pca, "sum_weighted_rows")
    rng = np.random.default_rng(0)
    X, w = rng.normal(size=(40, 12)), rng.random(40)
    means = {}
    for route in ("scatter", "gram"):
        problem = WeightedPCAProblem(X, 2, rng, route=route, reference_weights=w)
        means[route] = problem.center
    assert calls == [X.shape]
    np.testing.assert_allclose(means["scatter"], means["gram"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(means["scatter"], w @ X / w.sum(), rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 2000), d=st.integers(1, 300), seed=st.integers(0, 999))
def test_l1_pca_deflation_is_numpys_rank_one_update(n, d, seed):
    """PCA-L1's deflation ``R - (R w) w^T`` is done in place by blocks of rows (of
    ``BLOCK_BYTES``: from 437 rows at ``d = 300``), without SciPy's BLAS ``ger``
    between the NumPy products of Kwak's iterations."""
    from robustpca.solvers.l1_pca import _deflate

    rng = np.random.default_rng(seed)
    R = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    w /= np.linalg.norm(w)
    expected = R - np.outer(R @ w, w)
    _deflate(R, w)
    np.testing.assert_allclose(R, expected, rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(d=st.integers(1, 300), k=st.integers(1, 12), seed=st.integers(0, 999))
def test_cholesky_qr_is_numpys_householder_q(d, k, seed):
    """The Gram routes' orthonormalisation calls no SciPy (its products and factorisations
    are NumPy's, like the routes' loops) and gives Householder QR's ``Q`` with a positive
    diagonal ``R``; a rank-deficient ``U`` takes the Householder fallback."""
    from robustpca.linalg import eigen

    def forbidden(*args, **kwargs):
        raise AssertionError("SciPy's LAPACK in a NumPy loop")

    rng = np.random.default_rng(seed)
    k = min(k, d)
    Q0 = np.linalg.qr(rng.normal(size=(d, k)))[0]
    U = Q0 + 1e-3 * rng.normal(size=(d, k))  # nearly orthonormal, as its callers' bases
    U_before = U.copy()
    with pytest.MonkeyPatch.context() as mp:
        for name in ("cholesky", "solve_triangular"):
            mp.setattr(eigen.sla, name, forbidden)
        Q = eigen.cholesky_qr(U)
        if k > 1:
            deficient = U.copy()
            deficient[:, -1] = deficient[:, 0]  # the Cholesky factorisation fails
            Qd = eigen.cholesky_qr(deficient)
    H, R = np.linalg.qr(U)
    expected = H * np.sign(np.diag(R))[None, :]
    np.testing.assert_allclose(Q, expected, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(U, U_before)
    if k > 1:
        Q = Qd
        assert np.isfinite(Q).all()
        np.testing.assert_allclose(Q[:, :-1].T @ Q[:, :-1], np.eye(k - 1), atol=1e-12)
