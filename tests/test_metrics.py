"""Reconstruction errors and subspace distances against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import linalg as sla

from robustpca.metrics import (
    mean_reconstruction_error,
    projector_distance,
    subspace_angles,
    total_reconstruction_error,
)


def _orthonormal_rows(rng, k, d):
    return np.linalg.qr(rng.normal(size=(d, k)))[0].T


def test_reconstruction_errors_brute_force():
    rng = np.random.default_rng(0)
    R, C = rng.normal(size=(2, 30, 7))
    expected = sum(np.sqrt(sum((R[i, j] - C[i, j]) ** 2 for j in range(7))) for i in range(30))
    assert total_reconstruction_error(R, C) == pytest.approx(expected, rel=1e-12)
    assert mean_reconstruction_error(R, C) == pytest.approx(expected / 30, rel=1e-12)
    assert total_reconstruction_error(C, C) == 0.0
    assert isinstance(total_reconstruction_error(R.tolist(), C.tolist()), float)


def test_reconstruction_error_of_an_estimator_matches_its_residuals():
    from robustpca import PCA

    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 6))
    pca = PCA(n_components=2).fit(X)
    assert total_reconstruction_error(pca.reconstruct(X), X) == pytest.approx(
        pca.reconstruction_error(X).sum(), rel=1e-10
    )


@pytest.mark.parametrize("func", [total_reconstruction_error, mean_reconstruction_error])
def test_reconstruction_error_shape_mismatch(func):
    with pytest.raises(ValueError, match="same shape"):
        func(np.zeros((3, 4)), np.zeros((3, 5)))
    with pytest.raises(ValueError, match="2-D"):
        func(np.zeros(4), np.zeros(4))


def test_subspace_angles_matches_scipy_and_known_values():
    rng = np.random.default_rng(2)
    A, B = rng.normal(size=(3, 10)), rng.normal(size=(2, 10))
    np.testing.assert_allclose(subspace_angles(A, B), sla.subspace_angles(A.T, B.T))
    e = np.eye(3)
    np.testing.assert_allclose(subspace_angles(e[:2], e[1:]), [np.pi / 2, 0.0], atol=1e-12)
    # sign flips and rotations inside the subspace do not matter
    Q = _orthonormal_rows(rng, 3, 10)
    G = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    np.testing.assert_allclose(subspace_angles(Q, -G @ Q), 0.0, atol=1e-7)


def test_subspace_angles_errors():
    with pytest.raises(ValueError, match="same number of columns"):
        subspace_angles(np.ones((1, 3)), np.ones((1, 4)))
    with pytest.raises(ValueError, match="A must be a 2-D"):
        subspace_angles(np.ones(3), np.ones((1, 3)))


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(1, 12),
    ka=st.integers(1, 12),
    kb=st.integers(1, 12),
)
def test_projector_distance_equals_explicit_projectors(seed, d, ka, kb):
    ka, kb = min(ka, d), min(kb, d)
    rng = np.random.default_rng(seed)
    A, B = _orthonormal_rows(rng, ka, d), _orthonormal_rows(rng, kb, d)
    explicit = np.linalg.norm(A.T @ A - B.T @ B, "fro")
    assert projector_distance(A, B) == pytest.approx(explicit, abs=1e-6)
    assert projector_distance(A, B) == pytest.approx(projector_distance(B, A), abs=1e-12)
    # a non-orthonormal basis of the same span gives the same distance
    M = rng.normal(size=(ka, ka)) + 3 * np.eye(ka)
    assert projector_distance(M @ A, B) == pytest.approx(explicit, abs=1e-6)


def test_projector_distance_known_values():
    rng = np.random.default_rng(3)
    A = _orthonormal_rows(rng, 4, 20)
    assert projector_distance(A, A) == pytest.approx(0.0, abs=1e-7)
    G = np.linalg.qr(rng.normal(size=(4, 4)))[0]
    assert projector_distance(A, G @ A) == pytest.approx(0.0, abs=1e-7)
    B = _orthonormal_rows(rng, 4, 20)
    theta = subspace_angles(A, B)
    assert projector_distance(A, B) == pytest.approx(np.sqrt(2) * np.linalg.norm(np.sin(theta)))
    e = np.eye(5)
    assert projector_distance(e[:2], e[2:4]) == pytest.approx(2.0)


def test_projector_distance_is_accurate_for_nearby_subspaces():
    rng = np.random.default_rng(4)
    Q = np.linalg.qr(rng.normal(size=(30, 30)))[0]
    A = Q[:, :3].T
    for t in (1e-4, 1e-8, 1e-12):
        # rotate the first basis vector by the angle t towards a direction outside A
        B = A.copy()
        B[0] = np.cos(t) * A[0] + np.sin(t) * Q[:, 3]
        assert projector_distance(A, B) == pytest.approx(np.sqrt(2) * np.sin(t), rel=1e-6)


def test_projector_distance_errors():
    with pytest.raises(ValueError, match="same number of columns"):
        projector_distance(np.eye(3)[:1], np.eye(4)[:1])
    with pytest.raises(ValueError, match="finite"):
        projector_distance(np.array([[np.nan, 1.0]]), np.eye(2)[:1])
