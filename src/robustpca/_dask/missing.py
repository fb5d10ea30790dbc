"""Missing entries on the dask route (issue 12): the tall route of PCA and RPCA-OM.

The first pass of those two estimators (:func:`counts_pass`) gathers the moments of the
complete-data first pass and counts the NaN; with none, the fit goes on exactly as
without NaN support. With some, :func:`fit_missing` runs the majorize-minimize loop of
:mod:`robustpca.solvers.missing` in passes (:mod:`robustpca.solvers.chunked_missing`),
and ``weights_``/``residuals_`` are lazy (:func:`lazy_rows`). The lazy transforms of a
model that fits missing entries take rows with NaN in blocks of whole rows
(:func:`observed_block`). The wide (Gram) route, the other estimators and transforms of
data chunked by columns refuse NaN.
"""

from __future__ import annotations

import numpy as np

from .._validation import _listed, check_enough_observed, check_finite_sums
from ..solvers.chunked import weights_are_local
from ..solvers.chunked_missing import (
    missing_counts_pass,
    observed_rows_block,
    solve_missing_chunked,
)
from ..solvers.informative_coordinates import informative_counts, observed_od
from ..solvers.missing import observed_fit

__all__ = ["counts_pass", "fit_missing", "lazy_rows", "observed_block", "training_constants"]


def counts_pass(run, shape, n_components: int, sample_weight=None, check_weights=False) -> dict:
    """The first pass of PCA and RPCA-OM on the tall route: the moments (exactly those
    of the complete-data first pass) and the number of missing entries; with NaN, the
    in-memory checks of empty columns and of too few observed entries (``shape``: the
    data's)."""
    counts = run(missing_counts_pass, sample_weight, check_weights=check_weights)
    check_finite_sums(counts["moments"].scatter)
    if counts["empty_rows"]:
        raise ValueError(
            f"X has {counts['empty_rows']} row(s) with no observed entry (all NaN); drop them."
        )
    empty = np.flatnonzero(counts["col_count"] == 0)
    if counts["n_missing"] and empty.size:
        shown = ", ".join(str(int(j)) for j in empty[:10])
        raise ValueError(f"X has columns with no observed entry (all NaN): column(s) {shown}.")
    if counts["n_missing"]:
        n, d = (int(v) for v in shape)
        check_enough_observed(n * d - int(counts["n_missing"]), n, d, int(n_components))
    return counts


def fit_missing(est, X, run, counts, loss, rng, sample_weight=None, **iteration):
    """The tall-route fit on the observed entries (:mod:`robustpca.solvers.chunked_missing`),
    with ``weights_``/``residuals_`` lazy (one pass each when computed)."""
    if not weights_are_local(loss):
        raise NotImplementedError(
            f"The tall route of a dask fit handles missing entries with a local weight rule "
            f"only; {type(loss).__name__} with these parameters needs every residual per "
            "iteration: fit the NumPy array (X.compute()), or give epsilon > 0."
        )
    result = solve_missing_chunked(
        run, counts, est.n_components_, loss, rng=rng, sample_weight=sample_weight, **iteration
    )
    est.n_missing_ = counts["n_missing"]
    return result


def training_constants(est, counts) -> None:
    """Keep the first pass's constant columns for :func:`robustpca._dask.fit_dask`,
    which compares them with the fitted model (``_unmodelled_constants``)."""
    est._training_constants = counts["col_range"].constants()


def lazy_rows(X, result, loss, which):
    """``residuals_`` (observed residual norms) or ``weights_`` of a fit, lazily."""
    return X.map_blocks(
        observed_rows_block,
        mean=result.mean,
        components=result.components,
        loss=loss,
        which=which,
        drop_axis=1,
        chunks=(X.chunks[0],),
        dtype=np.float64,
        meta=np.empty(0),
    )


def refuse_empty_rows(x, block_info=None) -> None:
    """The in-memory ``ValueError`` for rows with no observed entry
    (:func:`~robustpca._validation.check_observed`), naming them by their row in the
    whole dask array (``block_info``: dask's, for the block's first row)."""
    empty = np.flatnonzero(np.isnan(x).all(axis=1)) if x.shape[1] else np.zeros(0, int)
    if empty.size:
        offset = int(block_info[0]["array-location"][0][0]) if block_info else 0
        raise ValueError(
            f"X has rows with no observed entry (all NaN): row(s) {_listed(empty + offset)} "
            "(0-based); drop them or give at least one value per row."
        )


def observed_block(x, mean, components, allow_nan, finite, constants=None, centre=None, scale=None):
    """The observed-coordinates fit of a block with NaN (estimators that fit missing
    entries), else None; infinity (and NaN elsewhere) raises. ``constants``: the
    model's ``_unmodelled_constants``, whose columns count as uninformative
    (:func:`~robustpca.solvers.informative_coordinates.observed_od`); ``centre`` and
    ``scale``: the training scores' metric (``_score_metric``), which places a row with
    fewer than ``k`` observed coordinates, as in memory."""
    if not allow_nan or np.isinf(x).any() or not np.isnan(x).any():
        finite(x)
        return None
    missing = np.isnan(x)
    if missing.all(axis=1).any():
        raise ValueError("X has rows with no observed entry (all NaN); drop them.")
    counts = None if constants is None else informative_counts(missing, constants)[0]
    scores, fitted, r = observed_fit(
        x, missing, mean, components, centre=centre, scale=scale, n_informative=counts
    )
    od = observed_od(r, x, missing, constants, components.shape[0])
    dtype = np.result_type(x.dtype, components.dtype)
    return missing, tuple(a.astype(dtype, copy=False) for a in (scores, fitted, od))
