r"""The weighted-PCA subproblem computed in the input's array namespace, on its device.

:class:`ArrayAPIWeightedPCAProblem` is the array-API twin of
:class:`robustpca.linalg.WeightedPCAProblem` (problem 14 of Nie et al. 2014):

.. math::
    \min_{b,\; U^\top U = I} \sum_i d_i \lVert (I - UU^\top)(x_i - b) \rVert_2^2
    \;\Rightarrow\; b = \frac{X^\top d}{1^\top d},\quad
    U = \text{top-}k \text{ eigenvectors of } \sum_i d_i (x_i - b)(x_i - b)^\top ,

with the same two routes (the ``n x n`` Gram matrix when ``n_samples < n_features``,
else the ``d x d`` weighted scatter) and the same interface (``solve(weights)`` returning
an object with ``residuals()``, ``mean()`` and ``basis()``), so the reweighting loop of
:func:`robustpca.solvers.minimize_reweighted` drives either. Every pass over the data
-- the Gram matrix or the scatter, the residuals, the basis -- runs with the namespace's
own operations on the data's device (a GPU for CuPy or PyTorch on CUDA); the eigen
decomposition is the namespace's ``linalg.eigh`` (full: the matrices are ``n x n`` or
``d x d`` with the smaller side). Only ``O(n + k d)`` numbers cross to the host per
iteration: the residual norms (for the loss's weights, computed by the NumPy
:class:`~robustpca.losses.RobustLoss`), the weights back, the eigenvalues, and at the end
the basis and the mean.

Differences from the NumPy class, on purpose:

* the arithmetic is in the device's widest float (float64 where it exists, float32 on
  devices without it, e.g. Apple MPS), so float32 data are widened once: one copy of
  the data on the device (the NumPy route widens block by block instead);
* the scatter route forms the scatter about the new weighted mean in blocks of
  :data:`BLOCK_ROWS` rows (no rank-one shift bookkeeping: device memory is the bound, and
  a block of rows centred at the new mean is the simplest accurate form);
* the Gram matrix is formed from the raw data and centred afterwards when that loses at
  most :data:`robustpca.linalg.RAW_GRAM_MAX_GAIN` (see
  :func:`robustpca.linalg.raw_centred_gram`), else from the explicitly centred data.
"""

from __future__ import annotations

import numpy as np

from ._array_api import _convert_to_numpy, default_integer_dtype, max_precision_float_dtype
from .linalg import (
    EXTREME_WEIGHT_RATIO,
    RAW_GRAM_MAX_GAIN,
    SUSPICIOUS_RTOL,
    complete_orthonormal,
    positive_eigen_mask,
)

__all__ = ["BLOCK_ROWS", "ArrayAPIWeightedPCAProblem", "ArrayAPIWeightedSubspace"]

#: Rows per block in the passes of the scatter route and of the explicit residuals.
BLOCK_ROWS = 65_536


