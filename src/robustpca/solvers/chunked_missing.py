r"""Missing entries on the tall chunked route: the majorize-minimize loop of
:mod:`robustpca.solvers.missing` in passes over row chunks (PCA and RPCA-OM).

The completion of a chunk is a function of the observed entries and the current
:math:`(b, U)` alone (each row's least-squares fit on its observed coordinates,
:func:`~robustpca.solvers.missing.observed_fit`), so it is never stored: each pass
completes every chunk from the previous state, measures the observed residuals
:math:`r_{O,i}`, weights the rows by the loss (:math:`d_i = h'(r_{O,i}^2)`, a *local*
rule) and returns the weighted moments of the completed chunk. The eigen step of problem
(14) then runs in memory on the ``d x d`` scatter: one pass per iteration, as for
complete data (:mod:`robustpca.solvers.chunked`). The first pass counts the missing
entries and the observed column sums, from which the first completion (column means)
is made.

The iterates are those of the plain in-memory loop except for the start (column means
here, column medians in memory, which would need another pass). The in-memory fit of PCA
and RPCA-OM also extrapolates the completions by SQUAREM
(:mod:`robustpca.solvers.accelerated_em`), which this loop does not (an extrapolation
costs passes of its own). So the fits agree to the tolerance, not to rounding; where
the EM is slow they stop at different points of a flat objective (a random search of
1,500 tall cases with a tenth of the cells missing found RPCA-OM 3e-2 apart in the
projector, the in-memory objective 0.25% lower).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..linalg import complete_orthonormal
from ..losses import RobustLoss
from ._result import IterationState, SolverResult, StopReason
from .chunked import Moments, block_moments
from .chunked_steps import WeightedPCAStep
from .informative_coordinates import (
    ConstantColumns,
    constant_columns,
    rows_fitted_exactly,
    uninformative_entries,
)
from .missing import observed_fit
from .reweighting import ReweightingProgress

__all__ = [
    "ColumnRange",
    "missing_counts_pass",
    "missing_moments_pass",
    "observed_rows_block",
    "solve_missing_chunked",
]


def _constant(value: np.ndarray) -> Callable[[], np.ndarray]:
    """A callback state's lazy attribute that is already computed."""
    return lambda: value


def _every_row(out: dict) -> Moments:
    """The moments of a pass's completion over every row (the left-out rows' added)."""
    return out["moments"] + out["left_out"] if "left_out" in out else out["moments"]


@dataclass(frozen=True, eq=False)
class ColumnRange:
    """The smallest and largest observed entry of each column, over the chunks added
    (``+`` is the pass's combination, :func:`~robustpca.solvers.chunked.combine_parts`).

    Parameters
    ----------
    low, high : ndarray of shape (n_features,)
        The smallest and largest observed entry of each column; NaN in a column with none
        observed yet.
    """

    low: np.ndarray
    high: np.ndarray

    @classmethod
    def of(cls, x: np.ndarray) -> ColumnRange:
        """The range of the observed (non-NaN) entries of each column of ``x``.

        Parameters
        ----------
        x : ndarray of shape (n_rows, n_features)
            A row chunk, NaN where missing.

        Returns
        -------
        ColumnRange
        """
        return cls(np.fmin.reduce(x, axis=0), np.fmax.reduce(x, axis=0))

    def __add__(self, other: ColumnRange) -> ColumnRange:
        return ColumnRange(np.fmin(self.low, other.low), np.fmax(self.high, other.high))

    def constants(self) -> ConstantColumns | None:
        """:func:`~robustpca.solvers.informative_coordinates.constant_columns` of the
        data: the columns whose range is one value."""
        return constant_columns(np.stack([self.low, self.high]))


