"""The training diagnostics of a stream: the reference of ``predict`` after ``partial_fit``.

``fit`` estimates the cutoffs of the diagnostics on all its training rows
(:func:`~robustpca.diagnostics.diagnostic_reference`). A stream keeps no rows, so
:class:`ReferenceWindow` keeps the distances of the latest rows instead: each batch adds
the score vectors and orthogonal distances of some of its rows, taken against the model
as it stands after the batch, and the reference is that of the rows in the window.

* **Bounded.** The rows among the stream's latest :data:`WINDOW_ROWS`, ``(k + 2)``
  numbers each, whatever the stream's length (the online estimators' memory stays
  O(p k)); older rows leave the window.
* **Cheap.** A batch adds all its rows when they hold at most :data:`BATCH_ENTRIES`
  entries, and otherwise as many rows as fit in that many entries (at least
  :data:`MIN_ROWS`), evenly spaced: a table's stream keeps every row of the window,
  a video's batch of a hundred frames pays for about a dozen projections.
* **Tracking.** When the subspace moves, the stored scores are carried into the new
  basis by :math:`C_{old} C_{new}^T` (exact for a row in the old subspace; the part of
  a row outside it is that row's orthogonal distance, kept as it was), so the score
  centre and scales are those of the current axes. Where the subspace jumps (a
  principal angle above :data:`MIN_COSINE`'s), the stored rows are dropped: their
  distances would judge new samples against a subspace that is gone.

``fit`` seeds the window with its last training rows, so ``partial_fit`` after ``fit``
continues from them.
"""

from __future__ import annotations

import numpy as np

from .._array_api import to_numpy
from ..diagnostics import DEFAULT_QUANTILE, diagnostic_reference
from ._outlier_api import contamination_offset

__all__ = ["ReferenceWindow"]

#: Rows of the stream the window spans (the latest ones).
WINDOW_ROWS = 1000
#: Entries of a batch whose rows all enter the window.
BATCH_ENTRIES = 1 << 18
#: Rows a batch adds at least (all its rows if it has fewer).
MIN_ROWS = 8
#: The least cosine of the principal angles between the old and new subspace for which
#: the stored scores are carried (about 8 degrees); beyond, the window starts afresh.
MIN_COSINE = 0.99


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

    @property
    def n_rows(self) -> int:
        return int(self.od.shape[0])

    def pick(self, shape: tuple[int, int]) -> np.ndarray:
        """The rows of a batch of ``shape`` (n, p) to add (module docstring)."""
        n, p = shape
        take = min(n, max(MIN_ROWS, BATCH_ENTRIES // max(p, 1)))
        return np.unique(np.linspace(0, n - 1, take).round().astype(np.intp))

    def follow(self, components: np.ndarray) -> None:
        """Carry the stored scores into the axes of ``components`` (k, p; any array
        namespace)."""
        new = np.asarray(to_numpy(components), dtype=np.float64)
        old, self.basis = self.basis, new
        if old is None or self.scores is None:
            return
        if old.shape != new.shape:  # another rank: the stored scores are of no use
            self._empty()
            self.basis = new
        elif not np.array_equal(old, new):
            rotation = old @ new.T
            if np.linalg.svd(rotation, compute_uv=False).min() < MIN_COSINE:
                self._empty()  # the subspace jumped: the stored distances are stale
                self.basis = new
            else:
                self.scores = self.scores @ rotation

    def add(self, index, scores, od, observed=None, *, seen: int) -> None:
        """Append rows (their stream positions ``index``, scores (m, k), ODs (m,) and
        observed counts or None) and drop those before the latest ``WINDOW_ROWS`` of
        the ``seen`` rows."""
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
        keep = self.index >= seen - WINDOW_ROWS
        if not keep.all():
            self.scores, self.od, self.index = self.scores[keep], self.od[keep], self.index[keep]
            if self.observed is not None:
                self.observed = self.observed[keep]

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
