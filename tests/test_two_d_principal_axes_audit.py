"""Gaps in the 2-D image methods found by mutation testing.

* ``normalize_bases`` (solvers/two_d_images.py) fixes the bases within their spans: the
  left basis rotated to the eigenvectors of sum_i d_i Z_i Z_i^T and the right one to
  those of sum_i d_i Z_i^T Z_i (Z_i = L^T (A_i - M) R), in decreasing order, d_i the
  image weights of the fit. No test looked inside the spans, so the unweighted
  scatters, an increasing order of the left axes, or the right scatter's axes for the
  left basis (square Z_i) all went unnoticed: each changes ``transform`` and
  ``components_`` of a fit.
* 2DPCA's number of axes is at most ``n_samples * height`` (the image scatter is a sum
  of that many rank-one terms); only ``k > width`` was tested.
* CappedRobust2DPCA's default cap falls back to 1 where the centred images are all
  zero and ``epsilon=0`` (twice the median smoothed residual is then 0, not a cap).
"""

import numpy as np
import pytest

from robustpca.estimators._two_d import GLRAM, CappedRobust2DPCA, Robust2DPCA, TwoDPCA


def _images(seed, n=40, h=7, w=6):
    """Images of rank 3 per side with spread singular values, noise, 4 gross outliers."""
    rng = np.random.default_rng(seed)
    L = np.linalg.qr(rng.normal(size=(h, 3)))[0]
    R = np.linalg.qr(rng.normal(size=(w, 3)))[0]
    core = rng.normal(size=(n, 3, 3)) * np.array([6.0, 3.0, 1.5])[:, None]
    A = L @ core @ R.T + 0.05 * rng.normal(size=(n, h, w)) + 2.0
    A[:4] += 8.0 * rng.normal(size=(4, h, w))
    return A.reshape(n, h * w)


def _scatters(model, X):
    h, w = model.image_shape_
    E = (X - model.mean_).reshape(-1, h, w)
    Z = model.left_components_.T @ E @ model.right_components_
    d = getattr(model, "weights_", np.ones(X.shape[0]))
    left = np.einsum("n,nij,nkj->ik", d, Z, Z)
    right = np.einsum("n,nji,njk->ik", d, Z, Z)
    return left, right


@pytest.mark.parametrize("cls", [GLRAM, Robust2DPCA, CappedRobust2DPCA])
@pytest.mark.parametrize("ranks", [(3, 3), (3, 2), (2, 3)])
def test_bases_are_the_weighted_principal_axes_of_the_coefficients(cls, ranks):
    """The weighted scatters of the coefficient matrices are diagonal, with decreasing
    diagonals, in the fitted bases (``weights_`` for the robust fits, 1 for GLRAM); each
    basis vector's largest entry is positive."""
    X = _images(0)
    model = cls(ranks, image_shape=(7, 6), random_state=0).fit(X)
    if hasattr(model, "weights_"):
        assert model.weights_[:4].max() < np.median(model.weights_[4:])  # not all equal
    for S in _scatters(model, X):
        off = S - np.diag(np.diag(S))
        assert np.abs(off).max() <= 1e-9 * np.abs(S).max()
        assert np.all(np.diff(np.diag(S)) <= 1e-12 * S[0, 0])
    for B in (model.left_components_, model.right_components_):
        top = B[np.argmax(np.abs(B), axis=0), np.arange(B.shape[1])]
        assert np.all(top > 0)


def test_two_d_pca_has_at_most_n_samples_times_height_axes():
    """Two 1 x 12 images span two directions: k = 2 is the most, k = 3 is refused."""
    X = np.random.default_rng(3).normal(size=(2, 12))
    assert TwoDPCA(None, image_shape=(1, 12)).fit(X).n_components_ == 2
    assert TwoDPCA(2, image_shape=(1, 12)).fit(X).n_components_ == 2
    with pytest.raises(ValueError, match="n_components"):
        TwoDPCA(3, image_shape=(1, 12)).fit(X)


def test_capped_default_threshold_of_constant_images_without_smoothing():
    """Constant images, epsilon=0: every starting residual is 0, the cap falls back to 1
    and the fit is the constant image with unit weights of the l2,1 loss floor."""
    X = np.full((8, 12), 3.0)
    model = CappedRobust2DPCA(2, image_shape=(3, 4), epsilon=0.0).fit(X)
    assert model.threshold_ == 1.0
    np.testing.assert_allclose(model.mean_, 3.0)
    assert np.all(model.weights_ > 0)
