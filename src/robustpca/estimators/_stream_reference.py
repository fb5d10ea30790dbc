"""The training diagnostics of a stream: the reference of ``predict`` after ``partial_fit``.

``fit`` estimates the cutoffs of the diagnostics on all its training rows
(:func:`~robustpca.diagnostics.diagnostic_reference`). A stream keeps no rows, so
:class:`ReferenceWindow` keeps the distances of the latest rows instead: each batch adds
the score vectors and orthogonal distances of some of its rows, taken against the model
as it stands after the batch, and the reference is that of the rows in the window.

* **The burn-in.** While the burn-in buffer holds the stream's rows, the window is
  rebuilt from them after every batch (the latest :data:`WINDOW_ROWS`), against the
  model started from them: the reference of ``fit`` on those rows.
* **Bounded.** The rows among the stream's latest :data:`WINDOW_ROWS`, ``(k + 2)``
  numbers each, whatever the stream's length (the online estimators' memory stays
  O(p k)); older rows leave the window.
* **Cheap.** A batch adds all its rows when they hold at most :data:`BATCH_ENTRIES`
  entries, and otherwise as many rows as fit in that many entries (at least
  :data:`MIN_ROWS`), evenly spaced: a table's stream keeps every row of the window,
  a video's batch of a hundred frames pays for about a dozen projections.
* **Re-scored.** The values of the window's latest rows are kept, up to
  :data:`RAW_ENTRIES` entries but at least :data:`MIN_ROWS` rows (every row of the window
  for a table of up to 262 features; for a video, the latest 8 to a dozen picked
  frames: memory stays O(p) beside the model and a batch), and their distances are
  taken again
  under the current model: whenever it moves where they hold at most
  :data:`EXACT_ENTRIES` entries (a table of up to 65 features: the reference is then
  exactly that of its latest rows under the model, as ``fit``'s), otherwise once the
  subspace has drifted by about 0.8 degrees (:data:`RESCORE_COSINE`) from where they
  were scored. A subspace that moves a lot from one batch to the next (early in a
  stream, on most batches) thus no longer empties the window: it had left ``predict``
  with the cutoffs of one batch (GRASTA on rrcov's ``hbk`` with ``burn_in=10`` in
  batches of 7 rows: 66 of 75 rows flagged instead of the 14 documented outliers).
* **Tracking the rest.** Between re-scorings, and for the older rows whose values are
  not kept (wide rows), the stored scores are carried into the new basis by
  :math:`C_{old} C_{new}^T` (exact for a row in the old subspace; the part of a row
  outside it is that row's orthogonal distance, kept as it was), so the score centre
  and scales are those of the current axes. Where the subspace jumps (a principal
  angle above :data:`MIN_COSINE`'s), the rows without kept values are dropped: their
  distances would judge new samples against a subspace that is gone; the kept rows,
  re-scored, remain.
* **No evidence, no row.** Rows with no observed entry are not in the window; their
  split is that of the model's typical row, the centre of the reference's scores on the
  components (:class:`StreamDiagnostics`, :mod:`._online_base`).

``fit`` seeds the window with its last training rows, so ``partial_fit`` after ``fit``
continues from them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._array_api import to_numpy
from ..diagnostics import DEFAULT_QUANTILE, diagnostic_reference, observed_counts
from ..linalg.work_space import reusable
from ..solvers.orpca_start import observed_median
from ._outlier_api import OutlierDetectorMixin, contamination_offset

__all__ = ["ReferenceWindow", "StreamDiagnostics", "empty_rows"]

#: Rows of the stream the window spans (the latest ones).
WINDOW_ROWS = 1000
#: Entries of a batch whose rows all enter the window.
BATCH_ENTRIES = 1 << 18
#: Rows a batch adds at least (all its rows if it has fewer).
MIN_ROWS = 8
#: Entries of the window's latest rows whose values are kept and re-scored when the
#: model moves (at least :data:`MIN_ROWS` rows): 2 MiB of float64.
RAW_ENTRIES = 1 << 18
#: The least cosine of the principal angles between the old and new subspace for which
#: the stored scores of rows without kept values are carried (about 8 degrees); beyond,
#: those rows leave the window.
MIN_COSINE = 0.99
#: Kept rows of at most this many entries in all (a table of up to 65 features) are
#: re-scored whenever the model moves: their distances are always the model's.
EXACT_ENTRIES = 1 << 16
#: Larger ones (wide tables, frames) are re-scored once a principal angle between the
#: subspace they were scored at and the current one exceeds about 0.8 degrees (a cosine
#: below this), and carried with the others until then: a video's slow drift costs no
#: projections.
RESCORE_COSINE = 0.9999

#: ``rescore(rows)``: the scores (m, k) and orthogonal distances (m,) of kept rows under
#: the current model.
Rescore = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def empty_rows(X: np.ndarray) -> np.ndarray | None:
    """The rows of ``X`` with no observed entry (a boolean mask), or None where none."""
    empty = np.isnan(X).all(axis=1)
    return empty if empty.any() else None


def _least_cosine(a: np.ndarray, b: np.ndarray) -> float:
    """The least cosine of the principal angles between the row spaces of ``a`` and
    ``b`` (orthonormal rows; 0 for another rank)."""
    if a.shape != b.shape:
        return 0.0
    return float(np.linalg.svd(a @ b.T, compute_uv=False).min(initial=1.0))


class ReferenceWindow:
    """Distances of the latest rows of a stream (module docstring)."""

    def __init__(self) -> None:
        self._empty()

    def _empty(self) -> None:
        self.scores: np.ndarray | None = None
        self.od = np.zeros(0)
        self.index = np.zeros(0, dtype=np.int64)  # each row's position in the stream
        self.observed: np.ndarray | None = None  # rows' observed counts (missing entries)
        self.basis: np.ndarray | None = None
        # the values of the window's last rows, in blocks (a copy of each batch's pick)
        self._raw: list[np.ndarray] = []
        self._n_raw = 0
        self._scored: np.ndarray | None = None  # the basis they were last scored at

    def __setstate__(self, state: dict) -> None:
        """A window pickled before its rows' values were kept: none are."""
        self.__dict__.update({"_raw": [], "_n_raw": 0, "_scored": None, **state})

    @property
    def n_rows(self) -> int:
        return int(self.od.shape[0])

    @property
    def n_raw(self) -> int:
        """Rows whose values are kept (the window's last ones)."""
        return self._n_raw

    @property
    def raw(self) -> np.ndarray | None:
        """The kept rows' values, (n_raw, p), or None (their blocks merged into one)."""
        if len(self._raw) > 1:
            self._raw = [np.concatenate(self._raw)]
        return self._raw[0] if self._raw else None

    def pick(self, shape: tuple[int, int]) -> np.ndarray:
        """The rows of a batch of ``shape`` (n, p) to add (module docstring)."""
        n, p = shape
        take = min(n, max(MIN_ROWS, BATCH_ENTRIES // max(p, 1)))
        return np.unique(np.linspace(0, n - 1, take).round().astype(np.intp))

    def _trim_raw(self, m: int) -> None:
        """Keep the values of the last ``m`` kept rows at most."""
        while self._raw and self._n_raw - self._raw[0].shape[0] >= m:
            self._n_raw -= self._raw.pop(0).shape[0]
        if self._n_raw > m:
            self._raw[0] = self._raw[0][self._n_raw - m :]
            self._n_raw = m

    def _keep_last(self, m: int) -> None:
        """Keep the window's last ``m`` rows."""
        if m >= self.n_rows:
            return
        start = self.n_rows - m
        assert self.scores is not None
        self.scores, self.od, self.index = self.scores[start:], self.od[start:], self.index[start:]
        if self.observed is not None:
            self.observed = self.observed[start:]
        self._trim_raw(m)

    def follow(self, components: np.ndarray, rescore: Rescore | None = None) -> None:
        """Bring the stored distances to the axes of ``components`` (k, p; any array
        namespace): the kept rows re-scored by ``rescore`` once the subspace has moved
        from where they were scored (None: carried as the others), the others carried
        or, after a jump, dropped (module docstring)."""
        new = np.asarray(to_numpy(components), dtype=np.float64)
        old, self.basis = self.basis, new
        if old is None or self.scores is None:
            return
        if old.shape == new.shape and np.array_equal(old, new):
            return
        n_raw = self._n_raw if rescore is not None else 0
        # beyond about 8 degrees (or another rank) the stored distances are stale
        carry = _least_cosine(old, new) >= MIN_COSINE
        if not carry:
            self._keep_last(n_raw)  # the rows without kept values leave
            if not n_raw:
                self._empty()
                self.basis = new
                return
        scored = self._scored
        exact = n_raw * new.shape[1] <= EXACT_ENTRIES
        if n_raw and (
            not carry or exact or scored is None or _least_cosine(scored, new) < RESCORE_COSINE
        ):
            raw = self.raw
            assert rescore is not None and raw is not None
            n_old = self.n_rows - n_raw  # carried (none after a jump)
            parts = [self.scores[:n_old] @ (old @ new.T)] if n_old else []
            scores, od = rescore(raw)
            parts.append(np.asarray(scores, dtype=np.float64).reshape(n_raw, -1))
            self.scores = np.vstack(parts)
            self.od = self.od.copy()
            self.od[n_old:] = np.asarray(od, dtype=np.float64)
            self._scored = new
        else:  # every row carried into the new axes
            self.scores = self.scores @ (old @ new.T)

    def add(self, index, scores, od, observed=None, *, seen: int, rows=None) -> None:
        """Append rows (their stream positions ``index``, scores (m, k), ODs (m,),
        observed counts or None, and their values ``rows`` (m, p) to keep, or None) and
        drop those before the latest ``WINDOW_ROWS`` of the ``seen`` rows."""
        od = np.asarray(od, dtype=np.float64)
        scores = np.asarray(scores, dtype=np.float64).reshape(od.shape[0], -1)
        full = np.iinfo(np.intp).max  # a complete row
        if observed is not None or self.observed is not None:
            new = np.full(od.shape[0], full, np.intp) if observed is None else observed
            old = np.full(self.n_rows, full, np.intp) if self.observed is None else self.observed
            self.observed = np.concatenate([old, np.asarray(new, dtype=np.intp)])
        self.scores = scores if self.scores is None else np.vstack([self.scores, scores])
        self.od = np.concatenate([self.od, od])
        self.index = np.concatenate([self.index, np.asarray(index, dtype=np.int64)])
        self._keep_raw(rows)
        keep = self.index >= seen - WINDOW_ROWS  # the latest rows: a suffix of the window
        if not keep.all():
            self._keep_last(int(keep.sum()))

    def _keep_raw(self, rows) -> None:
        """Keep a copy of the values of the rows just added, and of the latest before
        them, within :data:`RAW_ENTRIES` entries (at least :data:`MIN_ROWS` rows); None:
        the window's last rows have no kept values, so none are kept."""
        if rows is None or not rows.shape[0]:
            self._raw, self._n_raw, self._scored = [], 0, None
            return
        if self._scored is None:
            self._scored = self.basis
        limit = max(RAW_ENTRIES // max(rows.shape[1], 1), MIN_ROWS)
        # a copy: the window must not hold a caller's memory, nor a whole batch by a view
        block = np.array(rows[-limit:], copy=True)
        self._raw.append(block)
        self._n_raw += block.shape[0]
        self._trim_raw(limit)

    def reference(self, model):
        """The :class:`~robustpca.diagnostics.DiagnosticReference` of the window."""
        observed = self.observed
        if observed is not None:
            observed = np.minimum(observed, int(model.n_features_in_))
        return diagnostic_reference(model, self.scores, self.od, n_observed=observed)

    def offset(self, reference, contamination: float) -> float:
        """``offset_`` that flags ``contamination`` of the window's rows."""
        assert self.scores is not None
        sd = reference.score_distances(self.scores)
        diagnostics = reference.diagnostics(sd, self.od, DEFAULT_QUANTILE)
        return contamination_offset(-diagnostics.outlyingness, contamination)


class StreamDiagnostics(OutlierDetectorMixin):
    """The diagnostics of an online estimator (mixed in before its base estimator): the
    window of :class:`ReferenceWindow` after each batch of a stream, seeded by ``fit``,
    and the reference and ``offset_`` taken from it; and the split of the rows the
    model has no evidence on (:mod:`._online_base`)."""

    # the estimator's (declared, not defined: the estimator's own come first)
    _window: ReferenceWindow
    _state: Any
    _buffer: list[np.ndarray] | None
    _residual_into: tuple[np.ndarray | None] | None
    components_: Any
    n_missing_: int
    n_samples_seen_: int

    def _track_reference(self, Z: np.ndarray, positions: np.ndarray) -> None:
        """Set the diagnostics' window after the batch ``Z`` (the rows with an observed
        entry, at ``positions`` in the stream): during the burn-in rebuilt from every
        buffered row, then with rows of ``Z`` added; and the reference and ``offset_``
        from it (module docstring)."""
        closed = self.__dict__.pop("_closed", None)
        if closed is not None:  # a start on the buffered rows: fit's reference on them
            # (their distances cost little next to the start on them)
            self._seed_window(closed[-WINDOW_ROWS:])
        else:
            window = self._window
            window.follow(self.components_, self._reference_distances)
            picked = window.pick(Z.shape)
            rows = Z[picked]
            scores, od = self._reference_distances(rows)
            observed = observed_counts(self, rows) if self.n_missing_ else None
            window.add(
                positions[picked], scores, od, observed, seen=self.n_samples_seen_, rows=rows
            )
        self._store_reference()

    def _store_reference(self) -> None:
        window = self._window
        self._outlier_reference = reference = window.reference(self)
        store = getattr(self, "_set_likelihood_reference", None)
        if store is not None:  # the Gaussian model of score()
            store(window.scores, window.od, None, window.observed)
        contamination = getattr(self, "contamination", "auto")
        auto = isinstance(contamination, str)
        self.offset_ = -1.0 if auto else window.offset(reference, float(contamination))

    def _set_outlier_reference(self, X, sample_weight=None) -> None:
        """The reference of ``fit`` (all its rows), and the stream's window seeded with
        the distances of its last rows, for ``partial_fit`` to continue from."""
        super()._set_outlier_reference(X, sample_weight)
        self._seed_window(X[-min(X.shape[0], WINDOW_ROWS) :])

    def _seed_window(self, rows: np.ndarray) -> None:
        """The stream's window, afresh, with the distances of ``rows``: the last rows of
        the fit (``n_samples_seen_`` counts them), or the burn-in's."""
        window = self._window = ReferenceWindow()
        window.follow(self.components_)
        index = np.arange(-rows.shape[0], 0) + self.n_samples_seen_
        empty = empty_rows(rows) if self.n_missing_ else None
        if empty is not None:  # no evidence: not in the window (a Dask fit's tail)
            rows, index = rows[~empty], index[~empty]
        scores, od = self._reference_distances(rows)
        observed = observed_counts(self, rows) if self.n_missing_ else None
        window.add(index, scores, od, observed, seen=self.n_samples_seen_, rows=rows)

    def _typical_row(self, dtype) -> np.ndarray:
        """The low-rank part of the model's typical row: the centre of the reference's
        scores on the components (zero scores where the reference has none)."""
        comps = np.asarray(to_numpy(self.components_), dtype=np.float64)
        reference = getattr(self, "_outlier_reference", None)
        centre = None if reference is None else np.asarray(reference.score_center, np.float64)
        if centre is None or centre.shape != (comps.shape[0],) or not np.isfinite(centre).all():
            centre = np.zeros(comps.shape[0])
        return (centre @ comps).astype(dtype)

    def _route(self) -> tuple | None:
        """OR-PCA's residual route while it runs (``_partial_fit_residual``): the
        one-tuple of its ``out`` array; None otherwise."""
        return getattr(self, "_residual_into", None)

    def _whole_split(self, X: np.ndarray, empty: np.ndarray | None, split):
        """The split of the whole batch ``X`` from ``split``, that of its rows with an
        observed entry (None: no model yet, or no such row): the rows of ``empty``, and
        every row before the model exists, as the module docstring says."""
        into = self._route()
        if self._state is None:
            return self._unmodelled_split(X, into)
        if empty is None:
            return split
        fill = self._typical_row(X.dtype)
        low_kept = None if split is None else split[0]

        def low_rank() -> np.ndarray:
            low = np.empty_like(X)
            low[empty] = fill
            if low_kept is not None:
                low[~empty] = low_kept() if callable(low_kept) else low_kept
            return low

        second = np.zeros_like(X) if into is None else reusable(into[0], X)
        if second is None:
            second = np.empty_like(X)
        if split is not None:
            second[~empty] = split[1]
        # the sparse part: zero where nothing is seen; the residual: NaN, as X there
        second[empty] = 0 if into is None else np.nan
        return (low_rank if into is not None and callable(low_kept) else low_rank()), second

    def _unmodelled_split(self, X: np.ndarray, into):
        """The split before the model exists (fewer rows than a start needs): each row is
        its own low-rank part, a gap at its feature's median over the buffered rows (0
        where none is seen), and the sparse part is zero (the residual: zero where seen,
        NaN at the gaps)."""
        missing = np.isnan(X)
        low = X.copy()
        if missing.any():
            held = np.concatenate(self._buffer) if self._buffer else X[:0]
            centre = observed_median(held, ~np.isnan(held))
            low[missing] = np.broadcast_to(centre, X.shape)[missing]
        if into is None:
            return low, np.zeros_like(X)
        return low, np.subtract(X, low, out=reusable(into[0], X))
