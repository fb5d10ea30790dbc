r"""The generalized sample mean and PCA-GM of Oh & Kwak (2016), by iterative reweighting.

Both problems replace an arithmetic mean of squared distances by the generalized (power)
mean :math:`M_p\{a_i\} = (\frac1N \sum_i a_i^p)^{1/p}` of those non-negative numbers,
with :math:`0 < p \le 1`. Since :math:`a \mapsto a^p` is increasing, minimising
:math:`M_p` is minimising :math:`\sum_i a_i^p`:

.. math::
    m_G &= \arg\min_m \sum_{i=1}^N \bigl(\lVert x_i - m\rVert_2^2 + \delta\bigr)^p
    \qquad \text{(eq. 6, with the perturbation of eq. 13)} \\
    W_G &= \arg\min_{W^\top W = I} \sum_{i=1}^N \bigl(e_i(W) + \delta\bigr)^p, \qquad
    e_i(W) = \tilde x_i^\top \tilde x_i - \tilde x_i^\top W W^\top \tilde x_i ,
    \quad \tilde x_i = x_i - m_G \qquad \text{(eq. 10 and 13)}.

Oh & Kwak solve both with eq. (4), :math:`\sum_i a_i^p = \sum_i b_i a_i` with
:math:`b_i = a_i^{p-1}`: freezing the :math:`b_i` at the current point gives a weighted
least-squares problem, whose solution is a weighted mean (eq. 7-8, Algorithm 1) or the
top eigenvectors of the weighted scatter :math:`S_\beta = \sum_i \beta_i \tilde x_i
\tilde x_i^\top` (eq. 11-12, Algorithm 2). Both are instances of the reweighted loop of
Nie et al. (2014), :func:`~robustpca.solvers.minimize_reweighted`, with the concave
:math:`h(s) = (s + \delta)^p` of the squared residual norm :math:`s = r^2`, i.e. with
the loss :class:`~robustpca.losses.L2pLoss` of exponent :math:`2p` and smoothing
:math:`\delta`. Its weights :math:`h'(s) = p (s + \delta)^{p-1}` are the paper's
:math:`\alpha_i` and :math:`\beta_i` times the constant :math:`p`, which changes neither
the weighted mean nor the eigenvectors; because :math:`h` is concave, the objective never
increases (the "upper bound" remark on Fig. 2b of the paper, made exact by Nie et al.
2014, Theorem 1).

The corrected scatter of eq. (13), :math:`\hat S_\beta = \sum_i \beta_i (\tilde x_i
\tilde x_i^\top + \frac{\delta}{n} I)`, differs from :math:`S_\beta` by a multiple of the
identity, so it has the same eigenvectors: the minimisation step is computed from
:math:`S_\beta` (through :class:`~robustpca.linalg.WeightedPCAProblem`, which takes the
``N x N`` Gram route for wide data), while :math:`\delta` enters the weights and the
objective exactly as in eq. (13).

References
----------
J. Oh and N. Kwak, "Generalized mean for robust principal component analysis", Pattern
Recognition 54, 2016, eq. (4)-(13), Algorithms 1-2.
F. Nie, J. Yuan and H. Huang, "Optimal mean robust principal component analysis", ICML
2014, Algorithm 2 and Theorem 1.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_array

from .._validation import check_nonnegative_float, check_positive_int
from .._warnings import external_stacklevel
from ..linalg import (
    WeightedPCAProblem,
    _centred_rows,
    _row_slices,
    _Workspace,
    row_sq_distances,
    subspace_sq_residuals,
    weighted_row_sum,
)
from ..linalg.blocked import add_weighted_rows
from ..losses import L2pLoss
from ._result import IterationState, SolverResult, StopReason
from .reweighting import EXACT_RESIDUAL_RTOL, minimize_reweighted, minimize_reweighted_pca
from .reweighting_progress import returned_residuals

__all__ = [
    "GeneralizedMeanResult",
    "generalized_sample_mean",
    "solve_generalized_mean",
    "solve_generalized_mean_pca",
]

#: ``delta='auto'`` is this fraction of the mean squared distance to the arithmetic mean.
AUTO_DELTA = 1e-6


def check_p(p) -> float:
    """Validate the power ``p`` of the generalized mean: a real number in (0, 1]."""
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"p must be a real number in (0, 1], got {type(p).__name__} ({p!r}).")
    p = float(p)
    if not (np.isfinite(p) and 0.0 < p <= 1.0):
        raise ValueError(f"p={p!r} must lie in (0, 1] (p = 1 is the arithmetic mean / PCA).")
    return p


def resolve_delta(delta, X: np.ndarray) -> float:
    """The perturbation of eq. (13) in squared data units.

    ``'auto'`` is :data:`AUTO_DELTA` times the mean squared distance of the samples to
    their arithmetic mean (0 for constant data), so that the fit is scale equivariant
    and the perturbation changes objective (10) by a relative amount of order
    ``p * 1e-6`` at most for residuals of the size of the data spread.
    """
    if isinstance(delta, str):
        if delta != "auto":
            raise ValueError(f"delta must be 'auto' or a non-negative float, got {delta!r}.")
        spread = row_sq_distances(X, X.mean(axis=0, dtype=np.float64))
        return AUTO_DELTA * float(spread.sum()) / X.shape[0]
    return check_nonnegative_float(delta, "delta")


class _MeanPasses:
    r"""Algorithm 1's two passes over the data fused into one per iteration.

    The weight :math:`\alpha_i = h'(\lVert x_i - m\rVert^2)` of eq. (7) depends on
    sample :math:`i` alone, so the pass that measures the distances to the current mean
    :math:`m` (:meth:`distances`) also accumulates, block by block,
    :math:`\sum_i \alpha_i (x_i - m)` and with it the next mean of eq. (8). The
    weighted-mean step (:meth:`weighted_mean`) then returns that prepared mean, but
    only when it is given exactly the weights the pass computed (what
    :func:`~robustpca.solvers.minimize_reweighted` does, since ``loss.weights`` is
    element-wise); any other weights get their own pass. The uniform weights of line 3
    are prepared at construction: their weighted mean is ``center``, the arithmetic mean.

    Means are offsets ``m0 = m - center`` from the arithmetic mean (for accuracy). Holds
    one float64 block of rows (about ``BLOCK_BYTES``), the ``n`` weights of the last
    pass and one ``d``-vector; no ``n x d`` temporary.
    """

    def __init__(self, X: np.ndarray, loss: L2pLoss, center: np.ndarray):
        self.X, self.loss, self.center = X, loss, center
        self._work = _Workspace()
        self._weights = np.ones(X.shape[0])
        self._next = np.zeros(X.shape[1])

    def weighted_mean(self, a: np.ndarray) -> np.ndarray:
        r"""Offset of :math:`\sum_i a_i x_i / \sum_i a_i` (eq. 8) from ``center``."""
        if np.array_equal(a, self._weights):
            return self._next
        return weighted_row_sum(self.X, a, self.center, self._work) / a.sum()

    def distances(self, m0: np.ndarray) -> np.ndarray:
        """``||x_i - m||`` for ``m = center + m0``, preparing the next weighted mean."""
        X, (n, d) = self.X, self.X.shape
        point = self.center + m0
        r, a, t = np.empty(n), np.empty(n), np.zeros(d)
        for rows in _row_slices(n, d):
            B = _centred_rows(X, rows, point, self._work)
            r[rows] = np.sqrt(np.einsum("ij,ij->i", B, B))
            a[rows] = self.loss.weights(r[rows])
            t = add_weighted_rows(t, a[rows], B)  # SciPy's BLAS: see linalg.blocked
        self._weights = a
        self._next = m0 + t / a.sum()
        return r


@dataclass(frozen=True)
class GeneralizedMeanResult:
    r"""Outcome of :func:`solve_generalized_mean` (Algorithm 1 of Oh & Kwak).

    Attributes
    ----------
    mean : ndarray of shape (n_features,)
        The generalized sample mean :math:`m_G`.
    weights : ndarray of shape (n_samples,)
        :math:`\alpha_i = (\lVert x_i - m_G\rVert^2 + \delta)^{p-1}` (eq. 7) at the
        returned mean; 1 for every sample when ``p = 1``.
    distances : ndarray of shape (n_samples,)
        :math:`\lVert x_i - m_G \rVert_2`.
    objective : ndarray
        :math:`\sum_i (\lVert x_i - m\rVert^2 + \delta)^p` (eq. 6) after each
        iteration; non-increasing.
    n_iter, converged, stop_reason
        As in :class:`~robustpca.solvers.SolverResult`.
    """

    mean: np.ndarray
    weights: np.ndarray
    distances: np.ndarray
    objective: np.ndarray
    n_iter: int
    converged: bool
    stop_reason: str


def solve_generalized_mean(
    X: np.ndarray,
    p: float,
    delta: float = 0.0,
    *,
    initial: np.ndarray | None = None,
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
) -> GeneralizedMeanResult:
    r"""Algorithm 1 of Oh & Kwak: the generalized sample mean by reweighted averaging.

    Each iteration sets :math:`\alpha_i = (\lVert x_i - m^{(t)}\rVert^2 + \delta)^{p-1}`
    (eq. 7, 13) and :math:`m^{(t+1)} = \sum_i \alpha_i x_i / \sum_i \alpha_i` (eq. 8).
    No validation, no warnings (see :func:`generalized_sample_mean`).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    p : float
        Power in (0, 1].
    delta : float, default=0.0
        Perturbation of eq. (13), squared data units. With 0, a zero distance gets the
        weight of a distance of ``1e-12`` times the largest one.
    initial : ndarray of shape (n_features,) or None, default=None
        ``None`` is line 3 of Algorithm 1, :math:`m^{(0)} = m_S`: the first iteration then
        returns the arithmetic mean itself (all weights 1), so ``objective[0]`` is the
        objective of :math:`m_S`. With an array, the first iteration is the first update
        from it.
    max_iter : int, default=100
    tol : float, default=1e-6
        Stop when the relative change of the generalized mean :math:`M_p` (eq. 9) is at
        most ``tol``: that of the objective, :math:`\sum_i (e_i + \delta)^p`, at most
        ``p * tol`` (as ``p`` tends to 0 the objective tends to ``n`` and its relative
        change to 0, while the mean still moves).
    callback : callable, optional
        ``callback(iteration, state)``; ``state.mean`` is the current mean. Returning
        ``True`` stops.

    Returns
    -------
    GeneralizedMeanResult
    """
    # the weighted means are formed about m_S, for accuracy only; every pass goes over
    # blocks of rows (float64, no n x d temporary, float32 X kept as it is), and each
    # iteration reads X once (see _MeanPasses)
    center = X.mean(axis=0, dtype=np.float64)
    loss = L2pLoss(p=2.0 * p, epsilon=delta)
    passes = _MeanPasses(X, loss, center)
    if initial is None:
        w0 = np.ones(X.shape[0])
    else:
        w0 = loss.weights(np.sqrt(row_sq_distances(X, np.asarray(initial, dtype=np.float64))))
    res = minimize_reweighted(
        passes.weighted_mean,
        passes.distances,
        loss,
        w0,
        max_iter=max_iter,
        tol=tol * p,  # the relative change of M_p, not of the sum (docstring)
        callback=callback,
        state_view=lambda m0: (None, lambda: center + m0),
    )
    return GeneralizedMeanResult(
        mean=center + res.solution,
        weights=res.weights / p,
        distances=res.residuals,
        objective=res.objective,
        n_iter=res.n_iter,
        converged=res.converged,
        stop_reason=res.stop_reason,
    )


def generalized_sample_mean(
    X,
    p: float,
    *,
    delta: float | str = "auto",
    initial="mean",
    max_iter: int = 100,
    tol: float = 1e-6,
) -> np.ndarray:
    r"""The generalized sample mean of Oh & Kwak (2016), eq. (6), by their Algorithm 1.

    .. math::
        m_G = \arg\min_m \Bigl(\frac1N \sum_{i=1}^N \bigl(\lVert x_i - m\rVert_2^2
        + \delta\bigr)^p\Bigr)^{1/p}
        = \arg\min_m \sum_{i=1}^N \bigl(\lVert x_i - m\rVert_2^2 + \delta\bigr)^p .

    The power mean is taken of the squared *distances* (non-negative numbers, for
    which it is defined), not of the coordinates: :math:`m_G` is equivariant under
    translations, rotations and, with ``delta='auto'``, scalings of the data. ``p = 1``
    gives the arithmetic mean; as ``p`` decreases, far samples count less. For
    :math:`p < 1/2` every sample is a local minimiser of eq. (6) (each term
    :math:`\lVert x_i - m\rVert^{2p}` has a cusp there), and the iteration typically
    stops on a sample in the densest region, a mode-seeking behaviour.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data; never modified.
    p : float
        Power of the generalized mean, in (0, 1].
    delta : float or 'auto', default='auto'
        The perturbation :math:`\delta` of eq. (13) (squared data units) that keeps
        :math:`\alpha_i` finite for a zero distance. ``'auto'`` is ``1e-6`` times the
        mean squared distance to the arithmetic mean.
    initial : 'mean' or array-like of shape (n_features,), default='mean'
        Starting point; ``'mean'`` is the arithmetic mean (Algorithm 1, line 3).
    max_iter : int, default=100
    tol : float, default=1e-6
        Stop when the relative change of the generalized mean :math:`M_p` of the
        distances (eq. 9) is at most ``tol``, that of the sum in eq. (6) at most
        ``p * tol`` (:func:`solve_generalized_mean`).

    Returns
    -------
    ndarray of shape (n_features,)
        The generalized sample mean. A
        :class:`~sklearn.exceptions.ConvergenceWarning` is issued when ``max_iter`` is
        reached first. :func:`solve_generalized_mean` returns the weights and the
        objective history as well.

    References
    ----------
    J. Oh and N. Kwak, "Generalized mean for robust principal component analysis",
    Pattern Recognition 54, 2016, eq. (6)-(8), (13), Algorithm 1, Fig. 1.

    Examples
    --------
    The toy example of Fig. 1: 100 inliers around the origin and 10 outliers around
    (5, 5).

    >>> import numpy as np
    >>> from robustpca.solvers.generalized_mean import generalized_sample_mean
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0.0, np.sqrt(0.5), (100, 2)),
    ...                rng.normal(5.0, np.sqrt(0.3), (10, 2))])
    >>> bool(np.linalg.norm(generalized_sample_mean(X, 0.2)) < 0.5 * np.linalg.norm(X.mean(0)))
    True
    >>> bool(np.allclose(generalized_sample_mean(X, 1.0), X.mean(axis=0)))
    True
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    p = check_p(p)
    delta = resolve_delta(delta, X)
    max_iter = check_positive_int(max_iter, "max_iter")
    tol = check_nonnegative_float(tol, "tol")
    if isinstance(initial, str):
        if initial != "mean":
            raise ValueError(f"initial must be 'mean' or an array, got {initial!r}.")
        start = None
    else:
        start = np.asarray(initial, dtype=np.float64)
        if start.shape != (X.shape[1],) or not np.all(np.isfinite(start)):
            raise ValueError(
                f"initial must be a finite array of shape ({X.shape[1]},), got shape {start.shape}."
            )
    result = solve_generalized_mean(X, p, delta, initial=start, max_iter=max_iter, tol=tol)
    if result.stop_reason == StopReason.MAX_ITER:
        warnings.warn(
            f"generalized_sample_mean reached max_iter={max_iter} before the relative "
            f"change of the generalized mean M_p fell below tol={tol}; increase max_iter "
            "or tol.",
            ConvergenceWarning,
            stacklevel=external_stacklevel(),
        )
    return result.mean


