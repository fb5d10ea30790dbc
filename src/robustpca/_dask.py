"""Dask support: chunked fits with one ``dask.compute`` per pass, and lazy transforms.

:meth:`BaseSubspaceEstimator.fit` sends a dask array here (:func:`fit_dask`). The data
stay chunked by rows: every pass applies a kernel of :mod:`robustpca.solvers.chunked` to
each chunk, adds the small per-chunk results (weighted count, mean, centred ``d x d``
scatter, objective, ``d x k`` products) in a tree of tasks and brings the sum back with
one ``dask.compute``; the eigen step runs in NumPy on the ``d x d`` matrix. The first pass
also checks that ``X`` is finite. ``transform``, ``reconstruct``, ``reconstruction_error``
and ``score_samples`` of a fitted estimator return lazy dask arrays (:func:`lazy_method`).

Supported: :class:`~robustpca.OptimalMeanPCA`, :class:`~robustpca.L21PCA`,
:class:`~robustpca.R1PCA`, :class:`~robustpca.PCA` (with ``sample_weight``, NumPy or
dask), ``GeneralizedMeanPCA`` and ``AdaptiveNeighborsPCA``. The fitted attributes are
those of the NumPy fit, to rounding; ``weights_``, ``residuals_`` (and ``outliers_``) are
dask arrays chunked like the rows of ``X``: lazy (one pass when computed) for local weight
rules, wrapping the in-memory vector for global ones. ``n_passes_`` counts the passes.
See ``docs/dask.md``.

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
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from functools import partial

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ._array_api import finish_fit
from ._validation import check_n_components, check_sample_weight
from .solvers import StopReason
from .solvers.chunked import combine_parts, moments_pass, rows_block
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

__all__ = ["DaskPassRunner", "fit_dask", "lazy_method"]

#: Chunk results are added in groups of this many tasks (a tree reduction).
SPLIT_EVERY = 8


def _dask():
    try:
        import dask
        import dask.array as da
    except ImportError as exc:  # pragma: no cover - only reached with a dask collection
        raise ImportError("dask support needs dask[array]: pip install 'robustpca[dask]'") from exc
    return dask, da


def as_float_rows(X, name: str = "X", keep_float32: bool = False):
    """Validate a dask array lazily: 2-D, real, known chunk sizes, one chunk of columns.

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
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    return X


class DaskPassRunner:
    """Runs a kernel over the row chunks of a dask array: one ``dask.compute`` per pass.

    ``runner(kernel, rows=None, **params)`` builds one task per chunk,
    ``kernel(x_block, rows_block, **params)``, adds their dictionaries in a tree of
    :func:`~robustpca.solvers.chunked.combine_parts` tasks (groups of
    :data:`SPLIT_EVERY`) and computes the root with the active scheduler (threads,
    processes or a ``distributed.Client``). ``rows`` (per-sample values: NumPy or dask)
    are split like the rows of ``X``.
    """

    def __init__(self, X):
        self.row_chunks = X.chunks[0]
        self._blocks = list(X.to_delayed(optimize_graph=True).ravel())
        self._bounds = np.cumsum((0, *self.row_chunks))
        self.n_passes = 0

    def _rows(self, rows):
        if rows is None:
            return [None] * len(self._blocks)
        if type(rows).__module__.split(".")[0] == "dask":
            return list(rows.rechunk((self.row_chunks,)).to_delayed().ravel())
        rows = np.asarray(rows)
        return [rows[a:b] for a, b in zip(self._bounds[:-1], self._bounds[1:], strict=True)]

    def __call__(self, kernel, rows=None, **params) -> dict:
        dask, _ = _dask()
        task = dask.delayed(partial(kernel, **params), pure=False)
        combine = dask.delayed(combine_parts, pure=False)
        parts = [task(b, r) for b, r in zip(self._blocks, self._rows(rows), strict=True)]
        while len(parts) > 1:
            parts = [
                combine(*parts[i : i + SPLIT_EVERY]) for i in range(0, len(parts), SPLIT_EVERY)
            ]
        (out,) = dask.compute(parts[0])
        self.n_passes += 1
        return out


