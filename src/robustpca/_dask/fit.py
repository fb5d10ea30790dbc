"""The chunked fits of the Dask route: the pass runner and one fit per supported estimator.

See :mod:`robustpca._dask` for the routes; :func:`fit_dask` is what
:meth:`BaseSubspaceEstimator.fit <robustpca.estimators._base.BaseSubspaceEstimator.fit>`
calls on a dask array. An estimator class names its chunked fit in its ``_dask_fit``
attribute (a key of :data:`FITS`); this module never imports the estimators.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import replace
from functools import partial

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._array_api import finish_fit
from .._validation import (
    as_generator,
    check_finite_sums,
    check_n_components,
    check_sample_weight,
    weighted_rows,
)
from .._warnings import external_stacklevel
from ..losses import L2pLoss
from ..solvers import StopReason
from ..solvers.chunked import combine_parts, moments_pass, rows_block
from ..solvers.chunked_gram import GramPasses
from ..solvers.chunked_gram_pca import (
    solve_adaptive_neighbors_pca_gram,
    solve_generalized_mean_gram,
    solve_generalized_mean_pca_gram,
    solve_l21_pca_gram,
    solve_optimal_mean_pca_gram,
    solve_r1_pca_gram,
    solve_weighted_pca_gram,
)
from ..solvers.chunked_pca import (
    solve_adaptive_neighbors_pca_chunked,
    solve_generalized_mean_chunked,
    solve_generalized_mean_pca_chunked,
    solve_l21_pca_chunked,
    solve_optimal_mean_pca_chunked,
    solve_r1_pca_chunked,
    solve_weighted_pca_chunked,
)
from ..solvers.generalized_mean import AUTO_DELTA, check_p, resolve_delta
from ..solvers.informative_coordinates import model_constants
from .arrays import (
    LARGEST,
    _dask,
    _is_dask,
    as_float_array,
    bounded,
    check_underflow,
    column_blocks,
    row_blocks,
    with_largest,
)
from .godec import fit_godec
from .hq import fit_hq
from .low_rank_sparse import fit_accaltproj, fit_crpca_om, fit_outlier_pursuit, fit_pcp
from .missing import counts_pass, fit_missing, lazy_rows, training_constants
from .online import fit_online
from .rrcov import fit_covariance, fit_robpca, fit_spherical

__all__ = ["FITS", "DaskPassRunner", "fit_dask"]

#: Chunk results are added in groups of this many tasks (a tree reduction).
SPLIT_EVERY = 8
#: ... and in pairs on the wide route, whose per-block results (``n x n`` Gram matrices)
#: can be as large as the blocks: fewer of them wait for their group (peak RSS 0.70 GB
#: instead of 0.87 GB for 2,000 x 200,000 in blocks of 5,000 columns).
WIDE_SPLIT_EVERY = 2


class DaskPassRunner:
    """Runs a kernel over the blocks of a dask array: one ``dask.compute`` per pass.

    ``runner(kernel, rows=None, **params)`` builds one task per block,
    ``kernel(x_block, rows_block, **params)``, with ``rows`` split like the blocks. The
    dictionaries are added in a tree of :func:`~robustpca.solvers.chunked.combine_parts`
    tasks and the root is computed with the active scheduler (threads, processes or a
    ``distributed.Client``), together with ``also`` (any dask collection, returned under
    ``'also'``).

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        The data, in one chunk of columns for ``axis=0`` and one chunk of rows for
        ``axis=1``.
    axis : {0, 1}, default=0
        ``0`` (tall route): blocks of rows, and ``rows`` holds per-sample values (NumPy or
        dask). ``1`` (wide route): blocks of whole columns, and ``rows`` holds per-feature
        values (NumPy).
    split_every : int, default=8
        The number of results a task of the tree adds up (:data:`SPLIT_EVERY`).
    underflow : dtype, optional
        The input's dtype, for a fit: the first pass also returns the largest magnitude
        of ``X`` and raises the in-memory ``ValueError`` where its square underflows
        (:func:`.arrays.check_underflow`), before any solver step uses the sums.
    """

    def __init__(self, X, axis: int = 0, split_every: int = SPLIT_EVERY, underflow=None):
        self.underflow = None if underflow is None else np.dtype(underflow)
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
        underflow, self.underflow = self.underflow, None  # checked once, in the first pass
        if underflow is not None:
            kernel = partial(with_largest, kernel)
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
        if underflow is not None:
            check_underflow(out.pop(LARGEST).value, underflow)
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
    moments = run(moments_pass, sample_weight, check_finite=True, check_weights=check_weights)[
        "moments"
    ]
    check_finite_sums(moments.scatter)
    return moments


def _gram_first_pass(run, also=None):
    """The wide route's first pass (:meth:`GramPasses.first_pass`), its sums checked."""
    computed = run.first_pass(also=also)
    check_finite_sums(run.gram)
    return computed


