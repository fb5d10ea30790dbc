r"""Online robust PCA by stochastic optimisation: OR-PCA (Feng, Xu & Yan 2013).

It and :class:`~robustpca.GRASTA` (:mod:`._grasta`) split a stream of samples (rows;
e.g. the frames of a video, one pixel per feature) into a low-rank part and a sparse
part, with ``partial_fit`` and memory O(p r) whatever the stream's length
(:mod:`robustpca.estimators._online_base`). The model ``X = L + S`` has no offset, as
for :class:`~robustpca.PrincipalComponentPursuit`:
``mean_`` is zero and the common level of the samples (a video's background) is one
direction of ``L``, whose coefficient follows global changes of brightness.
``components_`` spans the tracked subspace; :meth:`transform` projects on it by least
squares, while :meth:`decompose` gives the robust split of new rows.
"""

from __future__ import annotations

import functools

import numpy as np
from sklearn.exceptions import NotFittedError

from .._docstrings import extended
from .._validation import check_nonnegative_float, check_positive_or_auto
from ..linalg.work_space import work_space
from ..solvers.orpca import OrpcaStep, orpca_low_rank, orpca_project, orpca_update
from ..solvers.orpca_observed import orpca_project_observed, orpca_update_observed
from ..solvers.orpca_start import orpca_initialize
from ._online_base import SHARED_ATTRS, SHARED_PARAMS, OnlineLowRankSparse

__all__ = ["OnlineRobustPCA"]


