"""The chunked fits of the L + S estimators on tall dask arrays: the convex ones and AccAltProj.

:class:`~robustpca.PrincipalComponentPursuit`, :class:`~robustpca.OutlierPursuit` and
:class:`~robustpca.ConvexOptimalMeanPCA` on a dask array with ``n_samples >= n_features``
run :func:`robustpca.solvers.chunked_alm.solve_convex_chunked` over the row chunks
(two passes an iteration; PCP's ``center='median'`` first finds the exact column medians
by counting passes; the multiplier and ``X - L`` stay chunked, persisted where the
scheduler keeps its results: in the client process for the local schedulers, on the
workers for a ``distributed`` cluster). The fitted ``low_rank_``, ``sparse_`` and
``outliers_`` are dask arrays chunked like the rows of ``X``, backed by the persisted
chunks of the last pass; the other attributes are those of the NumPy fit.
:class:`~robustpca.AccAltProj` runs
:func:`robustpca.solvers.chunked_known_rank.solve_accaltproj_chunked` (one pass an
iteration; each chunk keeps its ``S`` and its rows of the left factor, and ``low_rank_``
is formed from them when computed).

This module registers the fits in :data:`robustpca._dask.fit.FITS` through the names the
estimator classes give in ``_dask_fit``; it never imports an estimator.
"""

from __future__ import annotations

from functools import partial
from uuid import uuid4

import numpy as np

from .._validation import (
    check_bool,
    check_mu_scale,
    check_nonnegative_float,
    check_positive_or_auto,
)
from ..solvers.chunked import combine_parts
from ..solvers.chunked_alm import (
    AUTO_GAMMA_FRACTION,
    first_pass,
    gamma_max_chunked,
    solve_convex_chunked,
)
from ..solvers.chunked_known_rank import accaltproj_first_pass, solve_accaltproj_chunked
from ..solvers.chunked_order_statistics import (
    column_medians,
    median_ranks,
    radix_count,
    radix_level_one,
)
from ..solvers.penalty_range import solver_gamma, solver_lam
from .arrays import LARGEST, _dask, check_underflow, largest_of
from .offset_precision import warn_far_from_origin

__all__ = [
    "DaskStateRunner",
    "fit_accaltproj",
    "fit_crpca_om",
    "fit_outlier_pursuit",
    "fit_pcp",
]


class DaskStateRunner:
    """A state runner (:mod:`robustpca.solvers.chunked_state`) over a dask array's row chunks.

    Built on the :class:`~robustpca._dask.fit.DaskPassRunner` of the fit (its blocks, its
    tree of additions and its pass count). A pass builds one task per chunk,
    ``kernel(x_block, state, **params) -> (state, part)``. With a ``distributed`` client
    the new states and the root of the tree that adds the parts are persisted by one
    ``Client.persist`` (the states stay on the workers) and the root, a small dictionary,
    is brought back; with a local scheduler one ``dask.compute`` returns both and the
    states stay in this process (the threaded scheduler does not even copy them). On a
    local scheduler the kernels update the states in place (``reuse_states``), so a
    pass holds no second copy of them; on a cluster they write new states, and the old
    ones are dropped as soon as a pass is submitted, each freed once the task that reads
    it has run. Should a worker die, the scheduler makes the lost states again from the
    tasks that made them, which are pure there.
    """

    def __init__(self, runner, n_features: int):
        self.runner = runner
        self.n_features = n_features
        self.n_samples = int(sum(runner.row_chunks))
        self.states: list = [None] * len(runner._blocks)

    @property
    def n_passes(self) -> int:
        return self.runner.n_passes

    @property
    def reuse_states(self) -> bool:
        """Whether the kernels may overwrite the states they are given
        (:mod:`robustpca.solvers.chunked_state`): on a local scheduler every task runs
        once and its state replaces the old one; a ``distributed`` cluster may run a
        task again from its inputs after losing a worker, so there they write new ones."""
        return not _distributed()

    def __call__(self, kernel, **params) -> dict:
        dask, _ = _dask()
        # the fit's first pass also checks the in-memory underflow bound (DaskPassRunner)
        underflow, self.runner.underflow = self.runner.underflow, None
        if underflow is not None:
            kernel = partial(_with_largest, kernel)
        task = dask.delayed(partial(_listed, kernel, **params), pure=False, nout=2)
        outs = [task(b, s) for b, s in zip(self.runner._blocks, self.states, strict=True)]
        parts = [out[1] for out in outs]
        combine = dask.delayed(combine_parts, pure=False)
        step = self.runner.split_every
        while len(parts) > 1:
            parts = [combine(*parts[i : i + step]) for i in range(0, len(parts), step)]
        if _distributed():  # the states stay on the workers
            # through the client itself: older dask.persist (2024.1) computes into this
            # process when the client is not the default one
            *states, root = _client().persist([*(out[0] for out in outs), parts[0]])
            # drop the old states now: each is released once the task that reads it
            # has run (the scheduler keeps how to make it again), so the workers hold
            # one copy of the states, not two, at the end of the pass
            self.states = states
            del outs, parts
            (result,) = dask.compute(root)
        else:  # one scheduler run; the states stay here (threads: not even copied)
            *values, result = dask.compute(*(out[0] for out in outs), parts[0])
            states = [
                dask.delayed(v, name=f"robustpca-state-{uuid4().hex}", traverse=False)
                for v in values
            ]
        self.states = states
        self.runner.n_passes += 1
        if underflow is not None:
            check_underflow(result.pop(LARGEST).value, underflow)
        return result

    def map_states(self, func, n_columns: int, **params):
        """``func(state, **params)`` of every persisted state, as a lazy dask array
        chunked like the rows of ``X`` (``n_columns`` columns)."""
        dask, da = _dask()
        task = dask.delayed(partial(func, **params), pure=True)
        blocks = [
            da.from_delayed(task(state), shape=(rows, n_columns), dtype=np.float64)
            for state, rows in zip(self.states, self.runner.row_chunks, strict=True)
        ]
        return da.concatenate(blocks, axis=0)

    def state_arrays(self):
        """The two arrays of the persisted states as dask arrays chunked like ``X``'s rows."""
        d = self.n_features
        return self.map_states(_pick, d, index=0), self.map_states(_pick, d, index=1)


