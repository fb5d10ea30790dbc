"""The incremental machinery shared by the online low-rank plus sparse estimators.

scikit-learn's incremental convention (as :class:`sklearn.decomposition.IncrementalPCA`):
``partial_fit(X)`` updates the state and returns ``self``; ``fit(X)`` starts afresh and
runs ``n_passes`` passes of the same updates over batches of ``batch_size`` rows;
``n_samples_seen_`` counts the rows processed. A subclass implements ``_start``
(the state from the burn-in buffer), ``_advance`` (one batch: its split and the updated
state), ``_split`` (the split of new rows, the state unchanged) and ``_basis``.

**Burn-in.** The first rows, up to ``burn_in`` (and at least ``n_components + 1``),
are kept in a buffer. Until it holds more rows than components there is no model (the
estimator is not fitted; fewer rows are fitted exactly, with no residual to scale the
penalties by). From then on, after every batch of a stream, the model is started again
from all buffered rows and seeded with them (robust start: the per-feature median,
where it is a direction of the data, and the top directions around it,
:func:`~robustpca.solvers.orpca_start.initial_directions`, then the first update on the
buffered rows), from the stream's first random draws: the model that ``fit`` gives on
those rows, which it ends its first pass with when the data are shorter than
``burn_in``. Early rows are thus split against a background estimated from every row
seen so far. When ``burn_in`` rows are in, that start becomes the stream's state, the
buffer is dropped and the online updates take over. ``fit`` buffers its rows without
starting until the burn-in ends, so a fit and ``partial_fit`` over the same batches
give the same model, whatever the length of the data.
Memory is the state's O(p r) plus, during the burn-in only, at most
``burn_in + batch_size`` rows.

**Rows with no observed entry** (all NaN, a dropped frame) carry no evidence: a stream
takes them (``partial_fit``, ``partial_fit_decompose``, ``decompose``, the Dask ``fit``;
the in-memory ``fit`` refuses them, as every estimator) and counts them in
``n_samples_seen_``, but they enter neither the start, nor the updates, nor the window
of the diagnostics. Their split is the low-rank part of the model's typical row, the
centre of the diagnostics' scores on the components (the least score-distance fill, the
stream's usual background), and a sparse part of zeros; before the model exists, every
row's low-rank part is the row itself, its gaps at their feature's median over the
buffered rows (0 for a feature seen in none), and its sparse part zero.

**Diagnostics.** ``predict``, ``decision_function`` and ``score_samples`` after
``partial_fit`` judge samples against the distances of the stream's latest rows
(:class:`~robustpca.estimators._stream_reference.ReferenceWindow`: during the burn-in,
every buffered row, as ``fit``; then a bounded window whose latest rows are re-scored
whenever the model moves); after ``fit``, against all its training rows, as every
estimator.
"""

from __future__ import annotations

import collections
import copy
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from .._array_api import (
    FLOAT_DTYPES,
    check_same_namespace,
    finish_fit,
    host_copy,
    input_namespace,
    move_to,
    to_numpy,
)
from .._validation import (
    as_generator,
    check_magnitude,
    check_nonnegative_float,
    check_positive_int,
    magnitude_limit,
)
from ..linalg import flip_component_signs
from ..linalg.eigen import complete_orthonormal
from ..solvers import SolverResult
from ._base import BaseSubspaceEstimator
from ._incremental import check_stream_rank
from ._stream_reference import ReferenceWindow, StreamDiagnostics, empty_rows

__all__ = ["SHARED_ATTRS", "SHARED_PARAMS", "OnlineLowRankSparse"]

