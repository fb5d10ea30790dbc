r"""Projection-pursuit robust PCA: the grid search and PCAproj, as pcaPP computes them.

Both find the components one at a time as the directions :math:`a` (orthogonal to the
ones found before) that maximise a robust scale :math:`S` of the projected data,

.. math::
    a_j = \operatorname*{arg\,max}_{\lVert a \rVert = 1,\ a \perp a_1, \dots, a_{j-1}}
    S\bigl(a^\top (x_1 - \hat\mu), \dots, a^\top (x_n - \hat\mu)\bigr),
    \qquad \lambda_j = S(\cdot)^2,

with :math:`\hat\mu` the L1 (spatial) median (Croux & Ruiz-Gazen 2005;
Croux, Filzmoser & Oliveira 2007). They differ in how they search:

* **grid** (Croux, Filzmoser & Oliveira 2007; pcaPP ``PCAgrid``): the
  direction is improved one coordinate plane at a time (the planes of the current
  direction and each coordinate axis, by decreasing scale of the axis), over a grid of
  ``n_angles`` angles in the plane; the grid is halved ``max_iter`` times around the
  best angle. After each component the data are rotated (a Householder reflection) onto
  the orthogonal complement, in which the next one is searched.
* **proj** (Croux & Ruiz-Gazen 2005; pcaPP ``PCAproj``): the candidate
  directions are the centred (deflated) data points themselves, normalised; the best is
  refined by pcaPP's update (the sign-weighted mean of the candidates, with step
  halving) and the data deflated.

The functions here follow pcaPP 2.0-3's C++ (``PCAgrid.cpp``, ``PCAproj.cpp``) step by
step and in the same order, so that the fits agree with pcaPP to the precision of the
L1 median (pcaPP stops its quasi-Newton search at a gradient of 1e-8; here the median is
solved to rounding, see :func:`l1_median`): the projections of every grid angle, and of
every candidate direction, are evaluated at once with NumPy. One departure: the grid
orders axes whose scales are equal up to rounding as equal (:func:`_axis_order`).

The two papers (Croux & Ruiz-Gazen 2005, JMVA 95(1); Croux, Filzmoser & Oliveira 2007,
Chemometrics and Intelligent Laboratory Systems 87(2)) are cited in full in the
References of :class:`~robustpca.ProjectionPursuitPCA`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..qn_scale import qn
from ..robust_scale import _median_rows
from ._result import StopReason

__all__ = [
    "PCAPP_MAD_CONSTANT",
    "ProjectionPursuitResult",
    "l1_median",
    "scale_function",
    "solve_projection_pursuit",
]

#: pcaPP's MAD constant (``mad_V``), 1 / Phi^{-1}(3/4) to double precision; R's ``mad``
#: rounds it to 1.4826.
PCAPP_MAD_CONSTANT = 1.482602218505602


def _mad(P: np.ndarray, overwrite: bool = False) -> np.ndarray:
    # the MAD of a row does not depend on its order, so the partitioned rows serve
    D = P if overwrite else np.array(P, dtype=np.float64, copy=True)
    med = _median_rows(D)
    np.subtract(D, med[:, None], out=D)
    np.abs(D, out=D)
    return _median_rows(D) * PCAPP_MAD_CONSTANT


def _sd(P: np.ndarray, overwrite: bool = False) -> np.ndarray:
    n = P.shape[1]
    if n < 2:
        return np.zeros(P.shape[0])
    centred = P - P.mean(axis=1, keepdims=True)
    return np.sqrt(np.sum(centred * centred, axis=1) / (n - 1))


def _qn(P: np.ndarray, overwrite: bool = False) -> np.ndarray:
    return np.atleast_1d(qn(P, axis=1))


def scale_function(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """The scale ``S`` of projections.

    All take an (m, n) array of ``m`` projections of the ``n`` samples (one per row)
    and return their ``m`` scales, with pcaPP's constants (MAD times
    1.482602218505602; Qn of :mod:`robustpca.qn_scale`; the standard deviation with
    ``n - 1``). The input is not modified unless ``overwrite=True`` (a temporary).

    Parameters
    ----------
    name : {"mad", "qn", "sd"}
        The scale: median absolute deviation, Qn, or standard deviation.
    """
    return {"mad": _mad, "sd": _sd, "qn": _qn}[name]


def l1_median(X: np.ndarray, *, max_iter: int = 2000, tol: float = 1e-15) -> np.ndarray:
    r"""The L1 (spatial) median :math:`\arg\min_m \sum_i \lVert x_i - m \rVert_2`.

    The modified Weiszfeld iteration of Vardi & Zhang (2000) (which steps off a data
    point that is not the median) from the coordinate-wise median, then Newton steps
    with step halving on the same objective to solve it to rounding. pcaPP's
    ``l1median`` minimises the same objective with R's ``nlm`` and stops at a gradient
    tolerance of 1e-8, so the two agree to about 1e-7 relative on the rrcov tables; but
    where its start, the coordinate-wise median, is a data point (discrete data), the
    gradient there is undefined and pcaPP returns the start unchanged, which this does
    not copy.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    max_iter : int, default=2000
        Most Weiszfeld iterations.
    tol : float, default=1e-15
        Step size at which the Newton steps stop, relative to the largest absolute
        deviation from the coordinate-wise median.

    Returns
    -------
    ndarray of shape (n_features,)
    """
    X = np.asarray(X, dtype=np.float64)
    m = np.median(X, axis=0)
    span = float(np.abs(X - m).max()) if X.size else 0.0
    if span == 0.0:
        return m
    atol = tol * span
    for _ in range(max_iter):
        diff = X - m
        dist = np.sqrt(np.einsum("ij,ij->i", diff, diff))
        at = dist <= 1e-14 * span
        w = 1.0 / np.where(at, 1.0, dist)
        w[at] = 0.0
        t = (w @ X) / w.sum() if w.sum() > 0 else m
        eta = int(at.sum())
        if eta:
            r = w @ (X - m)
            norm_r = float(np.linalg.norm(r))
            gamma = min(1.0, eta / norm_r) if norm_r > 0 else 1.0
            t = (1.0 - gamma) * t + gamma * m if norm_r > 0 else m
        step = float(np.abs(t - m).max())
        m = t
        if step <= 1e-9 * span:
            break
    return _newton_polish(X, m, atol)


def _l1_objective(X: np.ndarray, m: np.ndarray) -> float:
    diff = X - m
    return float(np.sqrt(np.einsum("ij,ij->i", diff, diff)).sum())


def _l1_gradient_norm(X: np.ndarray, m: np.ndarray) -> float:
    diff = m - X
    dist = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    if dist.min() <= 0.0:
        return np.inf
    return float(np.linalg.norm((diff / dist[:, None]).sum(axis=0)))


def _newton_polish(X: np.ndarray, m: np.ndarray, atol: float) -> np.ndarray:
    """Newton steps (with halving) on the L1-median objective, away from data points."""
    p = X.shape[1]
    f = _l1_objective(X, m)
    for _ in range(50):
        diff = m - X
        dist = np.sqrt(np.einsum("ij,ij->i", diff, diff))
        if dist.min() <= 1e-12 * max(float(dist.max()), 1e-300):
            return m  # at a data point: the Hessian is undefined; Weiszfeld's answer stands
        u = diff / dist[:, None]
        grad = u.sum(axis=0)
        hess = np.eye(p) * np.sum(1.0 / dist) - (u / dist[:, None]).T @ u
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            return m
        if not np.all(np.isfinite(step)):
            return m
        t = 1.0
        grad_norm = float(np.linalg.norm(grad))
        while t > 1e-4:
            candidate = m - t * step
            fc = _l1_objective(X, candidate)
            # near the optimum the objective is flat to rounding (a change of m by
            # delta moves it by delta^2): accept a step that shrinks the gradient too
            if fc <= f or _l1_gradient_norm(X, candidate) < grad_norm:
                break
            t *= 0.5
        else:
            return m
        size = float(np.abs(candidate - m).max())
        m, f = candidate, fc
        if size <= atol:
            break
    return m


@dataclass(frozen=True)
class ProjectionPursuitResult:
    """Outcome of :func:`solve_projection_pursuit`.

    Attributes
    ----------
    components : ndarray of shape (n_components, n_features)
        Orthonormal loadings, by decreasing robust scale (pcaPP's order).
    mean : ndarray of shape (n_features,)
        The L1 median (or the centre passed in).
    scales : ndarray of shape (n_components,)
        Robust scale of the scores along each component (pcaPP's ``sdev``).
    eigenvalues : ndarray of shape (n_components,)
        ``scales ** 2`` (rrcov's ``@eigenvalues``).
    n_iter : int
        Grid refinements (``max_iter + 1`` per component) or update steps run.
    method : str
        ``"grid"`` or ``"proj"``.
    stop_reason : str
        Both searches run a fixed number of steps (a closed-form count).
    """

    components: np.ndarray
    mean: np.ndarray
    scales: np.ndarray
    eigenvalues: np.ndarray
    n_iter: int
    method: str
    stop_reason: str = StopReason.CLOSED_FORM


def _rsort_order_rev(values: np.ndarray) -> np.ndarray:
    """pcaPP's ``meal_sort_order_rev``: R's (unstable) Shell sort, reversed."""
    x = [float(v) for v in values]
    idx = list(range(len(x)))
    n = len(x)
    h = 1
    while h <= n // 9:
        h = 3 * h + 1
    while h > 0:
        for i in range(h, n):
            v, iv, j = x[i], idx[i], i
            while j >= h and x[j - h] > v:
                x[j], idx[j] = x[j - h], idx[j - h]
                j -= h
            x[j], idx[j] = v, iv
        h //= 3
    return np.array(idx[::-1], dtype=np.intp)


#: scales of the axes within this share of the largest count as equal (:func:`_axis_order`)
SCALE_TIE_RTOL = float(np.sqrt(np.finfo(np.float64).eps))


def _axis_order(scales: np.ndarray) -> np.ndarray:
    """The grid's order of the axes: pcaPP's (decreasing scale, :func:`_rsort_order_rev`),
    with scales within ``SCALE_TIE_RTOL`` of the largest of each other taken as equal.

    Columns scaled to one robust scale (by their MAD, say) have scales that differ by the
    rounding of the centring alone; ordered by those last bits, the starting axis and the
    order of the planes, and so the optimum the search reaches, changed with a
    perturbation of the data of 1e-15 or with the BLAS threads. Each run of such scales
    takes its largest value, so pcaPP's handling of equal scales decides among them.
    """
    values = np.asarray(scales, dtype=np.float64)
    top = float(np.max(values)) if values.size else 0.0
    if not top > 0:
        return _rsort_order_rev(values)
    order = np.argsort(-values, kind="stable")
    snapped = values.copy()
    for previous, current in itertools.pairwise(order):
        if snapped[previous] - values[current] <= SCALE_TIE_RTOL * top:
            snapped[current] = snapped[previous]
    return _rsort_order_rev(snapped)


def _grid_components(Y, k, scale, max_iter, n_angles, zero_tol):
    """pcaPP's ``CPCAGrid::Calc`` on centred data ``Y``: loadings (p, k) and k scales.

    For each component, ``GridPlane`` is inlined: in the plane of the current direction
    (its projections ``y_opt``) and the axis ``cur_p``, the angles
    ``(i / (n_angles - 1) - 0.5) * pi * 2^-it + asin(loading)`` are tried at once and the
    first with the largest squared scale kept (pcaPP's strict ``>`` in evaluation order).
    """
    p = Y.shape[1]
    L = np.eye(p)
    sdev = np.zeros(k)
    T = np.array(Y.T, dtype=np.float64, order="C")  # one contiguous row per axis
    sm1 = n_angles - 1 if n_angles > 1 else 1
    offsets = [  # the grid of refinement it; the first spans pi, without its end point
        (np.arange(n_angles - 1 if it == 0 else n_angles) / sm1 - 0.5) * (math.pi * 0.5**it)
        for it in range(max_iter + 1)
    ]
    n_iter = 0
    for cur_k in range(k):
        psub = p - cur_k
        if psub == 1:
            sdev[cur_k] = float(scale(T[:1])[0])
            continue
        order = _axis_order(scale(T))
        afin = np.zeros(psub)
        afin[order[0]] = 1.0
        y_opt = T[order[0]].copy()
        obj_best, scat_best, afin_best = 0.0, 0.0, afin.copy()
        best_obj = cur_scat = 0.0
        for it in range(max_iter + 1):
            for j in range(psub):
                cur_p = order[j]
                cur_y = T[cur_p]
                dl = float(afin[cur_p])
                if abs(dl) == 1.0:
                    continue
                if dl != 0.0:  # RemoveLoading
                    dcl = math.sqrt(1.0 - dl * dl)
                    y_opt = (y_opt - cur_y * dl) / dcl
                    afin /= dcl
                    afin[cur_p] = 0.0
                angles = offsets[it] + math.asin(dl)  # GridPlane
                c, s = np.cos(angles), np.sin(angles)
                if dl and abs(dl) < 1e-6:  # pcaPP tries the current direction first
                    c, s = np.r_[1.0, c], np.r_[0.0, s]
                proj = np.multiply.outer(c, y_opt)
                proj += np.multiply.outer(s, cur_y)
                scat = scale(proj)  # (a copy: proj's rows are the candidates)
                obj = scat * scat
                best = int(np.argmax(obj))
                nl, ncl = float(s[best]), float(c[best])
                cur_scat, best_obj = float(scat[best]), float(obj[best])
                y_opt = proj[best]  # AddLoading: y_opt * ncl + cur_y * nl, computed above
                afin *= ncl
                afin[cur_p] = nl
            afin /= math.sqrt(float(afin @ afin))
            if it == 0 or obj_best <= best_obj:
                obj_best, afin_best, scat_best = best_obj, afin.copy(), cur_scat
            n_iter += 1
        sdev[cur_k] = scat_best
        # BackTransform: the Householder reflection taking e_ref to afin_best
        H = np.eye(psub)
        v = -afin_best
        v[order[0]] += 1.0
        norm = math.sqrt(float(v @ v))
        if norm > zero_tol:
            v /= norm / math.sqrt(2.0)
            H -= np.outer(v, v)
        proj_sorted = H[:, order]
        L[:, cur_k:] = L[:, cur_k:] @ proj_sorted
        T = proj_sorted[:, 1:].T @ T
    return L[:, :k], sdev, n_iter


def _null_last_column(L: np.ndarray) -> np.ndarray:
    """pcaPP's ``NULL1``: the last column of a p x p orthogonal matrix from the others."""
    first = L[:, :-1]
    last = np.sqrt(np.clip(1.0 - np.sum(first * first, axis=1), 0.0, None))
    ref = int(np.argmax(last))
    t = first @ first[ref]
    t[ref] *= -1.0
    return np.where(t > 0, -last, last)


def _proj_update(X, A, keep, e, score, lam, scale, max_iter, max_halvings):
    """pcaPP's ``CPCAprojU::Update``: sign-weighted mean of the candidates, halving."""
    steps = 0
    for _ in range(max_iter):
        vh = A.T @ np.sign(score[keep])
        sq = float(vh @ vh)
        if sq == 0.0:
            break
        new = -np.inf
        for kk in range(max_halvings + 1):
            if kk:
                vh = (vh + e) / 2.0
                sq = float(vh @ vh)
            vh = vh / math.sqrt(sq)
            t_scores = X @ vh
            new = float(scale(t_scores[None, :])[0])
            if new >= lam:
                break
        if new < lam:
            break
        score, e, lam = t_scores, vh, new
        steps += 1
    return e, score, lam, steps


def _proj_components(Y, k, scale, update, max_iter, max_halvings, zero_tol, extra=None):
    """pcaPP's ``CPCAproj::Calc``: loadings (p, k), scales.

    ``extra`` rows (pcaPP's ``CalcMethod="lincomb"`` or ``"sphere"``) are further
    candidate directions, deflated with the data; the scales are those of the ``n``
    data rows only (pcaPP includes the extra rows in the scale of the last component
    when ``k = p``, which this does not copy).
    """
    n, p = Y.shape
    X = np.array(Y if extra is None else np.vstack([Y, extra]), dtype=np.float64)
    L = np.zeros((p, k))
    sdev = np.zeros(k)
    n_iter = 0
    # pcaPP's zero.tol is in squared data units: here relative to the largest squared
    # norm of the centred rows, so that the fit does not depend on the data's unit
    largest = float(np.max(np.einsum("ij,ij->i", Y, Y), initial=0.0))
    zero = zero_tol * largest if largest > 0 else zero_tol
    for i in range(k):
        norms2 = np.sum(X * X, axis=1)
        keep = zero <= norms2
        if not keep.any():  # SetSingular: the rest is concentrated in the centre
            if i == 0:
                L[:k, :k] = np.eye(k)
            else:
                L[:, i:] = _orthonormal_complement(L[:, :i], k - i)
            break
        A = X[keep] / np.sqrt(norms2[keep])[:, None]
        if i < p - 1:
            scat = np.empty(A.shape[0])
            block = max(1, 4_000_000 // max(n, 1))
            for start in range(0, A.shape[0], block):
                scat[start : start + block] = scale(
                    A[start : start + block] @ X[:n].T, overwrite=True
                )
            # pcaPP scans the candidates from the last one, keeping a strict improvement
            best = A.shape[0] - 1 - int(np.argmax(scat[::-1]))
            lam = float(scat[best])
            e = A[best].copy()
            score = X @ e
            if update:
                e, score, lam, steps = _proj_update(
                    X, A, keep, e, score, lam, scale, max_iter, max_halvings
                )
                n_iter += steps
            L[:, i] = e
            if i < k - 1:
                X = X - np.outer(score, e)
            sdev[i] = lam
        else:
            L[:, i] = _null_last_column(L)
            sdev[i] = float(scale((X[:n] @ L[:, i])[None, :])[0])
    return L, sdev, n_iter


def _orthonormal_complement(B: np.ndarray, m: int) -> np.ndarray:
    """``m`` orthonormal columns orthogonal to those of ``B`` (MASS's ``Null``)."""
    p = B.shape[0]
    Q = np.linalg.qr(B, mode="complete")[0]
    return Q[:, B.shape[1] : B.shape[1] + m] if B.shape[1] + m <= p else Q[:, -m:]


def solve_projection_pursuit(
    X: np.ndarray,
    n_components: int,
    *,
    method: str = "grid",
    scale: str = "mad",
    max_iter: int = 10,
    n_angles: int = 25,
    update: bool = True,
    update_max_iter: int = 5,
    max_halvings: int = 5,
    candidates: str = "data",
    n_candidates: int = 1000,
    rng: np.random.Generator | None = None,
    center: np.ndarray | None = None,
    zero_tol: float = 1e-16,
) -> ProjectionPursuitResult:
    """Projection-pursuit PCA of ``X`` (pcaPP's ``PCAgrid`` or ``PCAproj``; module docstring).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Not modified.
    n_components : int
        ``k``, at most ``min(n_samples, n_features)``.
    method : {"grid", "proj"}
    scale : {"mad", "qn", "sd"}
        The projection index ``S``.
    max_iter : int
        Grid refinements (pcaPP's ``maxiter``; the grid is searched ``max_iter + 1``
        times, halving the angle range each time).
    n_angles : int
        Angles per plane (pcaPP's ``splitcircle``).
    update, update_max_iter, max_halvings
        PCAproj's refinement of the best candidate (pcaPP's ``update``, ``maxit``,
        ``maxhalf``); pcaPP turns it off for ``candidates`` other than ``"data"``.
    candidates : {"data", "lincomb", "sphere"}
        PCAproj's candidate directions (pcaPP's ``CalcMethod``): the centred data
        points (``"eachobs"``, pcaPP's and rrcov's default), or those plus
        ``n_candidates - n`` random combinations of them with uniform weights, or plus
        as many standard normal directions.
    n_candidates : int
        pcaPP's ``nmax``.
    rng : numpy.random.Generator, optional
        Draws the extra candidates.
    center : ndarray of shape (n_features,), optional
        The centre; by default the L1 median (:func:`l1_median`).
    zero_tol : float
        pcaPP's ``zero.tol``, relative to the largest squared norm of the centred rows
        (pcaPP's is in squared data units; ``"proj"`` only).

    Returns
    -------
    ProjectionPursuitResult
    """
    X = np.asarray(X, dtype=np.float64)
    n, p = X.shape
    k = int(n_components)
    basis = None
    Z = X
    if p > n:  # pcaPP's reduction of wide data: the coordinates x V D of svd(t(x))
        U, d, Vt = np.linalg.svd(X.T, full_matrices=False)
        basis, Z = U, Vt.T * d
    mu = l1_median(Z) if center is None else (center if basis is None else center @ basis)
    Y = Z - mu
    fn = scale_function(scale)
    if method == "grid":
        L, sdev, n_iter = _grid_components(Y, k, fn, max_iter, n_angles, zero_tol)
    else:
        extra, m = None, n_candidates - Y.shape[0]
        if candidates != "data" and m > 0:
            rng = np.random.default_rng() if rng is None else rng
            if candidates == "lincomb":
                extra = rng.uniform(size=(m, Y.shape[0])) @ Y
            else:
                extra = rng.standard_normal(size=(m, Y.shape[1]))
        L, sdev, n_iter = _proj_components(
            Y,
            k,
            fn,
            update and candidates == "data",
            update_max_iter,
            max_halvings,
            zero_tol,
            extra,
        )
    if basis is not None:
        L = basis @ L
        mu = basis @ mu if center is None else np.asarray(center, dtype=np.float64)
    order = np.argsort(-sdev, kind="stable")
    sdev = sdev[order]
    return ProjectionPursuitResult(
        components=np.ascontiguousarray(L[:, order].T),
        mean=np.asarray(mu, dtype=np.float64),
        scales=sdev,
        eigenvalues=sdev * sdev,
        n_iter=int(n_iter),
        method=method,
    )
