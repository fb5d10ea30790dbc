"""RPCA-OM on a 50,000,000 x 64 float64 array (25.6 GB) that never exists in memory.

The data are generated lazily, chunk by chunk, from a seed: points near a rank-5 affine
subspace plus 10% gross outliers that share an offset (they pull the arithmetic mean and
the PCA subspace away). ``OptimalMeanPCA.fit`` on the dask array runs one pass over the
chunks per iteration, each pass one ``dask.compute`` that brings back only a weighted
mean, a 64 x 64 scatter and the objective; the chunks are regenerated in every pass and
dropped as soon as they are reduced, so the peak memory is a few chunks, whatever the
number of rows.

Run::

    python examples/dask_out_of_core.py                       # 50M rows (long: see docs/dask.md)
    python examples/dask_out_of_core.py --n-samples 2_000_000 # a quick look

It prints the iterations, the time per pass, the peak resident memory of the process and
how close RPCA-OM (and, for contrast, PCA fitted on the same dask array) get to the
planted subspace and inlier mean.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import warnings
from typing import NamedTuple

import dask
import dask.array as da
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from robustpca.estimators._optimal_mean import OptimalMeanPCA
from robustpca.estimators._pca import PCA
from robustpca.metrics import subspace_angles


def planted_model(n_features: int, rank: int, seed: int):
    """The planted subspace basis (d, rank), centre and per-direction scales."""
    rng = np.random.default_rng([seed, 2**31])
    basis = np.linalg.qr(rng.normal(size=(n_features, rank)))[0]
    center = 10.0 * rng.normal(size=n_features)
    scales = np.linspace(10.0, 5.0, rank)
    return basis, center, scales


def uniform_noise(rng, shape, std: float) -> np.ndarray:
    """Uniform noise of standard deviation ``std``: 3x cheaper to draw than Gaussian."""
    E = rng.random(shape)
    E -= 0.5
    E *= std * np.sqrt(12.0)
    return E


def _block(block_info=None, *, basis, center, scales, data):
    """Rows of one block, drawn from a generator seeded by ``(data.seed, block)``."""
    (i, _), (n, d) = block_position(block_info)
    rng = np.random.default_rng([data.seed, i])
    rank = basis.shape[1]
    X = uniform_noise(rng, (n, d), data.noise)
    X += center
    X += (rng.standard_normal((n, rank)) * scales) @ basis.T
    outliers = rng.random(n) < data.outlier_fraction
    m = int(outliers.sum())
    X[outliers] = center + data.outlier_offset + data.outlier_scale * rng.standard_normal((m, d))
    return X


def lazy_low_rank_data(
    n_samples: int, n_features: int = 64, *, rank: int = 5, chunk_rows: int = 50_000, **params
):
    """A lazy (n_samples, n_features) dask array: low rank plus noise plus outliers.

    ``params`` are fields of :class:`SyntheticData` (``seed``, ``noise``, ...). Returns
    ``X, basis, center``; block ``i`` is the same for a given ``seed`` whatever the
    scheduler, and nothing is computed until a pass asks for it.
    """
    data = SyntheticData(**params)
    basis, center, scales = planted_model(n_features, rank, data.seed)
    X = da.map_blocks(
        _block,
        chunks=(block_sizes(n_samples, chunk_rows), (n_features,)),
        dtype=np.float64,
        meta=np.empty((0, 0)),
        basis=basis,
        center=center,
        scales=scales,
        data=data,
    )
    return X, basis, center


# -- shared with dask_wide.py -----------------------------------------------------------
class SyntheticData(NamedTuple):
    """How both examples draw their data around the planted subspace: uniform noise of
    standard deviation ``noise``, a fraction ``outlier_fraction`` of outliers (an offset
    of ``outlier_offset`` and gross Gaussian noise of scale ``outlier_scale``), each block
    from a generator seeded by ``(seed, block)``."""

    noise: float = 0.5
    outlier_fraction: float = 0.1
    outlier_offset: float = 3.0
    outlier_scale: float = 15.0
    seed: int = 0


def block_position(block_info):
    """``(index, shape)`` of the block that dask's ``map_blocks`` asks for."""
    info = block_info[None]
    return info["chunk-location"], info["chunk-shape"]


def block_sizes(total: int, size: int) -> tuple[int, ...]:
    """Blocks of ``size`` along an axis of length ``total``, the last one shorter."""
    q, rem = divmod(total, size)
    return (size,) * q + ((rem,) if rem else ())