#: The parameters and attributes that every online estimator's docstring shares.
SHARED_PARAMS = r"""
    batch_size : int, default=32
        Rows per batch in :meth:`fit` (OR-PCA: per update).
    n_passes : int, default=1
        Passes of :meth:`fit` over the data (one: each row once, as a stream).
    burn_in : int, default=100
        Rows buffered at the start of a stream (rows with an observed entry; at least
        ``n_components + 1``: fewer are fitted exactly, which leaves no residual scale
        to set the penalties by and no variance in the other directions, so until then
        there is no model). After each batch the model is started again from all
        buffered rows (per-feature median, where it is a direction of the data, and
        the top directions around it) and seeded with them: what :meth:`fit` gives on
        those rows. When ``burn_in`` rows are in, the buffer is dropped and the online
        updates take over. A clip's first frames are thus split against a background
        fitted to every frame so far, instead of a random or one-batch start (OR-PCA
        unlearns a wrong start slowly). 0: the first batch only (with more than
        ``n_components`` rows). Each batch of the burn-in pays for that start: batches
        much smaller than ``burn_in`` pay for about ``burn_in / batch`` of them (one for
        a video in batches of at least ``burn_in`` frames).
    random_state : int, Generator or None, default=None
        Seeds the subsampling, the completion of rank-deficient bases and, where the
        burn-in holds more than 50,000 entries, the sample of them whose residuals set
        the robust scale of the start (so that fits of wide frames move slightly with
        it). Every start of the burn-in, and every completion of a rank-deficient basis,
        draws from the stream's first state of the generator: the model published
        after a batch depends on the rows seen, not on the number of calls.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those
        beyond rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`). After ``partial_fit`` the training
        rows are the stream's latest ones: during the burn-in every buffered row, as
        :meth:`fit`; then the distances of at most a thousand, re-scored under the
        current model where their values are kept
        (:mod:`~robustpca.estimators._stream_reference`).
"""

SHARED_ATTRS = r"""
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
    offset_ : float
        ``decision_function = score_samples - offset_``: -1 with
        ``contamination="auto"`` (rrcov's cutoffs), else set so that ``predict`` flags
        that share of the training rows.
    noise_variance_ : float
        Variance of each coordinate orthogonal to the components in the Gaussian model
        of ``score`` (0 where the components span the data; ``get_covariance``).
    converged_, stop_reason_
        Always True and a sentence saying that the passes ran: an online method has no
        stopping test.
"""

#: The stop reason of a fit, which runs a fixed number of passes.
PASSES_DONE = "n_passes passes over the data done (online updates)"


def orthonormal_rows(basis: np.ndarray, energy: np.ndarray | None, draws) -> np.ndarray:
    """Orthonormal rows spanning the columns of ``basis`` (p, r), ordered by the energy
    ``L' E L`` of the low-rank part (``energy`` r x r, e.g. OR-PCA's ``A``; None: by the
    column norms), completed by orthonormal directions where ``basis`` is rank deficient,
    drawn from ``draws``, a generator or a function that returns one (called only then:
    a stream passes a copy of its first state, so that the completion is the same at
    every call)."""
    B = np.asarray(basis, dtype=np.float64)
    r = B.shape[1]
    norm = float(np.linalg.norm(B)) if r == 1 else 0.0
    if norm > 0:  # one direction: no factorisation (a stream publishes every batch)
        return flip_component_signs(B.T / norm).astype(basis.dtype)
    Q, T = np.linalg.qr(B)
    E = np.eye(r) if energy is None else np.asarray(energy, dtype=np.float64)
    M = T @ E @ T.T
    vals, vecs = np.linalg.eigh((M + M.T) / 2)
    order = np.argsort(vals)[::-1]
    vals, vecs = vals[order], vecs[:, order]
    keep = vals > 1e-12 * max(float(vals[0]) if vals.size else 0.0, 1e-300)
    kept = Q @ vecs[:, keep]
    if kept.shape[1] < r:
        kept = complete_orthonormal(kept, r, draws() if callable(draws) else draws)
    comps = kept
    return flip_component_signs(np.ascontiguousarray(comps.T)).astype(basis.dtype)


