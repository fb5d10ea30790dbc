r"""GoDec (Zhou & Tao 2011) in passes over row chunks, with exact global thresholds.

On tall data :func:`~robustpca.solvers.godec.solve_godec` (every entry observed) runs
here step for step. A chunk's state is its rows of ``S`` and of the row factor ``F`` of
``L = F Q^T`` (``Q``: ``d x r``); ``L``, ``S`` and ``R = X - L`` never exist whole.

* **Low-rank step.** The bilateral random projection of ``Z = X - S`` needs only
  ``Z^T Z``: ``Y <- Z^T Z Y`` ``power + 1`` times, its QR and the fit test
  :math:`\lVert ZQ\rVert_F^2 = \operatorname{tr}(Q^\top Z^\top Z Q)` run in memory, and
  the pass that sets ``S`` returns the next Gram matrix. With ``card='auto'`` the step
  after the first is the in-memory least-squares sweep (:class:`~.godec._ObservedALS`):
  its column half from per-column ``r x r`` normal matrices summed in the pass that sets
  ``S`` (on ``F`` made orthonormal by its ``R`` factor, a tall-skinny QR summed when
  ``F`` is formed; a column with at most ``r`` entries outside ``S``, refitted trimmed,
  is gathered), its row half row by row in the pass that forms ``F``.
* **Sparse step.** ``S`` keeps the ``k`` largest ``|R_ij|`` of the whole matrix (with
  ``card='auto'``, of ``|R_ij| / t_j``, ``t_j`` the rule's cutoff from column ``j``'s
  median). These order statistics are exact, by **radix selection**
  (:func:`~.chunked_order_statistics.radix_select`, which also gives PCP's exact column
  medians; non-negative doubles order as their bit patterns): a pass counts, per wanted
  rank, the values that share the bits fixed so far by their next bits, until the bins
  holding the ranks hold at most :data:`GATHER_BUDGET` values, which one pass gathers.
  The pass making the first count also gathers a bracket around the last iteration's
  value (:class:`_Guess`), which near convergence holds the rank: then no other pass is
  made.
  Ties at the ``k``-th value are broken by position (chunks in row order, row-major
  within a chunk); ``numpy.argpartition`` in memory may keep other equal entries.

An iteration is a pass forming ``F`` and counting, a gathering pass unless the bracket
held the rank, and a pass setting ``S``; with ``card='auto'`` the column medians add a
pass (their count is made with ``F``) and a gathering pass unless bracketed, and ``S``
is selected again where ``k`` is counted again and changes. The runner is a state runner
of :mod:`robustpca.solvers.chunked_state`. Nothing here imports dask, validates or warns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg as sla

from ..linalg import complete_orthonormal, single_blas_thread
from ._result import IterationState, LoopSummary, SolverResult, StopReason
from .chunked import Rows
from .chunked_order_statistics import (
    Selected,
    _records,
    median_of,
    median_ranks,
    radix_count,
    radix_gather,
    radix_level_one,
    radix_select,
    selected_from_records,
)
from .godec import _ObservedALS, _orthonormal
from .godec_card import MAD_TO_SD, ResidualCutoff
from .known_rank import RESIDUAL, STALLED, _transposed, _zeros
from .row_spread import RowSpread

__all__ = ["column_cutoffs", "godec_first_pass", "godec_pass", "solve_godec_chunked"]

#: At most this many values are gathered by one pass; fuller bins are counted again.
GATHER_BUDGET = 1 << 21


# ------------------------------------------------------------------ combined sums
@dataclass(frozen=True)
class ScaledGram:
    """``X^T X / unit^2`` with ``unit`` the power of two at or below ``max |X|``
    (:func:`~.godec._binary_unit`); ``+`` brings two chunks to the larger unit (exact:
    powers of two)."""

    unit: float
    gram: np.ndarray

    def __add__(self, other: ScaledGram) -> ScaledGram:
        unit = max(self.unit, other.unit)
        if unit == 0:  # zero chunks so far
            return self
        return ScaledGram(
            unit, self.gram * (self.unit / unit) ** 2 + other.gram * (other.unit / unit) ** 2
        )


@dataclass(frozen=True)
class RFactor:
    """The ``R`` factor of the rows seen so far (tall-skinny QR; ``+`` stacks two)."""

    R: np.ndarray

    def __add__(self, other: RFactor) -> RFactor:
        return RFactor(_r_of(np.vstack([self.R, other.R])))


def _r_of(A: np.ndarray) -> np.ndarray:
    c = A.shape[1]
    A = A if A.shape[0] >= c else np.vstack([A, np.zeros((c - A.shape[0], c))])
    with single_blas_thread():
        return sla.qr(A, mode="r", check_finite=False)[0][:c]


def godec_first_pass(x, state):
    """The first pass: finite data, the scaled Gram matrix of ``X`` and the spread of its rows
    (``spread``, a :class:`~robustpca.solvers.row_spread.RowSpread`).

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk of ``X``.
    state : int
        The chunk's index (set by :func:`solve_godec_chunked`'s caller, see there); the
        new state is ``[state, None, None]`` (index, ``S``, ``F``).
    """
    if not np.isfinite(x).all():
        raise ValueError(
            "Input X contains NaN or infinity; a dask fit of GoDec needs finite data "
            "(fit X.compute() for missing entries)."
        )
    top = float(np.max(np.abs(x), initial=0.0))  # a zero chunk sets no unit:
    unit = float(np.ldexp(1.0, np.frexp(top)[1] - 1)) if top > 0 else 0.0
    z = x / (unit or 1.0)
    return [state, None, None], {"gram": ScaledGram(unit, z.T @ z), "spread": RowSpread.of(x)}


# ------------------------------------------------------------- the chunk kernel
def _residual(x, state, unit, Q):
    return x / unit - state[2] @ Q.T


def _values(x, state, *, unit, Q, thresholds=None):
    """``|R|`` of the chunk, or ``|R| / thresholds`` (the rule's ratio)."""
    R = np.abs(_residual(x, state, unit, Q))
    return R if thresholds is None else R / thresholds


def _guess(W, index, *, low, high, cap):
    """The counts under ``low`` and the records of the values in ``[low, high)`` per
    wanted rank; no records past ``cap`` (the guess then fails)."""
    below = np.stack([np.count_nonzero(W < lo, axis=0) for lo in low])
    bracket = [
        _records(W, (W >= lo) & (W < hi), s, index)
        for s, (lo, hi) in enumerate(zip(low, high, strict=True))
    ]
    records = np.concatenate(bracket)
    over = records.shape[0] > cap
    rows = Rows((records[: 0 if over else None],))
    return {"guess_below": below, "guess_rows": rows, "guess_over": int(over)}


def _keep(V, index, selection) -> np.ndarray:
    """The entries of the ``k`` largest: above the threshold, and the first ties."""
    tau, take = selection
    keep = np.ascontiguousarray(V > tau)  # its ravel a view, as flatnonzero's indices
    ties = take.get(index, take.get(-1, 0))
    if ties:
        at = np.flatnonzero(V == tau)[:ties] if ties > 0 else np.flatnonzero(V == tau)
        keep.ravel()[at] = True
    return keep


def godec_pass(x, state, *, unit, Q, **steps):
    """One visit of a chunk, running the ``steps`` given in a fixed order.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk of ``X``.
    state : list
        The chunk's ``[index, S, F]``: its index and its rows of ``S`` and of the row
        factor ``F``, in units of ``unit`` (``None`` until set).
    unit : float
        The power of two that ``X`` is divided by (:class:`ScaledGram`).
    Q : ndarray of shape (n_features, r) or None
        The row basis of ``L = F Q^T``.
    **steps : dict
        In order: form ``F`` (``form``: ``'brp'`` or the ALS row fit), count or gather
        the digits of ``values`` (with ``count``, ``gather``, ``guess`` or
        ``values['ties']``; all entries as one column when ``values['whole']``), count
        the entries beyond ``beyond`` (the rule's cutoffs), and set ``S`` (``apply``:
        the selection) with the ``sums`` the next low-rank step needs.
    """
    form, values, apply, sums, beyond = map(
        steps.get, ("form", "values", "apply", "sums", "beyond")
    )
    state, part = list(state), {}  # a new list: a cluster may rerun this from its input
    x_scaled = x / unit
    if form is not None:
        if form == "brp":
            F = (x_scaled - state[1] if state[1] is not None else x_scaled) @ Q
        else:
            left_out = state[1] != 0
            F = form._fit(x_scaled, left_out, np.zeros_like(left_out), Q)
        state[2] = F
        part["rfactor"] = RFactor(_r_of(F))
    V = None
    if values is not None:
        V = _values(x, state, unit=unit, Q=Q, thresholds=values.get("thresholds"))
        W = V.reshape(-1, 1) if values["whole"] else V
        if "count" in steps:
            part["counts"] = radix_count(W, **steps["count"])
        if "gather" in steps:
            part["gathered"] = radix_gather(W, state[0], **steps["gather"])
        if "guess" in steps:
            part.update(_guess(W, state[0], **steps["guess"]))
        if values.get("ties") is not None:
            part["ties"] = Rows((np.array([[state[0], np.count_nonzero(W == values["ties"])]]),))
    if beyond is not None:
        part["beyond"] = int(np.count_nonzero(np.abs(_residual(x, state, unit, Q)) > beyond))
    if apply is not None:
        R = _residual(x, state, unit, Q)
        if V is None:
            V = np.abs(R) if apply.get("thresholds") is None else np.abs(R) / apply["thresholds"]
        S = np.where(_keep(V, state[0], apply["selection"]), R, 0.0)
        R -= S
        state[1] = S
        part["objective"] = float(np.einsum("ij,ij->", R, R))
        part["nnz"] = int(np.count_nonzero(S))
        if sums == "gram":
            Z = np.subtract(x_scaled, S, out=x_scaled)
            part["gram"] = Z.T @ Z
    if sums is not None and sums != "gram":
        part.update(_column_sums(x_scaled, state, **sums))
    return state, part


def _column_sums(x, state, *, r, precondition, every_row=False):
    """The column half of the ALS sweep: over the rows keeping more than ``r`` entries
    outside ``S`` (all with ``every_row``), per column the normal matrix and right-hand
    side of its least squares on ``Qb = F precondition`` and its counts."""
    kept = state[1] == 0
    rows = np.ones(x.shape[0], bool) if every_row else np.count_nonzero(kept, axis=1) > r
    Qb, k = state[2][rows] @ precondition, kept[rows].astype(float)
    if r <= 8:  # every normal matrix by one product
        normal = k.T @ (Qb[:, :, None] * Qb[:, None, :]).reshape(Qb.shape[0], r * r)
    else:  # column by column: the n x r^2 outer products would not fit
        normal = np.stack([Qb[c > 0].T @ Qb[c > 0] for c in k.T]).reshape(k.shape[1], r * r)
    sums = {"normal": normal, "rhs": (np.where(kept[rows], x[rows], 0.0)).T @ Qb}
    return {**sums, "b_gram": Qb.T @ Qb, "kept": k.sum(axis=0), "n_rows": int(rows.sum())}


def _pinned_pass(x, state, *, unit, r, precondition, columns, every_row):
    """The rows of the ALS column fit for the pinned ``columns``: data, ``S``'s support
    and ``Qb``, in row order."""
    x, left_out = x / unit, state[1] != 0
    rows = np.ones(x.shape[0], bool) if every_row else np.count_nonzero(~left_out, axis=1) > r
    parts = [x[rows][:, columns], left_out[rows][:, columns], state[2][rows] @ precondition]
    return state, {"rows": Rows((np.column_stack(parts),))}


def _low_rank_block(state, *, Q, unit):
    return (state[2] @ Q.T) * unit


def _sparse_block(state, *, unit):
    return state[1] * unit


# ------------------------------------------------------------- radix selection
class _Guess:
    """Brackets ``last (1 -+ width)`` around the last values selected, gathered by the
    pass that makes the first counts: where they hold the wanted ranks (the counts under
    them tell) no other pass is needed. Widened after a miss; narrowed to gather about
    ``GATHER_BUDGET / 8`` values, and after a chunk's held more than ``cap``."""

    def __init__(self, n_chunks: int):
        self.width, self.cap, self.last = 1 / 64, 2 * GATHER_BUDGET // max(n_chunks, 1), None

    def step(self) -> dict:
        if self.last is None:
            return {}
        low, high = self.last * (1 - self.width), self.last * (1 + self.width)
        return {"guess": {"low": low, "high": high, "cap": self.cap}}

    def resolve(self, out: dict, ranks) -> Selected | None:
        if "guess_over" not in out:
            return None
        if out["guess_over"]:
            self.width /= 4
            return None
        records = out["guess_rows"].values
        got = selected_from_records(records, ranks, out["guess_below"])
        if got is None:
            self.width = min(2 * self.width, 0.5)
        self.width *= min(1.0, GATHER_BUDGET / 8 / max(records.shape[0], 1))
        return got


def _select(run, pass_params, values, ranks, counts, spec, guess=None, out=None) -> Selected:
    """The values at the 0-based ascending ``ranks`` (q, m) of each column of the
    ``values`` of every chunk (module docstring), from the first counts ``counts``
    made with ``spec`` (:func:`~.chunked_order_statistics.radix_level_one`) or the
    ``guess`` gathered with them (:func:`~.chunked_order_statistics.radix_select`)."""
    got = None if guess is None else guess.resolve(out, ranks)
    if got is None:

        def visit(**step):
            return run(godec_pass, **pass_params, values=values, **step)

        got = radix_select(visit, ranks, counts, spec, budget=GATHER_BUDGET)
    if guess is not None:
        guess.last = got.values
    return got


def _top_k(run, pass_params, values, k, size, counts, spec, guess=None, out=None) -> tuple:
    """The selection ``(threshold, ties taken per chunk)`` of the ``k`` largest values
    (ties broken by position: chunks in row order, row-major within a chunk)."""
    if k <= 0:
        return (np.inf, {})
    if k >= size:
        return (-1.0, {})
    got = _select(run, pass_params, values, np.array([[size - k]]), counts, spec, guess, out)
    tau = float(got.values[0, 0])
    equal = int(got.equal[0, 0])
    take = k - (size - int(got.below[0, 0]) - equal)
    if take == equal:
        return (tau, {-1: -1})
    chunk_equal = got.chunk_equal
    if chunk_equal is None:  # the bin held only ties, too many to gather: count them
        ties = run(godec_pass, **pass_params, values={**values, "ties": tau})["ties"].values
        chunk_equal = {int(i): int(c) for i, c in ties if c}
    taken = {}
    for index in sorted(chunk_equal):
        taken[index] = min(chunk_equal[index], take)
        take -= taken[index]
        if take == 0:
            break
    return (tau, taken)


def column_cutoffs(run, params, n, rule, reference, out=None, spec=None, guess=None):
    """The rule's cutoffs ``c * 1.4826 median_i |R_ij|`` (floored as
    :meth:`~.godec_card.ResidualCutoff.thresholds` floors them), medians exact.

    Parameters
    ----------
    run : callable
        The state runner of :func:`solve_godec_chunked`.
    params : dict
        ``{"unit": unit, "Q": Q}``, the arguments of :func:`godec_pass` at the current
        ``F`` and ``Q``.
    n : int
        Number of rows (the median ranks).
    rule : ResidualCutoff
        Gives the multiplier ``c`` (``rule.cutoff``).
    reference : float
        The RMS of ``X`` in units of ``unit``; ``1.4826 median_i |R_ij|`` is floored
        at ``sqrt(eps) * reference``.
    out : dict or None, default=None
        A pass's first counts (``out["counts"]``), and ``guess``'s brackets gathered
        with them; ``None`` runs a counting pass here.
    spec : dict or None, default=None
        The spec of those counts (:func:`~.chunked_order_statistics.radix_level_one`).
    guess : object or None, default=None
        The brackets around the last medians (``_Guess``), tried before radix selection.
    """
    d = params["Q"].shape[0]
    ranks = np.repeat(median_ranks(n)[:, None], d, axis=1)
    if out is None:
        spec = radix_level_one(*ranks.shape)
        out = run(godec_pass, **params, values={"whole": False}, count=spec)
    got = _select(run, params, {"whole": False}, ranks, out["counts"], spec, guess, out).values
    cols = median_of(got)
    floor = max(np.sqrt(np.finfo(float).eps) * reference, np.finfo(float).tiny)
    return rule.cutoff * np.maximum(MAD_TO_SD * cols, floor)


# ------------------------------------------------------------------- low-rank steps
def _brp_from_gram(G: np.ndarray, Q, r: int, power: int, rng) -> np.ndarray:
    """:func:`~.godec._brp_step` from ``G = Z^T Z``: the new row basis, or ``Q`` where
    it fits ``Z`` better."""
    Y = rng.standard_normal((len(G), r)) if Q is None else Q
    previous = float(np.sqrt(max(np.trace(Y.T @ G @ Y), 0.0))) if Q is not None else -1.0
    for step in range(power + 1):
        if step:  # orthonormal between the power steps, as _brp_step: a dominant
            Y = _orthonormal(Y)  # direction (data far from the origin) took the others
        Y = G @ Y
    Q_new = _orthonormal(Y)
    fit = float(np.sqrt(max(np.trace(Q_new.T @ G @ Q_new), 0.0)))
    return Q_new if fit >= previous else Q


def _inverse_r(R: np.ndarray) -> np.ndarray:
    """``R^-1`` of a triangular factor, the identity where ``R`` is singular."""
    diag = np.abs(np.diag(R))
    if diag.size and diag.min() > diag.max() * np.finfo(float).eps * len(R):
        return sla.solve_triangular(R, np.eye(len(R)), check_finite=False)
    return np.eye(len(R))


def _column_fit(run, sums, als: _ObservedALS, unit, precondition) -> np.ndarray:
    """The column half of the ALS sweep (:meth:`~.godec._ObservedALS.step`) from the sums
    of :func:`_column_sums`; returns the new row basis ``Q``."""
    r = als.r
    every_row = sums["n_rows"] == 0
    if every_row:  # no row keeps more than r entries: the sweep takes them all
        sums = run(
            godec_pass,
            unit=unit,
            Q=None,
            sums={"r": r, "precondition": precondition, "every_row": True},
        )
    try:
        with single_blas_thread():
            Rb = sla.cholesky(0.5 * (sums["b_gram"] + sums["b_gram"].T), check_finite=False)
    except sla.LinAlgError:  # a row factor of lower rank (most rows equal): as _inverse_r
        Rb = np.eye(r)
    Rinv = _inverse_r(Rb)
    d = len(sums["kept"])
    normal = Rinv.T @ sums["normal"].reshape(d, r, r) @ Rinv  # on Qa = Qb Rb^-1
    rhs = sums["rhs"] @ Rinv
    kept = sums["kept"]
    in_s = sums["n_rows"] - kept
    pinned = (kept <= r) & (2 * in_s > kept + in_s)
    coef = np.zeros((d, r))
    index = np.flatnonzero(~pinned)
    if index.size:
        try:
            coef[index] = np.linalg.solve(normal[index], rhs[index][:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:
            coef[index] = (np.linalg.pinv(normal[index]) @ rhs[index][:, :, None])[:, :, 0]
    if pinned.any():  # refitted trimmed by the in-memory code, on the gathered columns
        columns = np.flatnonzero(pinned)
        p = columns.size
        common = {"unit": unit, "r": r, "precondition": precondition, "every_row": every_row}
        records = run(_pinned_pass, **common, columns=columns)["rows"].values
        data, left_out = records[:, :p].T, records[:, p : 2 * p].T != 0
        coef[pinned] = als._fit(data, left_out, np.zeros_like(left_out), records[:, 2 * p :] @ Rinv)
    with single_blas_thread():
        return sla.qr(coef, mode="economic", check_finite=False)[0]


# ------------------------------------------------------------------------ the solver
def solve_godec_chunked(
    run,
    first: dict,
    rank: int,
    card,
    *,
    power: int = 1,
    max_iter: int = 100,
    tol: float = 1e-7,
    rng: np.random.Generator,
    callback=None,
) -> SolverResult:
    r"""GoDec over the row chunks of ``run`` (module docstring): the iterations, ``k``,
    stopping rules and result of :func:`~robustpca.solvers.godec.solve_godec` on fully
    observed data.

    Parameters
    ----------
    run : callable
        A state runner (:mod:`~robustpca.solvers.chunked_state`) whose ``states`` were
        set to the chunks' indices ``0, 1, ...`` before the first pass (ties are broken
        by chunk).
    first : dict
        The sums of :func:`godec_first_pass`.
    rank : int
        Rank bound ``r``.
    card : int or ResidualCutoff
        Cardinality bound ``k`` of ``S``, or the rule that sets it, as for
        ``solve_godec``.
    power : int, default=1
        Power iterations ``q`` of the BRP.
    max_iter : int, default=100
        Iterations at most.
    tol : float, default=1e-7
        Tolerance of the stopping rules of ``solve_godec``.
    rng : numpy.random.Generator
        Draws the first BRP projection and completes a rank-deficient basis.
    callback : callable or None, default=None
        ``callback(iteration, state)``; returning ``True`` stops.

    Returns
    -------
    SolverResult
        ``solve_godec``'s, ``low_rank`` and ``sparse`` from ``run.map_states``; ``info``
        adds ``nnz`` (non-zeros of ``S``) and ``scale`` (the unit, RMS and basis of the
        state).
    """
    unit, gram = first["gram"].unit or 1.0, first["gram"].gram
    d, n, r = len(gram), run.n_samples, int(rank)
    size = n * d
    rule = card if isinstance(card, ResidualCutoff) else None
    k = 0 if rule is not None else int(card)
    norm_x2 = float(np.trace(gram))
    reference = float(np.sqrt(norm_x2 / max(size, 1)))
    als = _ObservedALS(np.ones((1, 1), bool), r, rule) if rule is not None else None
    seen: set[int] = set()
    Q = None
    precondition = np.eye(r)
    sums: dict = {}
    objective: list[float] = []
    stop_reason, converged, n_iter = StopReason.MAX_ITER, False, 0
    whole = {"whole": True}
    form: object
    tau, medians = _Guess(len(run.states)), _Guess(len(run.states))
    for t in range(1, max_iter + 1):
        if als is None or Q is None:
            Q, form = _brp_from_gram(gram, Q, r, power, rng), "brp"
        else:
            Q, form = _column_fit(run, sums, als, unit, precondition), als
        params = {"unit": unit, "Q": Q}
        extra: dict[str, object] = {"sums": "gram"}
        if rule is None:
            spec = radix_level_one(1, 1)
            steps = {"values": whole, "count": spec, **tau.step()} if 0 < k < size else {}
            out = counted = run(godec_pass, **params, form=form, **steps)
            thresholds, beyond = None, 0
        else:
            spec_m = radix_level_one(1 if n % 2 else 2, d)
            steps = {"values": {"whole": False}, "count": spec_m, **medians.step()}
            out = run(godec_pass, **params, form=form, **steps)
            thresholds = column_cutoffs(run, params, n, rule, reference, out, spec_m, medians)
            spec = radix_level_one(1, 1)
            ratio = {"whole": True, "thresholds": thresholds}
            counted = run(
                godec_pass, **params, values=ratio, count=spec, beyond=thresholds, **tau.step()
            )
            beyond = min(counted["beyond"], rule.cap(size))
            if t == 1:
                k = max(beyond, int(rule.start * size))
        R_f = out["rfactor"].R
        precondition = _inverse_r(R_f)
        if als is not None:
            extra = {"sums": {"r": r, "precondition": precondition}}
        values = whole if thresholds is None else {"whole": True, "thresholds": thresholds}
        selecting = (values, size, counted.get("counts"), spec, tau, counted)

        applied = _sparse_step(run, params, k, selecting, extra)
        value = applied["objective"]
        settled = t > 1 and objective[-1] - value <= tol * objective[-1]
        exact = value <= tol * tol * norm_x2
        if (
            rule is not None
            and t > 1
            and (exact or objective[-1] - value <= rule.refit * objective[-1])
        ):
            k_new = k if beyond in seen else beyond
            seen.add(beyond)
            settled = settled and k_new == k
            exact = exact and k_new == k
            if k_new != k:
                k = k_new
                applied = _sparse_step(run, params, k, selecting, extra)
                value = applied["objective"]
        if als is not None:
            sums = {key: applied[key] for key in ("normal", "rhs", "b_gram", "kept", "n_rows")}
        else:
            gram = applied["gram"]
        objective.append(value)
        n_iter = t
        if callback is not None:
            state = IterationState(t, value * unit**2, None, _transposed(Q), _zeros(d))
            if callback(t, state):
                stop_reason = StopReason.CALLBACK
                break
        if exact if rule is not None else value <= tol * tol * norm_x2:
            stop_reason, converged = RESIDUAL, True
            break
        if settled:
            stop_reason, converged = STALLED, True
            break
    extra = {"card": k, "missing_step": None, "nnz": applied["nnz"], "scale": (unit, reference, Q)}
    loop = LoopSummary(n_iter, converged, stop_reason, np.asarray(objective) * unit**2)
    return _finish(run, Q, R_f, unit, r, n, rng, loop, extra)


def _sparse_step(run, params, k, selecting, extra) -> dict:
    """Select the ``k`` largest values and set ``S`` (one pass after the selection's)."""
    values = selecting[0]
    selection = _top_k(run, params, values, k, *selecting[1:])
    apply = {"selection": selection, "thresholds": values.get("thresholds")}
    return run(godec_pass, **params, apply=apply, **extra)


def _finish(run, Q, R_f, unit, r, n, rng, loop, extra) -> SolverResult:
    """:func:`~.known_rank._result` from ``L = F Q^T`` with ``F``'s ``R`` factor."""
    d = Q.shape[0]
    with single_blas_thread():
        sz, Wt = sla.svd(R_f, check_finite=False)[1:]
        Qv, Rv = sla.qr(Q @ Wt.T, mode="economic", check_finite=False)
        sv, bt = sla.svd((sz * unit)[:, None] * Rv.T, check_finite=False)[1:]
    V = Qv @ bt.T
    top = sv.max(initial=0.0)
    rank = int(np.count_nonzero(sv > top * max(n, d) * np.finfo(float).eps)) if top > 0 else 0
    components = complete_orthonormal(V[:, :rank], r, rng).T
    sv = sv[:r]
    info = {"low_rank": run.map_states(_low_rank_block, d, Q=Q, unit=unit), "rank": rank}
    info.update(sparse=run.map_states(_sparse_block, d, unit=unit), **extra)
    info.update(low_rank_singular_values=sv, explained_variance=sv**2 / max(n - 1, 1))
    return SolverResult.from_loop(loop, components=components, mean=np.zeros(d), info=info)