def _has_signal(Z: np.ndarray, observed: np.ndarray | None) -> bool:
    """Whether the batch ``Z`` holds an observed entry other than zero."""
    return bool(np.any(Z != 0) if observed is None else np.any((Z != 0) & observed))


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
    n_components : int or None, default=1
        The rank ``r`` of the basis (a static camera's background: 1 to 5); ``None``:
        1, the default (not every direction: a basis of full rank leaves no residual).
    lambda1 : float or 'auto', default='auto'
        :math:`\lambda_1`, the weight of the nuclear norm; 'auto':
        :math:`\hat\sigma\sqrt p` (Notes).
    lambda2 : float or 'auto', default='auto'
        :math:`\lambda_2`, the weight of the l1 norm of the sparse part; 'auto':
        :math:`\hat\sigma` (Notes). A stream keeps both penalties: changing either
        between :meth:`partial_fit` calls is a ``ValueError``, as for ``n_components``.
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

    __doc__ = extended(
        __doc__,
        SHARED_PARAMS
        + r"""
    Attributes
    ----------"""
        + SHARED_ATTRS
        + r"""    lambda1_, lambda2_ : float
        The penalties used, in the data's units.
    scale_ : float
        :math:`\hat\sigma`, the robust scale of the residual at the end of the burn-in.
    n_missing_ : int
        Missing (NaN) entries seen.

    Notes
    -----
    **Penalties.** The paper sets :math:`\lambda_1 = \lambda_2 = 1/\sqrt p` for its
    simulated data. Such constants are not scale-free: the penalised problem is not
    equivariant (multiplying the data by ``c`` does not multiply its solution by ``c``),
    and on video in 0..255 a threshold of :math:`1/\sqrt p` makes :math:`E` the whole
    residual. 'auto' therefore measures them in :math:`\hat\sigma`, the MAD of the
    entries of the burn-in rows' residual from the start's subspace (rows of zeros left
    out). It is about the noise level where the sparse entries are few; where they are
    many, or large next to the noise, the start's crude fit leaves part of them in every
    residual and :math:`\hat\sigma` exceeds the noise: pass penalties in the data's
    units where the noise level is known. :math:`\lambda_2 = \hat\sigma`, a Huber
    threshold of one noise scale (Algorithm 2 is the Huber regression of :math:`z` on
    :math:`L`), and
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

    **Missing entries** (NaN) are left out of each sample's split, whose low-rank part
    fills them and whose sparse part is zero there, and of the basis update, which then
    solves one ``r x r`` system per feature with that feature's own statistics
    (Mardani, Mateos & Giannakis 2015; :mod:`robustpca.solvers.orpca_observed`): the
    state grows to ``p r^2`` numbers at the stream's first gap. A sample's ridge is
    :math:`\lambda_1\sqrt{|O|/p}` on its :math:`|O|` observed entries, the noise norm of
    what it shows (the paper keeps :math:`\lambda_1`, which capped the coefficients of
    samples seen on few entries). The burn-in's start fills the gaps with their feature's
    median.

    **Guarantee.** With :math:`\beta = 1` the surrogate :math:`g_t(L_t)` converges and
    :math:`g_t(L_t) - f_t(L_t) \to 0` (Theorem 1; ``tests/test_online_rpca.py``).

    References
    ----------
    J. Feng, H. Xu and S. Yan, "Online robust PCA via stochastic optimization",
    Advances in Neural Information Processing Systems 26 (NeurIPS 2013), problems (2)-(3)
    and Algorithms 1-3. M. Mardani, G. Mateos and G. B. Giannakis, "Subspace learning and
    imputation for streaming big data matrices and tensors", IEEE Transactions on Signal
    Processing 63(10), 2015 (missing entries).

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
    """,
    )

    _supports_missing = True
    _n_components_is_rank = True
    _dask_fit = "online"
    _stream_fixed = ("lambda1", "lambda2")

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
        observed = self._observed_entries(buffer)
        # the start's work space is its seeding update's, and at the end of the burn-in
        # the first online update's
        work = work_space(buffer.shape, buffer.dtype) if observed is None else None
        state, self._scale = orpca_initialize(
            buffer,
            self._rank_,
            lambda1=lam1,
            lambda2=lam2,
            rng=self._rng,
            n_iter=1,
            work=work,
            observed=observed,
        )
        self._state = state
        self._work = work  # the buffered rows seed the statistics
        return self._advance(buffer, n_last if want else 0)

    #: The last update's work space (batch-sized), reused by the next update.
    _work: np.ndarray | None = None
    #: While :meth:`_partial_fit_residual` runs: a one-tuple of its ``out`` (None
    #: otherwise), so that the updates give the residual instead of the two parts.
    _residual_into: tuple[np.ndarray | None] | None = None

    def _advance(self, Z, n_last: int | None = None):
        observed = self._observed_entries(Z)
        if not self._state.basis.any() and _has_signal(Z, observed):
            # a start from rows that were all zero (black frames): OR-PCA's updates never
            # leave L = 0, so the first batch with signal starts the model again
            lam1, lam2 = self._lambdas()
            self._state, self._scale = orpca_initialize(
                Z, self._rank_, lambda1=lam1, lambda2=lam2, rng=self._rng, n_iter=1,
                observed=observed,
            )  # fmt: skip
        basis = self._state.basis
        if observed is not None or self._state.A_rows is not None:
            if observed is None:
                observed = np.ones(Z.shape, dtype=bool)
            self._state, step, loss = orpca_update_observed(
                self._state,
                Z,
                observed,
                forgetting=self.forgetting_factor,
                max_iter=self.max_iter,
                tol=self.tol,
            )
            self._losses.append(loss / max(Z.shape[0], 1))
            if n_last == 0:
                return None
            return self._given(self._routed(step, Z), basis, n_last)
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
        missing = np.isnan(Z)  # not the stream's flag: splits may run in several threads
        if missing.any():
            return self._observed_split(Z, ~missing, routed=False)
        # no shared work space: splits of a fitted model may run in several threads
        step = orpca_project(Z, s.basis, s.lambda1, s.lambda2, max_iter=self.max_iter, tol=self.tol)
        return step.low_rank, step.sparse

    #: Whether the rows being consumed may hold NaN (a fit with missing entries, or a
    #: ``partial_fit`` batch that does): a stream without gaps pays no pass to look.
    _gaps = False

    def _observed_entries(self, Z) -> np.ndarray | None:
        """The observed entries of ``Z`` (boolean), or None where all are."""
        if not self._gaps:
            return None
        observed = ~np.isnan(Z)
        return None if observed.all() else observed

    def _observed_split(self, Z, observed, *, routed: bool = True):
        """The split of the rows ``Z`` on their ``observed`` entries (the model
        unchanged), in the form the caller asked for."""
        s = self._state
        step = orpca_project_observed(
            Z, observed, s.basis, s.lambda1, s.lambda2, max_iter=self.max_iter, tol=self.tol
        )
        if not routed:
            return step.parts()
        return self._given(self._routed(step, Z), s.basis)

    def _routed(self, step: OrpcaStep, Z) -> OrpcaStep:
        """``step`` as the residual route wants it (:meth:`_partial_fit_residual`): the
        residual ``X - low_rank`` (NaN at the gaps, as ``X``, for the mask rule,
        :mod:`robustpca.foreground_gaps`) instead of the two parts."""
        if self._residual_into is None:
            return step
        residual = np.subtract(Z, step.parts()[0])
        return OrpcaStep(step.coefficients, None, None, step.clipped, step.n_iter, residual)

    def _fit_solver(self, X, rng, sample_weight=None):
        self._gaps = False
        return super()._fit_solver(X, rng, sample_weight)

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None):
        self._gaps = True
        return super()._fit_solver(X, rng)

    def _validate_batch(self, X, *, first: bool):
        X = super()._validate_batch(X, first=first)
        # once a stream has had a gap, its burn-in buffer may hold it: keep looking
        self._gaps = self._batch_gaps or (not first and getattr(self, "n_missing_", 0) > 0)
        return X

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
        :math:`g_t`, Theorem 1), of the state after the last update.

        Returns
        -------
        float

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before the first fit or update.
        """
        if getattr(self, "_state", None) is None:
            raise NotFittedError(
                "This OnlineRobustPCA instance is not fitted yet; call fit or partial_fit first."
            )
        return self._state.surrogate()