def add_fit_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the fits: rank, iterations, tolerance, seed, and --no-pca."""
    parser.add_argument("--rank", type=int, default=5)
    parser.add_argument("--max-iter", type=int, default=100)
    parser.add_argument("--tol", type=float, default=1e-6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-pca", action="store_true", help="skip the PCA comparison")


def fit_rpca_om(X, args, callback=None):
    """RPCA-OM on the threaded scheduler, every ConvergenceWarning shown; returns the
    model and the wall and CPU seconds of its construction and fit."""
    start, cpu_start = time.perf_counter(), cpu_seconds()
    model = OptimalMeanPCA(
        n_components=args.rank, max_iter=args.max_iter, tol=args.tol, callback=callback
    )
    with dask.config.set(scheduler="threads"), warnings.catch_warnings():
        warnings.simplefilter("always", ConvergenceWarning)
        model.fit(X)
    return model, time.perf_counter() - start, cpu_seconds() - cpu_start


def fit_pca(X, rank: int):
    """PCA on the same dask array, for contrast (threaded scheduler)."""
    with dask.config.set(scheduler="threads"):
        return PCA(n_components=rank).fit(X)


def print_angles(summary: dict) -> None:
    """The largest angles of RPCA-OM (and PCA, when fitted) to the planted subspace."""
    print(
        f"largest angle to the planted subspace: RPCA-OM {summary['rpca_om_angle_deg']:.3f} deg"
        + (f", PCA {summary['pca_angle_deg']:.1f} deg" if "pca_angle_deg" in summary else "")
    )


def peak_rss_gb() -> float:
    """Peak resident memory of this process so far (``ru_maxrss``), in GB."""
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb * (1 if sys.platform == "darwin" else 1024) / 1e9


def cpu_seconds() -> float:
    """User + system CPU time of this process so far (all its threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def largest_angle(components, basis) -> float:
    return float(np.degrees(subspace_angles(components, basis.T).max()))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=50_000_000)
    parser.add_argument("--n-features", type=int, default=64)
    parser.add_argument("--chunk-rows", type=int, default=50_000)
    add_fit_arguments(parser)
    args = parser.parse_args(argv)

    X, basis, center = lazy_low_rank_data(
        args.n_samples,
        args.n_features,
        rank=args.rank,
        chunk_rows=args.chunk_rows,
        seed=args.seed,
    )
    print(
        f"X: {X.shape[0]:,} x {X.shape[1]} float64 = {X.nbytes / 1e9:.1f} GB in "
        f"{X.numblocks[0]} chunks of {args.chunk_rows:,} rows (generated lazily)"
    )
    times = []

    def on_iteration(iteration, state):
        times.append(time.perf_counter())
        print(f"  iteration {iteration:3d}  objective {state.objective:.10e}", flush=True)

    model, elapsed, cpu = fit_rpca_om(X, args, callback=on_iteration)
    summary = {
        "n_samples": args.n_samples,
        "n_features": args.n_features,
        "chunk_rows": args.chunk_rows,
        "n_iter": model.n_iter_,
        "n_passes": model.n_passes_,
        "converged": model.converged_,
        "fit_seconds": elapsed,
        "seconds_per_pass": elapsed / model.n_passes_,
        "cpu_seconds_per_pass": cpu / model.n_passes_,
        "rpca_om_angle_deg": largest_angle(model.components_, basis),
        "rpca_om_mean_error": float(np.linalg.norm(model.mean_ - center)),
    }
    print(
        f"RPCA-OM: {model.n_iter_} iterations, {model.n_passes_} passes, {elapsed:.1f} s "
        f"({summary['seconds_per_pass']:.1f} s and {summary['cpu_seconds_per_pass']:.1f} CPU-s "
        f"per pass), stop: {model.stop_reason_}"
    )
    if not args.no_pca:
        pca = fit_pca(X, args.rank)
        summary["pca_angle_deg"] = largest_angle(pca.components_, basis)
        summary["pca_mean_error"] = float(np.linalg.norm(pca.mean_ - center))
    summary["peak_rss_gb"] = peak_rss_gb()
    print_angles(summary)
    print(
        f"||mean - planted centre||: RPCA-OM {summary['rpca_om_mean_error']:.4f}"
        + (f", PCA {summary['pca_mean_error']:.3f}" if "pca_mean_error" in summary else "")
    )
    print(f"peak resident memory: {summary['peak_rss_gb']:.2f} GB (ru_maxrss)")
    return summary


if __name__ == "__main__":
    main()
