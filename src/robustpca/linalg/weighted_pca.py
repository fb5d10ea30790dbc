r"""The weighted-PCA subproblem (:class:`WeightedPCAProblem`) and its solution.

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
* **Scatter route** (``n_samples >= n_features``): the ``d x d`` weighted scatter about
  the new weighted mean and its top eigenvectors. One pass over the data forms it (BLAS
  ``syrk``) about the previous mean together with the shift to the new one (an exact
  rank-one correction, small because the means move little); a second pass forms the
  residuals :math:`\lVert (I - UU^\top)(x_i - b)\rVert` explicitly.

In both routes the data are centred by their arithmetic mean (a translation that
leaves every solution unchanged but keeps the Gram matrix well conditioned). The data are
never copied: every pass over them visits blocks of rows (or columns) of about
:data:`BLOCK_BYTES`, widened to float64 in a reused buffer, so float32 input keeps its
footprint and every reduction is accumulated in float64, and no ``n x d`` temporary is
allocated per iteration.

The eigenproblems of successive iterations change little; from ``n = WARM_START_MIN``
on, :class:`WarmStartEigh` reuses the previous Ritz vectors (block-Krylov Rayleigh-Ritz
steps, checked against the eigen-residual, LAPACK as the fallback); below that LAPACK's
``syevr`` is faster (measurements at :data:`WARM_START_MIN`).
"""

from __future__ import annotations

import numpy as np

from . import blocked
from .blocked import (
    Projector,
    _blocked_centred_gram,
    _centred_cols,
    _centred_rows,
    _col_slices,
    _dense_float64,
    _row_slices,
    _symmetric_from_upper,
    _syrk_upper,
    _Workspace,
    add_weighted_rows,
    gram_step,
    raw_centred_gram,
    row_sq_distances,
    subspace_sq_residuals,
    sum_weighted_rows,
    weighted_row_sum,
)
from .eigen import (
    WarmStartEigh,
    cholesky_qr,
    complete_orthonormal,
    positive_eigen_mask,
    single_blas_thread,
)

__all__ = ["WeightedPCAProblem", "WeightedSubspace"]

#: Gram-route iterations on at most this many samples run on one BLAS thread: on small
#: matrices thread start-up costs more than it saves (docs/design-notes/linear-algebra.md).
SMALL_GRAM = 1000


