r"""GoDec (Zhou & Tao 2011): low-rank + sparse decomposition of known rank and cardinality.

:func:`solve_godec` alternates the bilateral random projection (BRP) of ``X - S`` with
power iterations (the low-rank step) and keeping the ``k`` largest entries of the residual
(the sparse step). The thresholding steps, the data with gaps and the result shared with
AccAltProj are in :mod:`robustpca.solvers.known_rank`, whose docstring describes both
methods and their missing-entry problem.

**Missing entries.** The BRP step on the data completed by the current ``L`` is a
majorize-minimize step (:mod:`robustpca.solvers.known_rank`, "Missing entries"), but it
converges slowly where rows keep few entries outside the gaps and ``S``: their completion
is the current fit, which pins the subspace where it is. With gaps the low-rank step is by
default one exact alternating least-squares sweep on the entries neither missing nor in
``S`` where that is cheap (``missing_step`` of :func:`solve_godec`). Neither paper
treats missing entries.

**Cardinality.** ``card`` may be the rule of :mod:`robustpca.solvers.godec_card`,
which sets ``k`` from a robust cutoff on the residual as the fit improves (ours).

The solver is a pure function: no validation, no warnings (the estimator
:class:`~robustpca.GoDec` does that).
"""

from __future__ import annotations

import numpy as np
from scipy import linalg as sla

from ..linalg import single_blas_thread
from ._result import IterationState, LoopSummary, SolverResult, StopReason
from .godec_card import ResidualCutoff
from .known_rank import (
    RESIDUAL,
    STALLED,
    Callback,
    _Entries,
    _frobenius,
    _result,
    _transposed,
    _zeros,
    keep_largest_entries,
)
from .missing import observed_fit

__all__ = ["AUTO_ALS_LIMIT", "solve_godec"]

#: ``_row_least_squares`` forms every normal matrix by one product with the ``n x r^2``
#: outer products of the basis rows up to this rank (beyond, a BLAS product per row is
#: cheaper) while that array has at most ``_OUTER_LIMIT`` entries.
_OUTER_RANK = 8
_OUTER_LIMIT = 1 << 23

#: With gaps, the ALS step is taken while the rank times the share of the entries it
#: leaves out is at most this (``missing_step='auto'`` of :func:`solve_godec`).
AUTO_ALS_LIMIT = 3.0


def _binary_unit(X: np.ndarray, observed: np.ndarray | None) -> float:
    """The power of two at or below the largest observed ``|X|`` (1 for a zero or empty
    ``X``): dividing by it is exact and brings the largest entry into ``[1, 2)``."""
    top = float(np.max(np.abs(X), where=True if observed is None else observed, initial=0.0))
    return float(np.ldexp(1.0, np.frexp(top)[1] - 1)) if top > 0 and np.isfinite(top) else 1.0


def _orthonormal(Y: np.ndarray) -> np.ndarray:
    """An orthonormal basis of the columns of ``Y`` (QR, one BLAS thread)."""
    with single_blas_thread():
        return sla.qr(Y, mode="economic", check_finite=False)[0]


def _brp_step(Z: np.ndarray, Q: np.ndarray | None, r: int, power: int, rng):
    """GoDec's BRP step on ``Z`` from the row basis ``Q`` (Gaussian when None): the
    factor ``ZQ`` and the basis ``Q`` of ``L = (ZQ) Q^T``, keeping the previous basis
    where the new one fits ``Z`` worse (:func:`solve_godec`)."""
    n = Z.shape[1]
    Y2 = rng.standard_normal((n, r)) if Q is None else Q
    Y1 = Z @ Y2
    previous_fit = _frobenius(Y1) if Q is not None else -1.0
    for step in range(power + 1):
        if step:  # orthonormal between the power steps (Halko et al. 2011, Alg. 4.4):
            Y1 = Z @ _orthonormal(Y2)  # the same span, no collapse onto the top direction
        Y2 = Z.T @ Y1
    Q_new = _orthonormal(Y2)
    ZQ = Z @ Q_new
    if _frobenius(ZQ) >= previous_fit:
        return ZQ, Q_new
    assert Q is not None  # (previous_fit is -1 on the first step)
    return Z @ Q, Q  # the previous row basis fits Z better: keep it