def _wide(run) -> bool:
    return isinstance(run, GramPasses)


# --------------------------------------------------------------------------- estimators
def _fit_optimal_mean(est, X, run, rng, sample_weight):
    # parameter errors before any pass; tol as in memory (the estimator's docstring)
    tol = est.tol * est._loss_for_scale(1.0)[0].power
    iteration = {"max_iter": est.max_iter, "tol": tol, "callback": est.callback}
    k = est.n_components_
    if _wide(run):
        _gram_first_pass(run)
        loss, est.epsilon_ = est._loss_for_scale(run.trace / X.shape[0])
        result = solve_optimal_mean_pca_gram(run, k, loss, rng=rng, **iteration)
        per_sample = None
    else:
        counts = counts_pass(run, X.shape, k)
        training_constants(est, counts)
        moments = counts["moments"]
        loss, est.epsilon_ = est._loss_for_scale(float(np.trace(moments.scatter)) / X.shape[0])
        if counts["n_missing"]:
            result = fit_missing(est, X, run, counts, loss, rng, **iteration)
            _warn_all_capped(est, result)
            result.info.pop("final_moments")
            info = {**result.info, "residuals": lazy_rows(X, result, loss, "residuals")}
            return replace(result, weights=lazy_rows(X, result, loss, "weights"), info=info)
        result, per_sample = solve_optimal_mean_pca_chunked(
            run, moments, k, loss, rng=rng, **iteration
        )
    _warn_all_capped(est, result)
    return _with_rows(X, result, per_sample)


def _warn_all_capped(est, result) -> None:
    """The in-memory fit's warning (``estimators._base.warn_if_all_capped``) where every
    sample's residual reached the cap."""
    if result.stop_reason == StopReason.ALL_CAPPED:
        warnings.warn(
            f"Every sample's residual reached threshold={est.threshold}: all weights are "
            "zero and the last subspace with a positive weight is returned. Increase "
            "threshold.",
            UserWarning,
            stacklevel=external_stacklevel(),
        )


