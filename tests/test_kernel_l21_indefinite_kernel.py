"""Kernel PCA-L21: the embedding of an indefinite kernel (sigmoid), checked against the
spectrum of the explicitly centred kernel ``H K H``.

Mutation audit: every embedding test used kernels whose mean is positive and whose top
eigenvalues are the largest in magnitude, so dropping the ``+ mean(K)`` of the double
centring, keeping negative eigenvalues (as ``|lambda|``), asking ARPACK for the largest
magnitudes instead of the largest values, dropping the sign convention of the
eigenvectors, and replacing the clip at zero of the reconstruction error by an absolute
value all left the suite passing.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics.pairwise import pairwise_kernels

from robustpca import KernelL21PCA

N = 60


def data():
    return np.random.default_rng(0).normal(size=(N, 3))


def centred_spectrum(X, gamma, coef0):
    """Eigenvalues, decreasing, of ``H K H`` for the sigmoid kernel, formed explicitly."""
    K = pairwise_kernels(X, metric="sigmoid", gamma=gamma, coef0=coef0)
    H = np.eye(N) - 1.0 / N
    return np.linalg.eigvalsh(H @ K @ H)[::-1]


@pytest.mark.parametrize(("gamma", "coef0"), [(0.5, -1.0), (0.3, 1.0)])
def test_full_embedding_keeps_the_positive_spectrum_of_the_centred_kernel(gamma, coef0):
    """``n_embedding=None`` keeps exactly the numerically positive eigenvalues of
    ``H K H``. With ``coef0 = -1`` the kernel's mean is negative: centring without adding
    it back leaves ``-n mean(K)`` on the constant vector, a spurious top eigenvalue."""
    X = data()
    spectrum = centred_spectrum(X, gamma, coef0)
    positive = spectrum[spectrum > 1e-10 * spectrum[0]]
    model = KernelL21PCA(2, kernel="sigmoid", gamma=gamma, coef0=coef0).fit(X)
    assert model.n_embedding_ == positive.size
    np.testing.assert_allclose(model.eigenvalues_, positive, rtol=1e-10)


def test_non_positive_directions_of_a_truncated_embedding_are_zero():
    """An int ``n_embedding`` beyond the positive part of the spectrum keeps the next
    (non-positive) eigenvalues as 0, so their coordinates are zero, as documented."""
    X = data()
    spectrum = centred_spectrum(X, 0.5, -1.0)
    n_positive = int(np.sum(spectrum > 1e-10 * spectrum[0]))
    model = KernelL21PCA(2, kernel="sigmoid", gamma=0.5, coef0=-1.0, n_embedding=N - 5).fit(X)
    np.testing.assert_allclose(model.eigenvalues_[:n_positive], spectrum[:n_positive], rtol=1e-10)
    np.testing.assert_array_equal(model.eigenvalues_[n_positive:], 0.0)
    np.testing.assert_array_equal(model.embed(X)[:, n_positive:], 0.0)


def test_arpack_takes_the_largest_eigenvalues_not_the_largest_magnitudes():
    """With ``coef0 = 1`` the sigmoid kernel's negative eigenvalues outweigh its fifth
    positive one: ARPACK must return the top five *algebraic* eigenpairs, those of
    LAPACK, with the same (deterministic) signs of the eigenvectors."""
    X = data()
    spectrum = centred_spectrum(X, 0.3, 1.0)
    assert abs(spectrum[-1]) > spectrum[4]  # the case this test is about
    fits = {
        solver: KernelL21PCA(
            2, kernel="sigmoid", gamma=0.3, coef0=1.0, n_embedding=5, eigen_solver=solver
        ).fit(X)
        for solver in ("arpack", "dense")
    }
    np.testing.assert_allclose(fits["arpack"].eigenvalues_, spectrum[:5], rtol=1e-10)
    np.testing.assert_allclose(fits["dense"].eigenvalues_, spectrum[:5], rtol=1e-10)
    np.testing.assert_allclose(fits["arpack"].eigenvectors_, fits["dense"].eigenvectors_, atol=1e-9)
    V = fits["dense"].eigenvectors_
    largest = V[np.argmax(np.abs(V), axis=0), np.arange(V.shape[1])]
    assert np.all(largest > 0)  # flip_component_signs: largest entry of each positive


def test_training_reconstruction_error_is_clipped_at_zero():
    """Keeping every positive direction, a training sample lies in the fitted subspace up
    to the kernel's negative part, which makes ``||phi - phibar||^2 - ||z||^2`` the
    (non-positive) diagonal of that part: the documented clip gives exactly 0, where an
    absolute value would report the square root of the negative part as an error."""
    X = data()
    model = KernelL21PCA(None, kernel="sigmoid", gamma=0.5, coef0=-1.0).fit(X)
    np.testing.assert_array_equal(model.reconstruction_error(X), 0.0)