def _distributed() -> bool:
    """Whether the active scheduler is a ``distributed`` client."""
    from dask.base import get_scheduler

    owner = getattr(get_scheduler(), "__self__", None)
    return type(owner).__module__.split(".")[0] == "distributed"


def _client():
    """The ``distributed`` client that the active scheduler belongs to."""
    from dask.base import get_scheduler

    return get_scheduler().__self__


def _pick(state, *, index: int):
    return state[index]


def _with_largest(kernel, block, state, **params):
    """``kernel(block, state)`` with the block's largest magnitude in its part."""
    state, part = kernel(block, state, **params)
    return state, {**part, LARGEST: largest_of(block)}


def _listed(kernel, block, state, **params):
    """``kernel(block, state)`` with its state as a list: a tuple whose first item is an
    array, as a value of the graph, reads as a task to the array optimiser of older dask
    releases (2024.1 compares that array with its getters and raises)."""
    state, part = kernel(block, state, **params)
    return (list(state) if isinstance(state, tuple) else state), part


def _tall_runner(est, X, run) -> DaskStateRunner:
    if X.shape[0] < X.shape[1]:
        raise ValueError(
            f"{type(est).__name__} fits a dask array chunk by chunk only when it is tall "
            f"(n_samples >= n_features), got shape {X.shape}; fit X.compute() or X.T."
        )
    return DaskStateRunner(run, X.shape[1])


def _alm(est, rng) -> dict:
    kwargs = est._alm_kwargs(rng)  # parameter errors before any pass
    for key in ("svd_solver", "return_dual"):  # the Gram route; no multiplier
        kwargs.pop(key)
    return kwargs


def _check_mu(first, kwargs) -> None:
    """The in-memory range of ``mu`` (:func:`~robustpca._validation.
    check_mu_scale`), from the column extremes of the first pass."""
    extremes = np.concatenate([first["hi"].value, first["lo"].value])
    check_mu_scale(extremes, kwargs["mu"], kwargs["mu_max"])


def _warn_uncentred(est, moments, *, median: bool) -> None:
    """:func:`~robustpca._dask.offset_precision.warn_far_from_origin` from the moments of
    the first pass."""
    spread = float(np.trace(moments.scatter)) / moments.weight if moments.weight else 0.0
    warn_far_from_origin(est, moments.mean, spread, median=median)


def _finish(est, result):
    return est._finish(result)


def _first_and_count(x, state, *, count):
    """The first pass (:func:`~robustpca.solvers.chunked_state.first_pass`) with the
    first radix counts of the column medians."""
    state, part = first_pass(x, state)
    return state, {**part, "counts": radix_count(x, **count)}


