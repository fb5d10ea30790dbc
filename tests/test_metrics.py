"""Reconstruction errors and subspace distances against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import linalg as sla

from robustpca.metrics import (
    clustering_accuracy,
    kmeans_scores,
    mean_reconstruction_error,
    normalized_mutual_info,
    projection_reconstruction_error,
    projector_distance,
    rmse,
    subspace_angles,
    total_reconstruction_error,
    weighted_reconstruction_error,
)
from robustpca.qn_scale import qn
from robustpca.rank_selection import spherical_spectrum
from robustpca.robust_scale import mad, medcouple

from .conftest import SEEDS


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
@given(seed=SEEDS, d=st.integers(1, 12), ka=st.integers(1, 12), kb=st.integers(1, 12))
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


# --------------------------------------------------------------- reconstruction scores


def test_rmse_closed_form_and_transfer_reexport():
    from robustpca import transfer

    assert transfer.rmse is rmse
    assert rmse([[1.0, 3.0]], [[0.0, 0.0]]) == pytest.approx(np.sqrt(5.0))
    X = np.arange(12.0).reshape(3, 4)
    assert rmse(X, X) == 0.0
    assert rmse(X + 2.0, X) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="same shape"):
        rmse(X, X.T)
    with pytest.raises(ValueError, match="empty"):
        rmse(np.zeros((0, 2)), np.zeros((0, 2)))


def test_weighted_reconstruction_error_brute_force():
    rng = np.random.default_rng(5)
    R, C = rng.normal(size=(2, 20, 6))
    w = rng.random(20)
    expected = sum(w[i] * sum((R[i, j] - C[i, j]) ** 2 for j in range(6)) for i in range(20))
    assert weighted_reconstruction_error(R, C, w) == pytest.approx(expected / w.sum(), rel=1e-12)
    # uniform weights: the mean squared row error; scaling the weights changes nothing
    assert weighted_reconstruction_error(R, C) == pytest.approx(np.mean(np.sum((R - C) ** 2, 1)))
    assert weighted_reconstruction_error(R, C, 7 * w) == pytest.approx(
        weighted_reconstruction_error(R, C, w), rel=1e-12
    )
    # sparse weights (adaptive neighbours) only count the selected rows
    mask = np.zeros(20)
    mask[[2, 5]] = 1.0
    assert weighted_reconstruction_error(R, C, mask) == pytest.approx(
        np.sum((R[[2, 5]] - C[[2, 5]]) ** 2) / 2
    )


@pytest.mark.parametrize(
    ("weights", "match"),
    [
        (np.ones(3), r"weights must have shape \(4,\)"),
        (np.array([1.0, -1.0, 1.0, 1.0]), "non-negative"),
        (np.array([1.0, np.nan, 1.0, 1.0]), "finite"),
        (np.zeros(4), "positive sum"),
    ],
)
def test_weighted_reconstruction_error_validation(weights, match):
    with pytest.raises(ValueError, match=match):
        weighted_reconstruction_error(np.zeros((4, 2)), np.ones((4, 2)), weights)


def test_weighted_reconstruction_error_shape_errors():
    with pytest.raises(ValueError, match="reconstructed and clean"):
        weighted_reconstruction_error(np.zeros((4, 2)), np.ones((4, 3)))
    with pytest.raises(ValueError, match="clean must be finite"):
        weighted_reconstruction_error(np.zeros((1, 2)), [[np.inf, 0.0]])


def test_projection_reconstruction_error_equals_the_loop_of_eq37():
    rng = np.random.default_rng(6)
    n, d, m = 15, 8, 3
    W = np.linalg.qr(rng.normal(size=(d, m)))[0]  # d x m as in the paper
    X = rng.normal(size=(n, d)) + 4.0
    clean = X + rng.normal(size=(n, d)) * (rng.random((n, 1)) < 0.3)
    mu = X.mean(axis=0)
    total = 0.0
    for i in range(n):
        residual = (clean[i] - mu) - W @ (W.T @ (X[i] - mu))
        total += np.sqrt(np.sum(residual**2))
    assert projection_reconstruction_error(W.T, X, clean) == pytest.approx(total / n, rel=1e-12)
    # an explicit centre, and no centring at all
    nu = rng.normal(size=d)
    loop = np.mean([np.linalg.norm((clean[i] - nu) - W @ W.T @ (X[i] - nu)) for i in range(n)])
    assert projection_reconstruction_error(W.T, X, clean, mean=nu) == pytest.approx(loop)
    loop0 = np.mean([np.linalg.norm(clean[i] - W @ W.T @ X[i]) for i in range(n)])
    assert projection_reconstruction_error(W.T, X, clean, mean=0.0) == pytest.approx(loop0)
    # a sign flip or rotation of the basis does not change the score
    G = np.linalg.qr(rng.normal(size=(m, m)))[0]
    assert projection_reconstruction_error(-(G @ W.T), X, clean) == pytest.approx(total / n)


def test_projection_reconstruction_error_agrees_with_an_estimator():
    from robustpca import PCA

    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 6)) @ rng.normal(size=(6, 6)) + 3.0
    clean = X + 0.1 * rng.normal(size=X.shape)
    pca = PCA(n_components=2).fit(X)
    expected = mean_reconstruction_error(pca.reconstruct(X), clean)
    got = projection_reconstruction_error(pca.components_, X, clean, mean=pca.mean_)
    assert got == pytest.approx(expected, rel=1e-10)
    # PCA centres on the column mean: the default centre is the same
    assert projection_reconstruction_error(pca.components_, X, clean) == pytest.approx(got)
    # with the full basis every training sample is reconstructed exactly
    full = PCA(n_components=6).fit(X)
    assert projection_reconstruction_error(full.components_, X, X) == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((np.eye(3)[:1], np.zeros((4, 3)), np.zeros((4, 2))), {}, "X_train and clean"),
        ((np.eye(4)[:1], np.zeros((4, 3)), np.zeros((4, 3))), {}, "components has 4 columns"),
        ((np.ones((1, 3)), np.zeros((4, 3)), np.zeros((4, 3))), {}, "orthonormal"),
        ((np.eye(3)[:1], np.zeros((4, 3)), np.zeros((4, 3))), {"mean": np.ones(2)}, "mean"),
        ((np.eye(3)[:1], np.zeros((4, 3)), np.zeros((4, 3))), {"mean": np.nan}, "mean"),
        ((np.eye(3)[:0], np.zeros((4, 3)), np.zeros((4, 3))), {}, "components must be"),
        ((np.eye(3)[:1], np.full((4, 3), np.nan), np.zeros((4, 3))), {}, "X_train must be"),
    ],
)
def test_projection_reconstruction_error_validation(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        projection_reconstruction_error(*args, **kwargs)


# ------------------------------------------------------------------------- clustering


def test_clustering_accuracy_known_confusion():
    # classes 0,1,2 (4 each); cluster 'x' takes 3 of class 0 and 1 of class 1, ...
    true = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]
    pred = ["x", "x", "x", "y", "x", "y", "y", "y", "z", "z", "y", "z"]
    # best map x->0, y->1, z->2: 3 + 3 + 3 correct
    assert clustering_accuracy(true, pred) == pytest.approx(9 / 12)
    assert clustering_accuracy(true, true) == 1.0


def test_clustering_accuracy_different_numbers_of_clusters_and_classes():
    true = np.repeat([10, 20], 5)
    # three clusters: only two can be matched, the third counts as errors
    pred = np.array([0, 0, 0, 0, 0, 1, 1, 1, 2, 2])
    assert clustering_accuracy(true, pred) == pytest.approx(8 / 10)
    # one cluster for two classes: the bigger class is matched
    assert clustering_accuracy(np.array([1, 1, 1, 2]), np.zeros(4)) == pytest.approx(3 / 4)
    # unlike majority voting, two clusters cannot both map to the same class
    assert clustering_accuracy([0, 0, 0, 0], [0, 0, 1, 1]) == pytest.approx(0.5)


def test_clustering_accuracy_against_brute_force_over_permutations():
    from itertools import permutations

    rng = np.random.default_rng(8)
    for _ in range(20):
        true = rng.integers(0, 4, size=30)
        pred = rng.integers(0, 4, size=30)
        best = max(np.mean(np.asarray(perm)[pred] == true) for perm in permutations(range(4)))
        # one-to-one maps of 4 cluster labels onto 4 class labels, tried one by one
        assert clustering_accuracy(true, pred) == pytest.approx(best)


@settings(max_examples=50, deadline=None)
@given(seed=SEEDS, n=st.integers(1, 60), k=st.integers(1, 6))
def test_accuracy_and_nmi_are_permutation_invariant(seed, n, k):
    rng = np.random.default_rng(seed)
    true = rng.integers(0, k, size=n)
    pred = rng.integers(0, k, size=n)
    relabel = rng.permutation(k) * 7 - 3  # arbitrary new values
    acc, nmi = clustering_accuracy(true, pred), normalized_mutual_info(true, pred)
    assert clustering_accuracy(true, relabel[pred]) == pytest.approx(acc)
    assert clustering_accuracy(relabel[true], pred) == pytest.approx(acc)
    assert normalized_mutual_info(true, relabel[pred]) == pytest.approx(nmi)
    # symmetric, bounded, perfect on identical partitions
    assert clustering_accuracy(pred, true) == pytest.approx(acc)
    assert 0.0 < acc <= 1.0 and -1e-12 <= nmi <= 1.0 + 1e-12
    assert clustering_accuracy(true, relabel[true]) == 1.0
    assert normalized_mutual_info(true, relabel[true]) == pytest.approx(1.0)
    # at least the largest cell of the contingency table (one matched pair alone)
    largest = max(np.sum((true == a) & (pred == b)) for a in range(k) for b in range(k))
    assert acc * n >= largest - 1e-9


def test_nmi_matches_sklearn_and_closed_form():
    from sklearn.metrics import normalized_mutual_info_score

    rng = np.random.default_rng(9)
    a, b = rng.integers(0, 3, size=(2, 50))
    assert normalized_mutual_info(a, b) == normalized_mutual_info_score(a, b)
    # independent halves: I = 0
    assert normalized_mutual_info([0, 0, 1, 1], [0, 1, 0, 1]) == pytest.approx(0.0, abs=1e-12)
    # one label of two equal classes split off: I = H(C) - H(C|L) with logs
    true, pred = [0, 0, 1, 1], [0, 0, 1, 2]
    h_true, h_pred = np.log(2), 1.5 * np.log(2)
    assert normalized_mutual_info(true, pred) == pytest.approx(np.log(2) / ((h_true + h_pred) / 2))


@pytest.mark.parametrize("func", [clustering_accuracy, normalized_mutual_info])
def test_label_validation(func):
    with pytest.raises(ValueError, match="same length"):
        func([0, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="labels_true must be 1-D"):
        func([[0, 1]], [0, 1])
    with pytest.raises(ValueError, match="empty"):
        func([], [])


def test_kmeans_scores_on_separated_blobs():
    rng = np.random.default_rng(10)
    centres = 10.0 * rng.normal(size=(4, 5))
    labels = np.repeat(["a", "b", "c", "d"], 25)
    Z = np.repeat(centres, 25, axis=0) + 0.1 * rng.normal(size=(100, 5))
    scores = kmeans_scores(Z, labels, random_state=0)
    assert scores == {"accuracy": 1.0, "nmi": pytest.approx(1.0)}
    # reproducible from a seed, a Generator is accepted
    assert kmeans_scores(Z, labels, random_state=np.random.default_rng(1))["accuracy"] == 1.0
    # fewer clusters than classes: two classes share a cluster, accuracy at most 3/4
    merged = kmeans_scores(Z, labels, n_clusters=3, random_state=0)
    assert merged["accuracy"] == pytest.approx(0.75)
    assert merged["nmi"] < 1.0


def test_kmeans_scores_on_digits_beats_chance():
    """Measured: accuracy 0.866, NMI 0.83 on 500 digits; 0.162 and 0.048 on shuffled labels."""
    from robustpca.datasets import load_digits_images

    d = load_digits_images()
    scores = kmeans_scores(d.data[:500], d.target[:500], n_init=3, random_state=0)
    assert scores["accuracy"] > 0.6 and scores["nmi"] > 0.6
    shuffled = np.random.default_rng(0).permutation(d.target[:500])
    chance = kmeans_scores(d.data[:500], shuffled, n_init=3, random_state=0)
    assert chance["accuracy"] < 0.25 and chance["nmi"] < 0.1


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_clusters": 0}, "n_clusters"),
        ({"n_clusters": 2.5}, "n_clusters"),
        ({"n_clusters": 11}, "n_clusters=11 must not exceed"),
        ({"n_init": 0}, "n_init"),
    ],
)
def test_kmeans_scores_validation(kwargs, match):
    Z = np.arange(20.0).reshape(10, 2)
    with pytest.raises(ValueError, match=match):
        kmeans_scores(Z, np.arange(10) % 2, **kwargs)


def test_kmeans_scores_shape_errors():
    with pytest.raises(ValueError, match="one row per label"):
        kmeans_scores(np.zeros((5, 2)), [0, 1, 0])
    with pytest.raises(ValueError, match="Z must be finite"):
        kmeans_scores(np.full((3, 2), np.nan), [0, 1, 0])


_REAL_INPUTS = [
    (lambda z: total_reconstruction_error(z, np.zeros((2, 2))), "reconstructed"),
    (lambda z: mean_reconstruction_error(np.zeros((2, 2)), z), "clean"),
    (lambda z: rmse(z, np.zeros((2, 2))), "recovered"),
    (lambda z: subspace_angles(z, np.eye(2)[:1]), "A"),
    (lambda z: projector_distance(np.eye(2)[:1], z), "B"),
    (lambda z: weighted_reconstruction_error(z, np.zeros((2, 2))), "reconstructed"),
    (lambda z: kmeans_scores(z, [0, 1]), "Z"),
    (lambda z: mad(z), "x"),
    (lambda z: qn(z), "x"),
    (lambda z: medcouple(z.ravel()), "x"),
    (lambda z: spherical_spectrum(z), "X"),
]


@pytest.mark.parametrize(("func", "name"), _REAL_INPUTS)
def test_complex_and_text_inputs_are_refused_by_name(func, name):
    """NumPy's cast to float had dropped the imaginary parts with a warning only."""
    with pytest.raises(TypeError, match=f"{name} must be real"):
        func(np.array([[1.0 + 2.0j, 0.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match=f"{name} must be numeric"):
        func(np.array([["a", "b"], ["c", "d"]]))


def test_empty_or_infinite_inputs_are_refused():
    """Empty rows gave the mean of an empty slice (NaN); infinite entries an RMSE of NaN."""
    with pytest.raises(ValueError, match="non-empty"):
        mean_reconstruction_error(np.zeros((0, 3)), np.zeros((0, 3)))
    with pytest.raises(ValueError, match="recovered must be finite"):
        rmse([[np.inf, 1.0]], [[np.inf, 1.0]])
    with pytest.raises(ValueError, match="non-empty 2-D"):
        spherical_spectrum(np.zeros((2, 3, 4)))
    with pytest.raises(ValueError, match="finite"):
        spherical_spectrum([[np.nan, 1.0], [0.0, 1.0]])


def test_spherical_spectrum_is_scale_equivariant_below_one():
    """The spatial median's stopping test was absolute below scale 1 (its ``max(|m|,
    1)``): at 1e-9 the eigenvalues moved by 7%, and a variance share picked another
    rank; at 1e154 the norms overflowed into a broadcasting error."""
    X = np.random.default_rng(0).standard_normal((80, 6)) * [5.0, 3.0, 2.0, 1.0, 0.5, 0.2]
    ev, rank = spherical_spectrum(X)
    for c in (1e-9, 1e-6, 1e3):
        scaled, r = spherical_spectrum(c * X)
        assert r == rank
        np.testing.assert_allclose(scaled / c**2, ev, rtol=1e-6)
    big, r = spherical_spectrum(1e154 * X)
    assert r == rank and not np.any(np.isnan(big))


def test_a_spectrum_must_be_a_spectrum():
    """Any negative eigenvalue was clipped to zero (``[5, -3, 1]`` at 0.9 gave 2, an
    all-negative spectrum 1) and text or booleans were taken as eigenvalues."""
    from robustpca.rank_selection import select_n_components

    for bad in ([5.0, -3.0, 1.0], [-1.0, -2.0]):
        with pytest.raises(ValueError, match="eigenvalues must be those of a positive"):
            select_n_components(bad, 0.9)
    for bad in (["6", "2", "1"], [True, False]):
        with pytest.raises(TypeError, match="eigenvalues must be real numbers"):
            select_n_components(bad, "auto")
    assert select_n_components([5.0, 1.0, -1e-16], 0.9) == 2  # rounding of a zero
