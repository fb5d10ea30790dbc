r"""Missing entries: least-squares fits on the observed coordinates and the
majorize-minimize (EM) completion that every subspace solver runs on.

**The observed residual.** For a row :math:`x` observed on the coordinates :math:`O`,
its distance to the affine subspace :math:`\{b + U^\top t\}` (``U`` the
``k x d`` orthonormal ``components``) is measured on :math:`O` alone,

.. math::
    t^\star = \arg\min_t \lVert P_O(x - b - U^\top t) \rVert_2, \qquad
    r_O = \lVert P_O(x - b - U^\top t^\star) \rVert_2 ,

(:func:`observed_fit`: the normal equations :math:`(U_O U_O^\top) t = U_O (x_O - b_O)`
with :math:`U_O U_O^\top = I - U_M U_M^\top`, a pseudo-inverse when fewer than ``k``
coordinates are observed). :math:`r_O` is also the smallest full residual over every
completion of the missing coordinates: :math:`r_O = \min_z \lVert (I - U^\top U)
(\tilde x(z) - b) \rVert`, reached at :math:`z = (b + U^\top t^\star)_M`.

**Majorize-minimize.** Every robust objective here is :math:`\sum_i \rho(r_i)` with
:math:`\rho` nondecreasing. Completing each row with :math:`z_i` from the current
:math:`(b, U)` gives :math:`\sum_i \rho(r_i^{\text{full}}(b', U'; z_i)) \ge \sum_i
\rho(r_{O,i}(b', U'))` for every :math:`(b', U')`, with equality at the current point:
a majorizer of the observed-entries objective. One step of the complete-data method on
the completed data that does not increase its objective (a reweighted step of Nie et
al. 2014, Algorithm 2) therefore does not increase the observed-entries objective
either. :class:`MissingPCAProblem` is this: a :class:`~robustpca.linalg.WeightedPCAProblem`
whose ``solve`` is the weighted-PCA step on the current completion and whose
``residuals`` are the :math:`r_O`, re-completing the data as a side effect, so the
reweighted solvers run on it unchanged (one weighted step per completion). Where the
loss re-estimates no parameter from the residuals (PCA, RPCA-OM, PCA-GM), the loop
extrapolates the gaps by SQUAREM (:mod:`robustpca.solvers.accelerated_em`), monotone.

**Rows fitted exactly.** A row with at most ``k`` observed coordinates has :math:`r_O =
0` at every :math:`(b, U)` whose observed columns ``U_O`` are linearly independent (all
but a null set): its term :math:`\rho(0)` is a constant of the objective. In the
majorizer above it is not: its completion lies on the current subspace, and a loss whose
weight is largest at :math:`r = 0` (the l2,1 loss: :math:`1 / (2\sqrt{r^2 +
\epsilon})`) gives it a weight that pins the subspace where it is.
:func:`rows_fitted_exactly` names these rows and the weighted step leaves them out
(weight 0; the majorizer of the remaining terms), unless every row is one or every other
row has weight 0 (a capped loss); without it RPCA-OM stalls on tables with few columns
(``docs/design-notes/missing-entries.md``). The computed residuals of these rows are
rounding errors, set to 0 (:func:`observed_fit`): at ``k = p``, where every row is one,
the objective is then exactly 0 and the loops stop at once. The entries of a constant
column count as unobserved here (:mod:`robustpca.solvers.informative_coordinates`).

References
----------
E. J. Candès, X. Li, Y. Ma, J. Wright, "Robust principal component analysis?", J. ACM
2011, sec. 1.6 (observed entries). F. Nie, J. Yuan, H. Huang, "Optimal mean robust
principal component analysis", ICML 2014, Algorithm 2 and Theorem 1 (the reweighted
step as a majorize-minimize step). A. P. Dempster, N. M. Laird, D. B. Rubin, "Maximum
likelihood from incomplete data via the EM algorithm", JRSS B 39, 1977.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ..linalg import WeightedPCAProblem, complete_orthonormal, positive_eigen_mask, top_eigh
from ..linalg.blocked import BLOCK_BYTES, blas_matmul
from ..losses import RobustLoss
from ._result import IterationState, SolverResult
from .informative_coordinates import (
    constant_columns,
    informative_counts,
    rows_fitted_exactly,
    uninformative_entries,
)
from .reweighting import minimize_reweighted_pca

__all__ = [
    "GapPattern",
    "MissingPCAProblem",
    "complete",
    "initial_fill",
    "observed_fit",
    "pca_basis",
    "solve_weighted_pca_missing",
]

#: Eigenvalues of ``U_O U_O^T`` below this are treated as zero (unidentified scores).
_RANK_RTOL = 1e-10
#: Normal matrices whose smallest eigenvalue provably exceeds this are solved by LU.
_WELL_CONDITIONED = 1e-3


def initial_fill(X: np.ndarray, missing: np.ndarray) -> np.ndarray:
    """A float64 copy of ``X`` with each missing entry set to its column's observed
    median (robust to the outlying rows the fit is meant to resist); 0 in a column with
    no observed entry.

    The medians are :func:`numpy.median`'s to the bit, a block of columns at a time (no
    strided gather per column): each block copied transposed, its gaps ``+inf``, each
    column partitioned at its lower middle order statistic (one ``kth``: NumPy's
    vectorised quickselect), the upper one being the smallest entry after it.

    Parameters
    ----------
    X, missing : ndarray of shape (n_samples, n_features)
        The data (any value, NaN included, at the gaps) and the boolean mask of the gaps.
    """
    filled = np.array(X, dtype=np.float64, copy=True)
    n, d = filled.shape
    seen = n - np.count_nonzero(missing, axis=0)
    low, high = np.maximum(seen - 1, 0) // 2, seen // 2  # the middle order statistics
    medians = np.zeros(d)
    step = max(1, BLOCK_BYTES // (8 * n))
    for start in range(0, d, step):
        cols = slice(start, min(start + step, d))
        todo = np.flatnonzero((seen[cols] < n) & (seen[cols] > 0))
        if not todo.size:
            continue
        block = np.where(missing[:, cols], np.inf, filled[:, cols]).T.copy()
        for j in todo:
            column, lo, hi = block[j], low[start + j], high[start + j]
            column.partition(lo)  # one kth: NumPy's fast selection (see below)
            upper = column[lo] if hi == lo else column[lo + 1 :].min()  # the next one
            medians[start + j] = 0.5 * (column[lo] + upper)
    np.copyto(filled, medians, where=missing)
    return filled


@dataclass(frozen=True, eq=False)
class GapPattern:
    """What :func:`observed_fit` takes from the mask alone, made once for a loop that
    fits the same mask at every iteration (:class:`MissingPCAProblem`).

    Attributes
    ----------
    rows : ndarray of int
        The rows with a missing entry.
    entries : scipy.sparse.csr_matrix
        Their missing entries as ones, or their observed entries where most are missing.
    observed : bool
        Whether ``entries`` holds the observed entries.
    """

    rows: np.ndarray
    entries: sparse.csr_matrix
    observed: bool

    @classmethod
    def of(cls, missing: np.ndarray) -> GapPattern:
        """The pattern of the boolean mask ``missing``, True at the gaps.

        Parameters
        ----------
        missing : ndarray of bool of shape (n_samples, n_features)
        """
        rows = np.flatnonzero(missing.any(axis=1))
        gaps = missing[rows]
        observed = bool(gaps.size) and bool(gaps.mean() > 0.5)
        return cls(rows, sparse.csr_matrix(~gaps if observed else gaps, dtype=np.float64), observed)


def _pattern_normal_matrices(pattern: GapPattern, components: np.ndarray) -> np.ndarray:
    """``U_O U_O^T`` for each row of ``pattern.rows``, by one sparse product: the rows'
    missing (or, when most are missing, observed) entries times the ``d x k^2`` table of
    the products ``U_{jl} U_{jm}``, a cost of ``k^2`` per missing entry, not coordinate."""
    k, d = components.shape
    outer = (components.T[:, :, None] * components.T[:, None, :]).reshape(d, k * k)
    products = np.asarray(pattern.entries @ outer).reshape(-1, k, k)
    if pattern.observed:
        return products
    # U U^T itself, not I: components orthonormal only to their rounding (float32's,
    # 1e-8) would otherwise leave that rounding as an eigenvalue of U_O U_O^T
    return (components @ components.T)[None, :, :] - products


def _smallest_eigenvalue_bound(A: np.ndarray) -> np.ndarray:
    """A lower bound on the smallest eigenvalue of each ``A_i = U_O U_O^T`` (all at most 1:
    ``U`` has orthonormal rows): the larger of Gershgorin's ``min_l (A_ll - sum_{m != l}
    |A_lm|)`` and ``trace(A_i) - (k - 1)`` (the other ``k - 1`` take at most 1 each)."""
    k = A.shape[-1]
    diag = np.einsum("rkk->rk", A)
    gershgorin = (2.0 * diag - np.abs(A).sum(axis=-1)).min(axis=-1)
    return np.maximum(gershgorin, diag.sum(axis=-1) - (k - 1))


def _solve_psd(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Minimum-norm solutions of the stacked systems ``A_i t_i = b_i``, ``A_i = U_O
    U_O^T`` (:func:`_pattern_normal_matrices`): by batched LU where
    :func:`_smallest_eigenvalue_bound` proves ``A_i`` well conditioned (condition number
    at most ``1 / _WELL_CONDITIONED``: no eigenvalue near ``_RANK_RTOL``), cheaper than the
    eigendecomposition and pseudo-inverse the other rows take; both agree to rounding."""
    if B.shape[0] == 0:
        return B.copy()
    safe = _smallest_eigenvalue_bound(A) >= _WELL_CONDITIONED
    if safe.all():
        return np.linalg.solve(A, B[..., None])[..., 0]
    out = np.empty_like(B)
    if safe.any():
        out[safe] = np.linalg.solve(A[safe], B[safe][..., None])[..., 0]
    rest = ~safe
    out[rest] = _pseudo_solve(A[rest], B[rest])
    return out


