"""Nanoseconds a value of the rrcov family's chunk kernels on ROBPCA's projections.

Usage (from the repository root)::

    OMP_NUM_THREADS=1 python benchmarks/bench_chunk_kernels.py
    OMP_NUM_THREADS=1 python benchmarks/bench_chunk_kernels.py --rows 50000 --repeat 5

One chunk (50,000 x 20 by default, a tenth of its rows shifted far out) projected on
250 unit directions, as ROBPCA's outlyingness stage sees it, through each kernel that
runs over the projections at 150,000,000 rows: the first counting pass (a pilot's
edges, thinned as ``least_variance_windows`` thins them, with the binned sums), a
refining pass (512 edges around each end of the window, the pieces between them read),
the gathering pass of the
window's two ranges, the gathering pass of the scaled residuals, the reweighted sums and
the outlyingness. ``values`` is the projections alone. Each line is the best of
``--repeat`` runs, in ns per projected value (rows x 250). Nothing is asserted: it is a
measurement, for ``docs/design-notes/rrcov-family.md``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from robustpca.solvers.chunked_histogram import histogram_pass
from robustpca.solvers.chunked_mcd import AffineRows
from robustpca.solvers.chunked_order_statistics import _padded, gather_pass, pilot_edges
from robustpca.solvers.chunked_rrcov import Outlyingness, Projections
from robustpca.solvers.chunked_unimcd import (
    PASS_BINS,
    REFINE_BINS_PER_COLUMN,
    _Scaled,
    reweighted_sums_pass,
)

DIRECTIONS = 250


def kernels(rows: int, d: int, seed: int = 0) -> dict:
    """Each kernel as a no-argument callable on one chunk."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, d))
    x[: rows // 10] += 8.0
    D = rng.normal(size=(DIRECTIONS, d))
    D /= np.linalg.norm(D, axis=1, keepdims=True)
    P = Projections(AffineRows(np.zeros(d), np.eye(d), np.zeros(d)), D)
    pilot = P(rng.normal(size=(4096, d)))
    most = max(REFINE_BINS_PER_COLUMN, PASS_BINS // DIRECTIONS)
    first = _padded([e[:: max(1, -(-e.size // most))] for e in pilot_edges(pilot)])
    shift = np.median(pilot, axis=0)
    Y = P(x)
    q = np.quantile(Y, [0.124, 0.126, 0.874, 0.876], axis=0).T
    refine = _padded([np.r_[np.linspace(a, b, 512), np.linspace(c, e, 512)] for a, b, c, e in q])
    pieces = np.zeros((DIRECTIONS, 1025), dtype=bool)  # the split bins' pieces, read
    pieces[:, 1:512] = pieces[:, 513:1024] = True
    window = np.quantile(Y, [0.1249, 0.1251, 0.8749, 0.8751], axis=0).T
    centre, var = np.median(Y, axis=0), np.var(Y, axis=0)
    scaled = _Scaled(P, centre, var)
    residual = np.quantile(scaled(x), [0.7499, 0.7501], axis=0)
    index = np.arange(rows)
    return {
        "values": lambda: P(x),
        "first counting pass": lambda: histogram_pass(x, index, values=P, edges=first, shift=shift),
        "refining pass": lambda: histogram_pass(
            x, index, values=P, edges=refine, shift=shift, wanted=pieces
        ),
        "gathering pass (2 ranges)": lambda: gather_pass(
            x, index, values=P, low=window[:, [0, 2]], high=window[:, [1, 3]]
        ),
        "gathering pass (residuals)": lambda: gather_pass(
            x, index, values=scaled, low=residual[0][:, None], high=residual[1][:, None]
        ),
        "reweighted sums": lambda: reweighted_sums_pass(
            x,
            index,
            values=P,
            centre=centre,
            var=var,
            factor=np.ones(DIRECTIONS),
            cutoff=5.0,
        ),
        "outlyingness": lambda: Outlyingness(P, centre, np.sqrt(var))(x),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    values = args.rows * DIRECTIONS
    for name, run in kernels(args.rows, args.features).items():
        best = np.inf
        for _ in range(args.repeat):
            tic = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - tic)
        print(f"{name:28s} {best * 1e3:8.1f} ms  {best / values * 1e9:6.1f} ns/value")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
