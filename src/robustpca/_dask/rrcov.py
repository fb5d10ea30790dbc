"""The chunked fits of the rrcov family on dask arrays: ROBPCA, CovariancePCA and
SphericalPCA (issue 41).

The iteration is the pure solver :func:`~robustpca.solvers.chunked_rrcov.
solve_robpca_chunked` over :class:`~robustpca._dask.fit.DaskPassRunner` (one
``dask.compute`` per pass); this module sets the estimator's attributes as its
``_fit_solver`` does, with the per-sample ones (``outlyingness_``, ``h_subset_``,
``support_``) as lazy dask arrays chunked like the rows of ``X``. It never imports an
estimator.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from .._warnings import external_stacklevel
from ..linalg import complete_orthonormal
from ..solvers import SolverResult, StopReason
from ..solvers.chunked_gram import GramPasses
from ..solvers.chunked_mcd import AffineRows, mcd_chunked, subsample_indices
from ..solvers.chunked_order_statistics import pilot_indices
from ..solvers.chunked_rrcov import first_pass, solve_robpca_chunked
from ..solvers.chunked_skew import solve_robpca_skew_chunked
from ..solvers.chunked_spherical import solve_spherical_pca_chunked
from ..solvers.robpca import directionless, not_nonnegative_definite
from .arrays import _dask, row_blocks

__all__ = ["fit_covariance", "fit_robpca", "fit_spherical", "row_index", "rows_map"]


def row_index(X):
    """The global row numbers as a dask array chunked like the rows of ``X``."""
    _, da = _dask()
    return da.arange(X.shape[0], chunks=(X.chunks[0],), dtype=np.int64)


def _apply(x, index, *, fn, kind):
    index = index[:, 0]
    if kind == "values":
        return fn(x)[:, 0]
    return fn(x, index)


def rows_map(X, fn, dtype, kind="values"):
    """``fn`` applied block by block to the rows of ``X`` (lazy, one value per row):
    ``fn(x)[:, 0]`` for ``kind="values"``, ``fn(x, index)`` for ``kind="mask"``."""
    _, da = _dask()
    X = row_blocks(X)
    index = row_index(X)[:, None]
    return da.map_blocks(
        _apply,
        X,
        index,
        fn=fn,
        kind=kind,
        drop_axis=1,
        chunks=(X.chunks[0],),
        dtype=dtype,
        meta=np.empty(0, dtype=dtype),
    )


class _RowPasses:
    """Passes over blocks of whole rows also for data with more features than samples
    (the rrcov family reduces them to their affine span by the rows' own SVD), counted
    in the route's runner (``n_passes_``)."""

    def __init__(self, X, run, tall_runner):
        self.outer = run.run if isinstance(run, GramPasses) else None
        self.run = tall_runner(row_blocks(X)) if self.outer is not None else run

    def __call__(self, kernel, rows=None, **params):
        out = self.run(kernel, rows, **params)
        if self.outer is not None:
            self.outer.n_passes += 1
        return out


def fit_robpca(est, X, run, rng, sample_weight, *, tall_runner) -> SolverResult:
    """ROBPCA on a dask array chunked by rows: ``ROBPCA._fit_solver`` with the chunked
    solver (a passes runner over row blocks, whatever the route)."""
    run = _RowPasses(X, run, tall_runner)
    n, p = X.shape
    spec = est.n_components
    if spec is None:
        spec = min(n, p)
    kmax = est.kmax
    if isinstance(spec, numbers.Integral):
        spec = min(int(spec), n, p)
        kmax = max(kmax, spec)
    common = {
        "alpha": est.alpha,
        "kmax": kmax,
        "max_directions": est.max_directions,
        "rng": rng,
        "direction_rng": rng if est.directions == "random" else None,
    }
    if est.skew:
        result = solve_robpca_skew_chunked(run, row_index(X), n, p, spec, **common)
    else:
        result = solve_robpca_chunked(
            run, row_index(X), n, p, spec, mcd=est.mcd, n_starts=est.n_starts, **common
        )
    message = directionless(result.n_directions)
    if message:
        warnings.warn(message, UserWarning, stacklevel=external_stacklevel())
    if result.negative_eigenvalue < 0:
        message = not_nonnegative_definite(result.negative_eigenvalue, n, result.n_components)
        warnings.warn(message, UserWarning, stacklevel=external_stacklevel())
    components, eigenvalues = result.components, result.eigenvalues
    k = int(spec) if isinstance(spec, int) else max(result.n_components, 1)
    if components.shape[0] < k:  # fewer directions of variance than asked for
        components = complete_orthonormal(components.T, k, rng).T
        eigenvalues = np.concatenate([eigenvalues, np.zeros(k - eigenvalues.size)])
    _, da = _dask()
    est.n_components_ = k
    est.rank_ = result.rank
    est.h_ = result.h
    if result.h_subset is not None:
        est.h_subset_ = da.flatnonzero(rows_map(X, result.h_subset.member, bool, "mask"))
    else:
        est.h_subset_ = da.arange(n, chunks=(X.chunks[0],))
    est.outlyingness_ = (
        None if result.outlyingness is None else rows_map(X, result.outlyingness, np.float64)
    )
    if result.support is not None:
        est.support_ = rows_map(X, result.support, bool, "mask")
    else:
        est.support_ = da.ones(n, chunks=(X.chunks[0],), dtype=bool)
    est.initial_eigenvalues_ = result.initial_eigenvalues
    est._adjusted = result.adjusted
    est._medcouple_rows = result.medcouple_rows
    est._dask_pilot_rows = result.pilot_rows  # for the diagnostics' passes (_dask.reference)
    return SolverResult(
        components=components[:k],
        mean=result.mean,
        weights=None,
        n_iter=1,
        converged=True,
        stop_reason=StopReason.CLOSED_FORM,
        objective=np.array([float(np.sum(eigenvalues[:k]))]),
        info={"explained_variance": eigenvalues[:k]},
    )


def fit_covariance(est, X, run, rng, sample_weight, *, tall_runner) -> SolverResult:
    """CovariancePCA with the MCD on a dask array chunked by rows: the reweighted MCD
    of :func:`~robustpca.solvers.chunked_mcd.mcd_chunked` (within the affine hull of the
    rows, as ``_mcd_in_affine_hull`` takes it), then its eigen-decomposition."""
    if not isinstance(est.covariance, str):
        raise TypeError(
            "CovariancePCA fits dask arrays with covariance='mcd' only (a covariance "
            "estimator object fits in memory); pass X.compute()."
        )
    run = _RowPasses(X, run, tall_runner)
    n, p = X.shape
    if n <= p + 1:
        raise ValueError(
            f"CovariancePCA with the MCD needs n_samples > n_features + 1, got X of shape "
            f"{X.shape}; use ROBPCA for wide data."
        )
    index = row_index(X)
    pilot = pilot_indices(n)
    wanted = np.unique(np.concatenate([pilot, subsample_indices(n, rng)]))
    out = run(first_pass, index, wanted=wanted)
    records = out["rows"].values
    rows_at = {int(i): r for i, r in zip(records[:, 0], records[:, 1:], strict=True)}
    pilot_x = np.array([rows_at[int(i)] for i in pilot])
    moments = out["qr"]
    _, s, Vt = np.linalg.svd(moments.R, full_matrices=False)
    rank = int(np.sum(s > max(n, p) * np.finfo(np.float64).eps * max(s[0], 1e-300)))
    if rank == 0:  # every row the same point, as _mcd_in_affine_hull takes it
        _, da = _dask()
        location, covariance = moments.mean, np.zeros((p, p))
        est.support_ = da.ones(n, chunks=(X.chunks[0],), dtype=bool)
    elif rank == p:
        coords = AffineRows()
        fit, _ = mcd_chunked(
            run, index, coords, p, n, est.alpha, n_starts=est.n_starts, rng=rng, pilot_x=pilot_x,
            prefetched=rows_at,
        )  # fmt: skip
        location, covariance = fit.location, fit.covariance
        est.support_ = rows_map(X, fit.support_mask, bool, "mask")
    else:
        V = Vt[:rank].T
        coords = AffineRows(moments.mean, V, np.zeros(rank))
        fit, _ = mcd_chunked(
            run,
            index,
            coords,
            rank,
            n,
            est.alpha,
            n_starts=est.n_starts,
            rng=rng,
            pilot_x=pilot_x,
            prefetched=rows_at,
        )
        location, covariance = moments.mean + V @ fit.location, V @ fit.covariance @ V.T
        est.support_ = rows_map(X, fit.support_mask, bool, "mask")
    est.covariance_ = covariance
    est._dask_pilot_rows = pilot_x  # for the diagnostics' passes (_dask.reference)
    values, vectors = np.linalg.eigh((covariance + covariance.T) / 2.0)
    order = np.argsort(values, kind="stable")[::-1]
    values, vectors = np.clip(values[order], 0.0, None), vectors[:, order]
    rank = int(np.sum(values > p * np.finfo(np.float64).eps * max(values[0], 1e-300)))
    return est._finish_axes(vectors[:, :rank].T, values[:rank], location, values, rank, rng)


def fit_spherical(est, X, run, rng, sample_weight, *, tall_runner) -> SolverResult:
    """SphericalPCA on a dask array chunked by rows: ``SphericalPCA._fit_solver`` with
    :func:`~robustpca.solvers.chunked_spherical.solve_spherical_pca_chunked`."""
    run = _RowPasses(X, run, tall_runner)
    n, p = X.shape
    fit, _ = solve_spherical_pca_chunked(
        run, row_index(X), n, p, scale_on=est.scale_on, delta=est.delta
    )
    return est._finish_axes(
        fit.components,
        fit.eigenvalues,
        fit.mean,
        fit.sphere_eigenvalues,
        fit.rank,
        rng,
        n_iter=fit.n_iter,
    )