def _pseudo_solve(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Minimum-norm solutions of stacked PSD systems by eigendecomposition."""
    vals, vecs = np.linalg.eigh(A)
    top = np.maximum(vals[:, -1:], 1.0)
    inv = np.where(vals > _RANK_RTOL * top, 1.0 / np.where(vals > 0, vals, 1.0), 0.0)
    coef = np.einsum("rkl,rk->rl", vecs, B) * inv
    return np.einsum("rkl,rl->rk", vecs, coef)


def observed_fit(
    X: np.ndarray,
    missing: np.ndarray,
    mean: np.ndarray,
    components: np.ndarray,
    *,
    matmul: Callable[[np.ndarray, np.ndarray], np.ndarray] = np.matmul,
    pattern: GapPattern | None = None,
    centre: np.ndarray | None = None,
    scale: np.ndarray | None = None,
    n_informative: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Least-squares scores of each row on its observed coordinates.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data; the values at ``missing`` are ignored (may be NaN).
    missing : ndarray of bool, same shape
    mean : ndarray of shape (n_features,)
    components : ndarray of shape (n_components, n_features)
        Orthonormal rows.
    matmul : callable, default=np.matmul
        The product of two C-ordered float64 matrices: NumPy's, or SciPy's BLAS
        (:func:`~robustpca.linalg.blocked.blas_matmul`) for a loop whose other products
        are SciPy's ("One BLAS library per loop" in :mod:`robustpca.linalg.blocked`).
    pattern : GapPattern, optional
        ``GapPattern.of(missing)``, made once by a loop that fits the same mask repeatedly.
    centre, scale : ndarray of shape (n_components,), optional
        A row with fewer than ``k`` observed coordinates fits a whole affine set of
        scores exactly; it gets the one nearest ``centre`` in the metric
        :math:`\\sum_j ((t_j - c_j) / s_j)^2` (the smallest score distance of
        :mod:`robustpca.diagnostics` where ``centre`` and ``scale`` are its statistics).
        By default ``centre`` is 0 and ``scale`` 1: the minimum-norm solution, which puts
        the row at ``mean``. A zero scale counts as the largest positive one.
    n_informative : ndarray of int, shape (n_samples,), optional
        The informative coordinates of each row (:func:`informative_counts`), which decide
        the rows with fewer than ``k`` (above) and the rows fitted exactly, whose residual
        rounding is set to 0; by default the observed ones.

    Returns
    -------
    scores : ndarray of shape (n_samples, n_components)
        :math:`t^\\star` of each row (that of ``(x - mean) @ components.T`` for a
        complete row).
    fitted : ndarray of shape (n_samples, n_features)
        ``mean + scores @ components``: the reconstruction, which fills the gaps.
    residuals : ndarray of shape (n_samples,)
        :math:`r_O`, the residual norm over the observed coordinates.
    """
    comps = np.asarray(components, dtype=np.float64)
    centred = np.subtract(X, mean, dtype=np.float64)  # in place from here on: each pass
    np.copyto(centred, 0.0, where=missing)  # over n x d costs as much as the products
    scores = matmul(centred, np.ascontiguousarray(comps.T))
    if pattern is None:
        pattern = GapPattern.of(missing)
    rows = pattern.rows
    if rows.size and comps.shape[0]:
        A = _pattern_normal_matrices(pattern, comps)
        under = None
        if centre is not None or scale is not None:
            under = _underdetermined(pattern, *comps.shape, n_informative=n_informative)
        rhs = scores[rows]
        scores[rows] = _solve_psd(A, rhs)
        if under is not None:
            scores[rows[under]] = _nearest_scores(A[under], rhs[under], centre, scale)
    exact = _exact_rows(pattern, *comps.shape, n_samples=X.shape[0], n_informative=n_informative)
    if exact is not None:  # their centred norms, before ``centred`` becomes the residual
        rows_exact = centred[exact]
        bounds = _EXACT_FIT * np.sqrt(np.einsum("ij,ij->i", rows_exact, rows_exact))
    fitted = matmul(np.ascontiguousarray(scores), np.ascontiguousarray(comps))
    resid = np.subtract(centred, fitted, out=centred)
    np.copyto(resid, 0.0, where=missing)
    fitted += mean
    r = np.sqrt(np.einsum("ij,ij->i", resid, resid))
    if exact is not None:  # the rounding of an exact fit is 0 (module docstring)
        r[exact[r[exact] <= bounds]] = 0.0
    return scores, fitted, r


#: On a row with at most ``k`` observed coordinates, a residual norm within this fraction
#: of its centred observed norm is an exact fit's rounding, set to 0 ("Rows fitted exactly";
#: ``sqrt(eps)`` as :data:`robustpca._distance_rounding.ZERO_OD`): else the EM at ``k = p``
#: ran on rounding to ``max_iter``, and R1-PCA's Huber weights were ratios of roundings.
_EXACT_FIT = float(np.sqrt(np.finfo(np.float64).eps))


def _exact_rows(
    pattern: GapPattern,
    n_components: int,
    n_features: int,
    *,
    n_samples: int,
    n_informative: np.ndarray | None = None,
) -> np.ndarray | None:
    """The rows with at most ``k`` observed (or ``n_informative``) coordinates (None if
    none): every row where ``k >= p``, else those of ``pattern`` (:func:`rows_fitted_exactly`)."""
    if n_components >= n_features:
        return np.arange(n_samples)
    if n_informative is not None:
        exact = np.flatnonzero(n_informative <= n_components)
        return exact if exact.size else None
    counts = np.diff(pattern.entries.indptr)
    n_observed = counts if pattern.observed else n_features - counts
    exact = pattern.rows[n_observed <= n_components]
    return exact if exact.size else None


def _nearest_scores(A: np.ndarray, rhs: np.ndarray, centre, scale) -> np.ndarray:
    """The solutions of ``A_i t_i = rhs_i`` (consistent, ``A_i`` singular) nearest ``centre``
    in the metric of ``scale`` (:func:`observed_fit`): with ``t = centre + s z``, the
    minimum-norm ``z`` of ``(S A S) z = S (rhs - A centre)``, ``s`` divided by its largest
    value so that ``S A S`` keeps the eigenvalues at most 1 :func:`_pseudo_solve` assumes."""
    k = A.shape[-1]
    c = np.zeros(k) if centre is None else np.asarray(centre, dtype=np.float64)
    s = np.ones(k) if scale is None else np.asarray(scale, dtype=np.float64)
    top = float(s.max()) if s.size and s.max() > 0 else 1.0
    s = np.where(s > 0, s, top) / top
    z = _pseudo_solve(A * s[:, None] * s[None, :], (rhs - A @ c) * s)
    return c + s * z


def _underdetermined(
    pattern: GapPattern,
    n_components: int,
    n_features: int,
    *,
    n_informative: np.ndarray | None = None,
):
    """Which of ``pattern.rows`` have fewer than ``k`` observed (or ``n_informative``)
    coordinates (None if none has)."""
    if n_informative is not None:
        n_observed = n_informative[pattern.rows]
    else:
        counts = np.diff(pattern.entries.indptr)
        n_observed = counts if pattern.observed else n_features - counts
    under = n_observed < n_components
    return under if under.any() else None


def complete(
    X: np.ndarray,
    missing: np.ndarray,
    mean: np.ndarray,
    components: np.ndarray,
    n_informative: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``X`` (a completed copy, NaN allowed at ``missing``) with the gaps set to the
    observed-coordinates fit of ``(mean, components)``, and the observed residual norms.

    Parameters
    ----------
    X, missing, mean, components : ndarray
        As in :func:`observed_fit`.
    n_informative : ndarray of int, shape (n_samples,), optional
        As in :func:`observed_fit`: the rows fitted exactly get a zero residual.
    """
    _, fitted, r = observed_fit(X, missing, mean, components, n_informative=n_informative)
    return np.where(missing, fitted, X), r


def pca_basis(X0: np.ndarray, n_components: int, rng: np.random.Generator) -> np.ndarray:
    """Orthonormal ``d x k`` basis of the top principal subspace of centred ``X0`` (the
    ``n x n`` Gram matrix for wide data), completed where the data have fewer than ``k``
    directions of variance.

    Parameters
    ----------
    X0 : ndarray of shape (n, d)
    n_components : int
    rng : numpy.random.Generator
        Draws the completing directions (:func:`~robustpca.linalg.complete_orthonormal`).
    """
    n, d = X0.shape
    if n < d:
        vals, vecs = top_eigh(X0 @ X0.T, n_components)
        keep = positive_eigen_mask(vals)
        U = X0.T @ (vecs[:, keep] / np.sqrt(vals[keep]))
        U = np.linalg.qr(U)[0] if U.shape[1] else U
    else:
        vals, vecs = top_eigh(X0.T @ X0, n_components)
        U = vecs[:, positive_eigen_mask(vals)]
    return complete_orthonormal(U, n_components, rng)


class _MissingSubspace:
    """A weighted-PCA solution on one completion; ``residuals()`` re-completes."""

    def __init__(self, problem: MissingPCAProblem, sub, shift=None):
        self._problem, self._sub = problem, sub
        self._basis = sub.basis()
        self._mean = sub.mean() if shift is None else sub.mean() + shift
        self.eigvals = sub.eigvals
        self.total_scatter = getattr(sub, "total_scatter", None)
        self.sq_norms = None

    def basis(self) -> np.ndarray:
        return self._basis

    def mean(self) -> np.ndarray:
        return self._mean

    def residuals(self) -> np.ndarray:
        """Observed residual norms at this solution; the problem's data are completed
        from it (idempotent: the fit only reads the observed entries)."""
        problem = self._problem
        # the products of the loop's library: SciPy's on the scatter route (tall data),
        # NumPy's on the Gram route (see linalg.blocked, "One BLAS library per loop")
        n, d = problem.X.shape
        _, fitted, r = observed_fit(
            problem.X,
            problem.missing,
            self._mean,
            self._basis.T,
            matmul=blas_matmul if n >= d else np.matmul,
            pattern=problem.pattern,
            n_informative=problem.n_informative,
        )
        # a new array (earlier solutions keep theirs), in one pass: boolean indexing
        # would take three
        completed = np.where(problem.missing, fitted, problem.X)
        problem.X = completed
        centred = np.subtract(completed, self._mean, out=fitted)
        np.copyto(centred, 0.0, where=problem.missing)
        self.sq_norms = np.einsum("ij,ij->i", centred, centred)
        return r


class MissingPCAProblem:
    """:class:`~robustpca.linalg.WeightedPCAProblem` on data with missing entries.

    ``X`` is held completed (first by the column medians, then by the reconstruction
    of the last solution whose ``residuals`` were read); :meth:`solve` is the weighted-PCA
    step (problem 14 of Nie et al. 2014) on that completion, and the solution's
    ``residuals()`` are the observed residual norms (module docstring). Where the fit is
    centred (or through ``offset``), the entries of constant columns do not count as
    informative (:mod:`~robustpca.solvers.informative_coordinates`); through the origin
    they do, since a nonzero constant column is then a direction of the data.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data with NaN (not modified).
    missing : ndarray of bool, same shape
    n_components : int
    rng : numpy.random.Generator
    center : bool, default=True
        Estimate the weighted mean; ``False`` keeps the subspace through ``offset``.
    offset : ndarray of shape (n_features,), optional
    """

    gram = False  # the solvers' "reuse the loop residuals" test (adaptive neighbours)

    def __init__(self, X, missing, n_components, rng, *, center=True, offset=None):
        self.missing = np.asarray(missing, dtype=bool)
        self.pattern = GapPattern.of(self.missing)  # the same at every iteration
        self.X = initial_fill(X, self.missing)
        self.n_components = n_components
        self.rng = rng
        self.with_mean = center
        self.offset = offset
        # the informative coordinates of each row (None: the observed ones), fixed by the
        # data: the completions never move the constant columns' observed entries
        constants = constant_columns(X, self.missing) if center or offset is not None else None
        entries = uninformative_entries(self.missing, constants)
        self.n_informative = (
            None if constants is None else informative_counts(self.missing, constants)[0]
        )
        exact = rows_fitted_exactly(entries, n_components)
        self._left_out = exact if exact.any() and not exact.all() else None

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    def mean_sq_distance(self) -> float:
        """Mean squared distance of the (median-completed) rows to their mean."""
        centred = self.X - self.X.mean(axis=0)
        return float(np.einsum("ij,ij->", centred, centred)) / self.n_samples

    def solve(self, weights: np.ndarray, *, residuals: bool = True) -> _MissingSubspace:
        """The weighted-PCA step on the current completion.

        Parameters
        ----------
        weights : ndarray of shape (n_samples,)
            Row weights; the rows fitted exactly get 0 (module docstring).
        residuals : bool, default=True
            Ignored: the solution's ``residuals()`` gives the observed residual norms.
        """
        if self._left_out is not None:
            kept = np.where(self._left_out, 0.0, weights)
            if np.any(kept > 0):  # else every other row is capped: the step as it was
                weights = kept
        # wide data: the completion is centred first, so that the Gram route forms its
        # matrix by one product (linalg.raw_centred_gram) instead of by centred blocks
        shift = self.X.mean(axis=0) if self.X.shape[0] < self.X.shape[1] else None
        X = self.X if shift is None else self.X - shift
        offset = self.offset
        if shift is not None and (offset is not None or not self.with_mean):
            # the same subspace in the shifted coordinates: through offset, else the origin
            offset = -shift if offset is None else offset - shift
        inner = WeightedPCAProblem(
            X, self.n_components, self.rng, center=self.with_mean, offset=offset
        )
        return _MissingSubspace(self, inner.solve(weights, residuals=False), shift)


@dataclass(frozen=True, eq=False)
class _FixedWeights(RobustLoss):
    """The weighted squared loss :math:`\\sum_i w_i r_i^2` (PCA with sample weights)."""

    w: np.ndarray

    def rho(self, r):
        return self.w * r * r

    def weights(self, r):
        return self.w


def solve_weighted_pca_missing(
    X: np.ndarray,
    missing: np.ndarray,
    n_components: int,
    weights: np.ndarray,
    *,
    rng: np.random.Generator,
    max_iter: int = 500,
    tol: float = 1e-9,
    callback: Callable[[int, IterationState], bool | None] | None = None,
) -> tuple[SolverResult, np.ndarray]:
    r"""PCA on the observed entries by EM: minimise :math:`\sum_i w_i r_{O,i}^2`.

    Each iteration is weighted PCA (closed form) on the current completion, then the
    completion from the new subspace; the objective never increases (module
    docstring).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data (any value, NaN included, at the gaps; not modified).
    missing : ndarray of bool of shape (n_samples, n_features)
        True at the gaps.
    n_components : int
        The dimension of the subspace.
    weights : ndarray of shape (n_samples,)
        The row weights :math:`w_i`.
    rng : numpy.random.Generator
        Draws the directions that complete a basis short of ``n_components``.
    max_iter : int, default=500
    tol : float, default=1e-9
        Stop when the relative change of the objective is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each iteration; returning ``True`` stops.

    Returns
    -------
    result : SolverResult
        ``objective`` after each iteration, ``info['residuals']`` the :math:`r_O`.
    completed : ndarray of shape (n_samples, n_features)
        The data completed from the final subspace.
    """
    problem = MissingPCAProblem(X, missing, n_components, rng)
    res = minimize_reweighted_pca(
        problem, _FixedWeights(weights), weights, max_iter=max_iter, tol=tol, callback=callback
    )
    sub = res.solution
    result = SolverResult.from_loop(
        res, components=sub.basis().T, mean=sub.mean(), info={"residuals": res.residuals}
    )
    return result, problem.X