class _ObservedALS:
    """One sweep of alternating least squares on the observed entries outside the
    support of ``S`` (``missing_step='als'`` of :func:`solve_godec`)."""

    def __init__(self, observed: np.ndarray, r: int, unpin: ResidualCutoff | None = None):
        self.gaps = ~observed
        self.r = r
        self.unpin = unpin

    @classmethod
    def of(cls, observed: np.ndarray | None, r: int, card: int, missing_step: str):
        """The sweep, or None for the BRP step: no gap, ``'em'``, or ``'auto'`` where
        ``r`` times the share of the entries the sweep leaves out (the gaps and ``S``'s
        ``card``; the share kept where that is smaller) exceeds ``AUTO_ALS_LIMIT``."""
        if observed is None or missing_step == "em":
            return None
        gaps = np.count_nonzero(~observed)
        if not gaps:
            return None
        out = min(1.0, (gaps + card) / observed.size)
        if missing_step == "auto" and r * min(out, 1.0 - out) > AUTO_ALS_LIMIT:
            return None
        return cls(observed, r)

    def step(
        self, data: np.ndarray, S: np.ndarray, F: np.ndarray, every_row: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(F', Q')`` with ``L = F' Q'^T``, from the row factor ``F`` of the current
        ``L``: the columns' least-squares coefficients on an orthonormal basis of ``F``
        over their entries neither missing nor in ``S``, in the rows that keep more than
        ``r`` such entries (all rows with ``every_row``); then every row's on the new
        row basis ``Q'``."""
        m = data.shape[0]
        left_out = self.gaps | (S != 0)
        rows = np.ones(m, dtype=bool)
        if not every_row:
            rows = np.count_nonzero(~left_out, axis=1) > self.r
            if not rows.any():
                rows[:] = True
        with single_blas_thread():
            Qa = sla.qr(F[rows], mode="economic", check_finite=False)[0]
        C = self._fit(data[rows].T, left_out[rows].T, self.gaps[rows].T, Qa)
        with single_blas_thread():
            Q = sla.qr(C, mode="economic", check_finite=False)[0]
        return self._fit(data, left_out, self.gaps, Q), Q

    def _fit(self, data, left_out, gaps, basis) -> np.ndarray:
        """Each row's least-squares coefficients on ``basis`` over its entries not
        ``left_out``. With ``unpin`` (``card`` set by the rule,
        :mod:`~robustpca.solvers.godec_card`), a row that keeps at most ``r`` entries
        and has more than half of its observed ones in ``S`` (beyond the rule's
        assumption) is fitted instead on its observed entries, trimmed three times of
        those beyond the rule's cutoff of the row's own residual scale: left out, it
        would be fitted exactly by any basis and keep whatever residual it has, and
        once all in ``S`` it would stay there."""
        kept = np.count_nonzero(~left_out, axis=1)
        in_s = np.count_nonzero(left_out & ~gaps, axis=1)
        pinned = (kept <= self.r) & (2 * in_s > kept + in_s)
        if self.unpin is None:
            return observed_fit(data, left_out, np.zeros(data.shape[1]), basis.T)[0]
        coef = _row_least_squares(data, left_out, basis, ~pinned)  # min-norm where <= r
        if not pinned.any():
            return coef
        rows, gaps = data[pinned], gaps[pinned]
        floor = np.sqrt(np.finfo(float).eps * np.mean(rows**2, axis=1))
        trimmed = gaps
        for _ in range(3):
            sub = observed_fit(rows, trimmed, np.zeros(rows.shape[1]), basis.T)[0]
            residual = np.abs(np.where(gaps, 0.0, rows - sub @ basis.T))
            # the rule's cutoff in each row's own scale (thresholds() works by column)
            cut = self.unpin.thresholds(residual.T, None if not gaps.any() else ~gaps.T, 0.0)
            trimmed = gaps | (residual > np.maximum(cut, floor)[:, None])
        coef[pinned] = sub
        return coef


def _row_least_squares(
    data: np.ndarray, left_out: np.ndarray, basis: np.ndarray, rows: np.ndarray
) -> np.ndarray:
    """Each of ``rows``' least-squares coefficients on the orthonormal ``basis``
    (``n x r``) over its entries not ``left_out`` (zeros for the other rows): the normal
    matrix of row ``i`` is ``B^T B`` less the outer products of the basis rows it leaves
    out, or the sum of those it keeps where fewer, one BLAS product a row; or, at a
    small rank, all rows' sums of the kept ones by one product with the ``n x r^2``
    outer products of the basis rows (:func:`~robustpca.solvers.missing.observed_fit` sums
    them by a sparse product, the cost of the ALS step at large ``r``)."""
    m, r = data.shape[0], basis.shape[1]
    coef = np.zeros((m, r))
    kept = ~left_out
    rhs = np.where(kept, data, 0.0) @ basis
    gram = basis.T @ basis
    index = np.flatnonzero(rows)
    n = basis.shape[0]
    if r <= _OUTER_RANK and n * r * r <= _OUTER_LIMIT:  # all normal matrices at once
        outer = (basis[:, :, None] * basis[:, None, :]).reshape(n, r * r)
        normal = (kept[index].astype(float) @ outer).reshape(index.size, r, r)
        index_loop = index[:0]
    else:
        normal = np.empty((index.size, r, r))
        index_loop = index
    with single_blas_thread():
        for at, i in enumerate(index_loop):
            out = np.flatnonzero(left_out[i])
            if 2 * out.size <= left_out.shape[1]:
                B = basis[out]
                normal[at] = gram - B.T @ B
            else:
                B = basis[kept[i]]
                normal[at] = B.T @ B
    if index.size:
        try:
            coef[index] = np.linalg.solve(normal, rhs[index][:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:  # a row whose entries do not fix its coefficients:
            coef[index] = (np.linalg.pinv(normal) @ rhs[index][:, :, None])[:, :, 0]  # min-norm
    return coef


class _Recount:
    """:class:`~robustpca.solvers.godec_card.ResidualCutoff` applied along the loop:
    ``k`` from the first fit (at least the rule's ``start`` share), then again whenever
    the objective settles or the residual vanishes, until it no longer changes. A ``k``
    met before (a cycle) is not taken again: the current one stays."""

    def __init__(self, rule: ResidualCutoff, entries: _Entries, reference: float):
        self.rule, self.entries, self.reference = rule, entries, reference
        self.seen: set[int] = set()

    def _count(self, L: np.ndarray) -> int:
        R = self.entries.residual(L)
        return self.rule.support_size(R, self.entries.observed, self.reference)

    def select(self, R: np.ndarray, k: int) -> np.ndarray:
        """``S``: ``R`` at its ``k`` entries of largest ``|R_ij| / scale_j``."""
        return self.rule.keep_largest(R, k, self.entries.observed, self.reference)

    def first(self, L: np.ndarray) -> int:
        k = self._count(L)
        observed = self.entries.observed
        n = self.entries.data.size if observed is None else int(np.count_nonzero(observed))
        return max(k, int(self.rule.start * n))

    def due(self, previous: float, value: float) -> bool:
        return previous - value <= self.rule.refit * previous

    def again(self, L: np.ndarray, k: int) -> int:
        k_new = self._count(L)
        if k_new in self.seen:
            return k
        self.seen.add(k_new)
        return k_new


def _sparse_step(entries: _Entries, F: np.ndarray, Q: np.ndarray, k: int, recount=None):
    r"""``L = F Q^T``, GoDec's ``S`` for it and the objective
    :math:`\lVert P_O(X - L - S)\rVert_F^2`. With ``recount`` (``card`` set by the
    rule) the ``k`` entries kept are the largest relative to their column's scale."""
    L = F @ Q.T
    R = entries.residual(L)
    S = keep_largest_entries(R, k) if recount is None else recount.select(R, k)
    R -= S
    return L, S, float(np.einsum("ij,ij->", R, R))


def solve_godec(
    X: np.ndarray,
    rank: int,
    card: int,
    *,
    power: int = 1,
    max_iter: int = 100,
    tol: float = 1e-7,
    rng: np.random.Generator | None = None,
    callback: Callback | None = None,
    observed: np.ndarray | None = None,
    missing_step: str = "auto",
) -> SolverResult:
    r"""Low-rank + sparse decomposition of known rank and cardinality by GoDec.

    Zhou & Tao (2011), Algorithm 1, for

    .. math:: \min_{L, S} \lVert X - L - S\rVert_F^2 \quad\text{s.t.}\quad
              \operatorname{rank}(L) \le r,\ \operatorname{card}(S) \le k ,

    from :math:`L_0 = X, S_0 = 0`:

    .. math::
        L_t = \text{BRP}_r(X - S_{t-1}),\qquad S_t = P_\Omega(X - L_t),

    ``Omega`` the ``k`` largest entries of :math:`|X - L_t|`
    (:func:`keep_largest_entries`). The BRP step with ``q = power`` power iterations, in
    the form of the authors' code: :math:`Y_2 \leftarrow Z^T(Z Y_2)` ``q + 1`` times from
    the projection matrix :math:`Y_2 = A_1` (``n x r``), :math:`Q = \operatorname{qr}(Y_2)`
    and :math:`L = ZQQ^T` (with :math:`A_2 = Y_1` this has the row space of the paper's
    :math:`Y_1(A_2^TY_1)^{-1}Y_2^T` and is the best approximation with that row space).
    :math:`A_1` is Gaussian at the first iteration and the previous row basis after
    (a warm start); a step that would fit :math:`Z = X - S_{t-1}` worse than the previous
    row basis (:math:`\lVert ZQ\rVert_F < \lVert ZQ_{t-1}\rVert_F`, known from the first
    product) keeps that basis. So every L step does not increase the objective, and the
    S step is its exact minimiser: the objective never increases (the monotonicity
    behind the paper's Theorem 1), which a fresh Gaussian :math:`A_1` at every
    iteration does not guarantee.

    Stops when :math:`\lVert X - L - S\rVert_F \le \mathrm{tol}\lVert X\rVert_F` (the
    paper's criterion, unsquared) or when the objective decreases by less than ``tol``
    relative (noisy data, whose residual does not vanish).

    Parameters
    ----------
    X : ndarray of shape (m, n)
    rank : int
        Rank bound ``r``, ``1 <= r <= min(m, n)``.
    card : int or ResidualCutoff
        Cardinality bound ``k`` of ``S``, ``0 <= k <= m n``; or the rule that sets it
        from the residual as the fit goes (:mod:`~robustpca.solvers.godec_card`: ours,
        not the paper's). With the rule, the low-rank step after the first is the
        ALS sweep (``missing_step`` ``'auto'`` or ``'als'``; ``'em'`` keeps the BRP
        step), ``S`` keeps the largest entries in the columns' scales, the objective
        may rise where ``k`` changes, and the loop stops only on a ``k`` that a new
        count leaves unchanged.
    power : int, default=1
        Power iterations ``q`` of the BRP.
    max_iter, tol, rng, callback, observed
        As in :func:`solve_accaltproj`. With ``observed``, ``S`` keeps the ``k`` largest
        entries of the observed residual and the objective is
        :math:`\lVert P_O(X - L_t - S_t)\rVert_F^2`, still non-increasing (module
        docstring, "Missing entries").
    missing_step : {'auto', 'em', 'als'}, default='auto'
        The low-rank step with gaps, after a first BRP step on the data completed from
        the columns' medians. ``'em'``: the BRP step on the completion (module
        docstring, "Missing entries"). ``'als'``: one sweep of alternating least squares
        on the entries neither missing nor in the support of ``S``: each column's
        coefficients on an orthonormal basis of the current row factor, by least squares
        over those entries (:func:`~robustpca.solvers.missing.observed_fit`) in the rows
        that keep more than ``r`` of them; then every row's on the new row basis. A row
        with at most ``r`` such entries is fitted exactly whatever the basis, so it says
        nothing about it; counted in the column step, its current fit would pin the basis
        where it is, as EM's completion does. Given the support, each half-step minimises
        the objective over one factor, so it never increases (where a row left out is
        not fitted exactly, as when the basis has equal rows for its columns, the step
        is taken again with every row).
        ``'auto'``: ALS where ``r`` times the share of the entries it leaves out (the
        gaps and ``card``; the share kept, where smaller) is at most
        ``AUTO_ALS_LIMIT`` (3), EM otherwise.

        ``benchmarks/bench_godec_gaps.py`` compares the two steps: on rrcov's tables with
        gaps the ALS step converged where EM's completion often did not, and on planted
        problems it needed fewer iterations, each dearer as ``r`` grows (its sparse
        products cost about ``r^2`` per entry left out), hence the limit on ``r`` times
        the share left out (figures in ``docs/design-notes/known-rank.md``).

    Returns
    -------
    SolverResult
        ``objective``: :math:`\lVert X - L_t - S_t\rVert_F^2` after each iteration;
        ``info`` as in :func:`solve_accaltproj`, without the thresholds, plus
        ``card`` (the ``k`` used last) and ``missing_step``: the low-rank step taken
        with gaps (``'em'`` or ``'als'``; None without ``observed``).
    """
    rng = np.random.default_rng(0) if rng is None else rng
    X = np.asarray(X, dtype=np.float64)
    m, n = X.shape
    r = int(rank)
    rule = card if isinstance(card, ResidualCutoff) else None
    k = 0 if isinstance(card, ResidualCutoff) else int(card)
    # The power steps cube the data's scale (Z^T Z Y): from about 1e103 they overflow and
    # from about 1e-103 underflow. Every step is scale-equivariant, so the loop runs on X
    # divided by a power of two near its largest entry (exact) and L, S scale back.
    unit = _binary_unit(X, observed)
    entries = _Entries(X / unit, observed)
    norm_x2 = float(np.einsum("ij,ij->", entries.data, entries.data)) if X.size else 0.0
    n_entries = X.size if observed is None else int(np.count_nonzero(observed))
    reference = np.sqrt(norm_x2 / max(n_entries, 1))
    if rule is None:
        als = _ObservedALS.of(observed, r, k, missing_step)
    elif missing_step == "em":
        als = None
    else:  # the rule's surplus entries must be left out, not filled (godec_card)
        als = _ObservedALS(np.ones(X.shape, bool) if observed is None else observed, r, rule)
    recount = _Recount(rule, entries, reference) if rule is not None else None
    S = np.zeros_like(X)
    Q = None
    objective: list[float] = []
    stop_reason, converged, n_iter = StopReason.MAX_ITER, False, 0
    L = entries.filled.copy()
    for t in range(1, max_iter + 1):
        if als is None or Q is None:
            ZQ, Q = _brp_step(entries.target(S, L), Q, r, power, rng)
            if recount is not None and t == 1:
                k = recount.first(ZQ @ Q.T)
            L, S, value = _sparse_step(entries, ZQ, Q, k, recount)
        else:
            F, Q_new = als.step(entries.data, S, ZQ)
            L_new, S_new, value = _sparse_step(entries, F, Q_new, k, recount)
            if rule is None and value > objective[-1] * (1.0 + 1e-12):  # a row left out
                F, Q_new = als.step(entries.data, S, ZQ, every_row=True)  # was not fitted
                L_new, S_new, value = _sparse_step(entries, F, Q_new, k, recount)
            ZQ, Q, L, S = F, Q_new, L_new, S_new
        settled = t > 1 and objective[-1] - value <= tol * objective[-1]
        exact = value <= tol * tol * norm_x2
        if recount is not None and t > 1 and (exact or recount.due(objective[-1], value)):
            k_new = recount.again(L, k)
            settled = settled and k_new == k
            exact = exact and k_new == k  # a new k is fitted at least once
            if k_new != k:
                k = k_new
                R = entries.residual(L)
                S = recount.select(R, k)
                R -= S
                value = float(np.einsum("ij,ij->", R, R))
        objective.append(value)
        n_iter = t
        if callback is not None:
            state = IterationState(t, objective[-1] * unit**2, None, _transposed(Q), _zeros(n))
            if callback(t, state):
                stop_reason = StopReason.CALLBACK
                break
        if exact if recount is not None else objective[-1] <= tol * tol * norm_x2:
            stop_reason, converged = RESIDUAL, True
            break
        if settled:
            stop_reason, converged = STALLED, True
            break
    # factors of L = (ZQ) Q^T for the result
    if Q is None:  # max_iter = 0 is not used by the estimators; keep the shape
        Q = np.zeros((n, r))
        ZQ = np.zeros((m, r))
    with single_blas_thread():
        Uz, sz, Wt = sla.svd(ZQ, full_matrices=False, check_finite=False)
    step = None if observed is None else ("em" if als is None else "als")
    info: dict = {"card": k, "missing_step": step}
    with np.errstate(over="ignore"):  # a history beyond float64's range is infinite
        history = np.asarray(objective, dtype=float) * unit * unit
    loop = LoopSummary(n_iter, converged, stop_reason, history)
    return _result(X, L * unit, S * unit, (Uz, sz * unit, Q @ Wt.T), r, rng, info, loop)
