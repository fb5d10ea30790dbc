"""HQ-PCA's chunked fit: the reweighting loop of RPCA-OM with the Welsch (correntropy) loss.

He et al.'s half-quadratic iteration is :func:`~robustpca.solvers.solve_optimal_mean_pca`
with :class:`~robustpca.losses.WelschLoss` (``HQPCA._solve``), so the Dask fit is the
chunked RPCA-OM loop with that loss (:func:`~robustpca.solvers.chunked_pca.
solve_optimal_mean_pca_chunked` on tall data, its Gram twin on wide data), with HQ-PCA's
own exact-fit stop and its weights ``g(r_i) = 2 h'(r_i^2)``. A fixed ``kernel_width`` is
a local weight rule (one pass per iteration); the adaptive width of He et al.
(``sigma^2`` from all the residuals) is a global one: each iteration brings the residual
norms back and gathers the weighted moments in a second pass, as for R1-PCA's median.
This module never imports the estimator.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import replace

import numpy as np

from .._warnings import external_stacklevel, warn_if_few_samples_weighed
from ..losses import WelschLoss
from ..solvers import StopReason
from ..solvers.chunked_gram import GramPasses
from ..solvers.chunked_gram_pca import solve_optimal_mean_pca_gram
from ..solvers.chunked_pca import solve_optimal_mean_pca_chunked

__all__ = ["fit_hq"]

#: HQPCA's exact-fit level (``robustpca.estimators._hq.EXACT_RTOL``): the fit stops as
#: exact once the objective is below this fraction of half the total squared spread.
EXACT_RTOL = 1e-20


def _kernel_width(value) -> float | None:
    """``kernel_width`` validated as HQPCA validates it (None or finite and > 0)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            "kernel_width must be None or a real number > 0, got "
            f"{type(value).__name__} ({value!r})."
        )
    width = float(value)
    if not (0 < width < float("inf")):
        raise ValueError(f"kernel_width={width!r} must be None or finite and > 0.")
    if width * width < np.finfo(float).tiny:
        raise ValueError(f"kernel_width={width!r} is too small: its square underflows.")
    return width


def fit_hq(est, X, run, rng, sample_weight, *, first_pass, gram_first_pass, with_rows):
    """HQ-PCA on a dask array: ``fit.py``'s helpers are passed in (no import cycle)."""
    width = _kernel_width(est.kernel_width)
    loss = WelschLoss(kernel_width=width)
    k = est.n_components_
    if isinstance(run, GramPasses):
        gram_first_pass(run)
        spread = 0.5 * max(float(run.trace), 0.0)
    else:
        moments = first_pass(run)
        spread = 0.5 * max(float(np.trace(moments.scatter)), 0.0)
    exact_level = EXACT_RTOL * (spread if width is None else min(spread, width * width))
    exact: list[int] = []

    def monitor(iteration, state):
        if est.callback is not None and est.callback(iteration, state):
            return True
        if state.objective <= exact_level:
            exact.append(iteration)
            return True
        return False  # (HQPCA._solve's stop: residuals at rounding level are exact)

    iteration = {"max_iter": est.max_iter, "tol": est.tol, "callback": monitor}
    if isinstance(run, GramPasses):
        result = solve_optimal_mean_pca_gram(run, k, loss, rng=rng, **iteration)
        sigma = loss.resolve(np.asarray(result.info["residuals"])).kernel_width
        result = replace(result, weights=2.0 * np.asarray(result.weights))
        per_sample = None
    else:
        result, per_sample = solve_optimal_mean_pca_chunked(
            run, moments, k, loss, rng=rng, **iteration
        )
        sigma = per_sample.loss.resolve(per_sample.residuals).kernel_width
        weights = None if per_sample.weights is None else 2.0 * per_sample.weights
        per_sample = replace(per_sample, weights=weights, weight_scale=2.0)
    if exact:
        result = replace(result, stop_reason=StopReason.EXACT, converged=True)
    if result.stop_reason == StopReason.ALL_CAPPED:
        warnings.warn(
            f"kernel_width={est.kernel_width} is so small that every sample's "
            "correntropy weight underflowed to zero; the last subspace with a positive "
            "weight is returned. Increase kernel_width.",
            UserWarning,
            stacklevel=external_stacklevel(),
        )
    result = replace(result, info={**result.info, "kernel_width": float(sigma)})
    in_memory = result.weights if per_sample is None else per_sample.weights
    result = with_rows(X, result, per_sample)
    if result.stop_reason != StopReason.ALL_CAPPED and X.shape[0] > k + 1:
        if in_memory is None:  # lazy (a fixed width): its largest k + 2 tell, in one pass
            in_memory = result.weights.topk(k + 2).compute()
            run.n_passes += 1
        warn_if_few_samples_weighed(np.asarray(in_memory), X.shape[0], k)
    return result