def solve_generalized_mean_pca(
    X: np.ndarray,
    n_components: int,
    p: float,
    *,
    mean: np.ndarray,
    delta: float = 0.0,
    rng: np.random.Generator,
    init: str | np.ndarray = "pca",
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    route: str = "auto",
    problem=None,
) -> SolverResult:
    r"""Algorithm 2 of Oh & Kwak (PCA-GM): minimise objective (10) about a fixed centre.

    Each iteration sets :math:`\beta_i = (e_i(W^{(t)}) + \delta)^{p-1}` (eq. 11, 13) and
    :math:`W^{(t+1)}` to the top eigenvectors of :math:`S_\beta = \sum_i \beta_i
    \tilde x_i \tilde x_i^\top` (eq. 12; :math:`\hat S_\beta` of eq. 13 has the same
    eigenvectors). No validation, no warnings.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_components : int
    p : float
        Power in (0, 1]; ``p = 1`` is PCA about ``mean``.
    mean : ndarray of shape (n_features,)
        The centre :math:`m_G` (input of Algorithm 2), e.g. from
        :func:`solve_generalized_mean`.
    delta : float, default=0.0
        Perturbation of eq. (13), squared data units.
    rng : numpy.random.Generator
        Only used to complete the basis of rank-deficient data.
    init : 'pca' or ndarray of shape (n_features, n_components), default='pca'
        ``'pca'`` is line 3 of Algorithm 2: the first iteration is PCA about ``mean``
        (all weights 1), so ``objective[0]`` is objective (10) of :math:`W_{PCA}`. With
        orthonormal columns ``W0``, the first iteration is the first update from it.
    max_iter, tol, callback
        See :func:`~robustpca.solvers.minimize_reweighted`.
    route : {'auto', 'gram', 'scatter'}
        See :class:`~robustpca.linalg.WeightedPCAProblem`.
    problem : optional
        The subproblem already built, through ``mean`` (``route`` is then ignored): a
        :class:`~robustpca.solvers.missing.MissingPCAProblem` with ``center=False``
        runs Algorithm 2 on the observed entries.

    Returns
    -------
    SolverResult
        ``weights`` are the :math:`\beta_i` at the returned subspace, ``objective``
        holds :math:`\sum_i (e_i + \delta)^p` after each iteration (non-increasing) and
        ``info['residuals']`` the :math:`\sqrt{e_i}`.
    """
    mean = np.asarray(mean, dtype=np.float64)
    if problem is None:
        problem = WeightedPCAProblem(X, n_components, rng, center=False, route=route, offset=mean)
    loss = L2pLoss(p=2.0 * p, epsilon=delta)
    if isinstance(init, str):
        w0 = np.ones(X.shape[0])
    else:
        W0 = np.asarray(init, dtype=np.float64)
        w0 = loss.weights(np.sqrt(subspace_sq_residuals(X, mean, W0)))
    # an exact fit stops there: without smoothing it would be re-weighted by its rounding
    largest = float(np.sqrt(np.max(row_sq_distances(X, mean), initial=0.0)))
    res = minimize_reweighted_pca(
        problem,
        loss,
        w0,
        fixed_mean=mean,
        max_iter=max_iter,
        tol=tol * p,  # the relative change of M_p (eq. 9), as solve_generalized_mean
        callback=callback,
        exact_below=EXACT_RESIDUAL_RTOL * largest,
    )
    residuals, weights = returned_residuals(res, loss)
    return SolverResult.from_loop(
        res,
        components=res.solution.basis().T,
        mean=np.array(mean, dtype=np.float64, copy=True),
        weights=weights / p,
        info={"residuals": residuals},
    )