def missing_counts_pass(x, rows=None, *, check_weights=False) -> dict:
    """First pass: moments (as :func:`~robustpca.solvers.chunked.moments_pass`, valid
    only when no entry is missing), the number of missing entries, the observed
    column sums and counts, and the columns' ranges (:class:`ColumnRange`).

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk, NaN where missing; infinity raises ``ValueError``.
    rows : ndarray of shape (n_rows,) or None, default=None
        The chunk's sample weights, which weight the moments (``None``: ones).
    check_weights : bool, default=False
        Raise ``ValueError`` for non-finite or negative weights.

    Returns
    -------
    dict
        ``moments``, ``n_missing``, ``col_sum``, ``col_count``, ``empty_rows``,
        ``rows_by_observed`` (rows by their number of observed entries),
        ``col_range``, and ``positive_rows`` and ``fractional_rows`` (the rows of
        positive and of non-whole weight: the bound of ``n_components``,
        :func:`~robustpca._validation.weighted_rows`).
    """
    if np.isinf(x).any():
        raise ValueError("Input X contains NaN or infinity; robustpca needs finite data.")
    w = np.ones(x.shape[0]) if rows is None else np.asarray(rows, dtype=np.float64)
    if check_weights:
        if not np.isfinite(w).all():
            raise ValueError("sample_weight contains NaN or infinity.")
        if np.any(w < 0):
            raise ValueError("sample_weight must be non-negative; negative weights were given.")
    missing = np.isnan(x)
    n_missing = int(missing.sum())
    seen = ~missing
    return {
        "moments": block_moments(np.where(missing, 0.0, x) if n_missing else x, w),
        "n_missing": n_missing,
        "col_sum": np.where(seen, x, 0.0).sum(axis=0),
        "col_count": seen.sum(axis=0).astype(np.float64),
        "empty_rows": int(missing.all(axis=1).sum()),
        # rows by their number of observed entries (the rows fitted exactly, per k)
        "rows_by_observed": np.bincount(seen.sum(axis=1), minlength=x.shape[1] + 1),
        "col_range": ColumnRange.of(x),
        "positive_rows": int(np.count_nonzero(w > 0)),
        "fractional_rows": int(np.count_nonzero(w != np.floor(w))),
    }


def missing_moments_pass(
    x, rows=None, *, state, loss, fill, leave_out_exact=False, constants=None
) -> dict:
    """A pass of the loop: complete the chunk, weight its rows by ``loss`` on the
    observed residuals, and return the weighted moments and the objective.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk, NaN where missing.
    rows : ndarray of shape (n_rows,) or None, default=None
        The chunk's sample weights, multiplying the loss weights (``None``: ones).
    state : tuple of (ndarray, ndarray) or None
        The current ``(mean, components)``, the components of shape
        ``(n_components, n_features)``; ``None`` completes by ``fill`` with objective 0.
    loss : RobustLoss
        Gives the weights and the objective from the observed residual norms.
    fill : ndarray of shape (n_features,)
        The first completion of the missing entries (used when ``state`` is ``None``).
    leave_out_exact : bool, default=False
        Give the rows fitted exactly weight 0 in ``moments`` and return their moments as
        ``left_out`` (:class:`~robustpca.solvers.missing.MissingPCAProblem`).
    constants : ConstantColumns or None, default=None
        The data's constant columns: entries equal to them do not count as informative.

    Returns
    -------
    dict
        ``moments`` and ``objective``, and ``left_out`` with ``leave_out_exact``.
    """
    missing = np.isnan(x)
    sw = np.ones(x.shape[0]) if rows is None else np.asarray(rows, dtype=np.float64)
    if state is None:
        completed = np.where(missing, fill[None, :], x)
        return {"moments": block_moments(completed, sw), "objective": 0.0}
    mean, comps = state
    _, fitted, r = observed_fit(x, missing, mean, comps)
    completed = np.where(missing, fitted, x)
    w = sw * loss.weights(r)
    out: dict[str, float | Moments] = {"objective": float((sw * loss.rho(r)).sum())}
    if leave_out_exact:  # their moments apart: the final moments are every row's
        exact = rows_fitted_exactly(uninformative_entries(missing, constants), comps.shape[0])
        out["left_out"] = block_moments(completed[exact], w[exact])
        w[exact] = 0.0
    out["moments"] = block_moments(completed, w)
    return out


