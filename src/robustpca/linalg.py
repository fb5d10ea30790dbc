r"""Linear-algebra kernels: top-k eigenpairs and the weighted-PCA subproblem.

The workhorse is :class:`WeightedPCAProblem`, the step-1/2 subproblem of RPCA-OM
(Nie et al. 2014, problem 14) and of weighted PCA:

.. math::
    \min_{b,\; U^\top U = I} \sum_i d_i \lVert (I - UU^\top)(x_i - b) \rVert_2^2
    \;\Rightarrow\; b = \frac{X^\top d}{1^\top d},\quad
    U = \text{top-}k \text{ eigenvectors of } \sum_i d_i (x_i - b)(x_i - b)^\top .

It picks one of two routes once, at construction:

* **Gram route** (``n_samples < n_features``, e.g. faces): the centred Gram matrix
  :math:`G = X_0 X_0^\top` is formed once (``O(n^2 d)``). For weights :math:`d`, with
  :math:`c = d / 1^\top d`, the weighted-centred Gram is
  :math:`G_c = G - Gc1^\top - 1c^\top G + (c^\top G c) 11^\top` and the eigenvectors
  :math:`V` of :math:`D^{1/2} G_c D^{1/2}` give :math:`U = X_c^\top D^{1/2} V
  \Lambda^{-1/2}`, the SVD route that Nie et al. suggest for :math:`d > n`. Residual
  norms come from :math:`G_c` alone, so an iteration costs ``O(n^2 k)`` plus a partial
  ``n x n`` eigendecomposition, independent of ``n_features``. No ``n x n`` diagonal or
  centring matrix is ever formed: :math:`D^{1/2}` is applied by broadcasting.
* **Scatter route** (``n_samples >= n_features``): the ``d x d`` weighted scatter
  :math:`X_0^\top D X_0 - (1^\top d)\, m m^\top` and its top eigenvectors.

In both routes the data are first centred by their arithmetic mean (a translation that
leaves every solution unchanged but keeps the Gram matrix well conditioned).
"""

from __future__ import annotations

import contextlib
import functools

import numpy as np
from scipy import linalg as sla
from threadpoolctl import ThreadpoolController

__all__ = [
    "WeightedPCAProblem",
    "WeightedSubspace",
    "cholesky_qr",
    "complete_orthonormal",
    "flip_component_signs",
    "gram_basis",
    "positive_eigen_mask",
    "single_blas_thread",
    "top_eigh",
]

#: Eigenvalues below this fraction of the largest are treated as zero.
RANK_RTOL = 1e-12
#: Gram-route residuals below this fraction of ||x_i - b||^2 are recomputed exactly.
SUSPICIOUS_RTOL = 1e-6
#: ... and so are all of them when one weight exceeds this multiple of the median weight.
EXTREME_WEIGHT_RATIO = 1e4
#: Gram-route iterations on at most this many samples run on one BLAS thread: on small
#: matrices thread start-up costs more than it saves (2.6x slower eigh at n = 400 on two
#: cores, measured in benchmarks/).
SMALL_GRAM = 1000


@functools.cache
def _threadpool_controller() -> ThreadpoolController:
    return ThreadpoolController()


def single_blas_thread(active: bool = True):
    """Context that limits BLAS to one thread (a no-op when ``active`` is False)."""
    if not active:
        return contextlib.nullcontext()
    return _threadpool_controller().limit(limits=1, user_api="blas")


