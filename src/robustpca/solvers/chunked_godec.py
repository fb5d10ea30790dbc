r"""GoDec (Zhou & Tao 2011) in passes over row chunks, with exact global thresholds.

On tall data the in-memory solver :func:`~robustpca.solvers.godec.solve_godec` (every
entry observed) runs here step for step. A chunk's state is its rows of ``S`` and of the
row factor ``F`` of ``L = F Q^T`` (``Q``: ``d x r``), so ``L``, ``S`` and the residual
``R = X - L`` never exist as whole arrays.

* **Low-rank step.** The bilateral random projection of ``Z = X - S`` needs only
  ``Z^T Z`` (``d x d``): ``Y <- Z^T Z Y`` ``power + 1`` times, its QR and the
  fit test :math:`\lVert ZQ\rVert_F^2 = \operatorname{tr}(Q^\top Z^\top Z Q)`, in
  memory; the pass that sets ``S`` returns the Gram matrix of the next ``Z``. With
  ``card='auto'`` the step after the first is the alternating least-squares sweep of the
  in-memory solver: the column half from per-column ``r x r`` normal matrices summed in
  the pass that sets ``S`` (in a basis made orthonormal over all rows by the ``R`` factor
  of ``F``, a tall-skinny QR summed in the pass that forms ``F``), the row half row by row
  in the pass that forms ``F`` (the in-memory code, :class:`~.godec._ObservedALS`). A
  column with at most ``r`` entries outside ``S`` (the rare case that the in-memory sweep
  refits trimmed) is gathered and fitted by the in-memory code.
* **Sparse step.** ``S`` keeps the ``k`` largest ``|R_ij|`` of the whole matrix (with
  ``card='auto'``, of ``|R_ij| / t_j``, ``t_j`` the rule's cutoff from the median of
  column ``j``). These order statistics are found exactly by **radix selection on the
  bits of the values** (non-negative doubles order as their bit patterns): a counting
  pass counts, for each wanted rank, the values sharing the bits fixed so far by their
  next few bits (about ``2^22`` counters per pass in all), until the bins that hold the
  ranks hold at most :data:`GATHER_BUDGET` values, which one pass gathers. Ties at the
  ``k``-th value (rare for real data) are broken by position, chunks in row order and
  row-major within a chunk; the in-memory solver breaks them as ``numpy.argpartition``
  does, so with such ties the two may keep different (equal-magnitude) entries.

An iteration is one pass forming ``F`` and counting the first digits, one gathering pass
(more counting passes first on very large data), and one pass setting ``S``; with
``card='auto'`` two more for the column medians (their counting and gathering) and two
more where ``k`` is counted again and changes. The runner is a state runner of
:mod:`robustpca.solvers.chunked_state`. Nothing here imports dask, validates or warns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg as sla

from ..linalg import complete_orthonormal, single_blas_thread
from ._result import IterationState, LoopSummary, SolverResult, StopReason
from .chunked import Rows
from .godec import _ObservedALS
from .godec_card import ResidualCutoff
from .known_rank import RESIDUAL, STALLED, _transposed, _zeros

__all__ = ["column_cutoffs", "godec_first_pass", "godec_pass", "solve_godec_chunked"]

#: At most this many values are gathered by one pass; fuller bins are counted again.
GATHER_BUDGET = 1 << 21
#: Counters per counting pass (over all wanted ranks), which sets the digits' width.
COUNTERS = 1 << 22
#: Non-negative doubles have their sign bit clear: 63 bits to select on.
KEY_BITS = 63


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
    with single_blas_thread():
        R = sla.qr(A, mode="r", check_finite=False)[0]
    return (
        R[: A.shape[1]]
        if R.shape[0] >= A.shape[1]
        else np.vstack([R, np.zeros((A.shape[1] - R.shape[0], A.shape[1]))])
    )


def _unit_of(top: float) -> float:
    return float(np.ldexp(1.0, np.frexp(top)[1] - 1)) if top > 0 and np.isfinite(top) else 1.0


def godec_first_pass(x, state):
    """The first pass: finite data and the scaled Gram matrix of ``X``. ``state`` is the
    chunk's index (set by :func:`solve_godec_chunked`'s caller, see there)."""
    if not np.isfinite(x).all():
        raise ValueError(
            "Input X contains NaN or infinity; a dask fit of GoDec needs finite data "
            "(fit X.compute() for missing entries)."
        )
    top = float(np.max(np.abs(x), initial=0.0))
    unit = _unit_of(top) if top > 0 else 0.0  # a zero chunk sets no unit
    z = x / (unit or 1.0)
    return [state, None, None], {"gram": ScaledGram(unit, z.T @ z)}


# ------------------------------------------------------------- the chunk kernel
def _residual(x, state, unit, Q):
    return x / unit - state[2] @ Q.T


def _values(x, state, *, unit, Q, thresholds=None):
    """``|R|`` of the chunk, or ``|R| / thresholds`` (the rule's ratio)."""
    R = np.abs(_residual(x, state, unit, Q))
    return R if thresholds is None else R / thresholds


def _digits(V: np.ndarray, prefix: np.ndarray, shift: int, bits: int) -> tuple:
    """Per wanted rank (rows of ``prefix``, (q, columns)): which values share its
    prefix, and their next ``bits`` bits."""
    keys = V.view(np.uint64)
    high = keys >> np.uint64(shift + bits)
    digit = ((keys >> np.uint64(shift)) & np.uint64((1 << bits) - 1)).astype(np.intp)
    return [high == p[None, :] for p in prefix], digit


def _count(V, *, prefix, shift, bits):
    m = prefix.shape[1]
    match, digit = _digits(V, prefix, shift, bits)
    base = np.arange(m)[None, :] << bits
    return np.stack(
        [
            np.bincount((digit + base)[hit], minlength=m << bits).reshape(m, 1 << bits)
            for hit in match
        ]
    )


def _gather(V, index, *, prefix, shift):
    """Records ``[slot, column, value, chunk]`` of the values in the final bins."""
    keys = V.view(np.uint64) >> np.uint64(shift)
    parts = []
    for slot, p in enumerate(prefix):
        row, col = np.nonzero(keys == p[None, :])
        cols = [np.full(row.size, slot), col, V[row, col], np.full(row.size, index)]
        parts.append(np.column_stack(cols).astype(np.float64))
    return Rows((np.concatenate(parts) if parts else np.empty((0, 4)),))


def _keep(V, index, selection) -> np.ndarray:
    """The entries of the ``k`` largest: above the threshold, and the first ties."""
    tau, take = selection
    keep = V > tau
    ties = take.get(index, take.get(-1, 0))
    if ties:
        at = np.flatnonzero(V == tau)[:ties] if ties > 0 else np.flatnonzero(V == tau)
        keep.ravel()[at] = True
    return keep


def godec_pass(x, state, *, unit, Q, **steps):
    """One visit of a chunk, in order: form ``F`` (``form``: ``'brp'`` or the ALS row
    fit), count or gather the digits of ``values`` (all entries as one column when
    ``values['whole']``), count the entries beyond ``beyond`` (the rule's cutoffs), and
    set ``S`` (``apply``: the selection) with the sums the next low-rank step needs."""
    form, values, apply, sums, beyond = (
        steps.get(key) for key in ("form", "values", "apply", "sums", "beyond")
    )
    part: dict = {}
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
            part["counts"] = _count(W, **steps["count"])
        if "gather" in steps:
            part["gathered"] = _gather(W, state[0], **steps["gather"])
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
    left_out = state[1] != 0
    kept = ~left_out
    rows = np.ones(x.shape[0], bool) if every_row else np.count_nonzero(kept, axis=1) > r
    Qb = state[2][rows] @ precondition
    k = kept[rows].astype(float)
    outer = (Qb[:, :, None] * Qb[:, None, :]).reshape(Qb.shape[0], r * r)
    return {
        "normal": k.T @ outer,
        "rhs": (np.where(kept[rows], x[rows], 0.0)).T @ Qb,
        "b_gram": Qb.T @ Qb,
        "kept": k.sum(axis=0),
        "n_rows": int(np.count_nonzero(rows)),
    }


def _pinned_pass(x, state, *, unit, r, precondition, columns, every_row):
    """The rows of the ALS column fit for the pinned ``columns``: data, ``S``'s support
    and ``Qb``, in row order."""
    x = x / unit
    left_out = state[1] != 0
    rows = np.ones(x.shape[0], bool) if every_row else np.count_nonzero(~left_out, axis=1) > r
    record = np.column_stack(
        [x[rows][:, columns], left_out[rows][:, columns], state[2][rows] @ precondition]
    )
    return state, {"rows": Rows((record,))}


def _low_rank_block(state, *, Q, unit):
    return (state[2] @ Q.T) * unit


def _sparse_block(state, *, unit):
    return state[1] * unit


# ------------------------------------------------------------- radix selection
def _level_one(q: int, m: int) -> dict:
    """The first counting step for ``q`` ranks in each of ``m`` columns."""
    bits = int(np.clip(np.log2(max(COUNTERS // max(q * m, 1), 2)), 4, 16))
    return {"prefix": np.zeros((q, m), np.uint64), "shift": KEY_BITS - bits, "bits": bits}


@dataclass
class _Selected:
    """Values at the wanted ranks; for one rank of the whole matrix, the number of
    values below and equal to it, and the chunks' equal ones where gathered."""

    values: np.ndarray
    below: np.ndarray
    equal: np.ndarray
    chunk_equal: dict | None


def _select(run, pass_params: dict, values: dict, ranks: np.ndarray, counts, spec) -> _Selected:
    """The values at the 0-based ascending ``ranks`` (q, m) of each column of the
    ``values`` of every chunk (module docstring), from the first counts ``counts``
    made with ``spec`` (:func:`_level_one`)."""
    prefix, shift, bits = spec["prefix"].copy(), spec["shift"], spec["bits"]
    below = np.zeros(ranks.shape, np.int64)
    while True:
        if counts is None:
            count = {"prefix": prefix, "shift": shift, "bits": bits}
            counts = run(godec_pass, **pass_params, values=values, count=count)["counts"]
        cum = np.concatenate([np.zeros((*ranks.shape, 1)), np.cumsum(counts, axis=2)], axis=2)
        b = np.empty(ranks.shape, np.int64)
        for s, j in np.ndindex(*ranks.shape):
            b[s, j] = np.searchsorted(cum[s, j], ranks[s, j] - below[s, j], side="right") - 1
        inside = np.take_along_axis(counts, b[:, :, None], axis=2)[:, :, 0]
        below += np.take_along_axis(cum, b[:, :, None], axis=2)[:, :, 0].astype(np.int64)
        prefix = (prefix << np.uint64(bits)) | b.astype(np.uint64)
        counts = None
        if shift == 0:
            return _Selected(prefix.view(np.float64), below, inside.astype(np.int64), None)
        if inside.sum() <= GATHER_BUDGET:
            break
        bits = min(bits, shift)
        shift -= bits
    gather = {"prefix": prefix, "shift": shift}
    records = run(godec_pass, **pass_params, values=values, gather=gather)["gathered"].values
    order = np.lexsort((records[:, 2], records[:, 1], records[:, 0]))
    records = records[order]
    out = np.empty(ranks.shape)
    equal = np.zeros(ranks.shape, np.int64)
    chunk_equal = None
    for s, j in np.ndindex(*ranks.shape):
        group = records[(records[:, 0] == s) & (records[:, 1] == j)]
        value = group[ranks[s, j] - below[s, j], 2]
        out[s, j] = value
        below[s, j] += int(np.count_nonzero(group[:, 2] < value))
        equal[s, j] = int(np.count_nonzero(group[:, 2] == value))
        if ranks.size == 1:
            chunks, n_eq = np.unique(group[group[:, 2] == value, 3], return_counts=True)
            chunk_equal = dict(zip(chunks.astype(int).tolist(), n_eq.tolist(), strict=True))
    return _Selected(out, below, equal, chunk_equal)


def _top_k(run, pass_params, values, k: int, size: int, counts, spec) -> tuple:
    """The selection ``(threshold, ties taken per chunk)`` of the ``k`` largest values
    (ties broken by position: chunks in row order, row-major within a chunk)."""
    if k <= 0:
        return (np.inf, {})
    if k >= size:
        return (-1.0, {})
    got = _select(run, pass_params, values, np.array([[size - k]]), counts, spec)
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


def column_cutoffs(
    run, pass_params, n: int, rule: ResidualCutoff, reference: float, counts=None, spec=None
) -> np.ndarray:
    """The rule's cutoffs ``c * 1.4826 median_i |R_ij|`` (floored as
    :meth:`~.godec_card.ResidualCutoff.thresholds` floors them), medians exact."""
    from .godec_card import MAD_TO_SD

    d = pass_params["Q"].shape[0]
    mid = np.array([(n - 1) // 2] if n % 2 else [n // 2 - 1, n // 2])
    ranks = np.repeat(mid[:, None], d, axis=1)
    if counts is None:
        spec = _level_one(*ranks.shape)
        count = run(godec_pass, **pass_params, values={"whole": False}, count=spec)["counts"]
    else:
        count = counts
    got = _select(run, pass_params, {"whole": False}, ranks, count, spec).values
    cols = got[0] if n % 2 else (got[0] + got[1]) / 2
    floor = max(np.sqrt(np.finfo(float).eps) * reference, np.finfo(float).tiny)
    return rule.cutoff * np.maximum(MAD_TO_SD * cols, floor)


# ------------------------------------------------------------------- low-rank steps
def _brp_from_gram(G: np.ndarray, Q, r: int, power: int, rng) -> np.ndarray:
    """:func:`~.godec._brp_step` from ``G = Z^T Z``: the new row basis, or ``Q`` where
    it fits ``Z`` better."""
    Y = rng.standard_normal((len(G), r)) if Q is None else Q
    previous = float(np.sqrt(max(np.trace(Y.T @ G @ Y), 0.0))) if Q is not None else -1.0
    for _ in range(power + 1):
        Y = G @ Y
    with single_blas_thread():
        Q_new = sla.qr(Y, mode="economic", check_finite=False)[0]
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
    with single_blas_thread():
        Rb = sla.cholesky(0.5 * (sums["b_gram"] + sums["b_gram"].T), check_finite=False)
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
        records = run(
            _pinned_pass,
            unit=unit,
            r=r,
            precondition=precondition,
            columns=columns,
            every_row=every_row,
        )["rows"].values
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
        A state runner (:mod:`robustpca.solvers.chunked_state`) whose ``states`` were
        set to the chunks' indices ``0, 1, ...`` before the first pass (the ties of the
        selection are broken by chunk).
    first : dict
        The sums of :func:`godec_first_pass`.
    rank, card, power, max_iter, tol, rng, callback
        As for ``solve_godec`` (``card``: an int or a
        :class:`~robustpca.solvers.godec_card.ResidualCutoff`).

    Returns
    -------
    SolverResult
        As ``solve_godec``'s; ``low_rank`` and ``sparse`` from ``run.map_states``;
        ``info['scale']`` holds what :func:`gross_left_out_chunked` needs.
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
    extra: dict[str, object]
    for t in range(1, max_iter + 1):
        if als is None or Q is None:
            Q, form = _brp_from_gram(gram, Q, r, power, rng), "brp"
        else:
            Q, form = _column_fit(run, sums, als, unit, precondition), als
        params = {"unit": unit, "Q": Q}
        extra = {"sums": "gram"} if als is None else {}
        if rule is None:
            spec = _level_one(1, 1)
            if 0 < k < size:
                out = run(godec_pass, **params, form=form, values=whole, count=spec)
            else:
                out = run(godec_pass, **params, form=form)
            thresholds, beyond = None, 0
        else:
            spec_m = _level_one(1 if n % 2 else 2, d)
            out = run(godec_pass, **params, form=form, values={"whole": False}, count=spec_m)
            thresholds = column_cutoffs(run, params, n, rule, reference, out["counts"], spec_m)
            spec = _level_one(1, 1)
            ratio = {"whole": True, "thresholds": thresholds}
            counted = run(godec_pass, **params, values=ratio, count=spec, beyond=thresholds)
            out["counts"], beyond = counted["counts"], min(counted["beyond"], rule.cap(size))
            if t == 1:
                k = max(beyond, int(rule.start * size))
        R_f = out["rfactor"].R
        precondition = _inverse_r(R_f)
        if als is not None:
            extra = {"sums": {"r": r, "precondition": precondition}}
        values = whole if thresholds is None else {"whole": True, "thresholds": thresholds}
        counts = out.get("counts")

        applied = _sparse_step(run, params, values, k, size, counts, spec, extra)
        value = applied["objective"]
        settled = t > 1 and objective[-1] - value <= tol * objective[-1]
        exact = value <= tol**2 * norm_x2
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
                applied = _sparse_step(run, params, values, k, size, counts, spec, extra)
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
        if exact if rule is not None else value <= tol**2 * norm_x2:
            stop_reason, converged = RESIDUAL, True
            break
        if settled:
            stop_reason, converged = STALLED, True
            break
    return _finish(
        run,
        Q,
        R_f,
        unit,
        r,
        n,
        rng,
        objective,
        (n_iter, converged, stop_reason),
        {"card": k, "missing_step": None, "nnz": applied["nnz"], "scale": (unit, reference, Q)},
    )


def _sparse_step(run, params, values, k, size, counts, spec, extra) -> dict:
    """Select the ``k`` largest values and set ``S`` (one pass after the selection's)."""
    selection = _top_k(run, params, values, k, size, counts, spec)
    apply = {"selection": selection, "thresholds": values.get("thresholds")}
    return run(godec_pass, **params, apply=apply, **extra)


def _finish(run, Q, R_f, unit, r, n, rng, objective, loop, extra) -> SolverResult:
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
    info = {
        "low_rank": run.map_states(_low_rank_block, d, Q=Q, unit=unit),
        "sparse": run.map_states(_sparse_block, d, unit=unit),
        "rank": rank,
        "low_rank_singular_values": sv,
        "explained_variance": sv**2 / max(n - 1, 1),
        **extra,
    }
    n_iter, converged, stop_reason = loop
    summary = LoopSummary(n_iter, converged, stop_reason, np.asarray(objective) * unit**2)
    return SolverResult.from_loop(summary, components=components, mean=np.zeros(d), info=info)
