r"""Grassmannian robust adaptive subspace tracking: GRASTA (He, Balzano & Szlam 2012), the
online split of :mod:`._online_base` on an orthonormal basis fitted by least absolute
deviations (:mod:`robustpca.solvers.grasta`)."""

from __future__ import annotations

import numbers

import numpy as np

from .._docstrings import extended
from .._validation import check_nonnegative_float
from ..linalg.eigen import single_blas_thread
from ..solvers.grasta import GrastaState, admm_l1, admm_l1_rows, grasta_process
from ..solvers.orpca_start import fill_gaps, initial_directions, rows_with_signal
from ._online_base import SHARED_ATTRS, SHARED_PARAMS, OnlineLowRankSparse

__all__ = ["GRASTA"]

#: The level at which GRASTA's adaptive rule starts from the fitted burn-in basis: the
#: authors start at level 0 from a random basis, where large steps are needed; from a
#: fitted one such steps throw the fit away, and the rule climbs back towards level 0
#: by itself while consecutive gradients agree (a drifting subspace).
START_LEVEL = 10


class GRASTA(OnlineLowRankSparse):
    r"""Grassmannian robust adaptive subspace tracking (GRASTA).

    He, Balzano & Szlam (2012): an orthonormal basis :math:`U` follows the stream; each
    sample :math:`v` (a row), observed on a random share ``subsample`` of its non-missing
    entries :math:`\Omega`, is fitted by least absolute deviations,
    :math:`\min_{w, s}\lVert s\rVert_1` s.t. :math:`U_\Omega w + s = v_\Omega`, by ADMM on
    the augmented Lagrangian

    .. math:: \mathcal L(s, w, y) = \lVert s\rVert_1 + y^\top(U_\Omega w + s - v_\Omega)
              + \tfrac\rho2\lVert U_\Omega w + s - v_\Omega\rVert_2^2,

    then :math:`U` takes a gradient step of :math:`\mathcal L` along the Grassmannian
    geodesic, :math:`U(\eta) = U + ((\cos\sigma\eta - 1)Uw/\lVert w\rVert -
    \sin\sigma\eta\,\Gamma/\lVert\Gamma\rVert)w^\top/\lVert w\rVert`, with
    :math:`\Gamma = (I - UU^\top)\chi_\Omega y^*` and :math:`\sigma = \lVert\Gamma\rVert
    \lVert w\rVert` (:mod:`robustpca.solvers.grasta`). The sample's low-rank part is
    :math:`Uw` on every entry (filling the missing ones) and its sparse part the rest.

    Parameters
    ----------
    n_components : int or None, default=1
        The rank ``r`` of the tracked subspace; ``None``: 1, the default (not every
        direction: a subspace of full rank leaves no residual).
    subsample : float, default=0.1
        Share of each sample's observed entries used by its fit and step, in (0, 1]:
        the ADMM costs :math:`O(|\Omega| r^2)` per iteration; the low-rank part is still
        given on every entry. The default suits images (thousands of pixels); with few
        features keep ``subsample * n_features`` well above the rank.
    step : 'adaptive' or float, default='adaptive'
        The geodesic step: the authors' multi-level adaptive rule (steps grow while
        consecutive gradients agree, as under a drifting subspace, and shrink when they
        oppose), or a constant step :math:`t = \sigma\eta` in radians.
    rho : float, default=1.8
        Growth factor (> 1) of the ADMM penalty per iteration (the authors' code).
    max_iter : int, default=60
        Most ADMM iterations per sample (the adaptive rule starts at 5 and raises them
        at deeper levels, up to ``max_iter``).
    tol : float, default=1e-6
        ADMM stops when :math:`\lVert U_\Omega w + s - v_\Omega\rVert \le \mathrm{tol}
        \lVert v_\Omega\rVert`.
    """

    __doc__ = extended(
        __doc__,
        SHARED_PARAMS
        + r"""
    Attributes
    ----------"""
        + SHARED_ATTRS
        + r"""    n_missing_ : int
        Missing (NaN) entries seen.

    Notes
    -----
    The ADMM's first penalty is :math:`1.25/\lVert v_\Omega\rVert` and the adaptive rule
    compares gradients by their cosine, so the fit is scale-free: data in 0..255 and in
    0..1 give the same split up to the factor. The authors start from a random basis;
    we start from the burn-in rows (their per-feature median, where it is a direction of
    the data, and the top directions around it), so the first frames already have a
    background, and the adaptive rule at level 10 (steps :math:`2^{-10}` of the
    authors' first): from a fitted basis their large first steps throw the fit away,
    and the rule returns to shallower levels by itself while consecutive gradients
    agree. A rank above one whose start misses a
    direction is therefore learned slowly; a start from rows that are all zero (black
    frames), whose basis is a random draw, is made again from the first batch with
    signal, as OR-PCA's. Missing entries (NaN)
    are simply not in :math:`\Omega`. :meth:`decompose` fits new rows on all their
    observed entries by the same ADMM, the basis unchanged.

    References
    ----------
    J. He, L. Balzano and A. Szlam, "Incremental gradient on the Grassmannian for online
    foreground and background separation in subsampled video", IEEE Conference on
    Computer Vision and Pattern Recognition (CVPR), 2012, eqs. (5)-(10) and Algorithm 1;
    the step rule of the authors' ``grasta_stream.m``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import GRASTA
    >>> rng = np.random.default_rng(0)
    >>> frames = np.outer(1 + 0.05 * rng.normal(size=200), 100 + 20 * rng.random(400))
    >>> frames[rng.random(frames.shape) < 0.05] = np.nan  # missing pixels
    >>> model = GRASTA(random_state=0).fit(frames)
    >>> low, sparse = model.decompose(frames[:5])
    >>> bool(np.isfinite(low).all())
    True
    """,
    )

    _supports_missing = True
    _n_components_is_rank = True

    def __init__(
        self,
        n_components=1,
        *,
        subsample=0.1,
        step="adaptive",
        rho=1.8,
        batch_size=32,
        n_passes=1,
        burn_in=100,
        max_iter=60,
        tol=1e-6,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.subsample = subsample
        self.step = step
        self.rho = rho
        self.batch_size = batch_size
        self.n_passes = n_passes
        self.burn_in = burn_in
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.contamination = contamination

    def _check_method_params(self) -> None:
        share = check_nonnegative_float(self.subsample, "subsample", strict=True)
        if share > 1:
            raise ValueError(f"subsample={share!r} must lie in (0, 1].")
        rho = check_nonnegative_float(self.rho, "rho", strict=True)
        if rho <= 1:
            raise ValueError(f"rho={rho!r} must be > 1 (the ADMM penalty's growth).")
        if isinstance(self.step, str):
            if self.step != "adaptive":
                raise ValueError(f"step must be 'adaptive' or a positive float, got {self.step!r}.")
        elif not isinstance(self.step, numbers.Real) or isinstance(self.step, bool):
            raise TypeError(f"step must be 'adaptive' or a positive float, got {self.step!r}.")
        else:
            check_nonnegative_float(float(self.step), "step", strict=True)

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None):
        return self._fit_solver(X, rng)

    def _start(self, buffer, final: bool, n_last: int, want: bool):
        self._begin(buffer)
        # the buffered rows train the step rule and the basis (a first pass)
        return self._advance(buffer, n_last if want else 0)

    #: Whether the state was started from rows with no signal (zeros, on their observed
    #: entries): its basis is then a random completion, not a direction of the data.
    _blind = False

    def _begin(self, rows) -> None:
        """The state started from ``rows`` (their rows with signal, where some have)."""
        missing = np.isnan(rows)
        start = rows
        keep = rows_with_signal(np.where(missing, 0, rows))
        if keep is not None and keep.size:  # rows of zeros would set the median to zero
            start, missing = rows[keep], missing[keep]
        self._blind = keep is not None and not keep.size
        filled = fill_gaps(start, ~missing) if missing.any() else start
        U = initial_directions(filled, self._rank_, self._rng).astype(rows.dtype)
        self._state = GrastaState.start(U, min(5, int(self.max_iter)), level=START_LEVEL)

    def _advance(self, Z, n_last: int | None = None):
        if self._blind:
            keep = rows_with_signal(np.where(np.isnan(Z), 0, Z))
            if keep is None or keep.size:
                # a start from rows that were all zero (black frames) has a random basis,
                # which GRASTA's small steps from level 10 may never leave: the first
                # batch with signal starts the model again, as for OR-PCA
                self._begin(Z)
        with single_blas_thread():  # one small step per row (docs/design-notes/linear-algebra.md)
            low = grasta_process(
                self._state,
                Z,
                self._rng,
                subsample=float(self.subsample),
                rho=float(self.rho),
                min_admm_iter=min(5, int(self.max_iter)),
                max_admm_iter=int(self.max_iter),
                tol=float(self.tol),
                constant_step=None if isinstance(self.step, str) else float(self.step),
            )
        sparse = np.subtract(Z, low)
        missing = np.isnan(sparse)
        if missing.any():
            sparse[missing] = 0
        self._losses.append(float(np.abs(sparse).sum(dtype=np.float64)) / max(Z.shape[0], 1))
        if n_last is None:
            return low, sparse
        if n_last == 0:
            return None
        return low[-n_last:], sparse[-n_last:]

    def _split(self, Z):
        U = self._state.basis
        kw = {
            "rho": float(self.rho),
            "max_iter": max(int(self.max_iter), 20),
            "tol": float(self.tol),
        }
        missing = np.isnan(Z)
        if not missing.any():
            W = admm_l1_rows(Z, U, **kw)
        else:
            W = np.zeros((Z.shape[0], U.shape[1]), dtype=Z.dtype)
            for i in range(Z.shape[0]):
                idx = np.flatnonzero(~missing[i])
                W[i] = admm_l1(U[idx], Z[i, idx], **kw)[1]
        low = W @ U.T
        sparse = np.where(missing, 0, Z - low).astype(Z.dtype, copy=False)
        return low, sparse

    def _basis(self):
        # directions ordered by the recent energy of the weights (the basis is
        # orthonormal, so its own Gram matrix cannot order them)
        return self._state.basis, self._state.energy
