"""Dask support: chunked fits with few ``dask.compute`` calls, and lazy transforms.

:meth:`BaseSubspaceEstimator.fit` sends a dask array here (:func:`fit_dask`), which picks
the route the NumPy solvers pick (:class:`~robustpca.linalg.WeightedPCAProblem`'s
``'auto'``):

* **tall** (``n_samples >= n_features``): the data stay chunked by rows (column chunks
  are merged). Every pass applies a kernel of :mod:`robustpca.solvers.chunked` to each
  chunk, adds the small per-chunk results (weighted count, mean, centred ``d x d``
  scatter, objective, ``d x k`` products) in a tree of tasks and brings the sum back
  with one ``dask.compute``; the eigen step runs in NumPy on the ``d x d`` matrix.
* **wide** (``n_samples < n_features``): the data stay chunked by columns (row chunks
  are merged, see :func:`column_blocks`). One pass brings back the centred ``n x n``
  Gram matrix (and the column means); the iterations run in memory on it, with no pass
  (one in an iteration where the NumPy Gram route forms residuals explicitly), and one
  last pass forms the ``k x d`` components and the mean by blocked products.

The first pass also checks that ``X`` is finite; for :class:`~robustpca.PCA` and
:class:`~robustpca.OptimalMeanPCA` on the tall route it counts the NaN instead, and
missing entries are then fitted chunk by chunk (:mod:`robustpca._dask_missing`); the
wide route and the other estimators refuse NaN, saying so. ``transform``, ``reconstruct``,
``reconstruction_error``, ``score_samples`` and ``inverse_transform`` of a fitted
estimator return lazy dask arrays (:func:`lazy_method`).

Supported: :class:`~robustpca.OptimalMeanPCA`, :class:`~robustpca.L21PCA`,
:class:`~robustpca.R1PCA`, :class:`~robustpca.PCA` (with ``sample_weight``, NumPy or
dask), ``GeneralizedMeanPCA`` and ``AdaptiveNeighborsPCA``. The fitted attributes are
those of the NumPy fit, to rounding; ``weights_``, ``residuals_`` (and ``outliers_``) are
dask arrays chunked like the rows of ``X``: lazy (one pass when computed) for local weight
rules of the tall route, wrapping the in-memory vector otherwise. ``n_passes_`` counts the
passes. See ``docs/dask.md``.

Examples
--------
>>> import numpy as np
>>> import dask.array as da
>>> from robustpca import OptimalMeanPCA
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(1000, 3)) @ rng.normal(size=(3, 8)) + 0.1 * rng.normal(size=(1000, 8))
>>> X[:100] += 20 * rng.normal(size=(100, 8))
>>> model = OptimalMeanPCA(n_components=3).fit(da.from_array(X, chunks=(250, 8)))
>>> model.n_passes_ == model.n_iter_ + 1          # one pass (one dask.compute) per iteration
True
>>> reference = OptimalMeanPCA(n_components=3).fit(X)
>>> bool(np.allclose(model.components_, reference.components_))
True
>>> model.transform(da.from_array(X, chunks=(250, 8)))       # lazy
dask.array<_transform_block, shape=(1000, 3), dtype=float64, chunksize=(250, 3), ...>

Wide data, chunked by columns: two passes in all.

>>> W = rng.normal(size=(40, 3)) @ rng.normal(size=(3, 5000)) + 0.1 * rng.normal(size=(40, 5000))
>>> from robustpca import PCA
>>> wide = PCA(n_components=3).fit(da.from_array(W, chunks=(40, 1000)))
>>> wide.n_passes_
2
>>> bool(np.allclose(wide.components_, PCA(n_components=3).fit(W).components_))
True
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from functools import partial

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._array_api import finish_fit
from ._dask_missing import counts_pass, fit_missing, lazy_rows
from ._validation import check_n_components, check_sample_weight
from .losses import L2pLoss
from .solvers import StopReason
from .solvers.chunked import combine_parts, moments_pass, rows_block
from .solvers.chunked_gram import GramPasses
from .solvers.chunked_gram_pca import (
    solve_adaptive_neighbors_pca_gram,
    solve_generalized_mean_gram,
    solve_generalized_mean_pca_gram,
    solve_l21_pca_gram,
    solve_optimal_mean_pca_gram,
    solve_r1_pca_gram,
    solve_weighted_pca_gram,
)
from .solvers.chunked_pca import (
    solve_adaptive_neighbors_pca_chunked,
    solve_generalized_mean_chunked,
    solve_generalized_mean_pca_chunked,
    solve_l21_pca_chunked,
    solve_optimal_mean_pca_chunked,
    solve_r1_pca_chunked,
    solve_weighted_pca_chunked,
)
from .solvers.generalized_mean import AUTO_DELTA, check_p, resolve_delta

__all__ = ["DaskPassRunner", "column_blocks", "fit_dask", "lazy_method"]

#: Chunk results are added in groups of this many tasks (a tree reduction).
SPLIT_EVERY = 8
#: ... and in pairs on the wide route, whose per-block results (``n x n`` Gram matrices)
#: can be as large as the blocks: fewer of them wait for their group (peak RSS 0.70 GB
#: instead of 0.87 GB for 2,000 x 200,000 in blocks of 5,000 columns).
WIDE_SPLIT_EVERY = 2
#: When the wide route merges row chunks, a block of whole columns holds at most this
#: many values (32 MB of float64) or the largest chunk of ``X``, whichever is larger.
WIDE_BLOCK_VALUES = 1 << 22


def _dask():
    try:
        import dask
        import dask.array as da
    except ImportError as exc:  # pragma: no cover - only reached with a dask collection
        raise ImportError("dask support needs dask[array]: pip install 'robustpca[dask]'") from exc
    return dask, da


def _is_dask(x) -> bool:
    return type(x).__module__.split(".")[0] == "dask"


def as_float_array(X, name: str = "X", keep_float32: bool = False):
    """Validate a dask array lazily: 2-D, real, known chunk sizes; chunks are kept.

    The result is float64 (cast chunk by chunk), or float32 for float32 input with
    ``keep_float32`` (the transforms, which keep float32 like the NumPy ones).
    """
    _, da = _dask()
    if not isinstance(X, da.Array):
        raise TypeError(
            f"{name} is a {type(X).__module__}.{type(X).__name__}; robustpca fits dask arrays "
            f"only: pass {name}.to_dask_array(lengths=True)."
        )
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (n_samples, n_features), got a {X.ndim}-D dask array."
        )
    if any(np.isnan(c) for c in X.chunks[0]) or any(np.isnan(c) for c in X.chunks[1]):
        raise ValueError(
            f"{name} has unknown chunk sizes; call {name}.compute_chunk_sizes() first."
        )
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{name} has dtype {X.dtype}; robustpca needs real numbers.")
    if X.dtype != np.float64 and not (keep_float32 and X.dtype == np.float32):
        X = X.astype(np.float64)
    return X


def row_blocks(X):
    """``X`` with one chunk of columns (the tall route): column chunks are merged."""
    return X.rechunk({1: -1}) if X.numblocks[1] > 1 else X


def column_blocks(X):
    """``X`` with one chunk of rows (the wide route), rechunked only when necessary.

    A block of the wide route must hold every sample of its columns. ``X`` chunked by
    columns only is used as it is; otherwise the row chunks are merged, keeping the
    column chunks when the merged blocks hold at most ``max(WIDE_BLOCK_VALUES, largest
    chunk)`` values and splitting the columns into blocks of that size if not.
    """
    if X.numblocks[0] == 1:
        return X
    n = X.shape[0]
    target = max(WIDE_BLOCK_VALUES, max(X.chunks[0]) * max(X.chunks[1]))
    if n * max(X.chunks[1]) <= target:
        return X.rechunk({0: -1})
    return X.rechunk({0: -1, 1: max(1, target // n)})


class DaskPassRunner:
    """Runs a kernel over the blocks of a dask array: one ``dask.compute`` per pass.

    ``axis=0`` (tall route, ``X`` in one chunk of columns): blocks of rows, and
    ``runner(kernel, rows=None, **params)`` builds one task per chunk,
    ``kernel(x_block, rows_block, **params)``, with ``rows`` (per-sample values: NumPy
    or dask) split like the rows of ``X``. ``axis=1`` (wide route, ``X`` in one chunk of
    rows): blocks of whole columns, and the second argument (per-feature values, NumPy)
    is split like the columns. The dictionaries are added in a tree of
    :func:`~robustpca.solvers.chunked.combine_parts` tasks (groups of ``split_every``,
    by default :data:`SPLIT_EVERY`) and the root is computed with the active scheduler (threads,
    processes or a ``distributed.Client``), together with ``also`` (any dask collection,
    returned under ``'also'``).
    """

    def __init__(self, X, axis: int = 0, split_every: int = SPLIT_EVERY):
        self.axis = axis
        self.split_every = split_every
        self.block_sizes = X.chunks[axis]
        self.row_chunks = X.chunks[0]
        self._blocks = list(X.to_delayed(optimize_graph=True).ravel())
        self._bounds = np.cumsum((0, *self.block_sizes))
        self.n_passes = 0

    def _split(self, values):
        if values is None:
            return [None] * len(self._blocks)
        if _is_dask(values):
            return list(values.rechunk((self.block_sizes,)).to_delayed().ravel())
        values = np.asarray(values)
        return [values[a:b] for a, b in zip(self._bounds[:-1], self._bounds[1:], strict=True)]

    def __call__(self, kernel, rows=None, *, also=None, **params) -> dict:
        dask, _ = _dask()
        task = dask.delayed(partial(kernel, **params), pure=False)
        combine = dask.delayed(combine_parts, pure=False)
        parts = [task(b, r) for b, r in zip(self._blocks, self._split(rows), strict=True)]
        step = self.split_every
        while len(parts) > 1:
            parts = [combine(*parts[i : i + step]) for i in range(0, len(parts), step)]
        if also is None:
            (out,) = dask.compute(parts[0])
        else:
            out, extra = dask.compute(parts[0], also)
            out = {**out, "also": extra}
        self.n_passes += 1
        return out


def _rows_array(X, values):
    """An in-memory per-sample vector as a dask array chunked like the rows of ``X``."""
    _, da = _dask()
    return da.from_array(np.asarray(values), chunks=(X.chunks[0],))


def _per_sample_array(X, per_sample, which: str):
    """``residuals_``/``weights_`` as a dask array chunked like the rows of ``X``."""
    values = getattr(per_sample, which)
    if values is not None:
        return _rows_array(X, values)
    return X.map_blocks(
        rows_block,
        step=per_sample.step,
        state=per_sample.state,
        loss=per_sample.loss,
        which=which,
        scale=per_sample.weight_scale,
        drop_axis=1,
        chunks=(X.chunks[0],),
        dtype=np.float64,
        meta=np.empty(0),
    )


def _with_rows(X, result, per_sample=None):
    info = dict(result.info)
    if per_sample is None:  # wide route: the vectors are in memory
        info["residuals"] = _rows_array(X, info["residuals"])
        return replace(result, weights=_rows_array(X, result.weights), info=info)
    info["residuals"] = _per_sample_array(X, per_sample, "residuals")
    return replace(result, weights=_per_sample_array(X, per_sample, "weights"), info=info)


def _first_pass(run, sample_weight=None, check_weights=False):
    return run(moments_pass, sample_weight, check_finite=True, check_weights=check_weights)[
        "moments"
    ]


def _wide(run) -> bool:
    return isinstance(run, GramPasses)


# --------------------------------------------------------------------------- estimators
def _fit_optimal_mean(est, X, run, rng, sample_weight):
    est._loss_for_scale(1.0)  # parameter errors before any pass
    iteration = {"max_iter": est.max_iter, "tol": est.tol, "callback": est.callback}
    k = est.n_components_
    if _wide(run):
        run.first_pass()
        loss, est.epsilon_ = est._loss_for_scale(run.trace / X.shape[0])
        result = solve_optimal_mean_pca_gram(run, k, loss, rng=rng, **iteration)
        per_sample = None
    else:
        counts = counts_pass(run)
        moments = counts["moments"]
        loss, est.epsilon_ = est._loss_for_scale(float(np.trace(moments.scatter)) / X.shape[0])
        if counts["n_missing"]:
            result = fit_missing(est, X, run, counts, loss, rng, **iteration)
            result.info.pop("final_moments")
            info = {**result.info, "residuals": lazy_rows(X, result, loss, "residuals")}
            return replace(result, weights=lazy_rows(X, result, loss, "weights"), info=info)
        result, per_sample = solve_optimal_mean_pca_chunked(
            run, moments, k, loss, rng=rng, **iteration
        )
    if result.stop_reason == StopReason.ALL_CAPPED:
        warnings.warn(
            f"Every sample's residual reached threshold={est.threshold}: all weights are "
            "zero and the last subspace with a positive weight is returned. Increase "
            "threshold.",
            UserWarning,
            stacklevel=5,
        )
    return _with_rows(X, result, per_sample)


def _fit_pca(est, X, run, rng, sample_weight):
    check_weights = False
    if sample_weight is not None:
        if _is_dask(sample_weight):
            if sample_weight.ndim != 1 or sample_weight.shape[0] != X.shape[0]:
                raise ValueError(
                    f"sample_weight must have shape ({X.shape[0]},), got {sample_weight.shape}."
                )
            sample_weight, check_weights = sample_weight.astype(np.float64), True
        else:
            sample_weight = check_sample_weight(sample_weight, X.shape[0])
    if _wide(run):
        computed = run.first_pass(also=sample_weight if check_weights else None)
        w = check_sample_weight(computed if check_weights else sample_weight, X.shape[0])
        result = solve_weighted_pca_gram(run, est.n_components_, w, rng=rng)
    else:
        counts = counts_pass(run, sample_weight, check_weights)
        moments = counts["moments"]
        if not moments.weight > 0:
            raise ValueError(
                "sample_weight must have at least one positive entry (all weights are zero)."
            )
        if counts["n_missing"]:  # EM on the observed entries (weights: sample_weight)
            em = fit_missing(
                est, X, run, counts, L2pLoss(p=2.0), rng, sample_weight, max_iter=500, tol=1e-9
            )
            moments = em.info.pop("final_moments")
            result = solve_weighted_pca_chunked(moments, est.n_components_, rng=rng)
            result = replace(em, info=result.info, components=result.components, mean=result.mean)
        else:
            result = solve_weighted_pca_chunked(moments, est.n_components_, rng=rng)
    total = result.info.pop("total_variance")
    ev = result.info["explained_variance"]
    result.info["explained_variance_ratio"] = ev / total if total > 0 else np.zeros(ev.size)
    return result


def _fit_l21(est, X, run, rng, sample_weight):
    if not (isinstance(est.init, str) and est.init in ("pca", "random")):
        raise ValueError(f"init={est.init!r} must be 'pca' or 'random'.")
    iteration = {"max_iter": est.max_iter, "tol": est.tol, "callback": est.callback}
    if _wide(run):
        run.first_pass()
        return solve_l21_pca_gram(run, est.n_components_, rng=rng, init=est.init, **iteration)
    return solve_l21_pca_chunked(
        run, _first_pass(run), est.n_components_, rng=rng, init=est.init, **iteration
    )


def _fit_r1(est, X, run, rng, sample_weight):
    loss = est._make_loss()
    iteration = {"max_iter": est.max_iter, "tol": est.tol, "callback": est.callback}
    if _wide(run):
        run.first_pass()
        return _with_rows(X, solve_r1_pca_gram(run, est.n_components_, loss, rng=rng, **iteration))
    result, per_sample = solve_r1_pca_chunked(
        run, _first_pass(run), est.n_components_, loss, rng=rng, **iteration
    )
    return _with_rows(X, result, per_sample)


def _warn_center_max_iter(est):
    warnings.warn(
        f"The generalized sample mean (Algorithm 1) reached max_iter={est.max_iter} "
        f"before the relative objective change fell below tol={est.tol}; increase "
        "max_iter or tol.",
        ConvergenceWarning,
        stacklevel=6,
    )


def _fit_generalized_mean(est, X, run, rng, sample_weight):
    p = check_p(est.p)
    auto = isinstance(est.delta, str) and est.delta == "auto"
    delta = None if auto else resolve_delta(est.delta, None)
    if not (isinstance(est.center, str) and est.center in ("generalized", "mean")):
        raise ValueError(f"center={est.center!r} must be 'generalized' or 'mean'.")
    iteration = {"max_iter": est.max_iter, "tol": est.tol}
    k, n = est.n_components_, X.shape[0]
    center_n_iter = 0
    if _wide(run):
        run.first_pass()
        if auto:
            delta = AUTO_DELTA * run.trace / n
        mean_coef = np.zeros(n)
        if est.center == "generalized":
            located = solve_generalized_mean_gram(run, p, delta, **iteration)
            if located.stop_reason == StopReason.MAX_ITER:
                _warn_center_max_iter(est)
            mean_coef, center_n_iter = located.solution, located.n_iter
        result = solve_generalized_mean_pca_gram(
            run, k, p, mean_coef=mean_coef, delta=delta, rng=rng, callback=est.callback, **iteration
        )
        per_sample = None
    else:
        moments = _first_pass(run)
        if auto:
            delta = AUTO_DELTA * float(np.trace(moments.scatter)) / n
        mean = moments.mean
        if est.center == "generalized":
            located = solve_generalized_mean_chunked(run, moments, p, delta, **iteration)
            if located.stop_reason == StopReason.MAX_ITER:
                _warn_center_max_iter(est)
            mean, center_n_iter = located.solution.mean, located.n_iter
        result, per_sample = solve_generalized_mean_pca_chunked(
            run, moments, k, p, mean=mean, delta=delta, rng=rng, callback=est.callback, **iteration
        )
    result.info.update(delta=delta, center_n_iter=center_n_iter)
    return _with_rows(X, result, per_sample)


def _fit_adaptive_neighbors(est, X, run, rng, sample_weight):
    est.n_neighbors_ = est._resolve_n_neighbors(X.shape[0])
    if not isinstance(est.init, str):
        raise TypeError(
            f"init must be one of ('uniform', 'random'), got {type(est.init).__name__}."
        )
    if est.init not in ("uniform", "random"):
        raise ValueError(f"init={est.init!r} must be 'uniform' or 'random'.")
    iteration = {"max_iter": est.max_iter, "tol": est.tol, "callback": est.callback}
    k, m = est.n_components_, est.n_neighbors_
    if _wide(run):
        run.first_pass()
        result = solve_adaptive_neighbors_pca_gram(run, k, m, rng=rng, init=est.init, **iteration)
        return _with_rows(X, result)
    result, per_sample = solve_adaptive_neighbors_pca_chunked(
        run, _first_pass(run), k, m, n_samples=X.shape[0], rng=rng, init=est.init, **iteration
    )
    return _with_rows(X, result, per_sample)


def _fitters():
    from .estimators._adaptive_neighbors import AdaptiveNeighborsPCA
    from .estimators._generalized_mean import GeneralizedMeanPCA
    from .estimators._l21 import L21PCA
    from .estimators._optimal_mean import OptimalMeanPCA
    from .estimators._pca import PCA
    from .estimators._r1 import R1PCA

    return {
        OptimalMeanPCA: _fit_optimal_mean,
        PCA: _fit_pca,
        L21PCA: _fit_l21,
        R1PCA: _fit_r1,
        GeneralizedMeanPCA: _fit_generalized_mean,
        AdaptiveNeighborsPCA: _fit_adaptive_neighbors,
    }


def _fitter_for(estimator):
    """The chunked fit of ``estimator``'s class (a subclass must keep its solver)."""
    fitters = _fitters()
    for cls, fitter in fitters.items():
        if isinstance(estimator, cls) and type(estimator)._fit_solver is cls._fit_solver:
            return fitter
    names = ", ".join(cls.__name__ for cls in fitters)
    raise TypeError(
        f"X is a dask array, which {type(estimator).__name__} does not fit chunk by chunk "
        f"(supported: {names}); pass a NumPy array (X.compute())."
    )


