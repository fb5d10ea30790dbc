"""The chunked fit of :class:`~robustpca.GoDec` on tall dask arrays.

Runs :func:`robustpca.solvers.chunked_godec.solve_godec_chunked` over the row chunks with
the state runner of the L + S fits (:class:`~robustpca._dask.low_rank_sparse.DaskStateRunner`:
each chunk's rows of ``S`` and of the row factor of ``L`` stay where the scheduler keeps
its results). ``low_rank_`` and ``sparse_`` are dask arrays chunked like the rows of
``X``; the other attributes are those of the NumPy fit. The estimator's warning that
gross errors were left in ``low_rank_`` is given on the same condition, its column
medians found by counting passes. This module never imports an estimator.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._validation import check_positive_int
from .._warnings import external_stacklevel
from ..solvers import StopReason
from ..solvers.chunked_godec import column_cutoffs, godec_first_pass, solve_godec_chunked
from ..solvers.godec_card import ResidualCutoff, full_card_message
from ..solvers.known_rank import RESIDUAL
from .low_rank_sparse import _tall_runner, _warn_uncentred_spread

__all__ = ["fit_godec"]


def fit_godec(est, X, run, rng, sample_weight):
    """:class:`~robustpca.GoDec` on a tall dask array (every entry observed)."""
    n, d = X.shape
    card = est._resolve_card(n * d, n * d)  # parameter errors before any pass
    power = check_positive_int(est.power, "power", minimum=0)
    state_run = _tall_runner(est, X, run)
    state_run.states = list(range(len(state_run.states)))  # the chunks' indices (ties)
    first = state_run(godec_first_pass)
    _warn_uncentred_spread(est, first["spread"])
    result = solve_godec_chunked(
        state_run,
        first,
        est.n_components_,
        card,
        power=power,
        max_iter=est.max_iter,
        tol=est.tol,
        rng=rng,
        callback=est.callback,
    )
    nnz = result.info.pop("nnz")
    scale = result.info.pop("scale")
    _warn_gross_left_out(est, state_run, result, nnz, scale, n * d)
    return result


def _warn_gross_left_out(est, run, result, nnz: int, scale: tuple, n_entries: int) -> None:
    """``GoDec._warn_gross_left_out`` on the chunks: where ``sparse_`` is full and the
    entries beyond the rule's cutoffs outside it carry most of ``X - L - S``."""
    if result.stop_reason in (RESIDUAL, StopReason.CALLBACK):
        return
    k, rule = int(result.info["card"]), ResidualCutoff()
    auto = isinstance(est.card, str)
    if n_entries == 0 or k < (rule.cap(n_entries) if auto else max(k, 1)) or nnz < k:
        return
    unit, reference, Q = scale
    count, share = gross_left_out_chunked(run, unit, Q, run.n_samples, reference)
    if share < 0.5:
        return
    message = full_card_message(est.card, k, rule, count, share)
    warnings.warn(message, UserWarning, stacklevel=external_stacklevel())


def _left_out_pass(x, state, *, unit, Q, thresholds):
    """:func:`~robustpca.solvers.godec_card.gross_left_out`'s sums on a chunk: the
    entries beyond ``thresholds`` outside ``S``, their number and squared norm, and
    that of ``X - L - S`` (in the units of the state)."""
    R = x / unit - state[2] @ Q.T
    outside = (np.abs(R) > thresholds) & (state[1] == 0)
    R -= state[1]
    gross = R[outside]
    total = float(np.einsum("ij,ij->", R, R))
    return state, {"count": gross.size, "gross": float(gross @ gross), "total": total}


def gross_left_out_chunked(run, unit: float, Q: np.ndarray, n: int, reference: float):
    """:func:`~robustpca.solvers.godec_card.gross_left_out` of the fitted state: the
    entries beyond the rule's cutoffs (exact column medians) outside ``S``, and their
    share of the squared norm of ``X - L - S``."""
    params = {"unit": unit, "Q": Q}
    thresholds = column_cutoffs(run, params, n, ResidualCutoff(), reference)
    sums = run(_left_out_pass, **params, thresholds=thresholds)
    share = sums["gross"] / sums["total"] if sums["total"] > 0 else 0.0
    return int(sums["count"]), float(share)
