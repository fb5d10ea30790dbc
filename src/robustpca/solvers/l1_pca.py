r"""PCA-L1: greedy L1-norm maximisation of Kwak (2008), with deflation.

For each component the solver maximises the L1 dispersion of the (deflated) centred data,

.. math:: \max_{\lVert w \rVert_2 = 1} \sum_{i=1}^n \lvert w^\top x_i \rvert ,

by Kwak's fixed-point iteration (Algorithm PCA-L1): polarities
:math:`p_i = \operatorname{sign}(w^\top x_i)` (with :math:`\operatorname{sign}(0) = +1`),
then :math:`w \leftarrow \sum_i p_i x_i / \lVert \sum_i p_i x_i \rVert`, until the
polarities stop changing. The objective never decreases (Kwak 2008, Theorem 1). When
the fixed point has a sample with :math:`w^\top x_i = 0`, it is not a local maximum
and Kwak perturbs :math:`w` by a small random vector and iterates again.

Each iteration costs one product :math:`Xw` and one :math:`X^\top p`. The next
component is fitted on the deflated data :math:`X \leftarrow X - (Xw) w^\top`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from ..linalg import _row_slices, complete_orthonormal
from ._result import IterationState, SolverResult, StopReason, relative_change, renumbered
from .informative_coordinates import informative_rows
from .missing import complete, initial_fill

__all__ = ["solve_l1_pca", "solve_l1_pca_missing"]

#: Relative size (against the largest centred sample norm) below which a sample, or the
#: whole deflated data set, counts as zero. A sample lying on the mean is orthogonal to
#: every ``w``, so it must be left out of the "some w^T x_i == 0" test (Nie & Huang).
_NEGLIGIBLE = np.sqrt(np.finfo(float).eps)
#: ``|w^T x_i| <= _ORTHOGONAL * ||x_i||`` counts as ``w^T x_i == 0`` in Kwak's test.
_ORTHOGONAL = np.sqrt(np.finfo(float).eps)


def _polarity(z: np.ndarray) -> np.ndarray:
    """Kwak's polarity: +1 where ``z >= 0`` and -1 elsewhere."""
    return np.where(z >= 0, 1.0, -1.0)