def _row_blocks(n: int, d: int):
    step = max(1, min(n, BLOCK_ROWS, (1 << 26) // max(d, 1)))  # about 512 MiB of float64
    return [slice(start, min(start + step, n)) for start in range(0, n, step)]


class ArrayAPIWeightedSubspace:
    """A solution of the subproblem; the residuals, mean and basis come back as NumPy.

    Built by :meth:`ArrayAPIWeightedPCAProblem.solve`.

    Parameters
    ----------
    problem : ArrayAPIWeightedPCAProblem
        The problem solved; converts the mean and basis to NumPy.
    weights : ndarray of shape (n_samples,)
        The (host) sample weights ``d`` of the solve.
    mean : array of shape (n_features,)
        The weighted mean ``b``, on the device.
    basis_fn : callable
        ``basis_fn()`` returns the (n_features, r) basis on the device, formed on request.
    eigvals : ndarray of shape (r,)
        The positive eigenvalues kept, decreasing (host).
    sq_norms : ndarray of shape (n_samples,)
        ``||x_i - b||^2`` (host).
    residual_sq : ndarray of shape (n_samples,)
        ``||(I - UU^T)(x_i - b)||^2`` (host).
    """

    def __init__(self, problem, weights, mean, basis_fn, eigvals, sq_norms, residual_sq):
        self._problem = problem
        self.weights = weights
        self._mean = mean  # device array (d,)
        self._basis_fn = basis_fn  # () -> device array (d, k')
        self.eigvals = eigvals  # host
        self.sq_norms = sq_norms  # host ||x_i - b||^2
        self._residual_sq = residual_sq  # host
        self._basis = None
        #: sum_i d_i ||x_i - b||^2, the trace of the weighted scatter about the mean
        self.total_scatter = float(weights @ sq_norms)

    def residuals(self) -> np.ndarray:
        """Residual norms ``||(I - UU^T)(x_i - b)||`` of the training samples (NumPy)."""
        return np.sqrt(self._residual_sq)

    def mean(self) -> np.ndarray:
        """The weighted mean ``b`` (NumPy, float64)."""
        return self._problem._host(self._mean)

    def basis(self) -> np.ndarray:
        """The (n_features, n_components) orthonormal basis ``U`` (NumPy, float64)."""
        if self._basis is None:
            p = self._problem
            self._basis = complete_orthonormal(p._host(self._basis_fn()), p.n_components, p.rng)
        return self._basis.copy()  # a caller's (a callback's) edit leaves the fit's intact


class ArrayAPIWeightedPCAProblem:
    """Weighted mean and top-``k`` weighted principal subspace of ``X`` in its namespace.

    Parameters
    ----------
    X : array of shape (n_samples, n_features) in namespace ``xp`` on ``device``
        Never modified.
    n_components : int
    rng : numpy.random.Generator
        Used only to complete a rank-deficient basis (on the host).
    xp, device
        The namespace and device of ``X`` (:func:`robustpca._array_api.get_namespace_and_device`).
    route : {'auto', 'gram', 'scatter'}
        ``'auto'`` takes the Gram route when ``n_samples < n_features``.
    """

    def __init__(self, X, n_components: int, rng, xp, device, *, route: str = "auto"):
        self.xp, self.device = xp, device
        self.dtype = max_precision_float_dtype(xp, device)
        self.X = X if X.dtype == self.dtype else xp.astype(X, self.dtype)
        self.n_components = n_components
        self.rng = rng
        n, d = X.shape
        self.center = xp.mean(self.X, axis=0)
        self.gram = (n < d) if route == "auto" else (route == "gram")
        if self.gram:
            self.G = self._centred_gram()

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    # -- helpers ---------------------------------------------------------------------------
    def _host(self, a) -> np.ndarray:
        return np.asarray(_convert_to_numpy(a, self.xp), dtype=np.float64)

    def _device(self, a: np.ndarray):
        return self.xp.asarray(
            np.asarray(a, dtype=np.float64), dtype=self.dtype, device=self.device
        )

    def _diag(self, A):
        return self.xp.linalg.diagonal(A)

    def _centred_gram(self):
        xp, X, c = self.xp, self.X, self.center
        G = X @ X.T
        raw_trace = float(xp.sum(self._diag(G)))
        g = X @ c
        G = G - g[:, None] - g[None, :] + xp.sum(c * c)
        self._raw = raw_trace <= RAW_GRAM_MAX_GAIN * float(xp.sum(self._diag(G)))
        if self._raw:
            return G
        X0 = X - c
        return X0 @ X0.T

    def _centred_transpose_times(self, M):
        """``(X - 1 center^T)^T M``: one product with ``X`` when the raw Gram matrix was
        accurate, else by blocks of explicitly centred rows."""
        xp, X, c = self.xp, self.X, self.center
        if self._raw:
            return X.T @ M - c[:, None] * xp.sum(M, axis=0)[None, :]
        n, d = X.shape
        out = xp.zeros((d, M.shape[1]), dtype=self.dtype, device=self.device)
        for rows in _row_blocks(n, d):
            out = out + (X[rows, :] - c).T @ M[rows, :]
        return out

    def mean_sq_distance(self) -> float:
        """Mean squared distance of the rows to their arithmetic mean (the loss's scale)."""
        xp = self.xp
        if self.gram:
            return max(float(xp.sum(self._diag(self.G))), 0.0) / self.n_samples
        n, d = self.X.shape
        total = 0.0
        for rows in _row_blocks(n, d):
            B = self.X[rows, :] - self.center
            total += float(xp.sum(B * B))
        return total / n

    def _top(self, A):
        """Top-k eigenpairs of a symmetric device matrix: (host values, device vectors)."""
        xp = self.xp
        vals, vecs = xp.linalg.eigh((A + A.T) / 2)  # ascending
        m = vals.shape[0]
        order = np.arange(m - 1, m - 1 - min(self.n_components, m), -1)
        vals_h = self._host(vals)[order]
        usable = positive_eigen_mask(vals_h)
        integer = default_integer_dtype(xp, self.device)  # int64, where the device has it
        keep = xp.asarray(order[usable], dtype=integer, device=self.device)
        return vals_h[usable], xp.take(vecs, keep, axis=1)

    # -- the subproblem --------------------------------------------------------------------
    def solve(self, weights: np.ndarray, *, residuals: bool = True) -> ArrayAPIWeightedSubspace:
        """Solve problem (14) of Nie et al. (2014) for the given (host) weights.

        Parameters
        ----------
        weights : ndarray of shape (n_samples,)
            Nonnegative sample weights ``d``, on the host.
        residuals : bool, default=True
            Accepted for the interface of :meth:`robustpca.linalg.WeightedPCAProblem.solve`;
            the residuals are always formed here.

        Returns
        -------
        ArrayAPIWeightedSubspace
        """
        w = np.asarray(weights, dtype=np.float64)
        return self._solve_gram(w) if self.gram else self._solve_scatter(w)

    def _solve_gram(self, w_host: np.ndarray) -> ArrayAPIWeightedSubspace:
        xp, G = self.xp, self.G
        w = self._device(w_host)
        c = w / xp.sum(w)
        Gc = G @ c
        Gcc = G - Gc[:, None] - Gc[None, :] + xp.sum(c * Gc)
        sw = xp.sqrt(w)
        vals, V = self._top(sw[:, None] * Gcc * sw[None, :])
        coef = (sw[:, None] * V) / self._device(np.sqrt(vals))[None, :]
        proj = Gcc @ coef
        sq = xp.clip(self._diag(Gcc), 0.0, None)
        r2 = self._host(sq - xp.sum(proj * proj, axis=1))
        sq_h = self._host(sq)
        shift = self._centred_transpose_times(c[:, None])[:, 0]  # X0^T c = b - center
        mean = self.center + shift

        def basis():
            U = self._centred_transpose_times(coef)
            U = U - shift[:, None] * xp.sum(coef, axis=0)[None, :]
            Q, R = xp.linalg.qr(U)
            return Q * xp.sign(xp.sign(self._diag(R)) + 0.5)[None, :]  # zeros count as +1

        extreme = w_host.max() > EXTREME_WEIGHT_RATIO * np.median(w_host)
        if extreme or np.any(r2 < SUSPICIOUS_RTOL * sq_h):
            r2 = self._explicit_residuals(mean, basis())
        r2 = np.clip(r2, 0.0, sq_h)
        return ArrayAPIWeightedSubspace(self, w_host, mean, basis, vals, sq_h, r2)

    def _solve_scatter(self, w_host: np.ndarray) -> ArrayAPIWeightedSubspace:
        xp, X = self.xp, self.X
        n, d = X.shape
        w = self._device(w_host)
        mean = (w @ X) / xp.sum(w)
        S = xp.zeros((d, d), dtype=self.dtype, device=self.device)
        for rows in _row_blocks(n, d):
            B = X[rows, :] - mean
            S = S + (B * w[rows, None]).T @ B
        vals, U = self._top(S)
        sq = np.empty(n)
        r2 = self._explicit_residuals(mean, U, sq_out=sq)
        return ArrayAPIWeightedSubspace(self, w_host, mean, lambda: U, vals, sq, r2)

    def _explicit_residuals(self, point, U, sq_out: np.ndarray | None = None) -> np.ndarray:
        """``||(I - UU^T)(x_i - point)||^2`` formed explicitly (no cancellation), by blocks."""
        xp, X = self.xp, self.X
        n, d = X.shape
        r2 = np.empty(n)
        for rows in _row_blocks(n, d):
            B = X[rows, :] - point
            if sq_out is not None:
                sq_out[rows] = self._host(xp.sum(B * B, axis=1))
            R = B - (B @ U) @ U.T
            r2[rows] = self._host(xp.sum(R * R, axis=1))
        return r2