def _per_sample_array(X, per_sample, which: str):
    """``residuals_``/``weights_`` as a dask array chunked like the rows of ``X``."""
    _, da = _dask()
    values = getattr(per_sample, which)
    if values is not None:
        return da.from_array(values, chunks=(X.chunks[0],))
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


def _with_rows(X, result, per_sample):
    info = dict(result.info)
    info["residuals"] = _per_sample_array(X, per_sample, "residuals")
    return replace(result, weights=_per_sample_array(X, per_sample, "weights"), info=info)


def _first_pass(run, sample_weight=None, check_weights=False):
    return run(moments_pass, sample_weight, check_finite=True, check_weights=check_weights)[
        "moments"
    ]


# --------------------------------------------------------------------------- estimators
def _fit_optimal_mean(est, X, run, rng, sample_weight):
    est._loss_for_scale(1.0)  # parameter errors before any pass
    moments = _first_pass(run)
    loss, est.epsilon_ = est._loss_for_scale(float(np.trace(moments.scatter)) / X.shape[0])
    result, per_sample = solve_optimal_mean_pca_chunked(
        run,
        moments,
        est.n_components_,
        loss,
        rng=rng,
        max_iter=est.max_iter,
        tol=est.tol,
        callback=est.callback,
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
        if type(sample_weight).__module__.split(".")[0] == "dask":
            if sample_weight.ndim != 1 or sample_weight.shape[0] != X.shape[0]:
                raise ValueError(
                    f"sample_weight must have shape ({X.shape[0]},), got {sample_weight.shape}."
                )
            sample_weight, check_weights = sample_weight.astype(np.float64), True
        else:
            sample_weight = check_sample_weight(sample_weight, X.shape[0])
    moments = _first_pass(run, sample_weight, check_weights)
    if not moments.weight > 0:
        raise ValueError(
            "sample_weight must have at least one positive entry (all weights are zero)."
        )
    result = solve_weighted_pca_chunked(moments, est.n_components_, rng=rng)
    total = result.info.pop("total_variance")
    ev = result.info["explained_variance"]
    result.info["explained_variance_ratio"] = ev / total if total > 0 else np.zeros(ev.size)
    return result


def _fit_l21(est, X, run, rng, sample_weight):
    if not (isinstance(est.init, str) and est.init in ("pca", "random")):
        raise ValueError(f"init={est.init!r} must be 'pca' or 'random'.")
    return solve_l21_pca_chunked(
        run,
        _first_pass(run),
        est.n_components_,
        rng=rng,
        init=est.init,
        max_iter=est.max_iter,
        tol=est.tol,
        callback=est.callback,
    )


def _fit_r1(est, X, run, rng, sample_weight):
    loss = est._make_loss()
    result, per_sample = solve_r1_pca_chunked(
        run,
        _first_pass(run),
        est.n_components_,
        loss,
        rng=rng,
        max_iter=est.max_iter,
        tol=est.tol,
        callback=est.callback,
    )
    return _with_rows(X, result, per_sample)


def _fit_generalized_mean(est, X, run, rng, sample_weight):
    p = check_p(est.p)
    auto = isinstance(est.delta, str) and est.delta == "auto"
    delta = None if auto else resolve_delta(est.delta, None)
    if not (isinstance(est.center, str) and est.center in ("generalized", "mean")):
        raise ValueError(f"center={est.center!r} must be 'generalized' or 'mean'.")
    moments = _first_pass(run)
    if auto:
        delta = AUTO_DELTA * float(np.trace(moments.scatter)) / X.shape[0]
    mean, center_n_iter = moments.mean, 0
    if est.center == "generalized":
        located = solve_generalized_mean_chunked(
            run, moments, p, delta, max_iter=est.max_iter, tol=est.tol
        )
        if located.stop_reason == StopReason.MAX_ITER:
            warnings.warn(
                f"The generalized sample mean (Algorithm 1) reached max_iter={est.max_iter} "
                f"before the relative objective change fell below tol={est.tol}; increase "
                "max_iter or tol.",
                ConvergenceWarning,
                stacklevel=5,
            )
        mean, center_n_iter = located.solution.mean, located.n_iter
    result, per_sample = solve_generalized_mean_pca_chunked(
        run,
        moments,
        est.n_components_,
        p,
        mean=mean,
        delta=delta,
        rng=rng,
        max_iter=est.max_iter,
        tol=est.tol,
        callback=est.callback,
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
    result, per_sample = solve_adaptive_neighbors_pca_chunked(
        run,
        _first_pass(run),
        est.n_components_,
        est.n_neighbors_,
        n_samples=X.shape[0],
        rng=rng,
        init=est.init,
        max_iter=est.max_iter,
        tol=est.tol,
        callback=est.callback,
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

    Every pass over the row chunks is one ``dask.compute`` returning small sums (see the
    module docstring); the iteration, initialisation, stopping rule and fitted attributes
    are those of the NumPy fit. Sets ``n_passes_`` as well.

    Parameters
    ----------
    estimator : BaseSubspaceEstimator
        One of the six supported estimators; others raise ``TypeError``.
    X : dask.array.Array of shape (n_samples, n_features)
        Real numbers, any chunking along the rows (the columns are merged into one
        chunk); never modified. A NaN or infinity raises ``ValueError`` in the first pass.
    sample_weight : array-like or dask array of shape (n_samples,), optional
        :class:`~robustpca.PCA` only.
    """
    from .estimators._base import as_generator

    fitter = _fitter_for(estimator)
    X = as_float_rows(X, keep_float32=True)
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
    run = DaskPassRunner(X)
    result = fitter(estimator, X, run, rng, sample_weight)
    estimator.n_passes_ = run.n_passes
    estimator._store(result)
    finish_fit(estimator, input_dtype)  # float32 input: float32 attributes, as in NumPy
    if input_dtype == np.float32:
        for name, value in list(vars(estimator).items()):
            if name.endswith("_") and getattr(value, "dtype", None) == np.float64:
                setattr(estimator, name, value.astype(np.float32))  # lazy for dask arrays


# --------------------------------------------------------------------------- transforms
def _finite(x):
    if not np.isfinite(x).all():
        raise ValueError("Input X contains NaN or infinity.")
    return x


def _transform_block(x, *, mean, components):
    return (_finite(x) - mean) @ components.T


def _reconstruct_block(x, *, mean, components):
    return ((_finite(x) - mean) @ components.T) @ components + mean


def _error_block(x, *, mean, components):
    xc = _finite(x) - mean
    return np.linalg.norm(xc - (xc @ components.T) @ components, axis=1)


def lazy_method(estimator, name: str, X):
    """Apply ``estimator.<name>`` block-wise to the dask array ``X``, lazily.

    ``name`` is ``'transform'``, ``'reconstruct'`` or ``'reconstruction_error'``
    (``score_samples`` negates the last); the result is a dask array chunked like the
    rows of ``X``, computed with the NumPy formulas of
    :class:`~robustpca.estimators._base.BaseSubspaceEstimator` (float32 stays float32,
    other dtypes are cast to float64).
    """
    check_is_fitted(estimator)
    X = as_float_rows(X, keep_float32=True)
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input."
        )
    params = {"mean": estimator.mean_, "components": estimator.components_}
    dtype = np.result_type(X.dtype, estimator.components_.dtype)
    meta = np.empty((0, 0), dtype=dtype)
    if name == "transform":
        k = estimator.components_.shape[0]
        return X.map_blocks(
            _transform_block, chunks=(X.chunks[0], (k,)), dtype=dtype, meta=meta, **params
        )
    if name == "reconstruct":
        return X.map_blocks(_reconstruct_block, dtype=dtype, meta=meta, **params)
    if name == "reconstruction_error":
        return X.map_blocks(
            _error_block,
            drop_axis=1,
            chunks=(X.chunks[0],),
            dtype=dtype,
            meta=np.empty(0, dtype=dtype),
            **params,
        )
    raise ValueError(f"{name!r} has no lazy dask version.")
