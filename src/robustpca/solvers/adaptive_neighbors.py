r"""RWL-AN: robust weight learning with adaptive neighbours (Zhang & Tong, NeurIPS 2019).

The weight vector :math:`p` of the framework solves problem (6),

.. math:: \min_{p \ge 0,\; p^\top 1 = 1} \sum_{i=1}^n p_i g_i + \gamma p_i^2 ,

whose KKT conditions (10) give :math:`p_i = (\lambda - g_i / 2\gamma)_+` (eq. 11): the
Euclidean projection of :math:`-g / 2\gamma` onto the simplex (problem 8). Zhang & Tong
pick :math:`\gamma` at the upper end of interval (14) so that exactly ``k`` weights are
non-zero, which gives the closed form (15), Algorithm 1:

.. math::
    p_i = \Bigl(\frac{g_{(k+1)} - g_i}{k\, g_{(k+1)} - \sum_{j \le k} g_{(j)}}\Bigr)_+ ,
    \qquad \gamma = \tfrac12 \sum_{j \le k} \bigl(g_{(k+1)} - g_{(j)}\bigr) ,

with :math:`g_{(1)} \le g_{(2)} \le \dots` the sorted errors.

Robust PCA under RWL-AN, problem (16) (``X`` is ``n x d`` here),

.. math::
    \min_{m,\; W^\top W = I,\; p \ge 0,\; p^\top 1 = 1} \sum_{i=1}^n
    p_i \lVert (I - WW^\top)(x_i - m) \rVert_2^2 + \gamma p_i^2 ,

is solved by Algorithm 2: for fixed :math:`p`, :math:`m = X^\top p` (Theorem 1, eq. 18)
and :math:`W` = top eigenvectors of :math:`X^\top(\mathrm{diag}(p) - pp^\top)X` (eq. 21),
the :math:`p`-weighted scatter about :math:`m` -- the weighted-PCA step of
:class:`~robustpca.linalg.WeightedPCAProblem`; then :math:`p` comes from Algorithm 1 on
the squared residuals :math:`r_i = \lVert (I-WW^\top)(x_i - m)\rVert_2^2` (problem 22).

The loop is an instance of :func:`~robustpca.solvers.minimize_reweighted`: for a fixed
:math:`\gamma`, :math:`\phi(g) = \min_{p \in \Delta} p^\top g + \gamma\lVert p\rVert^2`
is concave in :math:`g` (a minimum of affine functions) with gradient the minimiser
:math:`p` (envelope theorem), so the :math:`p`-step is the supergradient step of Nie et
al. (2014, Algorithm 2) and objective (16) never increases. Algorithm 1 however re-picks
:math:`\gamma` from the current errors at every iteration (like a data-dependent
threshold), and then objective (16) is not monotone: the paper's claim that Algorithm 2
"monotonically converges" (sec. 4) holds for a fixed :math:`\gamma` only. Both variants
are offered (``gamma=None`` is the paper's Algorithm 2).

References
----------
R. Zhang and H. Tong, "Robust Principal Component Analysis with Adaptive Neighbors",
NeurIPS 2019, problems (6), (8), (16), (22), eqs. (11)-(15), (18), (21), Algorithms 1-2.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np

from ..linalg import WeightedPCAProblem, subspace_sq_residuals
from ..losses import RobustLoss
from ._result import IterationState, SolverResult
from .reweighting import minimize_reweighted_pca

#: Residual norms below this fraction of ``||x_i - m||`` are rounding: they are set to
#: zero, so that samples on the subspace tie exactly (and an exact fit stops).
RESIDUAL_RTOL = 1e-10

__all__ = [
    "AdaptiveNeighborLoss",
    "adaptive_neighbor_gamma",
    "adaptive_neighbor_weights",
    "rwl_an_objective",
    "simplex_weights",
    "solve_adaptive_neighbors_pca",
]


def _adaptive_neighbors(g: np.ndarray, k: int) -> tuple[np.ndarray, float]:
    """Algorithm 1 on validated input: the weights ``p`` and the ``gamma`` of eq. (14)."""
    n = g.shape[0]
    p = np.zeros(n)
    if k == n:
        p.fill(1.0 / n)
        return p, np.inf
    kth = np.partition(g, k - 1)[k - 1]  # g_(k), O(n)
    selected = g < kth
    n_below = int(selected.sum())
    selected[np.flatnonzero(g == kth)[: k - n_below]] = True  # ties broken by index
    above = g[g > kth]
    if above.size == 0:  # every error from g_(k) on is equal: interval (14) unbounded
        p[selected] = 1.0 / k
        return p, np.inf
    gap = above.min() - g[selected]  # g_(k+1) - g_i > 0 on the k selected samples
    total = float(gap.sum())
    p[selected] = gap / total
    return p, 0.5 * total


def _check_errors(g, n_neighbors) -> tuple[np.ndarray, int]:
    g = np.asarray(g, dtype=np.float64)
    if g.ndim != 1 or g.size == 0:
        raise ValueError(f"g must be a non-empty 1-D array of errors, got shape {g.shape}.")
    if not np.all(np.isfinite(g)):
        raise ValueError("g must be finite (no NaN or inf).")
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, numbers.Integral):
        raise TypeError(
            f"n_neighbors must be an int, got {type(n_neighbors).__name__} ({n_neighbors!r})."
        )
    if not 1 <= cast(int, n_neighbors) <= g.size:
        raise ValueError(f"n_neighbors={n_neighbors} must be between 1 and len(g)={g.size}.")
    return g, int(n_neighbors)


def adaptive_neighbor_weights(g, n_neighbors: int) -> np.ndarray:
    r"""Weights with exactly ``n_neighbors`` non-zeros: Zhang & Tong's Algorithm 1 (eq. 15).

    The closed-form solution of problem (6),
    :math:`\min_{p \ge 0, p^\top 1 = 1} \sum_i p_i g_i + \gamma p_i^2`, with
    :math:`\gamma` at the upper end of interval (14):

    .. math::
        p_i = \Bigl(\frac{g_{(k+1)} - g_i}{\sum_{j \le k} (g_{(k+1)} - g_{(j)})}\Bigr)_+ .

    The ``k`` samples with the smallest errors get positive weights that sum to one and
    decrease linearly with the error; all others get exactly zero. It costs ``O(n)``
    (one :func:`numpy.partition`, no sort).

    Parameters
    ----------
    g : array-like of shape (n_samples,)
        Per-sample errors (any finite reals; squared residuals in RWL-AN PCA).
    n_neighbors : int
        ``k``, the number of activated samples, in ``[1, n_samples]``.

    Returns
    -------
    p : ndarray of shape (n_samples,)
        Non-negative weights summing to one, exactly ``k`` of them positive.

    Notes
    -----
    Two cases fall outside the paper's derivation, which assumes
    :math:`g_{(k)} < g_{(k+1)}`:

    * ``k = n``: interval (14) is :math:`(\cdot, \infty)`; its upper end is
      :math:`\gamma = \infty` and every weight is ``1/n`` (RWL-AN PCA is then PCA).
    * A tie :math:`g_{(k)} = g_{(k+1)}`: interval (14) is empty -- no :math:`\gamma`
      gives exactly ``k`` non-zeros, because problem (6) weights equal errors equally
      (eq. 11). We keep exactly ``k``: among the tied samples the lowest indices are
      activated, the other tied samples are removed from the problem, and (15) is
      applied to the rest, i.e. :math:`g_{(k+1)}` becomes the smallest error strictly
      above :math:`g_{(k)}` (the exact solution of problem 6 on the samples that
      remain). If no error exceeds :math:`g_{(k)}`, the ``k`` activated weights are
      ``1/k`` (the ``k = n`` rule on what remains). Weights are therefore
      non-increasing in the error with ties broken by index, never NaN.

    References
    ----------
    R. Zhang and H. Tong, "Robust Principal Component Analysis with Adaptive Neighbors",
    NeurIPS 2019, problem (6), eqs. (11)-(15), Algorithm 1.

    Examples
    --------
    >>> from robustpca.solvers.adaptive_neighbors import adaptive_neighbor_weights
    >>> adaptive_neighbor_weights([4.0, 0.0, 3.0, 9.0], 2)
    array([0. , 0.8, 0.2, 0. ])
    """
    g, k = _check_errors(g, n_neighbors)
    return _adaptive_neighbors(g, k)[0]


def adaptive_neighbor_gamma(g, n_neighbors: int) -> float:
    r"""The regularisation :math:`\gamma` that Algorithm 1 uses: the upper end of (14).

    :math:`\gamma = \frac{k}{2} g_{(k+1)} - \frac12 \sum_{j\le k} g_{(j)}`, ``inf`` when
    ``k = n`` (or, after the tie rule of :func:`adaptive_neighbor_weights`, when no
    error exceeds :math:`g_{(k)}`).

    Parameters
    ----------
    g : array-like of shape (n_samples,)
        Per-sample errors (any finite reals; squared residuals in RWL-AN PCA).
    n_neighbors : int
        ``k``, the number of activated samples, in ``[1, n_samples]``.

    Returns
    -------
    float

    Examples
    --------
    >>> from robustpca.solvers.adaptive_neighbors import adaptive_neighbor_gamma
    >>> adaptive_neighbor_gamma([4.0, 0.0, 3.0, 9.0], 2)
    2.5
    """
    g, k = _check_errors(g, n_neighbors)
    return _adaptive_neighbors(g, k)[1]


def simplex_weights(g, gamma: float) -> np.ndarray:
    r"""Problem (6) for a fixed :math:`\gamma \ge 0`: the projection of :math:`-g/2\gamma`.

    Problem (6) equals problem (8), :math:`\min_{p\in\Delta} \tfrac12\lVert p +
    g/2\gamma\rVert^2`, the Euclidean projection onto the probability simplex, whose
    solution is eq. (11), :math:`p_i = (\lambda - g_i/2\gamma)_+ = (\tau - g_i)_+ /
    2\gamma` with the threshold :math:`\tau` set by :math:`p^\top 1 = 1` (found by
    sorting, ``O(n log n)``; working with :math:`\tau` rather than :math:`g/2\gamma`
    avoids overflow for tiny :math:`\gamma`). The number of non-zeros then depends on
    the errors.

    Parameters
    ----------
    g : array-like of shape (n_samples,)
        Per-sample errors.
    gamma : float
        The regularisation :math:`\gamma \ge 0`. ``inf`` gives uniform weights; ``0`` (a
        linear program) spreads the mass evenly over the smallest errors.

    Returns
    -------
    p : ndarray of shape (n_samples,)
        Non-negative weights summing to one.

    Examples
    --------
    >>> from robustpca.solvers.adaptive_neighbors import simplex_weights
    >>> simplex_weights([4.0, 0.0, 3.0, 9.0], 2.5)
    array([0. , 0.8, 0.2, 0. ])
    """
    g = np.asarray(g, dtype=np.float64)
    n = g.size
    if np.isinf(gamma):
        return np.full(n, 1.0 / n)
    w = g - g.min()
    u = np.sort(w)
    tau = (np.cumsum(u) + 2.0 * gamma) / np.arange(1, n + 1)
    active = np.flatnonzero(tau > u)
    p = np.maximum(tau[active[-1]] - w, 0.0) if active.size else np.zeros(n)
    total = p.sum()
    if total > 0:
        return p / total
    lowest = w == 0.0
    return lowest / lowest.sum()


def rwl_an_objective(g: np.ndarray, p: np.ndarray, gamma: float) -> float:
    r"""Objective (16) (or 6): :math:`\sum_i p_i g_i + \gamma p_i^2`.

    Parameters
    ----------
    g : ndarray of shape (n_samples,)
        Per-sample errors (squared residuals).
    p : ndarray of shape (n_samples,)
        Weights on the simplex.
    gamma : float
        The regularisation :math:`\gamma`. With :math:`\gamma = \infty` (``k = n``) the
        regulariser is an infinite constant and only :math:`\sum_i p_i g_i` is returned.

    Returns
    -------
    float
    """
    value = float(p @ g)
    if np.isfinite(gamma):
        value += float(gamma * (p @ p))
    return value


@dataclass(frozen=True)
class AdaptiveNeighborLoss(RobustLoss):
    r"""Problem (6) as a loss for :func:`~robustpca.solvers.minimize_reweighted`.

    For residual norms :math:`r`, the errors are :math:`g = r^2`; ``weights(r)`` is the
    minimiser :math:`p` of problem (6) and ``rho(r)`` the per-sample terms
    :math:`p_i g_i + \gamma p_i^2`, which sum to objective (16).

    Parameters
    ----------
    n_neighbors : int
        ``k``, used when ``gamma`` is None.
    gamma : float or None, default=None
        None re-picks :math:`\gamma` by eq. (14) for every residual vector (Algorithm
        1: exactly ``k`` non-zero weights); a float fixes it (problem 6 by
        :func:`simplex_weights`; objective 16 then never increases).
    """

    n_neighbors: int
    gamma: float | None = None

    def _solve(self, r: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        g = r * r
        if self.gamma is None:
            p, gamma = _adaptive_neighbors(g, self.n_neighbors)
        else:
            p, gamma = simplex_weights(g, self.gamma), self.gamma
        return p, gamma, g

    def rho(self, r):
        r"""The per-sample terms :math:`p_i g_i + \gamma p_i^2` of objective (16).

        Parameters
        ----------
        r : ndarray of shape (n_samples,)
            Residual norms; the errors are :math:`g = r^2`.
        """
        p, gamma, g = self._solve(r)
        return p * g + (gamma * p * p if np.isfinite(gamma) else 0.0)

    def weights(self, r):
        """The minimiser :math:`p` of problem (6) for the errors :math:`g = r^2`.

        Parameters
        ----------
        r : ndarray of shape (n_samples,)
            Residual norms.
        """
        return self._solve(r)[0]

    def gamma_for(self, r: np.ndarray) -> float:
        r"""The :math:`\gamma` in force for residual norms ``r``.

        Parameters
        ----------
        r : ndarray of shape (n_samples,)
            Residual norms.
        """
        return self._solve(r)[1]

    @property
    def refitted(self) -> bool:
        r"""``gamma=None`` re-picks :math:`\gamma` for every residual vector."""
        return self.gamma is None


def _initial_weights(init, n: int, rng: np.random.Generator) -> np.ndarray:
    if isinstance(init, str) and init == "uniform":
        return np.full(n, 1.0 / n)
    if isinstance(init, str) and init == "random":
        return rng.dirichlet(np.ones(n))  # uniform on the simplex (Algorithm 2, step 1)
    return np.asarray(init, dtype=np.float64)


def _residuals(sub) -> np.ndarray:
    """Residual norms of a weighted-PCA solution, with rounding-level ones set to 0."""
    r = sub.residuals()
    r[r <= RESIDUAL_RTOL * np.sqrt(sub.sq_norms)] = 0.0
    return r


def _final_residuals(problem, sub, loop_residuals, mean, basis) -> np.ndarray:
    """Residual norms at the returned ``mean`` and ``basis``, rounding-level ones set to 0.

    The scatter route formed the loop's last residuals explicitly, in its last pass over
    the data, from this very mean and basis: they are reused (no pass). The Gram route's
    are differences of squares, and a completed basis (fewer usable directions than
    ``n_components``, e.g. ``n_neighbors <= n_components``) is not the loop's: then one
    blocked pass forms them explicitly (one block of scratch, no ``n x d`` temporary).
    The rounding threshold uses the ``||x_i - mean||`` of the last solve, as in the loop.
    A subproblem that holds no data (the dask Gram route's
    :class:`~robustpca.solvers.chunked_gram.GramWeightedPCA`) forms them by its
    ``final_residuals``.
    """
    if not problem.gram and sub.eigvals.size >= problem.n_components:
        return loop_residuals
    if hasattr(problem, "final_residuals"):
        r = problem.final_residuals(sub, basis)
    else:
        r = np.sqrt(subspace_sq_residuals(problem.X, mean, basis))
    r[r <= RESIDUAL_RTOL * np.sqrt(sub.sq_norms)] = 0.0
    return r


def solve_adaptive_neighbors_pca(
    X: np.ndarray | None,
    n_components: int,
    n_neighbors: int,
    *,
    rng: np.random.Generator,
    gamma: float | None = None,
    init: str | np.ndarray = "uniform",
    max_iter: int = 300,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    route: str = "auto",
    problem=None,
) -> SolverResult:
    r"""Solve problem (16) of Zhang & Tong by Algorithm 2 (RWL-AN PCA).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or None
    n_components : int
        Subspace dimension (``m`` in the paper).
    n_neighbors : int
        ``k``, the number of activated samples, in ``[1, n_samples]``.
    rng : numpy.random.Generator
        Draws ``init='random'`` and completes rank-deficient bases.
    gamma : float or None, default=None
        None: Algorithm 2 as published, :math:`\gamma` re-picked by eq. (14) at every
        iteration (exactly ``k`` non-zero weights; objective 16 may increase). A float:
        block-coordinate descent on (16) with this fixed :math:`\gamma` (monotone).
    init : {'uniform', 'random'} or ndarray of shape (n_samples,), default='uniform'
        Starting weights: ``1/n`` (the first subspace is PCA's), a uniform draw on the
        simplex (Algorithm 2, step 1), or given non-negative weights.
    max_iter, tol, callback
        See :func:`~robustpca.solvers.minimize_reweighted` (stop on the relative change
        of objective 16).
    route : {'auto', 'gram', 'scatter'}
        See :class:`~robustpca.linalg.WeightedPCAProblem`.
    problem : WeightedPCAProblem or MissingPCAProblem, optional
        The weighted-PCA subproblem of ``X`` already built (``route`` is then ignored);
        a :class:`~robustpca.solvers.missing.MissingPCAProblem` runs the loop on the
        observed entries (errors :math:`g_i` are the observed squared residuals).

    Returns
    -------
    SolverResult
        ``weights`` is :math:`p` from Algorithm 1 at the returned subspace (``info``:
        its ``residuals``, norms, and ``gamma``); ``objective`` holds (16) after each
        iteration.

    Notes
    -----
    Residual norms below ``RESIDUAL_RTOL = 1e-10`` times :math:`\lVert x_i - m\rVert` are
    set to zero: they are rounding, and without this the samples lying exactly on the
    subspace would be ranked by rounding noise and an exact fit would never stop.
    """
    if problem is None:
        problem = WeightedPCAProblem(X, n_components, rng, route=route)
    loss = AdaptiveNeighborLoss(n_neighbors=n_neighbors, gamma=gamma)
    res = minimize_reweighted_pca(
        problem,
        loss,
        _initial_weights(init, problem.n_samples, rng),
        residuals=_residuals,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
    )
    sub = res.solution
    basis, mean = sub.basis(), sub.mean()
    r = _final_residuals(problem, sub, res.residuals, mean, basis)
    p, gamma, _ = loss._solve(r)
    return SolverResult.from_loop(
        res, components=basis.T, mean=mean, weights=p, info={"residuals": r, "gamma": gamma}
    )
