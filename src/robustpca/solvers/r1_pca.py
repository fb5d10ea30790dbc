r"""R1-PCA of Ding, Zhou, He & Zha (2006): rotational invariant robust PCA by IRLS.

On data centred by their arithmetic mean, R1-PCA minimises

.. math::
    \min_{U^\top U = I} \sum_{i=1}^n \rho(r_i), \qquad
    r_i = \lVert x_i - UU^\top x_i \rVert_2 ,

with :math:`\rho` Huber's loss whose cutoff is the median residual (Ding et al. 2006),
or Cauchy's loss. The loop is :func:`~robustpca.solvers.minimize_reweighted`
with the loss objects of :mod:`robustpca.losses`; its weighted step is *one* step of
subspace iteration, as in Ding's algorithm:

.. math::
    U \leftarrow \operatorname{orth}(C_w U), \qquad C_w = \sum_i w_i x_i x_i^\top ,

starting from the PCA subspace, with ``orth`` the Q factor of a QR decomposition whose R
has a positive diagonal. It is not the exact minimiser of the weighted problem (that
would be the top eigenvectors of :math:`C_w`), so each iteration is cheap and the
subspace moves gradually, as in the paper. Because the Huber cutoff follows the median
residual, the objective changes with the iterations and need not decrease monotonically;
the loop stops when its relative change is at most ``tol``.

Two routes give the same iterates:

* **scatter route** (``n_samples >= n_features``): :math:`C_w U = X^\top (w \odot XU)`,
  two ``n x d x k`` products; the ``d x d`` matrix :math:`C_w` itself is never formed,
  because applying it to ``U`` through ``X`` is cheaper (``O(ndk)`` instead of
  ``O(nd^2)``).
* **Gram route** (``n_samples < n_features``): with :math:`G = XX^\top` formed once and
  :math:`U = X^\top C` for an ``n x k`` matrix ``C``, :math:`C_w U = X^\top (w \odot GC)`;
  orthonormalising uses the Cholesky factor :math:`L` of the ``k x k`` matrix
  :math:`C'^\top G C'` (:math:`L^\top` is the R of the QR of :math:`X^\top C'`), and
  :math:`r_i^2 = G_{ii} - \lVert (GC)_i \rVert^2`. Nothing of size ``d x d`` is formed and
  the ``d x k`` basis is built once at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import cast

import numpy as np
from scipy import linalg as sla

from ..linalg import complete_orthonormal, positive_eigen_mask, top_eigh
from ..linalg.blocked import blas_matmul
from ..losses import RobustLoss
from ._result import IterationState, SolverResult
from .informative_coordinates import constant_columns, informative_counts, informative_rows
from .missing import complete, initial_fill, pca_basis
from .reweighting import ReweightingResult, minimize_reweighted

__all__ = ["solve_r1_pca", "solve_r1_pca_missing"]

#: A squared residual ``|x|^2 - |U^T x|^2`` within this many ``eps |x|^2`` (times the
#: length of the products behind it, plus ``k``) is rounding, and is set to 0. The
#: residuals of a subspace holding every direction of the data (``k`` at the rank) came
#: out ``1e-8 |x|`` of noise (``r^2`` up to 29 ``eps |x|^2`` on the Gram route, octane at
#: ``k = 39``): the median cutoff and Huber's weights ``c / r`` were then ratios of
#: rounding errors, and the basis (so the scores and flags) changed with the order of the
#: columns (3 of starsCYG's 47 flags at ``k = 2``, 3 of bushfire's 38 at ``k = 5``). At 0
#: every weight is Huber's 1/2 and the iteration stays at PCA's eigenvectors.
_CANCELLATION = 16.0 * float(np.finfo(np.float64).eps)


def _residual_norms(sq_norms: np.ndarray, proj: np.ndarray, length: int) -> np.ndarray:
    """``sqrt(|x|^2 - |U^T x|^2)`` per row, 0 where it is below the cancellation's
    rounding (:data:`_CANCELLATION`); ``length`` is that of the products behind
    ``proj``: ``n_features`` on the scatter route, ``n_samples`` on the Gram route."""
    r2 = sq_norms - np.einsum("ij,ij->i", proj, proj)
    r2[r2 <= _CANCELLATION * (length + proj.shape[1]) * sq_norms] = 0.0
    return np.sqrt(r2)


def _orth_qr(A: np.ndarray) -> np.ndarray:
    """Q factor of ``A`` with the signs chosen so that R has a non-negative diagonal."""
    Q, R = np.linalg.qr(A)
    signs = np.sign(np.diag(R))
    signs[signs == 0] = 1.0
    return Q * signs[None, :]


class _ScatterIterate:
    """``U`` (d x k) and the projections ``XU`` of the centred data."""

    def __init__(self, X0: np.ndarray, U: np.ndarray, sq_norms: np.ndarray):
        self.X0, self.U, self.sq_norms = X0, U, sq_norms
        self.proj = X0 @ U

    def step(self, w: np.ndarray) -> _ScatterIterate:
        if self.U.shape[1] == 0:  # the centred data are zero
            return self
        U = _orth_qr(self.X0.T @ (w[:, None] * self.proj))  # orth(C_w U)
        return _ScatterIterate(self.X0, U, self.sq_norms)

    def residuals(self) -> np.ndarray:
        return _residual_norms(self.sq_norms, self.proj, self.X0.shape[1])

    def basis(self) -> np.ndarray:
        return self.U


class _GramIterate:
    """``U = X^T C`` through ``C`` (n x k) and the projections ``XU = GC``."""

    def __init__(self, X0: np.ndarray | None, G: np.ndarray, C: np.ndarray, proj: np.ndarray):
        self.X0, self.G, self.C, self.proj = X0, G, C, proj

    def step(self, w: np.ndarray) -> _GramIterate:
        if self.C.shape[1] == 0:  # the centred data are zero
            return self
        Cn = w[:, None] * self.proj  # C_w U = X^T (w * GC)
        # C and proj below do not depend on the scale of Cn, but M grows as the fourth
        # power of the data's: divided by this, it neither overflows nor underflows
        unit = float(np.max(np.abs(Cn))) * np.sqrt(float(np.max(np.diag(self.G))))
        if unit > 0 and np.isfinite(unit):
            Cn = Cn / unit
        # SciPy's BLAS, like the Cholesky and triangular solves (linalg.blocked)
        GCn = blas_matmul(self.G, Cn)
        M = blas_matmul(np.ascontiguousarray(Cn.T), GCn)
        try:
            L = sla.cholesky(0.5 * (M + M.T), lower=True, check_finite=False)
            C = sla.solve_triangular(L, Cn.T, lower=True, check_finite=False).T
            proj = sla.solve_triangular(L, GCn.T, lower=True, check_finite=False).T
        except np.linalg.LinAlgError:  # numerically rank deficient: orthonormalise by eigh
            vals, vecs = np.linalg.eigh(0.5 * (M + M.T))
            keep = positive_eigen_mask(vals)
            T = vecs[:, keep] / np.sqrt(vals[keep])[None, :]
            C, proj = Cn @ T, GCn @ T
        return _GramIterate(self.X0, self.G, C, proj)

    def residuals(self) -> np.ndarray:
        return _residual_norms(np.diag(self.G), self.proj, self.G.shape[0])

    def basis(self) -> np.ndarray:
        # in memory only: the chunked Gram route (X0 None) forms U = X^T C by a pass
        X0 = cast(np.ndarray, self.X0)
        return _orth_qr(X0.T @ self.C)  # removes rounding only


def _minimize_r1(
    start,
    loss: RobustLoss,
    *,
    max_iter: int,
    tol: float,
    callback: Callable[[int, IterationState], bool | None] | None,
    state_view: Callable,
) -> ReweightingResult:
    """Ding's re-weighted subspace iteration from the PCA iterate ``start``.

    An iterate has ``step(w)`` (one step of subspace iteration with weights ``w``) and
    ``residuals()``; each weighted solve steps from the previous iterate. The first
    weights re-weight the residuals of ``start`` (Ding's first step), which is not itself
    an iteration.
    """
    current = start
    r0 = current.residuals()

    def solve_weighted(w: np.ndarray):
        nonlocal current
        current = current.step(w)
        return current

    return minimize_reweighted(
        solve_weighted,
        lambda it: it.residuals(),
        loss,
        loss.resolve(r0).weights(r0),
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        state_view=state_view,
    )


def _r1_result(
    res: ReweightingResult, loss: RobustLoss, *, components: np.ndarray, mean: np.ndarray
) -> SolverResult:
    """R1-PCA's result: the loss weights, training ``residuals`` and ``threshold`` at the end."""
    resolved = loss.resolve(res.residuals)
    info = {"residuals": res.residuals, "threshold": getattr(resolved, "threshold", None)}
    return SolverResult.from_loop(
        res, components=components, mean=mean, weights=res.weights, info=info
    )


def _pca_start(X0: np.ndarray, n_components: int, gram: bool):
    """The PCA subspace, restricted to directions of non-zero variance."""
    if gram:
        G = X0 @ X0.T
        G = 0.5 * (G + G.T)
        vals, vecs = top_eigh(G, n_components)
        keep = positive_eigen_mask(vals)
        vals, vecs = vals[keep], vecs[:, keep]
        return _GramIterate(X0, G, vecs / np.sqrt(vals)[None, :], vecs * np.sqrt(vals)[None, :])
    S = X0.T @ X0
    vals, vecs = top_eigh(0.5 * (S + S.T), n_components)
    keep = positive_eigen_mask(vals)
    return _ScatterIterate(X0, vecs[:, keep], np.einsum("ij,ij->i", X0, X0))


def solve_r1_pca(
    X: np.ndarray,
    n_components: int,
    loss: RobustLoss,
    *,
    rng: np.random.Generator,
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    route: str = "auto",
) -> SolverResult:
    """Fit R1-PCA (Ding et al. 2006) by re-weighted subspace iteration.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data (not modified); centred here by the arithmetic mean.
    n_components : int
        Subspace dimension ``k``.
    loss : RobustLoss
        :class:`~robustpca.losses.HuberLoss` with ``threshold=None`` is R1-PCA as
        published; :class:`~robustpca.losses.CauchyLoss` is offered as an alternative.
        Its ``weights`` give :math:`w_i`.
    rng : numpy.random.Generator
        Only used to complete the basis when the data have fewer than ``k`` directions
        of variance.
    max_iter, tol, callback
        See :func:`~robustpca.solvers.minimize_reweighted`.
    route : {'auto', 'gram', 'scatter'}
        ``'auto'`` takes the Gram route when ``n_samples < n_features``.

    Returns
    -------
    SolverResult
        ``weights`` are the loss weights at the returned subspace; ``info`` holds the
        training ``residuals`` and the loss ``threshold`` (cutoff) at the solution.
        ``objective[0]`` is the value after the first re-weighted step: its weights come
        from the residuals of the PCA subspace, which is not itself an iteration.
    """
    if route not in ("auto", "gram", "scatter"):
        raise ValueError(f"route must be 'auto', 'gram' or 'scatter', got {route!r}.")
    n_samples, n_features = X.shape
    gram = n_samples < n_features if route == "auto" else route == "gram"
    mean = X.mean(axis=0, dtype=np.float64)
    X0 = X - mean
    res = _minimize_r1(
        _pca_start(X0, n_components, gram),
        loss,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        state_view=lambda it: (lambda: it.basis().T, lambda: mean),
    )
    U = complete_orthonormal(res.solution.basis(), n_components, rng)
    return _r1_result(res, loss, components=U.T, mean=mean)


class _MissingIterate:
    """R1-PCA's subspace-iteration step on data completed by the current fit."""

    def __init__(
        self,
        filled: np.ndarray,
        missing: np.ndarray,
        U: np.ndarray,
        n_informative: np.ndarray | None = None,
    ):
        self.filled, self.missing, self.U = filled, missing, U
        self.n_informative = n_informative  # constant columns do not count
        self.mean = filled.mean(axis=0)

    def step(self, w: np.ndarray) -> _MissingIterate:
        """Ding's step on the current completion (:meth:`residuals` moves it), re-centred."""
        X0 = self.filled - self.filled.mean(axis=0)
        U = _orth_qr(X0.T @ (w[:, None] * (X0 @ self.U)))
        return _MissingIterate(self.filled, self.missing, U, self.n_informative)

    def residuals(self) -> np.ndarray:
        """Observed residual norms (0 on the rows fitted exactly); completes the data from
        this iterate."""
        self.filled, r = complete(
            self.filled, self.missing, self.mean, self.U.T, self.n_informative
        )
        return r


def solve_r1_pca_missing(
    X: np.ndarray,
    missing: np.ndarray,
    n_components: int,
    loss: RobustLoss,
    *,
    rng: np.random.Generator,
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
) -> SolverResult:
    """R1-PCA on the observed entries (:mod:`robustpca.solvers.missing`).

    Each iteration re-centres the current completion by its arithmetic mean, takes
    Ding's step :math:`U \\leftarrow \\operatorname{orth}(C_w U)` on it, and completes
    the data from the new subspace; the weights come from the observed residual norms.
    Starts from the PCA subspace of the median-completed data. The scatter route only
    (the completion changes every iteration, so a Gram matrix would be re-formed). Rows
    with at most ``k`` informative entries take no part
    (:func:`~robustpca.solvers.informative_coordinates.informative_rows`): their
    residuals are 0, their weights the loss's at 0.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data; the values at ``missing`` are ignored (may be NaN).
    missing : ndarray of bool of shape (n_samples, n_features)
        True at the missing entries.
    n_components : int
        Subspace dimension ``k``.
    loss : RobustLoss
        As in :func:`solve_r1_pca`; its ``weights`` at the observed residual norms give
        :math:`w_i`.
    rng : numpy.random.Generator
        Completes the basis where the data have fewer than ``k`` directions of variance.
    max_iter : int, default=100
        Maximum number of iterations.
    tol : float, default=1e-6
        Stop when the relative change of the objective is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each iteration; returning ``True`` stops.

    Returns
    -------
    SolverResult
    """
    rows = informative_rows(X, missing, n_components)
    constants = constant_columns(X, missing)
    if rows is not None:
        n_samples = X.shape[0]
        X, missing = X[rows], missing[rows]
    n_informative = None if constants is None else informative_counts(missing, constants)[0]
    filled = initial_fill(X, missing)
    mean0 = filled.mean(axis=0)
    U0 = pca_basis(filled - mean0, n_components, rng)
    res = _minimize_r1(
        _MissingIterate(filled, missing, U0, n_informative),
        loss,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        state_view=lambda it: (lambda: it.U.T, lambda: it.mean),
    )
    it = res.solution
    components = complete_orthonormal(it.U, n_components, rng).T
    if rows is not None:  # every row's residual (0 for the rows fitted exactly), weight
        residuals, weights = np.zeros(n_samples), np.empty(n_samples)
        residuals[rows], weights[rows] = res.residuals, res.weights
        rest = np.setdiff1d(np.arange(n_samples), rows)
        weights[rest] = loss.resolve(res.residuals).weights(np.zeros(rest.size))
        res = replace(res, residuals=residuals, weights=weights)
    return _r1_result(res, loss, components=components, mean=it.mean)