def fit_pcp(est, X, run, rng, sample_weight):
    """:class:`~robustpca.PrincipalComponentPursuit` on a tall dask array; with
    ``center='median'`` the exact column medians (:func:`~robustpca.solvers.
    chunked_order_statistics.column_medians`, their first counts made in the first
    pass) are the offset, as :func:`~robustpca.solvers.alm_types.column_offset` in
    memory."""
    est._resolve_lam(X)
    center = est._center()
    kwargs = _alm(est, rng)
    state_run = _tall_runner(est, X, run)
    offset: bool | np.ndarray = bool(center)
    if center == "median":
        n, d = X.shape
        spec = radix_level_one(len(median_ranks(n)), d, signed=True)
        first = state_run(_first_and_count, count=spec)
        offset = column_medians(state_run, n, d, first.pop("counts"), spec)
    else:
        first = state_run(first_pass)
    if not center:
        _warn_uncentred(est, first["moments"], median=True)
    _check_mu(first, kwargs)
    result = solve_convex_chunked(
        state_run,
        first,
        problem="pcp",
        weight=solver_lam(est.lam_, X.shape),
        center=offset,
        **kwargs,
    )
    return _finish(est, result)


def _gamma(est, state_run, first, centred: bool) -> float:
    """``gamma_``: the estimator's own rule, ``'auto'`` by :func:`gamma_max_chunked`."""
    if isinstance(est.gamma, str) and est.gamma == "auto":
        center = first["moments"].mean if centred else None
        value = AUTO_GAMMA_FRACTION * gamma_max_chunked(
            state_run, center, None if centred else first["row_gram"]
        )
        return value if value > 0 else 1.0
    return est._resolve_gamma(None, centred=centred)


def _fit_row_sparse(est, X, run, rng, problem: str, centred: bool):
    if not (isinstance(est.gamma, str) and est.gamma == "auto"):
        est.gamma_ = est._resolve_gamma(None, centred=centred)
    kwargs = _alm(est, rng)
    state_run = _tall_runner(est, X, run)
    auto = isinstance(est.gamma, str) and est.gamma == "auto"
    first = state_run(first_pass, row_gram=auto and not centred)
    if not centred:
        _warn_uncentred(est, first["moments"], median=False)
    _check_mu(first, kwargs)
    est.gamma_ = _gamma(est, state_run, first, centred)
    weight = solver_gamma(est.gamma_, X.shape[0])
    result = solve_convex_chunked(
        state_run, first, problem=problem, weight=weight, center=centred, **kwargs
    )
    return _finish(est, result)


def fit_outlier_pursuit(est, X, run, rng, sample_weight):
    """:class:`~robustpca.OutlierPursuit` on a tall dask array."""
    return _fit_row_sparse(est, X, run, rng, "outlier_pursuit", bool(est.center))


def fit_crpca_om(est, X, run, rng, sample_weight):
    """:class:`~robustpca.ConvexOptimalMeanPCA` on a tall dask array."""
    return _fit_row_sparse(est, X, run, rng, "crpca_om", True)


def fit_accaltproj(est, X, run, rng, sample_weight):
    """:class:`~robustpca.AccAltProj` on a tall dask array (``trim=False``, ``2 r <= d``)."""
    beta = check_positive_or_auto(est.beta, "beta")
    beta_init = check_positive_or_auto(est.beta_init, "beta_init")
    gamma = check_nonnegative_float(est.gamma, "gamma", strict=True)
    if not gamma < 1:
        raise ValueError(f"gamma={gamma!r} must lie in (0, 1).")
    incoherence = check_nonnegative_float(est.incoherence, "incoherence")
    if incoherence < 1:
        raise ValueError(f"incoherence={incoherence!r} must be >= 1.")
    if check_bool(est.trim, "trim"):
        raise ValueError("trim=True is not available on a dask array; fit X.compute().")
    r = est.n_components_
    if 2 * r > X.shape[1]:
        raise ValueError(
            f"AccAltProj fits a dask array chunk by chunk only with 2 * n_components <= "
            f"n_features, got n_components={r} for {X.shape[1]} features; fit X.compute()."
        )
    state_run = _tall_runner(est, X, run)
    first = state_run(accaltproj_first_pass)
    _warn_uncentred_spread(est, first["spread"])
    return solve_accaltproj_chunked(
        state_run,
        first,
        r,
        beta=beta,
        beta_init=beta_init,
        gamma=gamma,
        max_iter=est.max_iter,
        tol=est.tol,
        rng=rng,
        callback=est.callback,
    )


def _warn_uncentred_spread(est, spread) -> None:
    """:func:`~robustpca._dask.offset_precision.warn_far_from_origin` from the
    :class:`~robustpca.solvers.row_spread.RowSpread` of the first pass (AccAltProj,
    GoDec)."""
    warn_far_from_origin(est, spread.mean, spread.spread, median=False)