class OnlineLowRankSparse(StreamDiagnostics, BaseSubspaceEstimator):
    """Base of :class:`~robustpca.OnlineRobustPCA` and :class:`~robustpca.GRASTA`."""

    _supports_auto_rank = False
    #: The method's state object (None before the first batch).
    _state: Any = None
    #: The per-batch losses kept in ``objective_history_`` (bounded: a stream never
    #: grows it).
    _history = 10_000
    #: parameters a stream keeps from its start (``set_params`` between ``partial_fit``
    #: calls may not change them, as ``n_components``)
    _stream_fixed: tuple[str, ...] = ()

    # -- parameters ---------------------------------------------------------------
    #: A dask array is streamed block by block through the same updates
    #: (:mod:`robustpca._dask.online`).
    _dask_fit = "online"

    def _check_params(self) -> None:
        check_positive_int(self.batch_size, "batch_size")
        check_positive_int(self.n_passes, "n_passes")
        check_positive_int(self.burn_in, "burn_in", minimum=0)
        check_positive_int(self.max_iter, "max_iter")
        check_nonnegative_float(self.tol, "tol")
        if self.n_components is not None:
            check_positive_int(self.n_components, "n_components")
        self._check_method_params()

    def _check_method_params(self) -> None:  # pragma: no cover - overridden
        """The method's own parameters."""

    # -- subclass interface -------------------------------------------------------
    def _start(self, buffer: np.ndarray, final: bool, n_last: int, want: bool):
        """Start the state from the burn-in rows ``buffer`` and seed it with them (its
        first update; ``final``: the burn-in ends, else the model of a stream before its
        end); the split of its last ``n_last`` rows if ``want``."""
        raise NotImplementedError

    def _advance(self, Z: np.ndarray, n_last: int | None = None):
        """One online update on ``Z``; the split of ``Z`` (of its last ``n_last`` rows)."""
        raise NotImplementedError

    def _split(self, Z: np.ndarray):
        """``(low_rank, sparse)`` of new rows ``Z`` with the state unchanged."""
        raise NotImplementedError

    def _basis(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The state's basis (p, r) and its energy matrix (r, r) or None."""
        raise NotImplementedError

    def _fitted_info(self) -> dict:
        """Method-specific fitted attributes (name without the trailing underscore)."""
        return {}

    def __sklearn_is_fitted__(self) -> bool:
        """Fitted once there is a model: a stream's first rows, while they are not more
        than ``n_components``, start none (``burn_in``)."""
        return hasattr(self, "components_")

    # -- the incremental loop -----------------------------------------------------
    def _reset(self, n_features: int, rng=None) -> None:
        self._state = None
        self._buffer: list[np.ndarray] | None = []
        self._buffered = 0
        self._rng = as_generator(self.random_state) if rng is None else rng
        # every start of the burn-in and every completion draws from here (a copy)
        self._rng_start = copy.deepcopy(self._rng)
        self._losses: collections.deque[float] = collections.deque(maxlen=self._history)
        self.n_samples_seen_ = 0
        self.n_features_in_ = n_features
        self._window = ReferenceWindow()
        for name in ("components_", "_outlier_reference"):  # no model until a start
            self.__dict__.pop(name, None)

    def _consume(self, Z: np.ndarray, *, want: bool, provisional: bool = False):
        """Process the batch ``Z``: burn-in or online update; its split if ``want``.

        During the burn-in the rows are buffered; with more of them than components a
        stream (``provisional``) starts the model from all of them after every batch,
        and ``fit`` only when the burn-in ends. ``None`` where no start was made."""
        self.n_samples_seen_ += Z.shape[0]
        if self._buffer is None:
            return self._advance(Z)
        self._buffer.append(Z)
        self._buffered += Z.shape[0]
        # a start needs more rows than components: fewer are fitted exactly, leaving no
        # residual scale for the penalties and no variance for the other directions
        enough = self._buffered > self._rank_
        final = enough and self._buffered >= int(self.burn_in)
        if not final and not (provisional and enough):
            return None
        buffer = self._buffer[0] if len(self._buffer) == 1 else np.concatenate(self._buffer)
        self._buffer = None if final else [buffer]
        if provisional:  # the window of the diagnostics is rebuilt from these rows
            self._closed = buffer
        return self._close(buffer, final, Z.shape[0], want)

    def _close(self, buffer: np.ndarray, final: bool, n_last: int, want: bool):
        """The start on the burn-in rows ``buffer``, from the stream's first random draws
        (every start of a stream, and ``fit``'s, draw the same), with no loss recorded
        before it."""
        start = getattr(self, "_rng_start", None)  # None: a stream pickled before it
        if start is not None:
            self._rng = copy.deepcopy(start)
        self._losses.clear()
        return self._start(buffer, final, n_last, want)

    def _check_stream_fixed(self) -> None:
        """A ``ValueError`` naming a parameter of :attr:`_stream_fixed` that ``set_params``
        changed since the stream started: the stream would otherwise ignore it."""
        for name, value in getattr(self, "_fixed_values", {}).items():
            if getattr(self, name) != value:
                raise ValueError(
                    f"{name} has changed from {value!r} to {getattr(self, name)!r} between "
                    f"calls to partial_fit: a stream keeps the {name} it started with. Set it "
                    "back, or call fit to start again with the new value."
                )

    def _holds_batches(self) -> bool:
        """Whether batches given so far are still held (the burn-in's rows): their memory
        must not be reused for later batches."""
        return bool(getattr(self, "_buffer", None))

    def _close_burn_in(self) -> None:
        """End the burn-in on the rows buffered so far (end of a fit's first pass)."""
        if self._buffer:
            buffer = self._buffer[0] if len(self._buffer) == 1 else np.concatenate(self._buffer)
            self._buffer = None
            self._close(buffer, True, 0, False)

    def _publish(self) -> None:
        """Set the fitted attributes from the state (a rank-deficient basis completed by
        the same draws at every call: the components move only with the state)."""
        basis, energy = self._basis()
        start = getattr(self, "_rng_start", None)
        self.components_ = orthonormal_rows(
            basis,
            energy,
            lambda: np.random.default_rng(0) if start is None else copy.deepcopy(start),
        )
        self.mean_ = np.zeros(basis.shape[0], dtype=basis.dtype)
        self.n_components_ = int(basis.shape[1])
        for key, value in self._fitted_info().items():
            setattr(self, f"{key}_", value)

    def _rank(self, n_features: int) -> int:
        r = 1 if self.n_components is None else int(self.n_components)
        if r > n_features:
            raise ValueError(f"n_components={r} must be between 1 and n_features={n_features}.")
        return r

    def _batches(self, n: int):
        step = int(self.batch_size)
        return [(s, min(s + step, n)) for s in range(0, n, step)]

    def _fit_solver(self, X, rng, sample_weight=None):
        batches = self._batches(X.shape[0])
        return self._fit_stream(lambda: (X[start:stop] for start, stop in batches), X.shape[1], rng)

    def _fit_stream(self, one_pass, n_features: int, rng) -> SolverResult:
        """``fit`` on the batches that ``one_pass()`` yields, ``n_passes`` times: those of
        ``batch_size`` rows of an array, or of the row blocks of a dask array
        (:mod:`robustpca._dask.online`, whose rows with no observed entry are counted
        and passed over, as in a stream)."""
        self._reset(n_features, rng)
        self._rank_ = self._rank(n_features)
        n_batches = 0
        for p in range(int(self.n_passes)):
            for batch in one_pass():
                empty = empty_rows(batch) if getattr(self, "n_missing_", 0) else None
                if empty is not None:
                    self.n_samples_seen_ += int(empty.sum())
                    batch = batch[~empty]
                if batch.shape[0]:
                    self._consume(batch, want=False)
                n_batches += 1
            if p == 0:
                self._close_burn_in()
        self._publish()
        basis_info = {k: getattr(self, f"{k}_") for k in self._fitted_info()}
        losses = np.asarray(self._losses if self._losses else [0.0], dtype=float)
        return SolverResult(
            components=self.components_,
            mean=self.mean_,
            weights=None,
            n_iter=max(n_batches, 1),
            converged=True,
            stop_reason=PASSES_DONE,
            objective=losses,
            info={"n_samples_seen": self.n_samples_seen_, **basis_info},
        )

    # -- public incremental API ---------------------------------------------------
    #: Whether the last batch validated holds NaN (a plain batch holds none).
    _batch_gaps = False

    def _validate_batch(self, X, *, first: bool):
        self._batch_gaps = False
        if self._plain_batch(X, first=first):
            if first:  # what validate_data(reset=True) sets for an array without names
                self.n_features_in_ = X.shape[1]
            return X
        X = validate_data(
            self,
            X,
            dtype=FLOAT_DTYPES,
            reset=first,
            ensure_min_samples=1,
            ensure_all_finite=self._finite,
        )
        check_magnitude(X)
        self._batch_gaps = bool(self._supports_missing and np.isnan(X).any())
        return X

    def _plain_batch(self, X, *, first: bool = False) -> bool:
        """Whether a batch needs none of ``validate_data``'s work: a C-contiguous float32
        or float64 ndarray (of the fitted width, after the first batch) whose largest and
        smallest entries are finite and within
        :func:`~robustpca._validation.check_magnitude`'s bound (two passes; a stream's hot
        path, and its first batch: scikit-learn's first validation in a process looks up
        the dataframe plugins of every installed package). Anything else takes the full
        validation, which raises its errors."""
        width = X.shape[1] if first and getattr(X, "ndim", 0) == 2 else -2
        if not (
            type(X) is np.ndarray
            and X.dtype in (np.float32, np.float64)
            and X.ndim == 2
            and X.flags.c_contiguous
            and X.shape[0] >= 1
            and X.shape[1] >= 1
            and X.shape[1] == (width if first else getattr(self, "n_features_in_", -1))
            and not hasattr(self, "feature_names_in_")
        ):
            return False
        top, bottom = float(np.max(X)), float(np.min(X))  # NaN propagates
        if not (np.isfinite(top) and np.isfinite(bottom)):
            return False
        return max(abs(top), abs(bottom)) <= magnitude_limit(X.dtype, X.size)

    def _incremental(self, X, *, want: bool):
        from .._validation import is_dask_collection

        if is_dask_collection(X):
            return self._incremental_blocks(X, want=want)
        xp, device = input_namespace(X)  # an array-API batch: solved on the host
        X = to_numpy(X)  # also without dispatch, as fit: a float32 batch stays float32
        # a stream has begun at its first batch, even one that starts no model
        first = not hasattr(self, "n_samples_seen_") or "_buffer" not in self.__dict__
        # every batch (set_params between calls), as fit does, and the stream's rank
        self._check_params()
        self._validate_common()
        if not first:
            check_stream_rank(self, self._rank_)
            self._check_stream_fixed()
        if first:
            X = self._validate_batch(X, first=True)
            self._reset(X.shape[1])
            self._rank_ = self._rank(X.shape[1])
            self._fixed_values = {name: getattr(self, name) for name in self._stream_fixed}
            self.n_missing_ = 0
        else:
            X = self._validate_batch(X, first=False)
        empty = None
        if self._batch_gaps:
            self.n_missing_ += int(np.isnan(X).sum())
            empty = empty_rows(X)
        rows = X if empty is None else X[~empty]  # the rows with evidence (module docstring)
        self.n_samples_seen_ += X.shape[0] - rows.shape[0]
        split = None
        into = self._route()
        if rows.shape[0] and (empty is None or into is None):
            split = self._consume(rows, want=want, provisional=True)
        elif rows.shape[0]:  # the route's out array is the whole batch's: not these rows'
            self._residual_into = (None,)
            try:
                split = self._consume(rows, want=want, provisional=True)
            finally:
                self._residual_into = into
        fitted = self._state is not None
        if fitted:
            self._publish()
            self.converged_ = True
            self.stop_reason_ = PASSES_DONE
            self.objective_history_ = np.asarray(self._losses or [0.0], dtype=float)
            self._unmodelled_constants = None
            if rows.shape[0]:
                first_row = self.n_samples_seen_ - X.shape[0]
                positions = np.arange(X.shape[0]) if empty is None else np.flatnonzero(~empty)
                self._track_reference(rows, first_row + positions)
        self.n_iter_ = getattr(self, "n_iter_", 0) + 1
        if want:
            split = self._whole_split(X, empty, split)
        if xp is None:
            return split
        if fitted:
            finish_fit(self, X.dtype, xp, device)
        return None if split is None else tuple(move_to(a, xp=xp, device=device) for a in split)

    def _incremental_blocks(self, X, *, want: bool):
        """A dask array's row blocks as consecutive batches, computed one at a time;
        their parts (NumPy) if ``want``."""
        from .._dask.arrays import as_float_array, row_blocks

        X = row_blocks(as_float_array(X, keep_float32=True))
        parts = [
            self._incremental(np.asarray(X.blocks[i].compute()), want=want)
            for i in range(X.numblocks[0])
        ]
        if not want:
            return None
        return tuple(np.concatenate([part[j] for part in parts]) for j in range(2))

    def partial_fit(self, X, y=None):
        """Update the model with the batch ``X`` (rows are samples); returns ``self``.

        The first call starts the stream (and the burn-in); ``n_samples_seen_`` counts
        every row given. There is a model once more rows than ``n_components`` have
        come (until then the estimator is not fitted, and the rows wait in the buffer);
        during the burn-in it is the model :meth:`fit` gives on the rows so far
        (``burn_in``). Every call checks the parameters, as ``fit`` does; an
        ``n_components`` changed since the start is a ``ValueError`` (as scikit-learn's
        ``IncrementalPCA``). A row with no observed entry (all NaN: a dropped frame) is
        counted and passed over: it carries no evidence (the module docstring of
        :mod:`robustpca.estimators._online_base`). ``X`` is not modified and nothing per
        row is kept beyond the burn-in buffer, which holds the batches themselves, not
        copies: a caller that writes each new batch into the same array must pass copies
        until the burn-in ends (``n_samples_seen_`` at least ``burn_in`` and
        ``n_components + 1``), and the diagnostics' window, which keeps copies of a few
        latest rows (:mod:`~robustpca.estimators._stream_reference`). A dask array's
        row blocks are the batches, computed one at a time, in order.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        self : object
        """
        self._incremental(X, want=False)
        return self

    def partial_fit_decompose(self, X):
        """Update the model with the batch ``X`` and return the batch's two parts.

        One pass for a stream (a video): each batch is split with the model as it was
        when the batch arrived, then the model is updated (the order of the papers'
        algorithms), so a row's split never uses the row itself, except during the
        burn-in, when it is the split of the start's first update on the buffered rows
        (the batches themselves, as in :meth:`partial_fit`). Before there is a model
        (no more rows than ``n_components``), each row is its own low-rank part (its
        gaps at their feature's median over the rows so far) and the sparse part is
        zero. A row with no observed entry gets the low-rank part of the model's
        typical row (the centre of the diagnostics' scores on the components: the
        stream's usual background) and a sparse part of zeros; it does not update the
        model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        low_rank, sparse : ndarray of shape (n_samples, n_features)
            NumPy arrays, also for a dask ``X`` (its row blocks are the batches, as in
            :meth:`partial_fit`); under ``array_api_dispatch``, arrays of ``X``'s
            namespace and device.
            The low-rank part (it fills missing entries) and the sparse part (zero where
            ``X`` is missing). GRASTA: ``X = low_rank + sparse`` on the observed entries;
            OR-PCA (stable PCP): ``X - low_rank - sparse`` is the dense residual inside
            ``[-lambda2_, lambda2_]``. For a foreground mask, threshold
            ``|X - low_rank|`` (or ``|sparse|``).
        """
        return self._incremental(X, want=True)

    def decompose(self, X):
        """Low-rank and sparse parts of the rows of ``X``, without updating the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        low_rank, sparse : ndarray of shape (n_samples, n_features)
            See :meth:`partial_fit_decompose`, rows with no observed entry included
            (the typical row's low-rank part; ``transform`` and ``reconstruct`` refuse
            them, as every estimator's: they give scores and a fit, which such a row
            has none of). Lazy dask arrays for a dask ``X``.

        Raises
        ------
        ValueError
            Under ``array_api_dispatch``, when ``X`` is not of the namespace and device
            of the fitted model (as ``transform``; :meth:`partial_fit_decompose` instead
            moves the model to the batch's).
        """
        check_is_fitted(self)
        from .._validation import is_dask_collection

        if is_dask_collection(X):
            from .._dask.online import lazy_decompose

            return lazy_decompose(self, X)
        # the model is not updated: X must be where fit put it (partial_fit moves it)
        check_same_namespace(X, self, attribute="components_", method="decompose")
        xp, device = input_namespace(X)
        # validated by a copy: the batch's gap flags are the stream's (partial_fit reads
        # them after validating), not to be reset by a reader in another thread
        model = copy.copy(self)
        X = model._validate_batch(to_numpy(X), first=False)
        host = host_copy(model)
        empty = empty_rows(X) if model._batch_gaps else None
        if empty is None:
            parts = host._split(X)
        else:  # rows with no observed entry: the typical row (module docstring)
            kept = X[~empty]
            parts = host._whole_split(X, empty, host._split(kept) if kept.shape[0] else None)
        return parts if xp is None else tuple(move_to(a, xp=xp, device=device) for a in parts)
