r"""Online robust PCA: OR-PCA (Feng, Xu & Yan 2013) and GRASTA (He, Balzano & Szlam 2012).

Both split a stream of samples (rows; e.g. the frames of a video, one pixel per
feature) into a low-rank part and a sparse part, with ``partial_fit`` and memory
O(p r) whatever the stream's length (:mod:`robustpca.estimators._online_base`). The
model ``X = L + S`` has no offset, as for :class:`~robustpca.PrincipalComponentPursuit`:
``mean_`` is zero and the common level of the samples (a video's background) is one
direction of ``L``, whose coefficient follows global changes of brightness.
``components_`` spans the tracked subspace; :meth:`transform` projects on it by least
squares, while :meth:`decompose` gives the robust split of new rows.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from .._validation import check_nonnegative_float, check_positive_or_auto
from ..linalg.work_space import work_space
from ..solvers.grasta import GrastaState, admm_l1, admm_l1_rows, grasta_process
from ..solvers.orpca import OrpcaStep, orpca_low_rank, orpca_project, orpca_update
from ..solvers.orpca_start import initial_directions, orpca_initialize
from ._online_base import OnlineLowRankSparse

__all__ = ["GRASTA", "OnlineRobustPCA"]

#: The level at which GRASTA's adaptive rule starts from the fitted burn-in basis: the
#: authors start at level 0 from a random basis, where large steps are needed; from a
#: fitted one such steps throw the fit away, and the rule climbs back towards level 0
#: by itself while consecutive gradients agree (a drifting subspace).
START_LEVEL = 10

_SHARED_PARAMS = r"""
    batch_size : int, default=32
        Rows per batch in :meth:`fit` (OR-PCA: per update).
    n_passes : int, default=1
        Passes of :meth:`fit` over the data (one: each row once, as a stream).
    burn_in : int, default=100
        Rows buffered at the start of a stream: the model is started again from all
        buffered rows (per-feature median and the top directions around it) after
        each batch whose split is asked for (:meth:`partial_fit_decompose`), and once
        more when ``burn_in`` rows are in; those rows then seed the model and the
        buffer is dropped. A clip's first frames are thus split against a background
        fitted to every frame so far, instead of a random or one-batch start (OR-PCA
        unlearns a wrong start slowly). 0: the first batch only.
    random_state : int, Generator or None, default=None
        Seeds the subsampling and the completion of rank-deficient bases.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those
        beyond rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`). After ``partial_fit`` the training
        rows are the stream's latest ones (the distances of at most a thousand of them
        are kept: :mod:`~robustpca.estimators._stream_reference`).
"""

_SHARED_ATTRS = r"""
    components_ : ndarray of shape (n_components, n_features)
        Orthonormal rows spanning the tracked subspace.
    mean_ : ndarray of shape (n_features,)
        Zeros: the model has no offset (the common level is a direction of the basis).
    n_components_ : int
    n_samples_seen_ : int
        Rows processed (every pass of :meth:`fit` counts).
    n_features_in_ : int
    n_iter_ : int
        Batches processed by the last :meth:`fit` (or calls of :meth:`partial_fit`).
    objective_history_ : ndarray
        The per-row loss of each batch (at most the last 10,000 batches).
    converged_, stop_reason_
        Always True and a sentence saying that the passes ran: an online method has no
        stopping test.
"""


class OnlineRobustPCA(OnlineLowRankSparse):
    r"""Online robust PCA by stochastic optimisation (OR-PCA).

    Feng, Xu & Yan (2013), Algorithm 1: the stable PCP problem
    :math:`\min \tfrac12\lVert Z - X - E\rVert_F^2 + \lambda_1\lVert X\rVert_* +
    \lambda_2\lVert E\rVert_1` (their problem (2)) solved online through the factored
    nuclear norm (problem (3)): each sample :math:`z` (a row) is split on the current
    basis :math:`L` (Algorithm 2),

    .. math:: (r, e) = \arg\min_{r, e}\ \tfrac12\lVert z - Lr - e\rVert_2^2
              + \tfrac{\lambda_1}2\lVert r\rVert_2^2 + \lambda_2\lVert e\rVert_1,

    the statistics :math:`A \leftarrow \beta A + rr^\top`, :math:`B \leftarrow \beta B +
    (z - e)r^\top` are accumulated, and the basis is the minimiser of the surrogate
    :math:`L = B(A + \lambda_1 I)^{-1}` (Algorithm 3 approaches it by block-coordinate
    descent; we solve the ``r x r`` system). Batches of rows are split as matrix
    products (:func:`robustpca.solvers.orpca.orpca_project`).

    Parameters
    ----------
    n_components : int, default=1
        The rank ``r`` of the basis (a static camera's background: 1 to 5).
    lambda1 : float or 'auto', default='auto'
        :math:`\lambda_1`, the weight of the nuclear norm; 'auto':
        :math:`\hat\sigma\sqrt p` (Notes).
    lambda2 : float or 'auto', default='auto'
        :math:`\lambda_2`, the weight of the l1 norm of the sparse part; 'auto':
        :math:`\hat\sigma` (Notes).
    forgetting_factor : float, default=0.99
        :math:`\beta \in (0, 1]`, the decay of :math:`A`, :math:`B` per sample: the basis
        follows a drifting subspace (lighting) over about :math:`1/(1 - \beta)` samples
        (100 frames, a few seconds of video). 1: the paper (no forgetting).
    max_iter : int, default=20
        Inner iterations of Algorithm 2 per batch; with one component, evaluations of
        the root finding that gives the same split
        (:func:`robustpca.solvers.orpca.orpca_project`).
    tol : float, default=1e-4
        Algorithm 2 stops when every row's low-rank part moves by at most ``tol`` times
        the row's norm.
    """

    __doc__ += (
        _SHARED_PARAMS
        + r"""
    Attributes
    ----------"""
        + _SHARED_ATTRS
        + r"""    lambda1_, lambda2_ : float
        The penalties used, in the data's units.
    scale_ : float
        :math:`\hat\sigma`, the robust scale of the residual at the end of the burn-in.

    Notes
    -----
    **Penalties.** The paper sets :math:`\lambda_1 = \lambda_2 = 1/\sqrt p` for its
    simulated data. Such constants are not scale-free: the penalised problem is not
    equivariant (multiplying the data by ``c`` does not multiply its solution by ``c``),
    and on video in 0..255 a threshold of :math:`1/\sqrt p` makes :math:`E` the whole
    residual. 'auto' therefore measures them in :math:`\hat\sigma`, the MAD of the
    entries of the burn-in rows' residual from the start's subspace (the noise level: the
    sparse entries are a minority): :math:`\lambda_2 = \hat\sigma`, a Huber threshold of
    one noise scale (Algorithm 2 is the Huber regression of :math:`z` on :math:`L`), and
    :math:`\lambda_1 = \hat\sigma\sqrt p`, the norm of a sample of pure noise: the
    nuclear norm shrinks a direction's coefficients by about :math:`\lambda_1` over its
    accumulated energy, which removes the directions that carry less than the noise.
    Then the masks of a video in 0..255 and in 0..1 are the same (the split is
    equivariant to the data's scale).

    **Learning rate.** Each sample moves the basis by its clipped residual
    (:math:`|z - e - Lr| \le \lambda_2`) over the accumulated weight, so a wrong start
    (a car in the background) is unlearned slowly; hence the robust start of the
    burn-in. :meth:`fit` with two passes, or ``fit`` then :meth:`decompose`, splits each
    row with a model learned from the whole clip.

    **Guarantee.** With :math:`\beta = 1` the surrogate :math:`g_t(L_t)` converges and
    :math:`g_t(L_t) - f_t(L_t) \to 0` (Theorem 1; ``tests/test_online_rpca.py``).

    References
    ----------
    J. Feng, H. Xu and S. Yan, "Online robust PCA via stochastic optimization",
    Advances in Neural Information Processing Systems 26 (NeurIPS 2013), problems (2)-(3)
    and Algorithms 1-3.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import OnlineRobustPCA
    >>> rng = np.random.default_rng(0)
    >>> background = 100 + 20 * rng.random(400)
    >>> frames = np.outer(1 + 0.05 * rng.normal(size=300), background)
    >>> frames[rng.random(frames.shape) < 0.05] += 80.0  # foreground
    >>> model = OnlineRobustPCA(random_state=0)
    >>> for start in range(0, 300, 50):
    ...     low, sparse = model.partial_fit_decompose(frames[start : start + 50])
    >>> model.n_samples_seen_
    300
    >>> bool(np.abs(sparse).max() > 40)
    True
    """
    )

    def __init__(
        self,
        n_components=1,
        *,
        lambda1="auto",
        lambda2="auto",
        forgetting_factor=0.99,
        batch_size=32,
        n_passes=1,
        burn_in=100,
        max_iter=20,
        tol=1e-4,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.forgetting_factor = forgetting_factor
        self.batch_size = batch_size
        self.n_passes = n_passes
        self.burn_in = burn_in
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.contamination = contamination

    def _check_method_params(self) -> None:
        check_positive_or_auto(self.lambda1, "lambda1")
        check_positive_or_auto(self.lambda2, "lambda2")
        beta = check_nonnegative_float(self.forgetting_factor, "forgetting_factor", strict=True)
        if beta > 1:
            raise ValueError(f"forgetting_factor={beta!r} must lie in (0, 1].")

    def _lambdas(self):
        auto = [None if isinstance(v, str) else float(v) for v in (self.lambda1, self.lambda2)]
        return auto[0], auto[1]

    def _start(self, buffer, final: bool, n_last: int, want: bool):
        lam1, lam2 = self._lambdas()
        # at the end of the burn-in, the start's work space is the first update's
        work = work_space(buffer.shape, buffer.dtype) if final else None
        state, self._scale = orpca_initialize(
            buffer,
            self._rank_,
            lambda1=lam1,
            lambda2=lam2,
            rng=self._rng,
            n_iter=int(final),
            work=work,
        )
        self._state = state
        if final:  # the buffered rows seed the statistics
            self._work = work
            return self._advance(buffer, n_last if want else 0)
        if not want:
            return None
        into = self._residual_into
        step = orpca_project(
            buffer[buffer.shape[0] - n_last :],
            state.basis,
            state.lambda1,
            state.lambda2,
            max_iter=self.max_iter,
            tol=self.tol,
            residual=into is not None,
            out=None if into is None else into[0],
        )
        return self._given(step, state.basis)

    #: The last update's work space (batch-sized), reused by the next update.
    _work: np.ndarray | None = None
    #: While :meth:`_partial_fit_residual` runs: a one-tuple of its ``out`` (None
    #: otherwise), so that the updates give the residual instead of the two parts.
    _residual_into: tuple[np.ndarray | None] | None = None

    def _advance(self, Z, n_last: int | None = None):
        basis = self._state.basis
        into = self._residual_into
        self._state, step, loss = orpca_update(
            self._state,
            Z,
            forgetting=self.forgetting_factor,
            max_iter=self.max_iter,
            tol=self.tol,
            work=self._work,
            residual=into is not None,
            out=None if into is None else into[0],
        )
        # the next batch's work space: a stream of equal batches touches no new memory
        # for it (the two parts are new arrays, given out)
        self._work = step.clipped
        self._losses.append(loss / max(Z.shape[0], 1))
        if n_last == 0:
            return None
        return self._given(step, basis, n_last)

    @staticmethod
    def _given(step: OrpcaStep, basis: np.ndarray, n_last: int | None = None):
        """The split of the last ``n_last`` rows (all: None): the two parts, or, on the
        residual route, the low-rank part as a function that forms it and the
        residual."""
        rows = slice(None) if n_last is None else slice(-n_last, None)
        if step.residual is None:
            low, sparse = step.parts()
            return (low, sparse) if n_last is None else (low[rows], sparse[rows])
        low_rank = functools.partial(orpca_low_rank, step.coefficients[rows], basis)
        return low_rank, step.residual if n_last is None else step.residual[rows]

    def _partial_fit_residual(self, X, out: np.ndarray | None = None):
        """:meth:`partial_fit_decompose` for a stream that thresholds the residual.

        The same update; returns ``(low_rank, residual)``: ``residual = X - low_rank``,
        written over ``out`` where it is an array of ``X``'s validated shape and dtype,
        and ``low_rank()``, which forms the low-rank part (from the batch's coefficients
        and basis) when asked. Neither part is formed otherwise: two batch-sized arrays
        fewer a batch (:func:`robustpca.background_subtraction.subtract_background`).
        """
        self._residual_into = (out,)
        try:
            return self._incremental(X, want=True)
        finally:
            del self._residual_into

    def _split(self, Z):
        s = self._state
        # no shared work space: splits of a fitted model may run in several threads
        step = orpca_project(Z, s.basis, s.lambda1, s.lambda2, max_iter=self.max_iter, tol=self.tol)
        return step.low_rank, step.sparse

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_work", None)  # a batch's work space, not part of the model
        return state

    def _basis(self):
        s = self._state
        return s.basis, (s.A if s.weight > 0 else None)

    def _fitted_info(self) -> dict:
        s = self._state
        return {"lambda1": s.lambda1, "lambda2": s.lambda2, "scale": self._scale}

    def surrogate(self) -> float:
        r"""The surrogate :math:`g_t(L_t)` per unit of accumulated weight (the paper's
        :math:`g_t`, Theorem 1), of the state after the last update."""
        return self._state.surrogate()


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
    n_components : int, default=1
        The rank ``r`` of the tracked subspace.
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

    __doc__ += (
        _SHARED_PARAMS
        + r"""
    Attributes
    ----------"""
        + _SHARED_ATTRS
        + r"""    n_missing_ : int
        Missing (NaN) entries seen.

    Notes
    -----
    The ADMM's first penalty is :math:`1.25/\lVert v_\Omega\rVert` and the adaptive rule
    compares gradients by their cosine, so the fit is scale-free: data in 0..255 and in
    0..1 give the same split up to the factor. The authors start from a random basis;
    we start from the burn-in rows (their per-feature median and the top directions
    around it), so the first frames already have a background, and the adaptive rule
    at level 10 (steps :math:`2^{-10}` of the authors' first): from a fitted basis their
    large first steps throw the fit away, and the rule returns to shallower levels by
    itself while consecutive gradients agree. A rank above one whose start misses a
    direction is therefore learned slowly. Missing entries (NaN)
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
    """
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
        filled = buffer
        if np.isnan(buffer).any():
            centre = np.nanmedian(buffer, axis=0)
            centre = np.where(np.isnan(centre), 0.0, centre).astype(buffer.dtype)
            filled = np.where(np.isnan(buffer), centre, buffer)
        U = initial_directions(filled, self._rank_, self._rng).astype(buffer.dtype)
        self._state = GrastaState.start(U, min(5, int(self.max_iter)), level=START_LEVEL)
        if final:  # the buffered rows train the step rule and the basis (a first pass)
            return self._advance(buffer, n_last if want else 0)
        if not want:
            return None
        return self._split(buffer[buffer.shape[0] - n_last :])

    def _advance(self, Z, n_last: int | None = None):
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