def fit_dask(estimator, X, sample_weight=None) -> None:
    """Fit ``estimator`` on the dask array ``X`` with the data staying chunked.

    The route is that of the NumPy solvers: the ``n x n`` Gram matrix when
    ``n_samples < n_features`` (wide: blocks of whole columns, two passes in all plus
    one per iteration that forms residuals explicitly; RWL-AN one more for its final
    residuals), the ``d x d`` scatter
    otherwise (tall: blocks of whole rows, one or two passes per iteration); see the
    module docstring. The iteration, initialisation, stopping rule and fitted
    attributes are those of the NumPy fit. Sets ``n_passes_`` (``dask.compute`` calls).

    Parameters
    ----------
    estimator : BaseSubspaceEstimator
        One of the six supported estimators; others raise ``TypeError``.
    X : dask.array.Array of shape (n_samples, n_features)
        Real numbers, any chunking (rechunked only where a route needs it: column
        chunks are merged for tall data, row chunks for wide data, see
        :func:`column_blocks`); never modified. A NaN or infinity raises ``ValueError``
        in the first pass.
    sample_weight : array-like or dask array of shape (n_samples,), optional
        :class:`~robustpca.PCA` only.
    """
    from .estimators._base import as_generator

    fitter = _fitter_for(estimator)
    X = as_float_array(X, keep_float32=True)
    input_dtype = X.dtype
    X = X.astype(np.float64)  # the passes compute in float64 whatever the input
    n_samples, n_features = X.shape
    if n_samples < 2:
        raise ValueError(
            f"Found array with {n_samples} sample(s) (shape={X.shape}) while a minimum of 2 "
            "is required."
        )
    if n_features < 1:
        raise ValueError(f"X has 0 features (shape={X.shape}); at least 1 is required.")
    if hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_
    estimator.n_features_in_ = n_features
    estimator.n_components_ = check_n_components(estimator.n_components, n_samples, n_features)
    rng = as_generator(getattr(estimator, "random_state", None))
    if n_samples < n_features:  # the Gram route, as WeightedPCAProblem(route='auto')
        runner = DaskPassRunner(column_blocks(X), axis=1, split_every=WIDE_SPLIT_EVERY)
        run = GramPasses(runner)
    else:
        X = row_blocks(X)
        run = runner = DaskPassRunner(X)
    estimator.n_missing_ = 0  # set by the tall route of PCA and RPCA-OM when NaN are found
    result = fitter(estimator, X, run, rng, sample_weight)
    estimator.n_passes_ = runner.n_passes
    estimator._store(result)
    finish_fit(estimator, input_dtype)  # float32 input: float32 attributes, as in NumPy
    if input_dtype == np.float32:
        for name, value in list(vars(estimator).items()):
            if name.endswith("_") and getattr(value, "dtype", None) == np.float64:
                setattr(estimator, name, value.astype(np.float32))  # lazy for dask arrays


# the lazy transforms (transform, reconstruct, ...) live in ._dask_transforms; imported
# last because they use the validation helpers above
from ._dask_transforms import lazy_method  # noqa: E402