def observed_rows_block(x, *, mean, components, loss, which) -> np.ndarray:
    """Observed residual norms or loss weights of a chunk.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk, NaN where missing.
    mean : ndarray of shape (n_features,)
        The fitted centre.
    components : ndarray of shape (n_components, n_features)
        The fitted orthonormal components.
    loss : RobustLoss
        Gives the weights from the residual norms.
    which : {"residuals", "weights"}
        Return the residual norms of the observed entries, or (any other value) the loss
        weights.

    Returns
    -------
    ndarray of shape (n_rows,)
    """
    r = observed_fit(x, np.isnan(x), mean, components)[2]
    return r if which == "residuals" else loss.weights(r)


def solve_missing_chunked(
    run,
    counts: dict,
    n_components: int,
    loss: RobustLoss,
    *,
    rng: np.random.Generator,
    sample_weight=None,
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
) -> SolverResult:
    """The loop of :class:`~robustpca.solvers.missing.MissingPCAProblem` in passes.

    Pass ``t``
    returns the objective :math:`\\sum_i \\rho(r_{O,i})` at state ``t - 1`` and the
    moments of its completion with its weights; the eigen step gives state ``t``. The
    loop stops on the relative change of that objective (which never increases); the
    last state is returned (``n_iter + 1`` passes with the first). ``info['final_moments']``
    holds the moments of the completion the last state was solved from, every row's
    (PCA's explained variance): the rows fitted exactly take no part in the steps (as in
    :class:`~robustpca.solvers.missing.MissingPCAProblem`) but do in these.

    Parameters
    ----------
    run : callable
        The pass runner (:mod:`robustpca.solvers.chunked`).
    counts : dict
        The result of :func:`missing_counts_pass`.
    n_components : int
        The number of components.
    loss : RobustLoss
        Must have a local weight rule (:func:`~robustpca.solvers.chunked.weights_are_local`).
    rng : numpy.random.Generator
        Completes a rank-deficient basis (:func:`~robustpca.linalg.complete_orthonormal`).
    sample_weight : ndarray or dask.array.Array of shape (n_samples,) or None, default=None
        Given to the runner as the rows of every pass; multiplies the loss weights.
    max_iter : int, default=100
        The most iterations (passes after the first).
    tol : float, default=1e-6
        The tolerance on the relative change of the objective.
    callback : callable or None, default=None
        ``callback(iteration, state)``; a true return stops the loop.

    Returns
    -------
    SolverResult
    """
    fill = counts["col_sum"] / np.maximum(counts["col_count"], 1.0)
    by_observed = counts["rows_by_observed"]
    exact = int(by_observed[: n_components + 1].sum())
    constants = counts["col_range"].constants()
    # as MissingPCAProblem; with constant columns the counts of informative entries are
    # not known before this pass, and leaving out no row, or every row (whose moments
    # are then taken whole, below), is the same step
    leave_out = constants is not None or 0 < exact < int(by_observed.sum())
    step = WeightedPCAStep(n_components)
    moments: Moments = run(missing_moments_pass, sample_weight, state=None, loss=loss, fill=fill)[
        "moments"
    ]
    current = step.solve(moments)
    progress = ReweightingProgress(tol, callback)
    for iteration in range(1, max_iter + 1):
        basis = complete_orthonormal(current.basis, n_components, rng)
        out = run(
            missing_moments_pass,
            sample_weight,
            state=(current.mean, basis.T),
            loss=loss,
            fill=fill,
            leave_out_exact=leave_out,
            constants=constants,
        )
        progress.record(out["objective"])
        # as MissingPCAProblem: every row's moments where every other row is capped
        moments = out["moments"] if out["moments"].weight > 0 else _every_row(out)
        if not moments.weight > 0:
            progress.stop(StopReason.ALL_CAPPED)
            break
        previous, current = current, step.solve(moments)
        state = partial(
            IterationState,
            iteration,
            out["objective"],
            None,
            _constant(basis.T),
            _constant(previous.mean),
        )
        if progress.should_stop(iteration, state):
            break
    basis = complete_orthonormal(current.basis, n_components, rng)
    return SolverResult.from_loop(
        progress,
        components=basis.T,
        mean=current.mean,
        info={"final_moments": _every_row(out) if progress.history else moments},
    )
