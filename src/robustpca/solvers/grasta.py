r"""GRASTA: l1 subspace tracking on the Grassmannian (He, Balzano & Szlam, CVPR 2012).

GRASTA follows an orthonormal basis :math:`U \in \mathbb R^{p\times r}` from partial
observations :math:`v_\Omega` of a stream, one vector at a time. For each vector it fits
the weights by least absolute deviations on the observed entries,

.. math:: \min_{w, s}\ \lVert s\rVert_1 \quad\text{s.t.}\quad U_\Omega w + s = v_\Omega,

by ADMM on the augmented Lagrangian (their eq. (5))

.. math:: \mathcal L(s, w, y) = \lVert s\rVert_1 + y^\top(U_\Omega w + s - v_\Omega)
          + \tfrac\rho2\lVert U_\Omega w + s - v_\Omega\rVert_2^2,

(:func:`admm_l1`: :math:`w \leftarrow (U_\Omega^\top U_\Omega)^{-1}U_\Omega^\top
(v_\Omega - s - y/\rho)`, :math:`s \leftarrow \mathcal S_{1/\rho}(v_\Omega - U_\Omega w
- y/\rho)`, :math:`y \leftarrow y + \rho(U_\Omega w + s - v_\Omega)`, with :math:`\rho`
growing geometrically as in the authors' code), then takes one gradient step of
:math:`\mathcal L` in :math:`U` along the Grassmannian geodesic (their eq. (9)-(10)):
with :math:`\Gamma = (I - UU^\top)\chi_\Omega y^*` (the dual :math:`y^*` on
:math:`\Omega`, zero elsewhere, projected off :math:`U`) and
:math:`\sigma = \lVert\Gamma\rVert\lVert w\rVert`,

.. math:: U(\eta) = U + \Big((\cos\sigma\eta - 1)U\frac{w}{\lVert w\rVert}
          - \sin\sigma\eta\,\frac{\Gamma}{\lVert\Gamma\rVert}\Big)
          \frac{w^\top}{\lVert w\rVert},

which keeps :math:`U` orthonormal. The step :math:`t = \sigma\eta` follows the authors'
multi-level adaptive rule (:func:`adaptive_step`): it grows while consecutive
gradients agree and shrinks when they oppose, so the basis follows a drifting subspace
quickly and settles on a static one. Each vector costs :math:`O(|\Omega| r^2 + pr)`:
the random subset :math:`\Omega` of the entries is the method's speed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "GrastaState",
    "adaptive_step",
    "admm_l1",
    "admm_l1_rows",
    "geodesic_step",
    "grasta_process",
    "grasta_step",
]

#: The adaptive rule's constants (the authors' code, ``grasta_stream.m``): bounds of the
#: running :math:`\mu`, the factor between levels and the deepest level.
MIN_MU, MAX_MU, LEVEL_FACTOR, MAX_LEVEL = 1.0, 15.0, 2.0, 20
#: The sigmoid of the rule: :math:`f(x) = f_{min} + (f_{max} - f_{min}) /
#: (1 - (f_{max}/f_{min}) e^{-x/\omega})`.
SIGMOID_FMIN, SIGMOID_FMAX, SIGMOID_OMEGA = -1.0, 1.0, 0.1
#: The largest step along the geodesic (the authors cap it below pi/2).
MAX_STEP = np.pi / 3


#: Memory of :attr:`GrastaState.energy`: about a hundred vectors.
ENERGY_DECAY = 0.99


@dataclass
class GrastaState:
    r"""GRASTA's O(p r) state.

    Attributes
    ----------
    basis : ndarray of shape (n_features, n_components)
        :math:`U`, orthonormal columns.
    last_gamma, last_w : ndarray
        The previous gradient :math:`\Gamma w^\top`, by its factors (for the rule).
    mu : float
        The running :math:`\mu` of the adaptive rule.
    level : int
        The level of the multi-level rule (the step is scaled by ``2 ** -level``).
    step_scale : float
        The rule's constant, set from the first gradient (0 before).
    first_sigma : float
        The first gradient's :math:`\sigma_1`, the largest a later one counts as.
    admm_iter : int
        ADMM iterations per vector at the current level.
    n_seen : int
        Vectors processed.
    energy : ndarray of shape (n_components, n_components)
        Exponentially weighted sum of :math:`w w^\top` (weight ``ENERGY_DECAY`` per
        vector): orders the basis directions by the energy of the data along them.
    """

    basis: np.ndarray
    last_gamma: np.ndarray
    last_w: np.ndarray
    mu: float = MIN_MU
    level: int = 0
    step_scale: float = 0.0
    first_sigma: float = 0.0
    admm_iter: int = 5
    n_seen: int = 0
    energy: np.ndarray | None = None

    @classmethod
    def start(cls, basis: np.ndarray, min_admm_iter: int, level: int = 0) -> GrastaState:
        """The state of a fresh stream.

        Parameters
        ----------
        basis : ndarray of shape (n_features, n_components)
            The starting basis, orthonormal columns (kept, not copied).
        min_admm_iter : int
            ADMM iterations per vector at the start.
        level : int, default=0
            The adaptive rule's starting level (0: the authors' start, for a random basis).
        """
        d, r = basis.shape
        zeros_d, zeros_r = np.zeros(d, basis.dtype), np.zeros(r, basis.dtype)
        return cls(basis, zeros_d, zeros_r, level=level, admm_iter=min_admm_iter)


def _sigmoid(x: float) -> float:
    ratio = SIGMOID_FMAX / SIGMOID_FMIN
    z = float(np.clip(-x / SIGMOID_OMEGA, -50.0, 50.0))
    return SIGMOID_FMIN + (SIGMOID_FMAX - SIGMOID_FMIN) / (1.0 - ratio * np.exp(z))


def admm_l1(
    U: np.ndarray, v: np.ndarray, *, rho: float = 1.8, max_iter: int = 50, tol: float = 1e-6
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    r"""ADMM for :math:`\min \lVert s\rVert_1` s.t. :math:`Uw + s = v` (one vector).

    Returns ``(s, w, y, n_iter)``, ``y`` the scaled dual of the constraint.

    Parameters
    ----------
    U : ndarray of shape (n_observed, n_components)
        The basis on the entries of ``v`` (its columns need not be orthonormal there).
    v : ndarray of shape (n_observed,)
        The vector's entries.
    rho : float, default=1.8
        Growth factor of the penalty per iteration; the penalty starts at
        :math:`1.25/\lVert v\rVert` (scale-free).
    max_iter : int, default=50
        The most iterations.
    tol : float, default=1e-6
        Stops when :math:`\lVert Uw + s - v\rVert \le \mathrm{tol}\,\lVert v\rVert`.
    """
    m, r = U.shape
    norm = float(np.linalg.norm(v))
    w = np.zeros(r, dtype=v.dtype)
    s = np.zeros_like(v)
    y = np.zeros_like(v)
    if not norm > 0 or m == 0:
        return s, w, y, 0
    gram = U.T @ U
    gram = gram + np.eye(r, dtype=gram.dtype) * (1e-10 * max(float(np.trace(gram)), 1e-30))
    P = np.linalg.solve(gram, U.T)
    penalty = 1.25 / norm
    limit = (tol * norm) * (tol * norm)  # no OverflowError for a huge tol: inf
    base = np.empty_like(v)
    t = np.empty_like(v)
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (n_iter is returned)
        inv = 1.0 / penalty
        np.multiply(y, -inv, out=base)
        base += v  # v - y / penalty
        w = P @ (base - s)
        Uw = U @ w
        np.subtract(base, Uw, out=t)
        s = t - np.clip(t, -inv, inv)
        h = Uw + s
        h -= v
        y += penalty * h
        penalty *= rho
        if float(h @ h) <= limit:
            break
    return s, w, y, n_iter


def admm_l1_rows(
    V: np.ndarray, U: np.ndarray, *, rho: float = 1.8, max_iter: int = 50, tol: float = 1e-6
) -> np.ndarray:
    r""":func:`admm_l1` on every row of ``V`` at once: the weights ``W`` (n, r) of the l1
    fits :math:`\min_w \lVert v - Uw\rVert_1`.

    Parameters
    ----------
    V : ndarray of shape (n_samples, n_features)
        Complete rows.
    U : ndarray of shape (n_features, n_components)
        Orthonormal columns (the weight step is :math:`U^\top(\cdot)`, no solve).
    rho : float, default=1.8
        As in :func:`admm_l1`.
    max_iter : int, default=50
        As in :func:`admm_l1`.
    tol : float, default=1e-6
        As in :func:`admm_l1`, for every row.
    """
    norms = np.linalg.norm(V, axis=1, keepdims=True).astype(np.float64)
    safe = np.where(norms > 0, norms, 1.0)
    penalty = (1.25 / safe).astype(V.dtype)
    W = np.zeros((V.shape[0], U.shape[1]), dtype=V.dtype)
    S = np.zeros_like(V)
    Y = np.zeros_like(V)
    Ut = np.ascontiguousarray(U.T)
    for _ in range(max_iter):
        W = (V - S - Y / penalty) @ U
        Uw = W @ Ut
        T = V - Uw - Y / penalty
        S = T - np.clip(T, -1.0 / penalty, 1.0 / penalty)
        H = Uw + S - V
        Y += penalty * H
        penalty = penalty * rho
        if np.all(np.linalg.norm(H, axis=1) <= tol * norms[:, 0]):
            break
    W[norms[:, 0] == 0] = 0
    return W


def adaptive_step(
    state: GrastaState,
    gamma: np.ndarray,
    w: np.ndarray,
    sigma: float,
    *,
    min_iter: int,
    max_iter: int,
) -> float:
    r"""The authors' multi-level adaptive step :math:`t`.

    :math:`\mu \leftarrow \max(\mu + f(-\langle G_{t-1}, G_t\rangle / (\lVert G_{t-1}\rVert
    \lVert G_t\rVert)), \mu_{min})` with the sigmoid :math:`f`, and
    :math:`t = c\,2^{-\ell}\min(\sigma, \sigma_1)/(1 + \mu)`, at most :math:`\pi/3`;
    :math:`c` is fixed by the first gradient :math:`\sigma_1` so that its step is
    :math:`\pi(1 + \mu_{min})/(2(1 + \mu))`. The authors scale by :math:`\sigma` alone;
    from a start fitted to its first sample :math:`\sigma_1` is tiny and every later
    step would be :math:`\pi/3`. When
    :math:`\mu` leaves :math:`[\mu_{min}, \mu_{max}]` the level :math:`\ell` moves by one
    (deeper: smaller steps and more ADMM iterations).

    Parameters
    ----------
    state : GrastaState
        Updated in place: :math:`\mu`, the level, ``admm_iter`` and, on the first
        gradient, ``step_scale``.
    gamma : ndarray of shape (n_features,)
        :math:`\Gamma`, the gradient's left factor (orthogonal to the basis).
    w : ndarray of shape (n_components,)
        The weights, the gradient's right factor: :math:`G_t = \Gamma w^\top`.
    sigma : float
        :math:`\sigma = \lVert\Gamma\rVert\lVert w\rVert`.
    min_iter : int
        The ADMM iterations per vector at the shallowest levels; 2, 4 and 8 times as
        many, at most ``max_iter``, in the deeper bands of levels.
    max_iter : int
        The most ADMM iterations per vector, all of them from level 14 on.
    """
    if not state.step_scale:
        state.step_scale = 0.5 * np.pi * (1.0 + MIN_MU) / sigma
        state.first_sigma = sigma
    # <G_{t-1}, G_t> / (|G_{t-1}| sigma) with G = gamma w', each factor normalised first:
    # the plain products scale as the data's fourth power and overflow far from 1
    norms = [float(np.linalg.norm(a)) for a in (state.last_gamma, state.last_w, gamma, w)]
    if min(norms) > 0 and sigma > 0:
        cosine = (
            float((state.last_gamma / norms[0]) @ (gamma / norms[2]))
            * float((state.last_w / norms[1]) @ (w / norms[3]))
            * (norms[2] / sigma * norms[3])
        )
    else:
        cosine = 0.0
    state.mu = max(state.mu + _sigmoid(-cosine), MIN_MU)
    # the gradient counted at most as large as the first, which fixed the step's scale: a
    # start fitted to its first sample (a tiny first gradient) would take pi/3 steps after
    bounded = min(sigma, state.first_sigma)
    t = min(
        state.step_scale * LEVEL_FACTOR ** (-state.level) * bounded / (1.0 + state.mu), MAX_STEP
    )
    moved = False
    if state.mu <= MIN_MU:
        if state.level > 1:
            state.level -= 1
            moved = True
        state.mu = MIN_MU + 2.0
    elif state.mu > MAX_MU:
        if state.level < MAX_LEVEL:
            state.level += 1
            moved = True
            state.mu = (MAX_MU - 1.0) / 2.0
        else:
            state.mu = MAX_MU
    if moved:  # the authors' schedule: 1, 2, 4, 8 times min_iter by level band
        factor = 1 if state.level < 4 else 2 if state.level < 7 else 4 if state.level < 10 else 8
        state.admm_iter = min(min_iter * factor, max_iter) if state.level < 14 else max_iter
    return t


def geodesic_step(U: np.ndarray, gamma: np.ndarray, w: np.ndarray, t: float) -> None:
    r"""The geodesic update of eq. (10), in place.

    Parameters
    ----------
    U : ndarray of shape (n_features, n_components)
        The orthonormal basis, updated in place.
    gamma : ndarray of shape (n_features,)
        :math:`\Gamma`, orthogonal to ``U``, nonzero.
    w : ndarray of shape (n_components,)
        The weights, nonzero.
    t : float
        The step :math:`\sigma\eta` along the geodesic.
    """
    alpha = w / np.linalg.norm(w)
    beta = gamma / np.linalg.norm(gamma)
    direction = (np.cos(t) - 1.0) * (U @ alpha) - np.sin(t) * beta
    U += np.outer(direction, alpha).astype(U.dtype, copy=False)


def _exact_fit(y: np.ndarray) -> bool:
    """Whether the l1 fit's dual ``y`` (a subgradient of the l1 norm, entries in [-1, 1])
    is at rounding level: the sample lies on the subspace, and its gradient is a
    direction of rounding noise. A step along it would rotate the basis away from the
    data, and as a first gradient it would set the adaptive step's scale a million times
    too large (a static scene lost its whole background)."""
    return bool(np.abs(y).max(initial=0.0) <= np.sqrt(np.finfo(y.dtype).eps))


def grasta_step(
    state: GrastaState,
    v: np.ndarray,
    idx: np.ndarray,
    *,
    rho: float = 1.8,
    min_admm_iter: int = 5,
    max_admm_iter: int = 60,
    tol: float = 1e-6,
    constant_step: float | None = None,
    low_out: np.ndarray | None = None,
) -> np.ndarray:
    """One GRASTA iteration on one vector: the l1 weights ``w`` on the current basis
    (returned), then the geodesic step of the basis (in place in ``state``).

    Parameters
    ----------
    state : GrastaState
        Updated in place.
    v : ndarray of shape (n_features,)
        The vector.
    idx : ndarray of int
        The sorted indices of its entries that enter the fit.
    rho : float, default=1.8
        The ADMM's penalty growth (:func:`admm_l1`).
    min_admm_iter : int, default=5
        ``min_iter`` of :func:`adaptive_step`; the ADMM runs the state's ``admm_iter``.
    max_admm_iter : int, default=60
        ``max_iter`` of :func:`adaptive_step`.
    tol : float, default=1e-6
        The ADMM's tolerance (:func:`admm_l1`).
    constant_step : float or None, default=None
        A fixed step ``t`` instead of the adaptive rule.
    low_out : ndarray of shape (n_features,) or None, default=None
        Receives ``U w``, the low-rank part on every entry, with the basis before its step.
    """
    U = state.basis
    U_O = U[idx]
    _, w, y, _ = admm_l1(U_O, v[idx], rho=rho, max_iter=state.admm_iter, tol=tol)
    if low_out is not None:
        np.matmul(U, w, out=low_out)
    gamma = -(U @ (U_O.T @ y))
    gamma[idx] += y
    state.n_seen += 1
    outer = np.outer(w, w).astype(np.float64)
    state.energy = outer if state.energy is None else ENERGY_DECAY * state.energy + outer
    sigma = float(np.linalg.norm(gamma)) * float(np.linalg.norm(w))
    if not (sigma > 0 and np.isfinite(sigma)) or _exact_fit(y):
        return w
    if constant_step is not None:
        t = float(constant_step)
    else:
        t = adaptive_step(state, gamma, w, sigma, min_iter=min_admm_iter, max_iter=max_admm_iter)
    state.last_gamma, state.last_w = gamma, w
    geodesic_step(U, gamma, w, t)
    return w


def grasta_process(
    state: GrastaState,
    Z: np.ndarray,
    rng: np.random.Generator,
    *,
    subsample: float = 1.0,
    rho: float = 1.8,
    min_admm_iter: int = 5,
    max_admm_iter: int = 60,
    tol: float = 1e-6,
    constant_step: float | None = None,
    reorthonormalize: int = 100,
) -> np.ndarray:
    """GRASTA over the rows of ``Z`` in order; returns their low-rank parts ``U_t w_t``.

    Each row is observed on its non-NaN entries; its low-rank part is the basis before
    its step times its weights, on every entry (0 for a row with no entry observed).

    Parameters
    ----------
    state : GrastaState
        Updated in place.
    Z : ndarray of shape (n_samples, n_features)
        The rows, NaN where missing.
    rng : numpy.random.Generator
        Draws the subsets of ``subsample``.
    subsample : float, default=1.0
        The probability with which each observed entry enters the ADMM: a uniform random
        subset, of at least ``2 r + 1`` entries where the row has them.
    rho : float, default=1.8
        As in :func:`grasta_step`.
    min_admm_iter : int, default=5
        As in :func:`grasta_step`.
    max_admm_iter : int, default=60
        As in :func:`grasta_step`.
    tol : float, default=1e-6
        As in :func:`grasta_step`.
    constant_step : float or None, default=None
        As in :func:`grasta_step`.
    reorthonormalize : int, default=100
        The basis is re-orthonormalised (QR) every this many steps, against rounding
        drift (0: never).
    """
    low = np.empty_like(Z)
    p, r = state.basis.shape
    has_nan = bool(np.isnan(Z).any())
    all_idx = np.arange(p)
    for i in range(Z.shape[0]):
        v = Z[i]
        observed = np.flatnonzero(~np.isnan(v)) if has_nan else all_idx
        idx = observed
        if subsample < 1.0 and observed.size:
            drawn = rng.random(observed.size) < subsample
            idx = observed[drawn]
            floor = min(observed.size, 2 * r + 1)  # never fewer entries than that
            if idx.size < floor:
                idx = np.sort(rng.choice(observed, size=floor, replace=False))
        if idx.size == 0:
            low[i] = 0
            continue
        grasta_step(
            state,
            v,
            idx,
            rho=rho,
            min_admm_iter=min_admm_iter,
            max_admm_iter=max_admm_iter,
            tol=tol,
            constant_step=constant_step,
            low_out=low[i],
        )
        if reorthonormalize and state.n_seen % reorthonormalize == 0:
            # signs kept: the adaptive step compares the last gradient, in this frame
            Q, R = np.linalg.qr(state.basis)
            Q *= np.where(np.diag(R) < 0, -1.0, 1.0).astype(Q.dtype)[None, :]
            # the stream's dtype: float64 once a batch was
            state.basis = Q.astype(np.result_type(state.basis.dtype, Z.dtype), copy=False)
    return low
