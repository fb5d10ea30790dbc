r"""The convex ALM solvers (PCP, outlier pursuit, CRPCA-OM) in passes over row chunks.

The in-memory loop of :mod:`robustpca.solvers.alm` holds two ``n x d`` arrays, ``work``
(:math:`D = X - L`, then the argument ``M`` of the ``L`` step) and the multiplier ``Y``,
and on tall data (``n >= d``) every step but the singular value thresholding is local to
a row: the sparse steps (soft thresholding, l2,1 row shrinkage), the multiplier, the
primal and dual residuals and the sums of the cheap gap. The thresholding needs only the
``d x d`` Gram matrix of ``M`` (the Gram route of :mod:`robustpca.solvers.alm_svt`:
``L = M V diag(s / sigma) V^T``). So here the two arrays stay in row chunks, each chunk
holding its ``(work, Y)`` (the *state*: updated in place where the runner allows it,
else written anew by each pass, see :mod:`robustpca.solvers.chunked_state`), and an
iteration is **two passes**:

1. each chunk advances its state to ``(M, Y_k)`` (:func:`~.alm_blocks._advance`) and
   returns the Gram matrix of its ``M`` (with a free mean, its mean and centred scatter,
   merged by Chan et al.'s formula, :class:`~.chunked.Moments`);
2. the eigendecomposition of the summed ``d x d`` matrix runs in memory, and each chunk
   applies the thresholding to its rows (:func:`~.alm_blocks._low_rank_pass`), writing
   :math:`D_{k+1}` over ``M`` and returning the primal and dual residuals and the cheap
   gap's sums.

The penalty schedule and the stopping rule are the in-memory ones
(:class:`~.alm_schedule._Schedule`, :func:`~.alm_gap._cheap_gap`), step for step. The
certified duality gap (:func:`~.alm_gap._gap`) is computed over the chunks as well,
without a pass of its own: where the loop asks for it after an iteration, the first pass
of the next iteration gathers its sums (the multiplier's inner product with ``X - c``,
its entry norm and its ``d x d`` Gram matrix, whose top eigenvalue is its squared
spectral norm; for CRPCA-OM the multiplier's column sums, for the zero-mean constraint,
come from the pass before) while it leaves the state as it is and forms ``M`` in a
working copy, with the penalty the schedule takes if the certificate fails; the second
pass then forms ``M`` again. A fit that stops on its certificate has made one pass
after its last iteration; PCP's refined certificate (:func:`~.alm_gap._refined_gap`),
where the plain one misses the target, takes one more pass a round. At the end one pass writes,
chunk by chunk, ``S`` over ``Y`` and ``L = X - D`` over ``work``
(:func:`~.alm_blocks._finish_arrays`): ``2 n_iter + 3`` passes in all, plus PCP's
refined certificates and, for ``gamma='auto'`` on centred data, the pass of its Gram
matrix.

The iterates are those of the in-memory solver to rounding (sums over chunks in another
order) where it takes the Gram route; ``svd_solver`` is not used here (the block SVT of
``'partial'`` needs products with ``M``, a pass each). The spectral norms of the start
(``mu='auto'``, ``Y_0`` of PCP, ``gamma='auto'``) are taken from ``d x d`` Gram matrices
gathered in the first passes, by the same Lanczos iteration from the same random start as
:func:`~.alm.spectral_norm`. PCP's ``center='median'`` offset is given, found before by
the exact counting passes of :func:`~.chunked_order_statistics.column_medians`; the
first pass's scatter is then taken about it.

The runner is a state runner of :mod:`robustpca.solvers.chunked_state`
(:class:`~.chunked_state.NumpyStateRunner` in memory,
:class:`robustpca._dask.low_rank_sparse.DaskStateRunner` on dask, whose states are
persisted where the scheduler keeps results); ``run.state_arrays()`` gives the two
arrays of the states. Nothing here imports dask, validates or warns.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
from scipy import linalg as sla

from ..linalg import single_blas_thread
from ._result import IterationState, LoopSummary, SolverResult, StopReason
from .alm_blocks import (
    _L1,
    _L21,
    _advance,
    _Data,
    _finish_arrays,
    _low_rank_pass,
    _shift_into,
)
from .alm_gap import (
    REFINE_ROUNDS,
    _cheap_gap,
    _clipped_spectrum,
    _final_blocks,
    _projected_pass,
    _top_eigenvalue,
)
from .alm_schedule import DUALITY_GAP, RELAX_PCP, _Schedule
from .alm_svt import ALL_EIGENPAIRS_FRACTION, GRAM_EIGH_ONE_THREAD_MAX
from .alm_types import _LowRank, _Problem, convex_result
from .chunked import Moments, block_moments
from .chunked_state import (
    AUTO_GAMMA_FRACTION,
    Max,
    NumpyStateRunner,
    _norm_from_gram,
    first_pass,
    gamma_max_chunked,
    reuses_states,
    writable,
)

__all__ = [
    "AUTO_GAMMA_FRACTION",
    "NumpyStateRunner",
    "first_pass",
    "gamma_max_chunked",
    "solve_convex_chunked",
]

Callback = Callable[[int, IterationState], bool | None]


# ----------------------------------------------------------- the thresholding step
def _gram_threshold(G: np.ndarray, tau: float, predicted: int) -> _LowRank:
    """The tall branch of :func:`~.alm_svt._gram_step` from the Gram matrix ``G`` of
    ``M`` (overwritten): ``L = M V diag(s / sigma) V^T``."""
    d = len(G)
    with single_blas_thread(d <= GRAM_EIGH_ONE_THREAD_MAX):
        try:
            if predicted > ALL_EIGENPAIRS_FRACTION * d:
                lam, E = sla.eigh(G.copy(), check_finite=False, overwrite_a=True, driver="evr")
            else:
                lam, E = sla.eigh(
                    G.copy(),
                    check_finite=False,
                    overwrite_a=True,
                    subset_by_value=(tau * tau, np.inf),
                    driver="evr",
                )
        except np.linalg.LinAlgError:  # syevr fails on tight clusters
            lam, E = sla.eigh(G, check_finite=False, overwrite_a=True, driver="evd")
        first = int(np.searchsorted(lam, tau * tau, side="right"))
        lam, E = lam[first:], E[:, first:]
    sigma = np.sqrt(np.maximum(lam[::-1], 0.0))
    r = int(np.count_nonzero(sigma > tau))
    sigma, E = sigma[:r], np.ascontiguousarray(E[:, ::-1][:, :r])
    s = sigma - tau
    return _LowRank("rows", s, Vt=np.ascontiguousarray(E.T), gain=s / sigma)


# ------------------------------------------------------------------ chunk kernels
def _gram_part(M: np.ndarray, free_mean: bool) -> dict:
    if free_mean:
        return {"m": block_moments(M, np.ones(M.shape[0]))}
    return {"gram": M.T @ M}


def _start_kernel(x, state, *, center, J, inv, free_mean):
    """Iteration 1: the state ``(M, Y_0)`` with ``S_0 = 0``, ``Y_0 = (X - c) / J`` (PCP)
    or 0 (``J=None``), and the Gram part of ``M``."""
    data = _Data(x, center)
    Y = data.divided(J) if J else np.zeros(x.shape)
    W = np.zeros(x.shape)
    _shift_into(data, W, Y, inv)
    return (W, Y), _gram_part(W, free_mean)


def _zero_kernel(x, state):
    """The state of data equal to their offset: ``D = 0``, ``Y = 0``."""
    return (np.zeros(x.shape), np.zeros(x.shape)), {}


def _advance_kernel(
    x, state, *, center, sparse, mu_prev, inv, alpha, relax, free_mean, cert=None, reuse=False
):
    """Pass 1 of an iteration: ``(D_k, Y_{k-1}) -> (M, Y_k)`` (in place with ``reuse``,
    else in a new state, :func:`~.chunked_state.writable`); the Gram part. With ``cert``
    (the certificate of the previous iteration is due) the state is only read: the
    certificate's sums of ``(D_k, Y_{k-1})`` (:func:`_gap_kernel`), and ``M`` formed in
    a working copy (pass 2 forms it again)."""
    part: dict = {}
    if cert is not None:
        part = _gap_kernel(x, state, center=center, sparse=sparse, **cert)[1]
        kept, (W, Y) = state, (state[0].copy(), state[1].copy())
    else:
        kept = W, Y = writable(state, reuse)
    _advance(_Data(x, center), sparse, W, Y, mu_prev, inv, alpha, relax)
    return kept, {**part, **_gram_part(W, free_mean)}


def _apply_kernel(
    x,
    state,
    *,
    center,
    sparse,
    low,
    mean,
    mu,
    measure,
    column_sums,
    alpha,
    advance,
    ysum,
    reuse=False,
):
    """Pass 2: ``M -> D_{k+1}`` (in place with ``reuse``, else in a copy of ``M``; the
    multiplier is shared with the input), and the pass's sums (``_PassStats``);
    ``advance``: the parameters of pass 1 when it left the state as it was (the
    multiplier is then written too); ``ysum``: also the column sums of the multiplier the
    certificate would read (CRPCA-OM)."""
    W, Y = writable(state, reuse, 1 if advance is None else 2)
    data = _Data(x, center)
    if advance is not None:
        _advance(data, sparse, W, Y, **advance)
    if mean is not None:
        W -= mean  # the in-memory step subtracts b from M in place
    stats = _low_rank_pass(data, sparse, W, Y, low, mean, mu, measure, column_sums, alpha)
    part = {
        key: getattr(stats, key) for key in ("loss", "primal", "dual", "value", "size", "size_next")
    }
    part["entry"] = Max(stats.entry)
    if stats.value_next is not None:
        part["value_next"] = stats.value_next
    if stats.column_sums:
        part.update(colsum=stats.colsum, colsum_next=stats.colsum_next, xsum=stats.xsum)
    if ysum:
        part["total"] = _dual_sum_kernel(
            x, (W, Y), center=center, sparse=sparse, mu=mu, alpha=alpha
        )[1]["total"]
    return (W, Y), part


def _outcome(state, mu, alpha):
    return SimpleNamespace(work=state[0], dual=state[1], mu=mu, alpha=alpha)


def _dual_sum_kernel(x, state, *, center, sparse, mu, alpha):
    """Column sums of the final multiplier (CRPCA-OM's certificate, first pass)."""
    data, out = _Data(x, center), _outcome(state, mu, alpha)
    total = np.zeros(x.shape[1])
    for rows in data.rows:
        Yk, S, _ = data.row_block(rows)
        total += _final_blocks(sparse, out, rows, slice(None), Yk, S).sum(axis=0)
    return state, {"total": total}


def _gap_kernel(x, state, *, center, sparse, mu, alpha, ybar):
    """The certificate's sums over a chunk (:func:`~.alm_gap._blockwise_gap`, tall)."""
    data, out = _Data(x, center), _outcome(state, mu, alpha)
    value, entry = 0.0, 0.0
    G = np.zeros((x.shape[1],) * 2)
    for rows in data.rows:
        Yk, S, T = data.row_block(rows)
        _final_blocks(sparse, out, rows, slice(None), Yk, S)
        if ybar is not None:
            Yk -= ybar
        value += float(np.vdot(data.take(rows, slice(None), T), Yk))
        entry = max(entry, sparse.entry_norm(Yk))
        G += Yk.T @ Yk
    return state, {"value": value, "entry": Max(entry), "ygram": G}


def _refined_kernel(x, state, *, center, sparse, mu, alpha, clips):
    """A round of PCP's refined certificate over a chunk (the chunk's
    :func:`~.alm_gap._projected_pass`): ``<X - c, Z>`` and the Gram matrix of ``Z``."""
    value, Z = _projected_pass(_Data(x, center), sparse, _outcome(state, mu, alpha), clips, False)
    return state, {"value": value, "gram": Z}


def _finish_kernel(x, state, *, center, sparse, mu, alpha, reuse=False):
    """The state becomes ``(L + c, S)`` (:func:`~.alm_blocks._finish_arrays`; in place
    with ``reuse``)."""
    out = _outcome(writable(state, reuse), mu, alpha)
    low, sparse_part = _finish_arrays(_Data(x, center), sparse, out)
    return (low, sparse_part), {}


# ------------------------------------------------------------- certified gap
def _chunked_gap(run, problem, center, mu, alpha, objective, target=0.0) -> float:
    """:func:`~.alm_gap._gap` of the current state over the chunks (its own passes)."""
    if objective <= 0:
        return 0.0
    common = {"center": center, "sparse": problem.sparse}
    ybar = None
    if problem.free_mean:
        total = run(_dual_sum_kernel, mu=mu, alpha=alpha, **common)["total"]
        ybar = total / run.n_samples
    sums = run(_gap_kernel, mu=mu, alpha=alpha, ybar=ybar, **common)
    return _gap_of(run, problem, center, mu, alpha, objective, target, sums)


def _gap_of(run, problem, center, mu, alpha, objective, target, sums) -> float:
    """The certified gap from the sums of :func:`_gap_kernel`; for PCP, where it misses
    ``target``, the refined certificate (one more pass, the state unchanged)."""
    if objective <= 0:
        return 0.0
    sparse = problem.sparse
    G = sums["ygram"]
    two = float(np.sqrt(max(_top_eigenvalue(np.asfortranarray(G)), 0.0)))
    bound = max(1.0, sparse.dual_norm(two, sums["entry"].value))
    gap = (objective - sums["value"] / bound) / objective
    if sparse.rowwise or two <= 1.0 or gap <= target:
        return gap
    # the rounds of alm_gap._refined_gap, a pass each
    clips: list = []
    best = np.inf
    common = {"center": center, "sparse": sparse, "mu": mu, "alpha": alpha}
    for _ in range(REFINE_ROUNDS):
        clip = _clipped_spectrum(np.asfortranarray(G))
        if clip is None:
            break
        clips.append(clip)
        refined = run(_refined_kernel, clips=list(clips), **common)
        value, G = refined["value"], refined["gram"]
        top = float(np.sqrt(max(_top_eigenvalue(np.asfortranarray(G)), 0.0)))
        best = min(best, (objective - value / max(1.0, top)) / objective)
        reachable = target > 0 and (objective - value) / objective <= target
        if best <= target or not reachable:
            break
    return min(gap, best)


def _stats_of(sums: dict, d: int, column_sums: bool, full: bool):
    from .alm_blocks import _PassStats

    stats = _PassStats(d, column_sums, full)
    for key, value in sums.items():
        setattr(stats, key, value.value if isinstance(value, Max) else value)
    return stats


# ------------------------------------------------------------------------ the solver
def _callback_state(iteration: int, objective: float, low: _LowRank, mean, center, d: int):
    """The callback's view: the right singular vectors of ``L - b`` and the offset of
    ``L``, ``b + c`` (``c``: the centre taken out first), as the result's ``mean``."""
    b = np.zeros(d) if mean is None else mean
    offset = b if center is None else b + center
    vt = low.Vt if low.Vt is not None else np.zeros((0, d))
    return IterationState(iteration, objective, None, lambda: vt, lambda: offset)


def _start(first: dict, problem: str, weight: float, center, mu, mu_max, rng):
    """The offset, the scale and the start of the loop, as :func:`~.alm.solve_pcp` and
    :func:`~.alm._row_sparse_alm` set them, from the first pass's sums (``center``: a
    bool, or the offset itself, the column medians)."""
    moments: Moments = first["moments"]
    d = moments.mean.size
    assert moments.scatter is not None
    c: np.ndarray | None
    if isinstance(center, np.ndarray):
        c = np.asarray(center, dtype=np.float64).copy()
        gram = moments.scatter_about(c)
    else:
        c = moments.mean.copy() if center else None
        gram = moments.scatter if c is not None else moments.scatter_about(np.zeros(d))
    scale = float(np.sqrt(max(float(np.trace(gram)), 0.0)))
    J = None
    if problem == "pcp":
        hi, lo = first["hi"].value, -first["lo"].value
        if c is not None:
            hi, lo = hi - c, lo - c
        abs_max = float(max(hi.max(initial=-np.inf), -lo.min(initial=np.inf))) if d else 0.0
        norm_two = _norm_from_gram(gram, rng, rtol=1e-6)
        J = max(norm_two, abs_max / weight)
        if mu is None and norm_two > 0:
            mu = 1.25 / norm_two
        J = J if J > 0 else None
    if mu is None:  # _auto_mu
        norm_two = _norm_from_gram(gram, rng, rtol=1e-6)
        mu = 1.25 / norm_two if norm_two > 0 else 1.0
    ratio = 1e7 if problem == "pcp" else 1e9
    cap = ratio * mu if mu_max is None else float(mu_max)
    return c, scale, J, float(mu), max(cap, float(mu))


def solve_convex_chunked(
    run,
    first: dict,
    *,
    problem: str,
    weight: float,
    center: bool | np.ndarray = False,
    n_components: int | None = None,
    mu: float | None = None,
    mu_max: float | None = None,
    rho: float = 1.5,
    max_iter: int = 1000,
    tol: float = 1e-7,
    gap_tol: float | None = 1e-3,
    rng: np.random.Generator,
    callback: Callback | None = None,
) -> SolverResult:
    r"""PCP, outlier pursuit or CRPCA-OM over the row chunks of ``run``, two passes an
    iteration (see the module docstring).

    The loop of :func:`~.alm._inexact_alm` and the result of :func:`~.alm._solve`, with
    the same start (:math:`\mu_0`, :math:`\bar\mu`, :math:`Y_0`), penalty schedule,
    stopping rule and certified gap.

    Parameters
    ----------
    run : callable
        A state runner (module docstring), with ``n_samples`` and ``n_passes``.
    first : dict
        The sums of :func:`first_pass` over the chunks.
    problem : {'pcp', 'outlier_pursuit', 'crpca_om'}
        :func:`~.alm.solve_pcp`, :func:`~.alm.solve_outlier_pursuit` or
        :func:`~.alm.solve_crpca_om`.
    weight : float
        :math:`\lambda` (PCP) or :math:`\gamma`.
    center : bool or ndarray of shape (n_features,)
        Subtract the column means first (always for CRPCA-OM), or this offset (PCP's
        ``center='median'``: the exact column medians, :func:`~.chunked_order_statistics.
        column_medians`).
    n_components, mu, mu_max, rho, max_iter, tol, gap_tol, rng, callback
        As for the in-memory solvers (``mu=None``: ``'auto'``).

    Returns
    -------
    SolverResult
        As the in-memory solver's (:func:`~.alm_types.convex_result`), with ``low_rank``
        and ``sparse`` from ``run.state_arrays()`` (for dask, chunked arrays) and
        ``info['svd_counts']`` counting Gram steps; no ``dual``.
    """
    rowwise = problem != "pcp"
    free_mean = problem == "crpca_om"
    sparse = _L21(weight) if rowwise else _L1(weight)
    prob = _Problem(_gram_threshold, sparse, None, free_mean=free_mean)  # what _cheap_gap reads
    given = center if isinstance(center, np.ndarray) else bool(center) or free_mean
    c, scale, J, mu, cap = _start(first, problem, weight, given, mu, mu_max, rng)
    mu0 = mu
    n, d = run.n_samples, first["moments"].mean.size
    history: list[float] = []
    parts: list[tuple[float, float]] = []  # (nuclear norm, sparse term) of history
    trace: dict[str, list] = {"primal": [], "dual": [], "gap": [], "mu": [], "certified": []}
    stop_reason, converged, mean, low = StopReason.MAX_ITER, False, None, _LowRank.empty(0, d)
    counts = {"full": 0, "partial": 0, "grown": 0, "gram": 0}
    mu_used, certified, alpha, n_iter = mu, np.inf, 1.0, 0
    nuclear = weight if rowwise else 1.0
    common = {"center": c, "sparse": sparse}
    reuse = reuses_states(run)  # else every kernel writes a new state (chunked_state)
    if scale == 0.0:  # X - c = 0: D = 0 and Y_0 = 0 are the solution
        run(_zero_kernel)
        history, converged, stop_reason, certified = [0.0], True, StopReason.EXACT, 0.0
        parts = [(0.0, 0.0)]
    else:
        schedule = _Schedule(mu, rho, cap, tol, gap_tol, 1.0 if rowwise else RELAX_PCP)
        pending: dict | None = None  # the certificate due at the end of the last iteration
        total = np.zeros(d)  # column sums of its multiplier (CRPCA-OM)
        for iteration in range(1, max_iter + 2):
            if pending is None and iteration > max_iter:
                break
            cert, relax, mu_next = None, schedule.relaxation(), mu
            if pending is not None:  # in this pass, with the penalty of a failed one
                trial = copy.deepcopy(schedule)
                trial.done(pending["k"], pending["gap"], np.inf)
                relax = trial.relaxation()
                mu_next = mu_used if pending["growing"] and mu > mu_used else mu
                ybar = total / n if free_mean else None
                cert = {"mu": mu_used, "alpha": alpha, "ybar": ybar}
            step = {"mu_prev": mu_used, "inv": 1.0 / mu_next, "alpha": alpha, "relax": relax}
            if cert is not None and iteration > max_iter:  # the last certificate, alone
                sums = run(_gap_kernel, **cert, **common)
            elif iteration == 1:
                sums = run(_start_kernel, center=c, J=J, inv=1.0 / mu, free_mean=free_mean)
            else:
                sums = run(
                    _advance_kernel, free_mean=free_mean, cert=cert, reuse=reuse, **step, **common
                )
            if pending is not None:
                certified = _gap_of(run, prob, c, mu_used, alpha, history[-1], gap_tol, sums)
                trace["certified"].append((pending["k"], certified))
                if schedule.done(pending["k"], pending["gap"], certified):
                    stop_reason, converged = DUALITY_GAP, True
                    break
                mu, pending = mu_next, None
                if iteration > max_iter:
                    break
            G = sums["m"].scatter if free_mean else sums["gram"]
            mean = sums["m"].mean if free_mean else None
            low = _gram_threshold(G, nuclear / mu, low.s.size if iteration > 1 else 0)
            counts["gram"] += 1
            measure, alpha = schedule.measures(), relax
            sums = run(
                _apply_kernel,
                low=low,
                mean=mean,
                mu=mu,
                measure=measure,
                column_sums=free_mean,
                alpha=alpha,
                advance=step if cert is not None else None,
                ysum=free_mean and gap_tol is not None,
                reuse=reuse,
                **common,
            )
            n_iter = iteration
            stats = _stats_of(sums, d, free_mean, measure is True)
            history.append(sparse.objective(stats.loss, low.s))
            parts.append((float(low.s.sum()), float(stats.loss)))
            primal = float(np.sqrt(stats.primal)) / scale
            gap = dual = np.nan
            if measure:
                size = 2 * (stats.size + stats.size_next) + stats.dual
                dual = float(np.sqrt(stats.dual / size)) if size > 0 else 0.0
            if measure is True:
                gap = _cheap_gap(prob, stats, history[-1], n)
            for key, value in (("primal", primal), ("dual", dual), ("gap", gap), ("mu", mu)):
                trace[key].append(value)
            mu_used, mu = mu, schedule.next_mu(mu, primal, dual)
            if callback is not None:
                state = _callback_state(iteration, history[-1], low, mean, c, d)
                if callback(iteration, state):
                    stop_reason = StopReason.CALLBACK
                    break
            if gap_tol is None:
                if primal <= tol:
                    stop_reason, converged = StopReason.PRIMAL_RESIDUAL, True
                    break
                continue
            growing = schedule.phase == "lin"
            if schedule.wants_certificate(iteration, primal, gap, mu_used):
                pending = {"k": iteration, "gap": gap, "growing": growing}
                total = sums.get("total", total)
    objective = history[-1]
    gap = certified if converged and gap_tol is not None else np.inf
    if not np.isfinite(gap):
        gap = _chunked_gap(run, prob, c, mu_used, alpha, objective)
    run(_finish_kernel, mu=mu_used, alpha=alpha, reuse=reuse, **common)
    low_rank, sparse_part = run.state_arrays()
    offset = np.zeros(d) if mean is None else mean
    if c is not None:
        offset = offset + c
    vt = low.Vt if low.kind == "rows" and low.Vt is not None else np.zeros((0, d))
    return convex_result(
        low_rank,
        sparse_part,
        low.s,
        lambda count: vt[:count],
        mean=offset,
        n_components=n_components,
        row_sparse=rowwise,
        rng=rng,
        loop=LoopSummary(n_iter, converged, stop_reason, np.asarray(history, dtype=float)),
        duality_gap=gap,
        mu=mu0,
        objective_parts=np.asarray(parts, dtype=float).reshape(-1, 2),
        svd_counts=counts,
        residuals={k: np.asarray(v) for k, v in trace.items()},
    )
