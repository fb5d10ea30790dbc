"""LAPACK's ``syevr`` fails on tight clusters; the eigensolvers fall back to ``syevd``.

A random fuzz of every estimator (``/work/notes/s17/randfuzz2.py``, case 134541: 56 x 5
data, entries up to 4.3) ended CRPCA-OM in ``LinAlgError: Internal Error`` from the certified
gap's top eigenvalue: the 5 x 5 Gram matrix of the multiplier had five eigenvalues equal
to rounding (2.0791814948623...), and ``syevr``'s index subset failed on it (``syevx``
too; OpenBLAS 0.3.30, SciPy 1.17). On ``2 I`` plus a 1e-16 perturbation, the subset with
eigenvectors came back empty. :func:`robustpca.linalg.eigh_index_range` then takes the
full ``syevd``; the SVT's Gram step does the same on a ``syevr`` failure.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import linalg as sla

from robustpca import ConvexOptimalMeanPCA, PrincipalComponentPursuit
from robustpca.linalg import eigh_index_range, top_eigh

#: the upper triangle of the certified gap's Gram matrix in that fit (lower: zeros)
CLUSTER = np.array(
    [
        [2.0791814948623544, 7.9892608584061547e-16, -7.6451176865061748e-16,
         -3.5815064139808615e-16, -2.2204460492503131e-16],
        [0.0, 2.0791814948623566, 2.3364831426500302e-15, -3.3938122053475613e-15,
         -7.9103390504542404e-16],
        [0.0, 0.0, 2.0791814948623517, -2.4575854886876184e-15, -1.3877787807814457e-15],
        [0.0, 0.0, 0.0, 2.0791814948623495, -2.9143354396410359e-15],
        [0.0, 0.0, 0.0, 0.0, 2.0791814948623539],
    ]
)  # fmt: skip


def test_the_top_eigenvalue_of_a_tight_cluster():
    top = eigh_index_range(CLUSTER, 4, 4, eigvals_only=True, lower=False)
    assert top.shape == (1,)
    assert top[0] == pytest.approx(2.0791814948623566, rel=1e-14)


@pytest.mark.parametrize("k", [1, 3])
def test_top_eigenpairs_of_a_near_identity(k):
    A = 2.0 * np.eye(40) + 1e-16 * np.random.default_rng(0).normal(size=(40, 40))
    A = (A + A.T) / 2
    vals, vecs = eigh_index_range(A, 40 - k, 39)
    assert vals.shape == (k,) and vecs.shape == (40, k)
    np.testing.assert_allclose(vals, 2.0, rtol=1e-14)
    np.testing.assert_allclose(vecs.T @ vecs, np.eye(k), atol=1e-13)
    np.testing.assert_allclose(top_eigh(A, k)[0], 2.0, rtol=1e-14)


def _failing_evr(monkeypatch):
    """SciPy's ``eigh`` by ``syevr`` (its default driver) raising, as on a tight cluster."""
    real = sla.eigh

    def eigh(*args, **kwargs):
        if kwargs.get("driver", "evr") == "evr":
            raise np.linalg.LinAlgError("Internal Error.")
        return real(*args, **kwargs)

    monkeypatch.setattr(sla, "eigh", eigh)


def test_eigh_index_range_falls_back_where_syevr_fails(monkeypatch):
    rng = np.random.default_rng(1)
    B = rng.normal(size=(30, 30))
    A = B + B.T
    expected = np.linalg.eigvalsh(A)[20:]
    _failing_evr(monkeypatch)
    vals, vecs = eigh_index_range(A, 20, 29)
    np.testing.assert_allclose(vals, expected, rtol=1e-12)
    np.testing.assert_allclose(A @ vecs, vecs * vals, atol=1e-10)


@pytest.mark.parametrize("cls", [PrincipalComponentPursuit, ConvexOptimalMeanPCA])
def test_convex_fits_are_unchanged_when_syevr_fails(monkeypatch, cls):
    """Every ``syevr`` call of the SVT's Gram step and of the certified gap failing: the
    fit falls back to ``syevd`` and equals the normal one to rounding."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3)) @ rng.normal(size=(3, 20)) + 0.05 * rng.normal(size=(60, 20))
    X[rng.random(X.shape) < 0.05] += 10.0
    reference = cls(random_state=0).fit(X)
    _failing_evr(monkeypatch)
    model = cls(random_state=0).fit(X)
    assert model.n_iter_ == reference.n_iter_
    np.testing.assert_allclose(model.low_rank_, reference.low_rank_, rtol=0, atol=1e-8)
    assert model.duality_gap_ == pytest.approx(reference.duality_gap_, rel=1e-6, abs=1e-12)


@pytest.mark.parametrize("shape", [(2000, 50), (300, 200), (120, 80), (80, 120), (7, 1), (1, 5)])
def test_svd_right_equals_numpys_svd_without_the_left_vectors(shape):
    """The QR-first route of tall matrices gives NumPy's singular values and right
    vectors (up to sign); wide and square ones are NumPy's SVD itself."""
    from robustpca.linalg import svd_right

    A = np.random.default_rng(0).standard_normal(shape) * np.logspace(0, -6, shape[1])
    before = A.copy()
    s, vt = svd_right(A)
    _, s0, vt0 = np.linalg.svd(A, full_matrices=False)
    np.testing.assert_allclose(s, s0, rtol=1e-12, atol=1e-15 * s0[0])
    np.testing.assert_allclose(np.abs(np.sum(vt * vt0, axis=1)), 1.0, atol=1e-9)
    np.testing.assert_array_equal(A, before)