def gram_basis(X0: np.ndarray, offset_coef: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """``(X0 - 1 m^T)^T coef`` with ``m = X0^T offset_coef``, without the n x d copy."""
    m = X0.T @ offset_coef
    return X0.T @ coef - np.outer(m, coef.sum(axis=0))


def cholesky_qr(U: np.ndarray) -> np.ndarray:
    """Orthonormalise the columns of a nearly orthonormal ``U`` (one Cholesky-QR step).

    Costs ``O(d k^2)`` with a ``k x k`` factorisation; falls back to Householder QR if the
    Gram matrix of ``U`` is not numerically positive definite.
    """
    try:
        L = sla.cholesky(U.T @ U, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        Q, R = np.linalg.qr(U)
        return Q * np.where(np.diag(R) < 0, -1.0, 1.0)[None, :]
    return sla.solve_triangular(L, U.T, lower=True, check_finite=False).T


def top_eigh(A: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-``k`` eigenpairs of a symmetric matrix, in decreasing order (``k`` capped at n).

    Uses LAPACK's ``syevr`` for a subset when ``k`` is small relative to the size and
    the full ``syevd`` otherwise (faster when most of the spectrum is wanted).
    """
    n = A.shape[0]
    k = min(k, n)
    if 4 * k < n:
        vals, vecs = sla.eigh(A, subset_by_index=[n - k, n - 1], driver="evr", check_finite=False)
    else:
        vals, vecs = sla.eigh(A, driver="evd", check_finite=False)
        vals, vecs = vals[n - k :], vecs[:, n - k :]
    return vals[::-1], vecs[:, ::-1]


def complete_orthonormal(basis: np.ndarray, n_columns: int, rng: np.random.Generator) -> np.ndarray:
    """Extend a (d, r) matrix with orthonormal columns to (d, n_columns).

    Used when the data have fewer directions of variance than ``n_components``
    (for example a rank-deficient data set): the extra directions are arbitrary but
    orthonormal, and drawn from ``rng`` so that fits stay reproducible.
    """
    d, r = basis.shape
    if r >= n_columns:
        return basis[:, :n_columns]
    extra = rng.standard_normal((d, n_columns - r))
    for _ in range(2):  # twice is enough for numerical orthogonality
        extra -= basis @ (basis.T @ extra)
    q, _ = np.linalg.qr(extra)
    for _ in range(2):
        q -= basis @ (basis.T @ q)
        q, _ = np.linalg.qr(q)
    return np.hstack([basis, q])


def flip_component_signs(components: np.ndarray) -> np.ndarray:
    """Make the largest-magnitude entry of every row positive (deterministic output)."""
    idx = np.argmax(np.abs(components), axis=1)
    signs = np.sign(components[np.arange(components.shape[0]), idx])
    signs[signs == 0] = 1.0
    return components * signs[:, None]


class WeightedSubspace:
    """A solution of the weighted-PCA subproblem, in whichever route produced it.

    Residuals of the training samples are available cheaply; the (d, k) basis and
    the mean are formed only on request.
    """

    def __init__(self, problem, weights, offset_coef, eigvals, coef, sq_norms, residual_sq):
        self._problem = problem
        self.weights = weights
        self._offset_coef = offset_coef  # c = d / sum(d) (Gram) or mean m (scatter)
        self.eigvals = eigvals
        self._coef = coef  # Gram: D^{1/2} V Lambda^{-1/2}; scatter: U
        self.sq_norms = sq_norms  # ||x_i - b||^2
        self._residual_sq = residual_sq

    def residuals(self) -> np.ndarray:
        """Residual norms ``||(I - UU^T)(x_i - b)||`` of the training samples."""
        return np.sqrt(self._residual_sq)

    def mean(self) -> np.ndarray:
        """The weighted mean ``b`` in the original coordinates."""
        p = self._problem
        m = p.X0.T @ self._offset_coef if p.gram else self._offset_coef
        return p.center + m

    def basis(self) -> np.ndarray:
        """The (n_features, n_components) orthonormal basis ``U``."""
        p = self._problem
        if p.gram:
            U = cholesky_qr(gram_basis(p.X0, self._offset_coef, self._coef))
        else:
            U = self._coef
        return complete_orthonormal(U, p.n_components, p.rng)


class WeightedPCAProblem:
    """Weighted mean and top-``k`` weighted principal subspace of fixed data ``X``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data (not modified).
    n_components : int
        Subspace dimension ``k``.
    rng : numpy.random.Generator
        Used only to complete a rank-deficient basis.
    center : bool, default=True
        Whether the weighted mean is estimated. With ``False`` the subspace passes
        through the origin and :meth:`solve` returns ``b = 0``.
    reference_weights : ndarray, optional
        Weights of the point about which the data are pre-centred (for accuracy only;
        the solution does not depend on it). Uniform by default.
    route : {'auto', 'gram', 'scatter'}
        ``'auto'`` takes the Gram route when ``n_samples < n_features``.
    """

    def __init__(self, X, n_components, rng, *, center=True, route="auto", reference_weights=None):
        n, d = X.shape
        self.n_components = n_components
        self.rng = rng
        self.with_mean = center
        if not center:
            self.center = np.zeros(d)
        elif reference_weights is None:
            self.center = X.mean(axis=0)
        else:
            self.center = (reference_weights @ X) / reference_weights.sum()
        self.X0 = X - self.center
        self.gram = (n < d) if route == "auto" else (route == "gram")
        if self.gram:
            self.G = self.X0 @ self.X0.T
            self.G = 0.5 * (self.G + self.G.T)

    @property
    def n_samples(self) -> int:
        return self.X0.shape[0]

    def solve(self, weights: np.ndarray) -> WeightedSubspace:
        """Solve problem (14) of Nie et al. (2014) for the given weights."""
        if not self.gram:
            return self._solve_scatter(weights)
        with single_blas_thread(self.n_samples <= SMALL_GRAM):
            return self._solve_gram(weights)

    def _solve_gram(self, w: np.ndarray) -> WeightedSubspace:
        G, k = self.G, self.n_components
        if self.with_mean:
            c = w / w.sum()
            Gc_vec = G @ c
            Gcc = G - Gc_vec[:, None] - Gc_vec[None, :] + (c @ Gc_vec)
        else:
            c = np.zeros_like(w)
            Gcc = G
        sw = np.sqrt(w)
        K = sw[:, None] * Gcc * sw[None, :]
        vals, vecs = top_eigh(K, k)
        usable = positive_eigen_mask(vals)
        vals, vecs = vals[usable], vecs[:, usable]
        coef = (sw[:, None] * vecs) / np.sqrt(vals)[None, :]
        proj = Gcc @ coef
        sq = np.maximum(np.diag(Gcc).copy(), 0.0)
        r2 = sq - np.einsum("ij,ij->i", proj, proj)
        # r^2 as a difference loses ~1e-16 * ||x_i - b||^2 to cancellation, and a sample
        # (almost) on the subspace gets a huge weight that amplifies the rounding of its
        # Gram column. When such a sample exists every residual is formed explicitly in
        # feature space: O(n d k), paid only in these degenerate iterations.
        extreme = w.max() > EXTREME_WEIGHT_RATIO * np.median(w)
        if extreme or np.any(r2 < SUSPICIOUS_RTOL * sq):
            U = gram_basis(self.X0, c, coef)
            Xc = self.X0 - self.X0.T @ c
            R = Xc - (Xc @ U) @ U.T
            r2 = np.einsum("ij,ij->i", R, R)
        r2 = np.clip(r2, 0.0, sq)
        return WeightedSubspace(self, w, c, vals, coef, sq, r2)

    def _solve_scatter(self, w: np.ndarray) -> WeightedSubspace:
        X0, k = self.X0, self.n_components
        s = w.sum()
        m = (X0.T @ w) / s if self.with_mean else np.zeros(X0.shape[1])
        # the scatter is formed from the centred data (one n x d temporary, reused for
        # the residuals): no cancellation for samples far from the mean or on the subspace
        Xc = X0 - m
        S = Xc.T @ (w[:, None] * Xc)
        S = 0.5 * (S + S.T)
        vals, vecs = top_eigh(S, k)
        usable = positive_eigen_mask(vals)
        U = vecs[:, usable]
        R = Xc - (Xc @ U) @ U.T
        r2 = np.einsum("ij,ij->i", R, R)
        sq = np.einsum("ij,ij->i", Xc, Xc)
        return WeightedSubspace(self, w, m, vals[usable], U, sq, r2)


def positive_eigen_mask(vals: np.ndarray) -> np.ndarray:
    """Mask of eigenvalues that are numerically positive (relative to the largest)."""
    top = max(vals.max(initial=0.0), 0.0)
    return (vals > RANK_RTOL * top) & (vals > 0)