class WeightedSubspace:
    """A solution of the weighted-PCA subproblem, in whichever route produced it.

    Residuals of the training samples are available cheaply; the (d, k) basis and
    the mean are formed only on request. Built by :meth:`WeightedPCAProblem.solve`.

    Parameters
    ----------
    problem : WeightedPCAProblem
        The problem solved; forms the mean, basis and completed residuals on request.
    weights : ndarray of shape (n_samples,)
        The sample weights ``d`` of the solve.
    offset_coef : ndarray
        Gram route: ``c = d / sum(d)`` of shape (n_samples,); scatter route: the mean
        less the problem's ``center``, of shape (n_features,).
    eigvals : ndarray of shape (r,)
        The positive eigenvalues of the weighted scatter kept, decreasing.
    coef : ndarray
        Gram route: ``D^{1/2} V Lambda^{-1/2}`` of shape (n_samples, r); scatter route:
        the basis ``U`` of shape (n_features, r).
    sq_norms : ndarray of shape (n_samples,) or None
        ``||x_i - b||^2`` (None on the scatter route with ``residuals=False``).
    residual_sq : ndarray of shape (n_samples,) or None
        ``||(I - UU^T)(x_i - b)||^2``, or None where the residuals were not formed.
    total : float or None, default=None
        ``sum_i d_i ||x_i - b||^2``; None computes it from ``weights`` and ``sq_norms``.
    """

    def __init__(
        self, problem, weights, offset_coef, eigvals, coef, sq_norms, residual_sq, total=None
    ):
        self._problem = problem
        self.weights = weights
        #: sum_i d_i ||x_i - b||^2, the trace of the weighted scatter about the mean
        self.total_scatter = float(weights @ sq_norms) if total is None else total
        self._offset_coef = offset_coef  # c = d / sum(d) (Gram) or mean - center (scatter)
        self.eigvals = eigvals
        self._coef = coef  # Gram: D^{1/2} V Lambda^{-1/2}; scatter: U
        self.sq_norms = sq_norms  # ||x_i - b||^2
        self._residual_sq = residual_sq
        self._basis: np.ndarray | None = None

    def residuals(self) -> np.ndarray:
        """Residual norms ``||(I - UU^T)(x_i - b)||`` of the training samples, for the
        directions with variance (:meth:`completed_residuals` for the returned basis)."""
        if self._residual_sq is None:
            raise ValueError("this subspace was solved with residuals=False")
        return np.sqrt(self._residual_sq)

    def completed_residuals(self) -> np.ndarray | None:
        """Residual norms to the completed :meth:`basis` through :meth:`mean`, by one
        more pass, where the weighted data span fewer than
        ``n_components`` directions; None otherwise (:meth:`residuals` are theirs). The
        loop keeps the residuals of the directions with variance, so that its path does
        not depend on the arbitrary extra columns (nor differ from the dask route's)."""
        p = self._problem
        if self.eigvals.size >= p.n_components:
            return None
        return np.sqrt(np.clip(p._exact_residuals(self.mean(), self.basis()), 0.0, None))

    def mean(self) -> np.ndarray:
        """The weighted mean ``b`` in the original coordinates (float64)."""
        return self._problem._mean(self._offset_coef)

    def basis(self) -> np.ndarray:
        """The (n_features, n_components) orthonormal basis ``U`` (float64; its extra
        columns, where the weighted data span fewer directions, drawn once)."""
        if self._basis is None:
            p = self._problem
            U = p._gram_basis(self._offset_coef, self._coef) if p.gram else self._coef
            self._basis = complete_orthonormal(U, p.n_components, p.rng)
        return self._basis.copy()