def _fit_pca(est, X, run, rng, sample_weight):
    check_weights = False
    if sample_weight is not None:
        if _is_dask(sample_weight):
            if any(np.isnan(c) for c in sample_weight.chunks[0]):
                raise ValueError(
                    "sample_weight has unknown chunk sizes; call "
                    "sample_weight.compute_chunk_sizes() first."
                )
            if sample_weight.ndim != 1 or sample_weight.shape[0] != X.shape[0]:
                raise ValueError(
                    f"sample_weight must have shape ({X.shape[0]},), got {sample_weight.shape}."
                )
            if sample_weight.dtype.kind not in "biuf":
                raise TypeError(
                    f"sample_weight must hold real numbers, got dtype {sample_weight.dtype}."
                )
            sample_weight, check_weights = sample_weight.astype(np.float64), True
        else:
            sample_weight = check_sample_weight(sample_weight, X.shape[0])
    if _wide(run):
        computed = _gram_first_pass(run, also=sample_weight if check_weights else None)
        w = check_sample_weight(computed if check_weights else sample_weight, X.shape[0])
        if check_weights:  # the in-memory bound, now that the weights are known
            rows = weighted_rows(w, X.shape[0])
            est.n_components_ = check_n_components(est.n_components, rows, X.shape[1])
        result = solve_weighted_pca_gram(run, est.n_components_, w, rng=rng)
    else:
        counts = counts_pass(run, X.shape, est.n_components_, sample_weight, check_weights)
        training_constants(est, counts)
        moments = counts["moments"]
        if not moments.weight > 0:
            raise ValueError(
                "sample_weight must have at least one positive entry (all weights are zero)."
            )
        if check_weights:  # the in-memory bound (weighted_rows), from the first pass
            whole = counts["fractional_rows"] == 0
            rows = min(moments.weight, np.iinfo(np.int64).max) if whole else counts["positive_rows"]
            bound = max(int(rows), 1)
            est.n_components_ = check_n_components(est.n_components, bound, X.shape[1])
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
        _gram_first_pass(run)
        return solve_l21_pca_gram(run, est.n_components_, rng=rng, init=est.init, **iteration)
    return solve_l21_pca_chunked(
        run, _first_pass(run), est.n_components_, rng=rng, init=est.init, **iteration
    )


def _fit_r1(est, X, run, rng, sample_weight):
    loss = est._make_loss()
    iteration = {"max_iter": est.max_iter, "tol": est.tol, "callback": est.callback}
    if _wide(run):
        _gram_first_pass(run)
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
        stacklevel=external_stacklevel(),
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
        _gram_first_pass(run)
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
        _gram_first_pass(run)
        result = solve_adaptive_neighbors_pca_gram(run, k, m, rng=rng, init=est.init, **iteration)
        return _with_rows(X, result)
    result, per_sample = solve_adaptive_neighbors_pca_chunked(
        run, _first_pass(run), k, m, n_samples=X.shape[0], rng=rng, init=est.init, **iteration
    )
    return _with_rows(X, result, per_sample)


#: The chunked fit of each estimator that has one, by the name its class gives in
#: ``_dask_fit`` (a class that overrides ``_fit_solver`` without naming one has none).
FITS = {
    "optimal_mean": _fit_optimal_mean,
    "pca": _fit_pca,
    "l21": _fit_l21,
    "r1": _fit_r1,
    "generalized_mean": _fit_generalized_mean,
    "adaptive_neighbors": _fit_adaptive_neighbors,
    "pcp": fit_pcp,
    "outlier_pursuit": fit_outlier_pursuit,
    "crpca_om": fit_crpca_om,
    "accaltproj": fit_accaltproj,
    "godec": fit_godec,
    "hq": partial(
        fit_hq, first_pass=_first_pass, gram_first_pass=_gram_first_pass, with_rows=_with_rows
    ),
    "robpca": fit_robpca,
    "covariance": fit_covariance,
    "spherical": fit_spherical,
    "online": fit_online,
}
SUPPORTED = (
    "OptimalMeanPCA, PCA, L21PCA, R1PCA, GeneralizedMeanPCA, AdaptiveNeighborsPCA, HQPCA, "
    "PrincipalComponentPursuit, OutlierPursuit, ConvexOptimalMeanPCA, AccAltProj (tall), "
    "GoDec (tall), ROBPCA, CovariancePCA, SphericalPCA, OnlineRobustPCA, GRASTA"
)


#: The chunked fits that resolve a share or ``"auto"`` themselves (on their own spectrum);
#: they also pass over row blocks whatever the route, through a ``tall_runner`` they get
#: from :func:`fit_dask`.
AUTO_RANK = ("robpca", "spherical", "covariance")


def refuse_dask(estimator, name: str = "X") -> TypeError:
    """The ``TypeError`` for a dask array ``name`` given to the fit of an estimator with
    no chunked fit (raised, never computing the array behind the caller's back)."""
    return TypeError(
        f"{name} is a dask array, which {type(estimator).__name__} does not fit chunk by "
        f"chunk (supported: {SUPPORTED}); pass a NumPy array ({name}.compute())."
    )


