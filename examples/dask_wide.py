"""RPCA-OM on wide data: 2,000 samples x 500,000 features (8 GB) generated lazily by columns.

Wide data (``n_samples < n_features``: images, spectra, genes) take the Gram route on a
dask array, as they do in memory: one pass over the column blocks brings back the
centred ``n x n`` Gram matrix (32 MB for 2,000 samples), the reweighting iterations run
in memory on it, and one more pass forms the ``k x d`` components and the mean by blocked
products. Passes that form residuals explicitly are added only in the iterations where
the in-memory Gram route does so too (samples that end up on the subspace).

The data: inliers near a rank-5 affine subspace plus uniform noise, and 10% outliers
with a shared offset (20 times a random direction's coordinates: it pulls the mean and
tilts PCA's subspace) and gross scattered noise.
Block ``j`` (all samples, ``chunk_cols`` features) is drawn from a generator seeded by
``(seed, j)``; the sample scores are drawn once. Nothing is stored: every pass draws the
blocks again.

Run::

    python examples/dask_wide.py                                   # 2,000 x 500,000 (8 GB)
    python examples/dask_wide.py --n-features 50_000               # a quick look

It prints the passes, the time per pass, the peak resident memory and the largest
angle between the fitted and the planted subspaces (RPCA-OM, and PCA for contrast).
"""

from __future__ import annotations

import argparse

import dask.array as da
import numpy as np

# the fits and measures of the tall example (this folder is on sys.path when a script of
# it runs)
from dask_out_of_core import (
    SyntheticData,
    add_fit_arguments,
    block_position,
    block_sizes,
    fit_pca,
    fit_rpca_om,
    largest_angle,
    peak_rss_gb,
    print_angles,
    uniform_noise,
)

SCALES = (10.0, 9.0, 8.0, 7.0, 6.0)
#: the tall example's data model, with a larger outlier offset
WIDE = SyntheticData(outlier_offset=20.0)


def _block_params(j: int, width: int, rank: int, seed: int):
    """Per-feature quantities of block ``j``: basis rows, centre, outlier offset."""
    rng = np.random.default_rng([seed, j])
    basis_rows = rng.standard_normal((width, rank))
    center = 10.0 * rng.standard_normal(width)
    offset = rng.standard_normal(width)
    return rng, basis_rows, center, offset


def _sample_params(n_samples: int, rank: int, outlier_fraction: float, seed: int):
    """Per-sample quantities: inlier scores and the outlier mask."""
    rng = np.random.default_rng([seed, 2**31])
    scores = rng.standard_normal((n_samples, rank)) * np.resize(SCALES, rank)
    outliers = rng.random(n_samples) < outlier_fraction
    scores[outliers] = 0.0
    return scores, outliers


def _block(block_info=None, *, scores, outliers, data):
    (_, j), (_, width) = block_position(block_info)
    rng, basis_rows, center, offset = _block_params(j, width, scores.shape[1], data.seed)
    X = scores @ basis_rows.T  # outlier rows of `scores` are zero
    X += center
    X += uniform_noise(rng, (scores.shape[0], width), data.noise)
    m = int(outliers.sum())  # outliers: a shared offset and gross scattered noise
    gross = data.outlier_scale * rng.standard_normal((m, width))
    X[outliers] += data.outlier_offset * offset + gross
    return X


def lazy_wide_data(
    n_samples: int = 2000,
    n_features: int = 500_000,
    *,
    rank: int = 5,
    chunk_cols: int = 5000,
    **params,
):
    """A lazy (n_samples, n_features) dask array chunked by columns.

    ``params`` replace fields of :data:`WIDE` (``seed``, ``noise``, ...). Returns ``X``
    and a function ``planted()`` that returns the orthonormal planted basis
    (``n_features x rank``) and centre, drawn again block by block (nothing cached).
    """
    data = WIDE._replace(**params)
    seed = data.seed
    scores, outliers = _sample_params(n_samples, rank, data.outlier_fraction, seed)
    col_chunks = block_sizes(n_features, chunk_cols)
    X = da.map_blocks(
        _block,
        chunks=((n_samples,), col_chunks),
        dtype=np.float64,
        meta=np.empty((0, 0)),
        scores=scores,
        outliers=outliers,
        data=data,
    )

    def planted():
        parts = [_block_params(j, w, rank, seed)[1:3] for j, w in enumerate(col_chunks)]
        basis = np.linalg.qr(np.concatenate([p[0] for p in parts]))[0]
        return basis, np.concatenate([p[1] for p in parts])

    return X, planted


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=2000)
    parser.add_argument("--n-features", type=int, default=500_000)
    parser.add_argument("--chunk-cols", type=int, default=5000)
    add_fit_arguments(parser)
    args = parser.parse_args(argv)

    X, planted = lazy_wide_data(
        args.n_samples, args.n_features, rank=args.rank, chunk_cols=args.chunk_cols, seed=args.seed
    )
    print(
        f"X: {X.shape[0]:,} x {X.shape[1]:,} float64 = {X.nbytes / 1e9:.1f} GB in "
        f"{X.numblocks[1]} blocks of {args.chunk_cols:,} columns (generated lazily)"
    )
    model, elapsed, cpu = fit_rpca_om(X, args)
    basis, _ = planted()
    summary = {
        "n_samples": args.n_samples,
        "n_features": args.n_features,
        "chunk_cols": args.chunk_cols,
        "n_iter": model.n_iter_,
        "n_passes": model.n_passes_,
        "converged": model.converged_,
        "fit_seconds": elapsed,
        "cpu_seconds": cpu,
        "rpca_om_angle_deg": largest_angle(model.components_, basis),
    }
    print(
        f"RPCA-OM: {model.n_iter_} iterations, {model.n_passes_} passes, {elapsed:.1f} s, "
        f"{cpu:.1f} CPU-s, stop: {model.stop_reason_}"
    )
    if not args.no_pca:
        summary["pca_angle_deg"] = largest_angle(fit_pca(X, args.rank).components_, basis)
    summary["peak_rss_gb"] = peak_rss_gb()
    print_angles(summary)
    print(f"peak resident memory: {summary['peak_rss_gb']:.2f} GB (ru_maxrss)")
    return summary


if __name__ == "__main__":
    main()
