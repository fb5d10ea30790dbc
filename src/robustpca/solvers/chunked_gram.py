r"""The wide-data (Gram) route of the chunked solvers: column passes and the Gram problem.

Wide data (``n_samples < n_features``) take the Gram route, as in memory
(:class:`~robustpca.linalg.WeightedPCAProblem`'s ``'auto'``). Its passes go over blocks
of *whole columns*: a block holds every sample of a few features, so it centres its
columns on their own means and everything it returns is exact for those features. Every
``d``-dimensional quantity of the Gram route lies in ``c0 + row space of X0``
(``X0 = X - 1 c0^T``, ``c0`` the column means): a point is ``c0 + X0^T a`` and a basis
``X0^T M`` for ``n``-dimensional coefficients, so the passes ship only ``a``/``M``.

This module holds:

* the column runner :class:`NumpyColumnRunner` (in memory; :mod:`robustpca._dask`
  provides the dask one): ``run(kernel, cols=None, also=None, **params) -> dict``
  applies a kernel to every block of whole columns and adds the results with
  :func:`~robustpca.solvers.chunked.combine_parts`;
* the block kernels :func:`gram_pass` (column means and the centred ``n x n`` Gram
  matrix) and :func:`column_pass` (products :math:`X_0^\top M`, projections, explicit
  residuals), and :func:`recentred_gram`;
* :class:`GramPasses`, the route's access to ``X`` (the Gram pass once, then passes that
  ship ``n``-sized coefficients), and :class:`GramWeightedPCA`, problem (14) of Nie et
  al. (2014) solved in memory on the Gram matrix, reaching back to the data only for
  explicit residuals and for the final ``d``-dimensional basis and mean
  (:class:`GramSubspace`).

The tall route (row chunks, the ``d x d`` scatter and the reweighting loop in passes) is
in :mod:`robustpca.solvers.chunked`, whose reductions (:class:`~robustpca.solvers.chunked.Rows`,
:func:`~robustpca.solvers.chunked.combine_parts`) and sub-block size this module reuses.
The per-method wide solvers built on it are in :mod:`robustpca.solvers.chunked_gram_pca`.
Nothing here imports dask, validates or warns.

References
----------
F. Nie, J. Yuan and H. Huang, "Optimal Mean Robust Principal Component Analysis",
ICML 2014, problem (14).

Examples
--------
The Gram pass over blocks of 32 columns gives the centred Gram matrix and column means:

>>> import numpy as np
>>> from robustpca.solvers.chunked_gram import GramPasses, NumpyColumnRunner
>>> X = np.random.default_rng(0).normal(size=(6, 100)) + 1e3
>>> passes = GramPasses(NumpyColumnRunner(X, chunk_cols=32))
>>> passes.first_pass()
>>> Xc = X - X.mean(axis=0)
>>> bool(np.allclose(passes.gram, Xc @ Xc.T) and np.allclose(passes.center, X.mean(axis=0)))
True
>>> passes.run.n_passes
1
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np
from scipy import linalg as sla

from ..linalg import (
    SMALL_GRAM,
    WarmStartEigh,
    cholesky_qr,
    complete_orthonormal,
    gram_step,
    positive_eigen_mask,
    single_blas_thread,
)
from .chunked import SUB_BLOCK_VALUES, PassRunner, Rows, combine_parts

__all__ = [
    "GramPasses",
    "GramSubspace",
    "GramWeightedPCA",
    "NumpyColumnRunner",
    "column_pass",
    "gram_pass",
    "recentred_gram",
]


class NumpyColumnRunner:
    """The in-memory runner of the wide route: a pass is a loop over blocks of columns.

    ``run(kernel, cols=None, also=None, **params)`` applies ``kernel(X[:, a:b],
    cols[a:b], **params)`` to every block of ``chunk_cols`` whole columns (``cols``:
    per-feature values, split like the columns) and adds the results; ``also`` is
    returned under the key ``'also'`` (the dask runner computes it in the same call).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    chunk_cols : int
        Columns per block.

    Attributes
    ----------
    n_passes : int
        Passes run so far.
    """

    def __init__(self, X: np.ndarray, chunk_cols: int):
        self.X = X
        d = X.shape[1]
        self.bounds = [(j, min(j + chunk_cols, d)) for j in range(0, d, chunk_cols)]
        self.n_passes = 0

    def __call__(self, kernel: Callable[..., dict], cols=None, *, also=None, **params) -> dict:
        self.n_passes += 1
        parts = [
            kernel(self.X[:, a:b], None if cols is None else cols[a:b], **params)
            for a, b in self.bounds
        ]
        out = combine_parts(*parts)
        if also is not None:
            out["also"] = np.asarray(also)
        return out


def _column_slices(n_rows: int, n_cols: int, minimum: int = 16) -> list[slice]:
    """Column ranges of the sub-blocks of a column block (temporaries of about 8 MB)."""
    size = max(minimum, SUB_BLOCK_VALUES // max(n_rows, 1))
    return [slice(a, min(a + size, n_cols)) for a in range(0, n_cols, size)] or [slice(0, 0)]


def gram_pass(x, cols=None, *, check_finite=False) -> dict:
    """First pass of the wide route: column means and the centred ``n x n`` Gram.

    The block is centred on its own column means (exact: the block has every sample)
    by sub-blocks of about 8 MB, widened to float64, whose products are added by BLAS
    ``syrk`` into the upper triangle only (half the flops; the lower triangle stays 0,
    so partial sums add up, and :meth:`GramPasses.first_pass` mirrors the sum once).

    Parameters
    ----------
    x : ndarray of shape (n_samples, n_cols)
        A block of whole columns of ``X``.
    cols : ndarray or None, default=None
        Per-feature values of the block; not used.
    check_finite : bool, default=False
        Raise ``ValueError`` on a block holding NaN or infinity (validation at no pass
        of its own).
    """
    if check_finite and not np.isfinite(x).all():
        raise ValueError(
            "Input X contains NaN or infinity; robustpca needs finite data here (the wide "
            "route of a dask fit, n_samples < n_features, does not take missing entries: "
            "fit the NumPy array)."
        )
    n, w = x.shape
    mean = x.mean(axis=0, dtype=np.float64)
    G = np.zeros((n, n), order="F")
    syrk = sla.blas.get_blas_funcs("syrk", (G,))
    slices = _column_slices(n, w, minimum=256)
    buffer = np.empty(n * (slices[0].stop - slices[0].start))
    for s in slices:
        B = buffer[: n * (s.stop - s.start)].reshape(n, s.stop - s.start)
        np.subtract(x[:, s], mean[s], out=B)
        G = syrk(1.0, B.T, beta=1.0, c=G, trans=1, lower=0, overwrite_c=1)  # += B B^T
    return {"gram": G, "center": Rows((mean,))}


def column_pass(x, cols=None, *, mode, M=None, point=None, T=None, proj=None) -> dict:
    r"""One block of whole columns, centred on its column means (``B = X0`` restricted).

    Parameters
    ----------
    x : ndarray of shape (n_samples, n_cols)
        A block of whole columns of ``X``.
    cols : ndarray of shape (n_cols, k) or None, default=None
        The block's rows of an explicit ``d x k`` basis :math:`U`; ``None``: :math:`U`
        is :math:`X_0^\top M T` (:math:`X_0^\top M` without ``T``).
    mode : {"products", "project", "residuals"}
        ``'products'``: the block's rows of :math:`X_0^\top M` (concatenated by the
        runner into ``d x m``). The other modes work with the centred samples
        :math:`x_i - b`: ``'project'`` returns :math:`(X - 1b^\top) U` and
        :math:`U^\top U`; ``'residuals'`` the squared norms of
        :math:`(x_i - b) - U\,\mathrm{proj}_i` (formed explicitly, as
        :func:`~robustpca.linalg.subspace_sq_residuals` does) and of :math:`x_i - b`.
    M : ndarray of shape (n_samples, m) or None, default=None
        Coefficients in the row space of :math:`X_0`.
    point : ndarray of shape (n_samples,) or None, default=None
        Coefficient of the centre :math:`b = c_0 + X_0^\top` ``point``; ``None``:
        :math:`b = c_0`.
    T : ndarray of shape (m, k) or None, default=None
        Right factor of the implicit basis :math:`X_0^\top M T`.
    proj : ndarray of shape (n_samples, k) or None, default=None
        The projections :math:`\mathrm{proj}_i` of ``'residuals'``.
    """
    n, w = x.shape
    mean = x.mean(axis=0, dtype=np.float64)
    if mode == "products":
        out = np.empty((w, M.shape[1]))
        for s in _column_slices(n, w):
            out[s] = (x[:, s] - mean[s]).T @ M
        return {"products": Rows((out,))}
    k = cols.shape[1] if cols is not None else (T.shape[1] if T is not None else M.shape[1])
    acc_proj, acc_utu = np.zeros((n, k)), np.zeros((k, k))
    r2, sq = np.zeros(n), np.zeros(n)
    for s in _column_slices(n, w):
        B = x[:, s] - mean[s]
        U = cols[s] if cols is not None else (B.T @ M if T is None else (B.T @ M) @ T)
        if point is not None:
            B -= (B.T @ point)[None, :]
        if mode == "project":
            acc_proj += B @ U
            acc_utu += U.T @ U
        else:
            sq += np.einsum("ij,ij->i", B, B)
            B -= proj @ U.T
            r2 += np.einsum("ij,ij->i", B, B)
    if mode == "project":
        return {"proj": acc_proj, "utu": acc_utu}
    return {"r2": r2, "sq": sq}


def recentred_gram(G: np.ndarray, a: np.ndarray) -> np.ndarray:
    r"""The Gram matrix about :math:`c_0 + X_0^\top a` from the one about :math:`c_0`.

    :math:`(I - 1a^\top) G (I - a1^\top)`, without forming an ``n x n`` centring matrix.

    Parameters
    ----------
    G : ndarray of shape (n_samples, n_samples)
        The Gram matrix about :math:`c_0`, :math:`X_0 X_0^\top`.
    a : ndarray of shape (n_samples,)
        Coefficient of the new centre; ``G`` itself is returned where it is zero.
    """
    if not np.any(a):
        return G
    g = G @ a
    out = G - g[:, None]
    out -= g[None, :]
    out += a @ g
    return out


def _orthonormaliser(utu: np.ndarray) -> np.ndarray:
    """``T`` with ``(VT)^T (VT) = I`` from ``V^T V`` (Cholesky, eigh when singular)."""
    k = utu.shape[0]
    if k == 0:
        return np.eye(0)
    try:
        L = np.linalg.cholesky(0.5 * (utu + utu.T))
        return np.linalg.solve(L, np.eye(k)).T  # U = V L^{-T}, as cholesky_qr
    except np.linalg.LinAlgError:
        vals, vecs = np.linalg.eigh(0.5 * (utu + utu.T))
        keep = positive_eigen_mask(vals)
        return vecs[:, keep] / np.sqrt(vals[keep])[None, :]


class GramPasses:
    """The wide route's access to ``X``: passes over blocks of whole columns.

    :meth:`first_pass` brings back the column means ``center`` (``d``) and the centred
    Gram matrix ``gram`` (``n x n``); afterwards every pass ships ``n``-sized
    coefficients and brings back ``n``-sized results, except :meth:`products`
    (``d x m``, the basis and mean of a solution).

    Parameters
    ----------
    run : callable
        A column runner (:class:`NumpyColumnRunner` or the dask one).
    """

    def __init__(self, run: PassRunner):
        self.run = run
        self.gram: np.ndarray | None = None
        self.center: np.ndarray | None = None

    @property
    def n_samples(self) -> int:
        return cast(np.ndarray, self.gram).shape[0]  # set by the first pass

    @property
    def trace(self) -> float:
        """:math:`\\sum_i \\lVert x_i - c_0\\rVert^2` (the trace of the Gram matrix)."""
        return float(np.trace(cast(np.ndarray, self.gram)))

    def first_pass(self, also=None):
        """The Gram pass (checks that ``X`` is finite); returns ``also``, computed with it.

        Parameters
        ----------
        also : object or None, default=None
            Anything the runner should compute in the same call (the dask runner's
            ``also``), returned as computed.
        """
        out = self.run(gram_pass, check_finite=True, **({} if also is None else {"also": also}))
        upper = out["gram"]
        self.gram = np.ascontiguousarray(upper + np.triu(upper, 1).T)
        self.center = out["center"].values
        return out.get("also")

    def products(self, M: np.ndarray) -> np.ndarray:
        """:math:`X_0^\\top M` (``d x m``), one pass.

        Parameters
        ----------
        M : ndarray of shape (n_samples, m)
            Coefficients in the row space of :math:`X_0`.
        """
        return self.run(column_pass, mode="products", M=M)["products"].values

    def project(self, U: np.ndarray) -> np.ndarray:
        """:math:`X_0 U` for an explicit matrix ``U``, one pass.

        Parameters
        ----------
        U : ndarray of shape (n_features, k)
            The matrix, shipped split like the columns.
        """
        return self.run(column_pass, U, mode="project")["proj"]

    def sq_residuals(self, point, M=None, U=None) -> tuple[np.ndarray, np.ndarray]:
        r"""Explicit squared residuals :math:`\lVert (I - UU^\top)(x_i - b)\rVert^2` and norms.

        Returns them and :math:`\lVert x_i - b\rVert^2`.

        Parameters
        ----------
        point : ndarray of shape (n_samples,) or None
            Coefficient of the centre :math:`b = c_0 + X_0^\top` ``point``; ``None``:
            :math:`b = c_0`.
        M : ndarray of shape (n_samples, k) or None, default=None
            Coefficients: :math:`U` is :math:`X_0^\top M` orthonormalised as by
            ``cholesky_qr`` (its ``k x k`` Gram :math:`M^\top G M` and the projections
            :math:`(I - 1\,\mathrm{point}^\top) G M T` come from the Gram matrix), and
            one pass forms the residual vectors block by block. Used when ``U`` is None.
        U : ndarray of shape (n_features, k) or None, default=None
            An explicit basis, which takes two passes (projections, residuals).
        """
        if U is None:
            GM = self.gram @ M
            T = _orthonormaliser(M.T @ GM)
            proj = GM @ T
            if point is not None:
                proj -= (point @ proj)[None, :]
            out = self.run(column_pass, mode="residuals", M=M, point=point, T=T, proj=proj)
        else:
            proj = self.run(column_pass, U, mode="project", point=point)["proj"]
            out = self.run(column_pass, U, mode="residuals", point=point, proj=proj)
        return out["r2"], out["sq"]


class GramSubspace:
    """A solution of :class:`GramWeightedPCA`: residuals in memory, basis and mean by a pass.

    Mirrors :class:`~robustpca.linalg.WeightedSubspace`; :meth:`basis` and :meth:`mean`
    share one :meth:`GramPasses.products` pass (run on first use, then kept).

    Parameters
    ----------
    problem : GramWeightedPCA
        The problem solved, which maps coefficients to ``X_0``'s row space.
    weights : ndarray of shape (n_samples,)
        The weights :math:`d` of the solve.
    offset_coef : ndarray of shape (n_samples,)
        :math:`c = d / 1^\\top d` (zeros without a mean): gives the mean through
        :meth:`GramWeightedPCA.mean_coef`.
    eigvals : ndarray of shape (r,)
        The usable (positive) top eigenvalues.
    coef : ndarray of shape (n_samples, r)
        :math:`C = D^{1/2} V \\Lambda^{-1/2}`, the basis :math:`X_c^\\top C` for the data
        :math:`X_c` centred on the mean (:meth:`GramWeightedPCA.basis_coef`).
    sq_norms : ndarray of shape (n_samples,)
        :math:`\\lVert x_i - b\\rVert^2`.
    residual_sq : ndarray of shape (n_samples,)
        Squared residual norms :math:`\\lVert (I - UU^\\top)(x_i - b)\\rVert^2`.
    """

    def __init__(self, problem, weights, offset_coef, eigvals, coef, sq_norms, residual_sq):
        self._problem = problem
        self.weights = weights
        self._offset_coef = offset_coef
        self.eigvals = eigvals
        self.coef = coef
        self.sq_norms = sq_norms
        self._residual_sq = residual_sq
        self._dense = None
        self._basis: np.ndarray | None = None
        self.explicit = False  # whether the residuals were formed explicitly (a pass)

    def residuals(self) -> np.ndarray:
        """The residual norms of the solve (no pass)."""
        return np.sqrt(self._residual_sq)

    @property
    def total_scatter(self) -> float:
        """``sum_i d_i ||x_i - b||^2``, the trace of the weighted scatter about the mean."""
        return float(self.weights @ self.sq_norms)

    def _materialise(self):
        if self._dense is None:
            p = self._problem
            M = np.column_stack(
                [p.basis_coef(self._offset_coef, self.coef), p.mean_coef(self._offset_coef)]
            )
            P = p.passes.products(M)
            self._dense = cholesky_qr(P[:, :-1]), p.passes.center + P[:, -1]
        return self._dense

    def explicit_residuals(self) -> np.ndarray:
        """The residual norms formed explicitly: those of the solve if they were, else
        one :meth:`GramPasses.sq_residuals` pass (with the unpadded basis)."""
        if self.explicit:
            return self.residuals()
        p = self._problem
        M = p.basis_coef(self._offset_coef, self.coef)
        return np.sqrt(np.clip(p.passes.sq_residuals(self.mean_coef, M=M)[0], 0.0, None))

    @property
    def mean_coef(self) -> np.ndarray:
        """``a`` with ``mean() = center + X0^T a``."""
        return self._problem.mean_coef(self._offset_coef)

    def mean(self) -> np.ndarray:
        """The mean :math:`b` (``d``), by the pass shared with :meth:`basis`."""
        return self._materialise()[1].copy()

    def basis(self) -> np.ndarray:
        """The completed basis, its extra columns drawn once (as in memory)."""
        if self._basis is None:
            p = self._problem
            self._basis = complete_orthonormal(self._materialise()[0], p.n_components, p.rng)
        return self._basis.copy()

    def completed_residuals(self) -> np.ndarray | None:
        """As :meth:`WeightedSubspace.completed_residuals
        <robustpca.linalg.WeightedSubspace.completed_residuals>`: the residual norms to
        the completed basis (one pass), or None when nothing was completed."""
        if self.coef.shape[1] >= self._problem.n_components:
            return None
        return self._problem.final_residuals(self, self.basis())


class GramWeightedPCA:
    r"""The Gram route of :class:`~robustpca.linalg.WeightedPCAProblem` on a pass's Gram.

    Problem (14) of Nie et al. (2014) for weights :math:`d`, solved in memory on the
    ``n x n`` matrix: with :math:`c = d / 1^\top d`, the eigenvectors :math:`V` of
    :math:`D^{1/2} G_c D^{1/2}` give :math:`U = X_c^\top D^{1/2} V \Lambda^{-1/2}` and
    the residuals come from :math:`G_c`. The same arithmetic as ``_solve_gram``, step
    for step (warm-started eigensolver, single BLAS thread for small ``n``), including
    its safeguard: in an iteration with an extreme weight or a residual below
    ``SUSPICIOUS_RTOL`` of its norm the residuals are formed explicitly, here by one
    pass (:meth:`GramPasses.sq_residuals`).

    Parameters
    ----------
    passes : GramPasses
        The column passes, their first pass already run.
    n_components : int
        Subspace dimension ``k``.
    rng : numpy.random.Generator
        Used only to complete a rank-deficient basis.
    center : bool, default=True
        Whether the weighted mean is estimated; ``False`` keeps the reference point as
        the fixed centre.
    reference : ndarray of shape (n_samples,) or None, default=None
        The coefficient :math:`a_0` of the point the data are centred on,
        :math:`c_0 + X_0^\top a_0` (the ``reference_weights`` or ``offset`` of
        ``WeightedPCAProblem``); ``None``: zeros, the column means.
    """

    gram = True  # as WeightedPCAProblem.gram: the loop's residuals are differences of squares

    def __init__(self, passes: GramPasses, n_components, rng, *, center=True, reference=None):
        n = passes.n_samples
        self.passes = passes
        self.n_components = n_components
        self.rng = rng
        self.with_mean = center
        self.reference = np.zeros(n) if reference is None else np.asarray(reference, float)
        self.G = recentred_gram(cast(np.ndarray, passes.gram), self.reference)
        self._Gcc = np.empty_like(self.G)
        self._K = np.empty_like(self.G)
        self._eigh = WarmStartEigh(n_components)

    @property
    def n_samples(self) -> int:
        return self.G.shape[0]

    def mean_sq_distance(self) -> float:
        """:meth:`~robustpca.linalg.WeightedPCAProblem.mean_sq_distance`: the trace of
        the centred Gram matrix over the rows (no pass).

        Returns
        -------
        float
        """
        return max(float(self.passes.trace), 0.0) / self.n_samples

    def mean_coef(self, c: np.ndarray) -> np.ndarray:
        """Coefficient of the mean :math:`b` of a solution.

        Parameters
        ----------
        c : ndarray of shape (n_samples,)
            The solution's offset coefficient (:class:`GramSubspace`'s ``offset_coef``).
        """
        return c if self.with_mean else self.reference

    def basis_coef(self, c: np.ndarray, coef: np.ndarray) -> np.ndarray:
        r""":math:`M` with :math:`X_0^\top M = X_r^\top (C - c\,1^\top C)`.

        :math:`X_r = X - 1 b_r^\top` is ``X`` centred on the reference point.

        Parameters
        ----------
        c : ndarray of shape (n_samples,)
            The solution's offset coefficient.
        coef : ndarray of shape (n_samples, r)
            The solution's basis coefficients :math:`C`.
        """
        N = coef - np.outer(c, coef.sum(axis=0))
        return N - np.outer(self.reference, N.sum(axis=0))

    def final_residuals(self, sub: GramSubspace, basis: np.ndarray) -> np.ndarray:
        """Residual norms of the returned fit, formed explicitly (RWL-AN's last step).

        Parameters
        ----------
        sub : GramSubspace
            The returned solution: its solve's residuals if it formed them, else one pass.
        basis : ndarray of shape (n_features, n_components)
            Its completed basis; where it was completed (fewer usable directions than
            ``n_components``) the pass ships it.
        """
        if sub.coef.shape[1] < self.n_components:
            return np.sqrt(np.clip(self.passes.sq_residuals(sub.mean_coef, U=basis)[0], 0.0, None))
        return sub.explicit_residuals()

    def solve(self, weights: np.ndarray, *, residuals: bool = True) -> GramSubspace:
        """Solve problem (14) of Nie et al. (2014) for the given weights.

        Parameters
        ----------
        weights : ndarray of shape (n_samples,)
            Non-negative sample weights :math:`d`.
        residuals : bool, default=True
            Not used: the interface of :meth:`~robustpca.linalg.WeightedPCAProblem.solve`;
            the Gram route has the residuals at no pass either way.
        """
        with single_blas_thread(self.n_samples <= SMALL_GRAM):
            return self._solve(weights)

    def _solve(self, w: np.ndarray) -> GramSubspace:
        step = gram_step(self.G, w, self._eigh, self.with_mean, self._Gcc, self._K)
        c, vals, coef, sq, r2 = step.c, step.eigvals, step.coef, step.sq, step.r2
        explicit = step.suspicious
        if explicit:
            r2, _ = self.passes.sq_residuals(self.mean_coef(c), M=self.basis_coef(c, coef))
        r2 = np.clip(r2, 0.0, sq)
        sub = GramSubspace(self, w, c, vals, coef, sq, r2)
        sub.explicit = explicit
        return sub