def _fitter_for(estimator):
    """The chunked fit named by ``estimator``'s class (see :data:`FITS`)."""
    fitter = FITS.get(getattr(type(estimator), "_dask_fit", None))
    if fitter is None:
        raise refuse_dask(estimator)
    return fitter


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
        :func:`column_blocks`); never modified. An infinity, or an entry whose square
        would overflow once summed (:func:`~robustpca._validation.check_magnitude`'s
        bound), raises ``ValueError`` in the first pass (:func:`.arrays.bounded`); so
        does a NaN, except on the routes that fit missing entries.
    sample_weight : array-like or dask array of shape (n_samples,), optional
        :class:`~robustpca.PCA` only.
    """
    fitter = _fitter_for(estimator)
    X = as_float_array(X, keep_float32=True)
    input_dtype = X.dtype
    online = fitter is fit_online  # a stream in the input's dtype, as in memory
    if not online:
        X = X.astype(np.float64)  # the passes compute in float64 whatever the input
        X = bounded(X, input_dtype)  # the online route checks each batch itself
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
    auto = getattr(type(estimator), "_dask_fit", None) in AUTO_RANK
    spec = estimator.n_components
    share = isinstance(spec, numbers.Real) and not isinstance(spec, (bool, numbers.Integral))
    if not auto and (isinstance(spec, str) or share):
        # the in-memory rules first: a value no fit takes, or one this estimator never does
        in_memory = getattr(estimator, "_supports_auto_rank", True)
        owner = type(estimator).__name__
        check_n_components(spec, n_samples, n_features, allow_auto=in_memory, owner=owner)
        raise ValueError(
            f"n_components={spec!r}: a Dask fit of {type(estimator).__name__} takes a whole "
            "number of components (a variance share or 'auto' is chosen on the spectrum of "
            "the whole data, which its passes do not form); pass an int, or fit in memory."
        )
    # n_components=None or too large: bounded by the rows the weights make, as in memory
    # (dask weights: after either route's first pass, which computes them; see _fit_pca)
    rows = n_samples
    if sample_weight is not None and not _is_dask(sample_weight):
        rows = weighted_rows(sample_weight, n_samples)
    estimator.n_components_ = check_n_components(spec, rows, n_features, allow_auto=auto)
    rng = as_generator(getattr(estimator, "random_state", None))
    run: GramPasses | DaskPassRunner
    if online:
        result = fit_online(estimator, X, rng)  # sets n_missing_ and n_passes_
    else:
        # the first pass also checks the in-memory underflow bound (no pass of its own)
        runner_for = partial(DaskPassRunner, underflow=input_dtype)
        if n_samples < n_features:  # the Gram route, as WeightedPCAProblem(route='auto')
            runner = runner_for(column_blocks(X), axis=1, split_every=WIDE_SPLIT_EVERY)
            run = GramPasses(runner)
        else:
            X = row_blocks(X)
            run = runner = runner_for(X)
        estimator.n_missing_ = 0  # set by the tall route of PCA and RPCA-OM on NaN
        extra = {"tall_runner": runner_for} if auto else {}
        result = fitter(estimator, X, run, rng, sample_weight, **extra)
        estimator.n_passes_ = runner.n_passes
    estimator._store(result)
    finish_fit(estimator, input_dtype)  # float32 input: float32 attributes, as in NumPy
    constants = estimator.__dict__.pop("_training_constants", None)  # the tall first pass's
    estimator._unmodelled_constants = model_constants(
        constants, estimator.mean_, estimator.components_
    )
    if input_dtype == np.float32:  # arrays, as in memory; scalars (penalties) stay float64
        for name, value in list(vars(estimator).items()):
            if (
                name.endswith("_")
                and getattr(value, "dtype", None) == np.float64
                and getattr(value, "ndim", 0) > 0
            ):
                setattr(estimator, name, value.astype(np.float32))  # lazy for dask arrays