class WeightedPCAProblem:
    r"""Weighted mean and top-``k`` weighted principal subspace of fixed data ``X``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64 or float32
        Data (neither modified nor copied: every pass widens blocks of rows or columns
        to float64, so float32 data keep their memory footprint and every reduction is
        accumulated in float64).
    n_components : int
        Subspace dimension ``k``.
    rng : numpy.random.Generator
        Used only to complete a rank-deficient basis.
    center : bool, default=True
        Whether the weighted mean is estimated. With ``False`` the subspace passes
        through ``offset`` (the origin by default) and :meth:`solve` returns ``b =
        offset``.
    route : {'auto', 'gram', 'scatter'}, default='auto'
        ``'auto'`` takes the Gram route when ``n_samples < n_features``.
    reference_weights : ndarray, optional
        Weights of the point about which the data are centred (for accuracy only;
        the solution does not depend on it). Uniform by default.
    offset : ndarray of shape (n_features,), optional
        With ``center=False``: the fixed point the subspace passes through (``X - offset``
        is never formed).

    Notes
    -----
    Scatter route, per :meth:`solve`: one blocked pass forms the weighted scatter about
    the previous weighted mean together with the weighted sum that moves it to the new
    mean (:math:`S_b = S_a - s\,\delta\delta^\top` exactly, with a small shift
    :math:`\delta`), one ``d x d`` eigenproblem, and one blocked pass for the residuals
    :math:`\lVert (I - UU^\top)(x_i - b)\rVert^2`. Blocks hold :data:`BLOCK_BYTES`, so no
    ``n x d`` temporary is allocated.
    """

    def __init__(
        self,
        X,
        n_components,
        rng,
        *,
        center=True,
        route="auto",
        reference_weights=None,
        offset=None,
    ):
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        n, d = X.shape
        self.X = X
        self.n_components = n_components
        self.rng = rng
        self.with_mean = center
        self._work = _Workspace()
        self._eigh = WarmStartEigh(n_components)
        self.gram = (n < d) if route == "auto" else (route == "gram")
        if not center:
            self.center = np.zeros(d) if offset is None else np.asarray(offset, dtype=np.float64)
        elif reference_weights is None:
            self.center = X.mean(axis=0, dtype=np.float64)
        else:
            w = np.asarray(reference_weights, dtype=np.float64)
            if not self.gram and X.dtype == np.float64:  # the scatter route's BLAS
                self.center = sum_weighted_rows(X, w) / w.sum()
            else:  # the Gram route's products are NumPy's (raw_centred_gram)
                self.center = weighted_row_sum(X, w, work=self._work) / w.sum()
        self._center_is_mean = center and reference_weights is None
        self._mean_sq: float | None = None  # mean_sq_distance, once computed
        # Gram route on dense float64 data: one syrk on the raw data, centred afterwards,
        # and the basis and mean by one product with X each (no centred copies) when
        # that is accurate (raw_centred_gram)
        self._raw_products = False
        if self.gram:
            G = raw_centred_gram(X, self.center) if _dense_float64(X) else None
            self._raw_products = G is not None
            self.G = G if G is not None else _blocked_centred_gram(X, self.center, self._work)
            self._Gcc = np.empty_like(self.G)
            self._K = np.empty_like(self.G)
        else:
            self._shift = np.zeros(d)  # previous weighted mean - center

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    def mean_sq_distance(self) -> float:
        """Mean squared distance of the rows to their arithmetic mean.

        Free on the Gram route (the trace of the centred Gram matrix, when the data are
        centred by their arithmetic mean), else one pass over the data, once. The scale
        from which the losses' default epsilon and the exact-fit test are set.
        """
        if self._mean_sq is None:
            if self.gram and self._center_is_mean:
                self._mean_sq = max(float(np.trace(self.G)), 0.0) / self.n_samples
            else:
                mean = self.center if self._center_is_mean else self.X.mean(axis=0, dtype=float)
                total = float(row_sq_distances(self.X, mean, self._work).sum())
                self._mean_sq = total / self.n_samples
        return self._mean_sq

    def solve(self, weights: np.ndarray, *, residuals: bool = True) -> WeightedSubspace:
        """Solve problem (14) of Nie et al. (2014) for the given weights.

        Parameters
        ----------
        weights : ndarray of shape (n_samples,)
            Nonnegative sample weights ``d``.
        residuals : bool, default=True
            Whether to form the residuals of the training samples. ``False``, for callers
            that need only the basis, the mean and the eigenvalues, skips every pass over
            the data for them (the scatter route's second pass; the Gram route's explicit
            residuals in a degenerate iteration, see :func:`gram_step`), and
            :meth:`WeightedSubspace.residuals` then raises.

        Returns
        -------
        WeightedSubspace
        """
        if not self.gram:
            return self._solve_scatter(weights, residuals)
        with single_blas_thread(self.n_samples <= SMALL_GRAM):
            return self._solve_gram(weights, residuals)

    # -- Gram route ---------------------------------------------------------------------
    def _mean(self, offset_coef: np.ndarray) -> np.ndarray:
        if not self.gram:
            return self.center + offset_coef
        if not self.with_mean:
            return self.center.copy()
        if self._raw_products:
            return self.center + (self.X.T @ offset_coef - self.center * offset_coef.sum())
        return self.center + weighted_row_sum(self.X, offset_coef, self.center, self._work)

    def _gram_basis(self, offset_coef: np.ndarray, coef: np.ndarray) -> np.ndarray:
        """``(X0 - 1 m^T)^T coef`` with ``X0 = X - center``, by blocks of columns."""
        X, (n, d) = self.X, self.X.shape
        colsum = coef.sum(axis=0)
        shift = self.with_mean and np.any(offset_coef)
        if self._raw_products:
            # X0^T coef = X^T coef - center (1^T coef); colsum is ~0 here (the weighted
            # centring puts sqrt(w) in the null space of K), so nothing large cancels
            k = coef.shape[1]
            P = X.T @ (np.column_stack([coef, offset_coef]) if shift else coef)
            U = P[:, :k] - np.outer(self.center, colsum)
            if shift:
                U -= np.outer(P[:, k] - self.center * offset_coef.sum(), colsum)
            return cholesky_qr(U)
        U = np.empty((d, coef.shape[1]))
        for cols in _col_slices(n, d):
            B = _centred_cols(X, cols, self.center, self._work)
            U[cols] = B.T @ coef
            if shift:
                U[cols] -= np.outer(B.T @ offset_coef, colsum)
        return cholesky_qr(U)

    def _solve_gram(self, w: np.ndarray, residuals: bool = True) -> WeightedSubspace:
        step = gram_step(self.G, w, self._eigh, self.with_mean, self._Gcc, self._K)
        r2 = None
        if residuals:
            r2 = step.r2
            if step.suspicious:
                U = self._gram_basis(step.c, step.coef)
                r2 = self._exact_residuals(self._mean(step.c), U)
            r2 = np.clip(r2, 0.0, step.sq)
        return WeightedSubspace(self, w, step.c, step.eigvals, step.coef, step.sq, r2)

    def _exact_residuals(self, point: np.ndarray, U: np.ndarray) -> np.ndarray:
        """``||(I - UU^T)(x_i - point)||^2`` formed explicitly, by blocks of rows."""
        return subspace_sq_residuals(self.X, point, U, self._work)

    # -- scatter route ------------------------------------------------------------------
    def _solve_scatter(self, w: np.ndarray, residuals: bool = True) -> WeightedSubspace:
        X = self.X
        n, d = X.shape
        s = float(w.sum())
        point = self.center + self._shift
        # one pass: the weighted scatter about the previous mean and the weighted sum of
        # deviations from it (so the scatter about the new mean is an exact rank-one
        # update with a small shift, and nothing cancels)
        S = np.zeros((d, d), order="F")
        t = np.zeros(d)
        # equal weights (PCA, a first iteration) scale the scatter once, not every row
        common = float(w[0]) if n and np.all(w == w[0]) else None
        sw = np.sqrt(w) if common is None else None
        for rows in _row_slices(n, d, blocked.MIN_BLOCK):
            if not np.any(w[rows]):
                continue
            B = _centred_rows(X, rows, point, self._work)
            if self.with_mean:
                t = add_weighted_rows(t, w[rows], B)  # SciPy's BLAS: see linalg.blocked
            if sw is not None:
                B *= sw[rows, None]
            S = _syrk_upper(S, B.T, trans=0)  # += B^T B
        S = _symmetric_from_upper(S)
        if common is not None and common != 1.0:
            S *= common
        if self.with_mean:
            delta = t / s
            S -= s * np.outer(delta, delta)
            self._shift = self._shift + delta
        vals, vecs = self._eigh(S)
        usable = positive_eigen_mask(vals)
        U = np.ascontiguousarray(vecs[:, usable])
        sq = r2 = None
        if residuals:
            sq, r2 = self._scatter_residuals(self.center + self._shift, U)
        total = float(np.trace(S))
        return WeightedSubspace(self, w, self._shift.copy(), vals[usable], U, sq, r2, total)

    def _scatter_residuals(self, point: np.ndarray, U: np.ndarray):
        """``||x_i - b||^2`` and ``||(I - UU^T)(x_i - b)||^2``, by blocks of rows.

        The residual is formed explicitly (``O(n d k)``, no cancellation): at tight
        tolerances the rounding of the difference of squares would decide the stop.
        """
        X, (n, d) = self.X, self.X.shape
        sq, r2 = np.empty(n), np.empty(n)
        projector = Projector(U)
        for rows in _row_slices(n, d):
            B = _centred_rows(X, rows, point, self._work)
            sq[rows] = np.einsum("ij,ij->i", B, B)
            projector.project_out(B)  # SciPy's BLAS, as the scatter: see linalg.blocked
            r2[rows] = np.einsum("ij,ij->i", B, B)
        return sq, r2
