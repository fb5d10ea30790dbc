"""The scatter route's products through SciPy's BLAS (linalg/blocked.py, "One BLAS library
per loop"): they equal NumPy's products and leave their inputs alone, and the tall
scatter route's residual pass uses them."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca.linalg.blocked import Projector, add_weighted_rows


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 40), d=st.integers(1, 12), k=st.integers(0, 4), seed=st.integers(0, 999))
def test_products_equal_numpys(rows, d, k, seed):
    rng = np.random.default_rng(seed)
    k = min(k, d)
    U = np.linalg.qr(rng.normal(size=(d, d)))[0][:, :k]
    B = np.ascontiguousarray(rng.normal(size=(rows, d)))
    expected = B - (B @ U) @ U.T
    U0 = U.copy()
    Projector(U).project_out(B)
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

    calls = []
    original = Projector.project_out

    def spy(self, B):
        calls.append(B.shape)
        return original(self, B)

    monkeypatch.setattr(Projector, "project_out", spy)
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