def _perturbation(
    w: np.ndarray, z: np.ndarray, norms: np.ndarray, zero: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Kwak's random nudge of ``w``, small enough to keep every non-zero polarity.

    Its length is half the smallest ``|w^T x_i| / ||x_i||`` over the non-negligible
    samples not in ``zero``, so only the polarities of the orthogonal samples change
    (to random signs). The next iterate then has an objective at least as large:
    flipping the polarity of samples orthogonal to the current ``sum p_i x_i`` can
    only lengthen that sum.
    """
    others = (norms > 0) & ~zero
    margin = float(np.min(np.abs(z[others]) / norms[others])) if np.any(others) else 1.0
    step = rng.standard_normal(int(w.shape[0]))  # int(): the overload for arrays
    step *= 0.5 * min(margin, 1.0) / max(np.linalg.norm(step), np.finfo(float).tiny)
    w = w + step
    return w / np.linalg.norm(w)


def _fit_direction(
    R: np.ndarray,
    norms: np.ndarray,
    floor: float,
    *,
    rng: np.random.Generator,
    max_iter: int,
    tol: float,
    max_perturbations: int,
    history: list[float],
    notify: Callable[[np.ndarray, float], bool] | None,
    start: np.ndarray | None = None,
) -> tuple[np.ndarray, str, int, int]:
    """Kwak's iteration for one direction of ``R``, from ``start`` (a unit vector) or
    Kwak's start, the largest sample; returns ``(w, reason, iters, nudges)``."""
    if start is None or float(np.abs(R @ start).max()) <= _ORTHOGONAL * norms.max():
        start = R[int(np.argmax(norms))] / norms.max()  # Kwak's start
    w = start
    z = R @ w
    p = _polarity(z)
    value = float(np.abs(z).sum())
    n_iter = n_perturb = 0
    while True:
        s = R.T @ p
        w = s / np.linalg.norm(s)
        z = R @ w
        previous, value = value, float(np.abs(z).sum())
        n_iter += 1
        history.append(value)
        if notify is not None and notify(w, value):
            return w, StopReason.CALLBACK, n_iter, n_perturb
        p_new = _polarity(z)
        zero = (np.abs(z) <= _ORTHOGONAL * norms) & (norms > floor)
        # fixed point (step 4(b) of Kwak's algorithm): no polarity changed, or only those
        # of orthogonal samples, which rounding decides (0 counts as +1 in exact terms)
        if np.all(zero[p_new != p]):
            if not np.any(zero) or n_perturb >= max_perturbations:
                return w, StopReason.FIXED_POINT, n_iter, n_perturb
            if n_iter >= max_iter:
                return w, StopReason.MAX_ITER, n_iter, n_perturb
            n_perturb += 1
            p_new = _polarity(R @ _perturbation(w, z, norms, zero, rng))
        elif value - previous <= tol * abs(previous):
            return w, StopReason.TOLERANCE, n_iter, n_perturb
        elif n_iter >= max_iter:
            return w, StopReason.MAX_ITER, n_iter, n_perturb
        p = p_new


def _deflate(R: np.ndarray, w: np.ndarray) -> None:
    """``R <- R - (R w) w^T`` in place, by blocks of rows (no ``n x d`` temporary).

    The rank-one update is elementwise, not SciPy's BLAS ``ger``: the iterations make
    their products with NumPy's BLAS, and a SciPy call between them woke SciPy's
    OpenBLAS threads against NumPy's ("One BLAS library per loop" in
    :mod:`robustpca.linalg.blocked`), several times slower at two BLAS threads than
    at one."""
    z = R @ w
    for rows in _row_slices(*R.shape):
        R[rows] -= np.multiply.outer(z[rows], w)


def _unit_orthogonal(v: np.ndarray, W: np.ndarray) -> np.ndarray | None:
    """``v`` made orthogonal to the rows of ``W`` and normalised; None if nothing is left."""
    for _ in range(2):
        v = v - W.T @ (W @ v)
    length = float(np.linalg.norm(v))
    return v / length if length > _NEGLIGIBLE else None


def _overall_reason(reasons: set[str]) -> str:
    """The fit's stop reason from those of its components, the most serious first."""
    for reason in (StopReason.CALLBACK, StopReason.MAX_ITER, StopReason.TOLERANCE):
        if reason in reasons:
            return reason
    # fixed points, or nothing to iterate on (the centred data are zero)
    return StopReason.FIXED_POINT if reasons else StopReason.EXACT


def solve_l1_pca(
    X: np.ndarray,
    n_components: int,
    *,
    rng: np.random.Generator,
    max_iter: int = 1000,
    tol: float = 0.0,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    max_perturbations: int = 10,
    start: np.ndarray | None = None,
) -> SolverResult:
    r"""Fit ``n_components`` PCA-L1 directions greedily (Kwak 2008, PCA-L1 with deflation).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data (not modified); centred here by the arithmetic mean.
    n_components : int
        Number of directions, at most ``min(n_samples, n_features)``.
    rng : numpy.random.Generator
        Draws Kwak's perturbations and any completion of the basis.
    max_iter : int, default=1000
        Maximum number of fixed-point iterations per component.
    tol : float, default=0.0
        A component also stops when its polarities changed but its objective grew by at
        most ``tol`` times its previous value. With ``0`` this only happens through
        rounding: a change of polarity strictly increases the objective in exact
        arithmetic, so the stop is Kwak's (polarities unchanged).
    callback : callable, optional
        ``callback(iteration, state)`` after every iteration (numbered across
        components); ``state.components`` holds the components fitted so far plus the
        current one. Returning ``True`` stops: the current direction is kept and the
        remaining ones are Kwak's starting points (the largest deflated sample)
        without iterations.
    max_perturbations : int, default=10
        Maximum number of Kwak's random perturbations per component.
    start : ndarray of shape (n_components, n_features), optional
        Starting directions (a warm start, such as the previous EM completion's fit):
        component ``j`` starts from ``start[j]`` made orthogonal to the components
        before it, or from Kwak's start where that is orthogonal to the deflated data.

    Returns
    -------
    SolverResult
        ``mean`` is the arithmetic mean; ``objective`` concatenates, per iteration,
        :math:`\sum_i |w^\top x_i|` of the component being fitted (on the deflated
        data); ``weights`` is ``None``. ``info`` holds ``n_iter_per_component`` and
        ``n_perturbations_per_component``.
    """
    n_features = X.shape[1]
    mean = X.mean(axis=0, dtype=np.float64)
    R = X - mean  # the deflated data (a copy: X is never modified)
    floor = _NEGLIGIBLE * float(np.sqrt(np.einsum("ij,ij->i", R, R).max(initial=0.0)))
    W = np.zeros((n_components, n_features))
    history: list[float] = []
    n_iter = np.zeros(n_components, dtype=int)
    n_perturb = np.zeros(n_components, dtype=int)
    reasons: set[str] = set()

    def notify(j: int, w: np.ndarray, value: float) -> bool:
        assert callback is not None  # notify is passed on only with a callback
        state = IterationState(
            len(history), value, None, lambda: np.vstack([W[:j], w]), lambda: mean
        )
        return bool(callback(len(history), state))

    n_done = 0
    for j in range(n_components):
        norms = np.sqrt(np.einsum("ij,ij->i", R, R))
        if norms.max() <= floor:  # the previous components reconstruct the data exactly
            break
        if StopReason.CALLBACK in reasons:  # stopped: keep Kwak's starting point
            w = R[int(np.argmax(norms))] / norms.max()
        else:
            w, reason, n_iter[j], n_perturb[j] = _fit_direction(
                R,
                norms,
                floor,
                rng=rng,
                max_iter=max_iter,
                tol=tol,
                max_perturbations=max_perturbations,
                history=history,
                notify=None if callback is None else functools.partial(notify, j),
                start=None if start is None else _unit_orthogonal(start[j], W[:j]),
            )
            reasons.add(reason)
        for _ in range(2):  # re-orthogonalise against the previous components (rounding)
            w = w - W[:j].T @ (W[:j] @ w)
        length = np.linalg.norm(w)
        if length <= _NEGLIGIBLE:
            break
        W[j] = w / length
        n_done = j + 1
        _deflate(R, W[j])
    if n_done < n_components:
        W = complete_orthonormal(W[:n_done].T, n_components, rng).T
    reason = _overall_reason(reasons)
    return SolverResult(
        components=W,
        mean=mean,
        weights=None,
        n_iter=int(n_iter.sum()),
        converged=reason not in (StopReason.CALLBACK, StopReason.MAX_ITER),
        stop_reason=reason,
        objective=np.asarray(history, dtype=float),
        info={"n_iter_per_component": n_iter, "n_perturbations_per_component": n_perturb},
    )


#: The EM on missing entries stops when objective (dispersion) changes by at most this
#: relative amount between two completions (PCA-L1's own ``tol`` is 0 by default).
EM_TOL = 1e-5
#: The stop reason of an EM whose completions did not settle (``max_em_iter`` of them).
#: PCA-L1's greedy sign patterns can cycle between completions, even from warm starts.
EM_UNSETTLED = "EM completions not settled after {} iterations"
#: The stop reason of an EM that settled into a cycle of completions (the dispersion
#: repeats at that lag to ``EM_TOL``); the fit keeps the cycle's largest dispersion.
EM_CYCLE = "EM completions cycle with period {}"
#: The longest cycle of completions :func:`solve_l1_pca_missing` looks for.
EM_MAX_PERIOD = 8


def solve_l1_pca_missing(
    X: np.ndarray,
    missing: np.ndarray,
    n_components: int,
    *,
    rng: np.random.Generator,
    max_iter: int = 1000,
    tol: float = 0.0,
    max_perturbations: int = 10,
    max_em_iter: int = 50,
    callback: Callable[[int, IterationState], bool | None] | None = None,
) -> SolverResult:
    """PCA-L1 with missing entries, by EM (:mod:`robustpca.solvers.missing`).

    PCA-L1 is greedy (one direction at a time, with deflation), so each EM iteration
    runs :func:`solve_l1_pca` on the current completion, each direction starting from
    the previous completion's (restarted from Kwak's start, the sign patterns cycled
    between completions more often), then
    completes the missing entries by the least-squares fit of each row's observed
    coordinates to the new subspace, until the L1 dispersion
    :math:`\\sum_{i,j} |w_j^\\top (x_i - m)|` of the completion settles. Rows with at most
    ``k`` informative entries take no part
    (:func:`~robustpca.solvers.informative_coordinates.informative_rows`).

    The sign patterns can also settle into a cycle of completions: the dispersion then
    repeats at a lag of 2 to :data:`EM_MAX_PERIOD` completions, to the same tolerance.
    The EM stops there with :data:`EM_CYCLE`, not converged, and keeps the completion of
    largest dispersion in the cycle (PCA-L1 maximises the dispersion), so that the
    result does not depend on ``max_em_iter``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data; the values at ``missing`` are ignored (may be NaN).
    missing : ndarray of bool of shape (n_samples, n_features)
        True at the missing entries.
    n_components : int
        Number of directions ``k``.
    rng : numpy.random.Generator
        As in :func:`solve_l1_pca`.
    max_iter : int, default=1000
        Maximum number of fixed-point iterations per component, in each EM iteration.
    tol : float, default=0.0
        As in :func:`solve_l1_pca`; the EM stops when the dispersion changes by at most
        ``max(tol, EM_TOL)`` relatively.
    max_perturbations : int, default=10
        As in :func:`solve_l1_pca`.
    max_em_iter : int, default=50
        Most completions; the EM then stops with :data:`EM_UNSETTLED`, not converged,
        unless it settled or cycled before.
    callback : callable or None, default=None
        :func:`solve_l1_pca`'s, with the iterations of every completion numbered on;
        its ``True`` ends the EM too.

    Returns
    -------
    SolverResult
        ``objective`` holds the dispersion per EM iteration; ``n_iter`` counts every
        fixed-point iteration, and ``info``'s per-component counts add up those of
        every completion.
    """
    rows = informative_rows(X, missing, n_components)
    if rows is not None:
        X, missing = X[rows], missing[rows]
    filled = initial_fill(X, missing)
    history: list[float] = []
    n_iter = 0
    counts = {key: np.zeros(n_components, dtype=int) for key in _COUNTS}
    reason = EM_UNSETTLED.format(max_em_iter)
    result: SolverResult | None = None
    recent: list[SolverResult] = []  # the last EM_MAX_PERIOD completions' fits
    for _ in range(max_em_iter):
        result = solve_l1_pca(
            filled,
            n_components,
            rng=rng,
            max_iter=max_iter,
            tol=tol,
            max_perturbations=max_perturbations,
            callback=renumbered(callback, n_iter),
            start=None if result is None else result.components,
        )
        n_iter += result.n_iter
        for key in _COUNTS:  # over every completion, as n_iter
            counts[key] += np.asarray(result.info[key], dtype=int)
        if result.stop_reason != StopReason.CALLBACK:
            filled, _ = complete(filled, missing, result.mean, result.components)
        history.append(float(np.abs((filled - result.mean) @ result.components.T).sum()))
        if result.stop_reason == StopReason.CALLBACK:  # the current completion's
            reason = StopReason.CALLBACK
            break
        if len(history) > 1 and relative_change(history[-2], history[-1]) <= max(tol, EM_TOL):
            reason = result.stop_reason
            break
        recent = [*recent[1 - EM_MAX_PERIOD :], result]
        period = _cycle_period(history, max(tol, EM_TOL))
        if period:
            reason = EM_CYCLE.format(period)
            best = int(np.argmax(history[-period:])) - period
            result = recent[best]
            break
    assert result is not None  # max_em_iter >= 1
    return SolverResult(
        components=result.components,
        mean=result.mean,
        weights=None,
        n_iter=max(n_iter, 1),
        converged=reason not in (StopReason.MAX_ITER, StopReason.CALLBACK)
        and not reason.startswith(("EM completions not settled", "EM completions cycle")),
        stop_reason=reason,
        objective=np.asarray(history),
        info={**result.info, **counts},
    )


#: The per-component counts of :func:`solve_l1_pca`'s ``info``.
_COUNTS = ("n_iter_per_component", "n_perturbations_per_component")


def _cycle_period(history: list[float], tol: float) -> int:
    """The shortest lag ``p`` in ``2..EM_MAX_PERIOD`` at which the last ``p`` dispersions
    each repeat the one ``p`` completions before to ``tol`` (relative), else 0."""
    for period in range(2, EM_MAX_PERIOD + 1):
        if len(history) < 2 * period:
            break
        if all(
            relative_change(history[i - period], history[i]) <= tol
            for i in range(len(history) - period, len(history))
        ):
            return period
    return 0
