r"""Spherical PCA (Locantore et al. 1999), as rrcov's ``PcaLocantore`` computes it.

1. The spatial median :math:`m` by rrcov's iteration (:func:`spatial_median`).
2. Each centred sample is projected on the unit sphere,
   :math:`y_i = (x_i - m) / \lVert x_i - m \rVert` (zero within ``eps`` of :math:`m`).
3. The principal axes :math:`v_j` of the :math:`y_i` (classical PCA: centred by their
   mean, as ``PcaClassic`` does).
4. Robust eigenvalues: the squared MAD of the scores along each axis, and the axes sorted
   by them.

Step 4 is where rrcov and Locantore et al. part: rrcov takes the MAD of the *sphered*
scores :math:`y_i^\top v_j`, which puts its eigenvalues on the scale of the unit sphere
(wood, whose variances are about 0.01, gets eigenvalues 1.3 and 0.38) so that its score
distances are not those of the data; Locantore et al. (sec. 2.3) estimate the
eigenvalues by a robust scale of the data projected on the axes, :math:`(x_i - m)^\top
v_j`. Both are returned; the estimator uses the data scale by default and rrcov's on
request.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..linalg import svd_right
from ..robust_scale import _median, mad

__all__ = ["SphericalPCAResult", "solve_spherical_pca", "spatial_median"]


def spatial_median(
    X: np.ndarray, delta: float = 1e-3, max_iter: int = 1000
) -> tuple[np.ndarray, float, int]:
    """rrcov's ``spatial.median``: Weiszfeld steps with a floor on the distances.

    Starts at the coordinatewise median; each step averages the samples with weights
    ``1 / ||x_i - m||``, distances below ``eps = delta * median ||x_i - m||`` counting
    as ``eps``; stops when the step is at most ``delta * sqrt(p)``. Where the nearest
    sample is the spatial median itself (Vardi & Zhang's condition), it is returned, not
    the iterate near it (:func:`_at_a_sample`; rrcov returns the iterate), as soon as an
    iterate comes within the floor of it: rrcov's steps, which weigh such a sample by
    ``eps`` rather than ``1 / eps``, can circle it without end (its ``PcaLocantore``
    does not return on the ten-row table of ``tests/test_spherical_covariance.py``).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    delta : float, default=1e-3
        Sets the distance floor (``delta`` times the median distance) and the stopping
        step (``delta * sqrt(n_features)``).
    max_iter : int, default=1000
        Maximum number of Weiszfeld steps.

    Returns
    -------
    centre : ndarray of shape (n_features,)
    eps : float
        The last distance floor (samples closer than it are not sphered).
    n_iter : int
    """
    p = X.shape[1]
    mu = _median(X, axis=0)
    tol = delta * np.sqrt(p)
    eps = 0.0
    for it in range(1, max_iter + 1):
        w = np.linalg.norm(X - mu, axis=1)
        eps = delta * float(_median(w))
        close = w <= eps
        if close.any():  # a sample within the floor: done if it is the spatial median
            at = _at_a_sample(X, mu)
            if at is not mu:
                return at, eps, it
        w = np.where(close, eps, 1.0 / np.where(close, 1.0, w))
        total = w.sum()
        if not total > 0:  # every sample at the median
            return mu, eps, it
        new = (w / total) @ X
        step = float(np.linalg.norm(new - mu))
        mu = new
        if step <= tol:
            return _at_a_sample(X, mu), eps, it
    return _at_a_sample(X, mu), eps, max_iter


def _at_a_sample(X: np.ndarray, mu: np.ndarray) -> np.ndarray:
    r"""The sample nearest ``mu`` where it is the spatial median, else ``mu``.

    A sample :math:`x_k` (with multiplicity :math:`\eta_k`) is the spatial median exactly
    when :math:`\lVert \sum_{x_i \ne x_k} (x_i - x_k) / \lVert x_i - x_k \rVert \rVert
    \le \eta_k` (Vardi & Zhang 2000), and Weiszfeld's steps then only approach it: they
    stop within about the tolerance, so the sample's distance to the centre hovers about
    the floor ``eps`` below which it is not sphered. Its sign, sphered or not, then
    turned with a rotation of the data: the sign covariance of 40 samples turned by 0.04,
    and a robust eigenvalue moved by 14% (``tests/test_spherical_covariance.py``). At
    the sample itself its sign is 0, as the spatial sign of 0 is."""
    d = np.linalg.norm(X - mu, axis=1)
    k = int(np.argmin(d))
    diff = X - X[k]
    norms = np.linalg.norm(diff, axis=1)
    other = norms > 0
    pull = float(np.linalg.norm((diff[other] / norms[other, None]).sum(axis=0)))
    return X[k].copy() if pull <= np.count_nonzero(~other) else mu


@dataclass(frozen=True)
class SphericalPCAResult:
    """Outcome of :func:`solve_spherical_pca`.

    Attributes
    ----------
    components : ndarray of shape (r, n_features)
        Axes sorted by decreasing robust eigenvalue (of the scale chosen).
    mean : ndarray of shape (n_features,)
        Spatial median.
    eigenvalues : ndarray of shape (r,)
        Squared MAD of the scores on the chosen scale, in the order of ``components``.
    sphere_eigenvalues : ndarray
        Classical eigenvalues of the sphered data (rrcov chooses an automatic ``k``
        on them).
    rank : int
        Rank of the sphered data.
    n_iter : int
        Iterations of the spatial median.
    """

    components: np.ndarray
    mean: np.ndarray
    eigenvalues: np.ndarray
    sphere_eigenvalues: np.ndarray
    rank: int
    n_iter: int


def solve_spherical_pca(
    X: np.ndarray, *, scale_on: str = "data", delta: float = 1e-3
) -> SphericalPCAResult:
    """Spherical PCA of ``X`` (module docstring).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    scale_on : {"data", "sphere"}, default="data"
        Scores whose MAD gives the eigenvalues: the centred data (Locantore et al.) or
        the sphered data (rrcov).
    delta : float, default=1e-3
        Tolerance of :func:`spatial_median`.

    Returns
    -------
    SphericalPCAResult
    """
    n, p = X.shape
    mu, eps, n_iter = spatial_median(X, delta)
    centred = X - mu
    norms = np.linalg.norm(centred, axis=1)
    far = norms > eps
    Y = np.zeros_like(centred)
    Y[far] = centred[far] / norms[far, None]
    Yc = Y - Y.mean(axis=0)
    s, vt = svd_right(Yc)
    tol = max(n, p) * np.finfo(np.float64).eps * (s[0] if s.size else 0.0)
    rank = int(np.sum(s >= tol)) if s.size and s[0] > 0 else 0
    axes = vt[:rank]
    scores = (Y if scale_on == "sphere" else centred) @ axes.T
    eigenvalues = mad(scores, axis=0) ** 2 if rank else np.zeros(0)
    order = np.argsort(-eigenvalues, kind="stable")
    return SphericalPCAResult(
        components=axes[order],
        mean=mu,
        eigenvalues=eigenvalues[order],
        sphere_eigenvalues=s[:rank] ** 2 / max(n - 1, 1),
        rank=rank,
        n_iter=n_iter,
    )
