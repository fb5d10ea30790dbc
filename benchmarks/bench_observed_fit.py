"""Fits with missing entries on tall data: the two routes of the observed least squares.

Every fit with gaps calls :func:`robustpca.solvers.missing.observed_fit` once per
iteration: a ``k x k`` normal system per row with a gap. Rows whose normal matrix is
provably well conditioned are solved by batched LU, the others by a batched
eigendecomposition (the minimum-norm solution). This script fits the same problem with
both routes and with the eigendecomposition forced for every row, in one process,
interleaved, and reports the fastest of ``--repeats`` (same iterates to rounding)::

    python benchmarks/bench_observed_fit.py --blas-threads 1
    python benchmarks/bench_observed_fit.py --n 20000 --d 100 --missing 0.05 --repeats 3

The problem: ``n x d`` standard normal data (no structure, so every method runs its
iterations) with a fraction ``--missing`` of the cells NaN, ``k = 5``. PCA-L21 is capped
at 30 iterations (it takes 220 on this problem).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

import robustpca
from robustpca.solvers import missing as missing_module

ESTIMATORS = {
    "R1PCA": {},
    "OptimalMeanPCA": {},
    "HQPCA": {},
    "GeneralizedMeanPCA": {},
    "PCA": {},
    "L21PCA": {"max_iter": 30},
}


def _fit(name: str, X: np.ndarray, k: int) -> tuple[float, int]:
    est = getattr(robustpca, name)(k, **ESTIMATORS[name])
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X)
    return time.perf_counter() - t0, int(getattr(est, "n_iter_", 0))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=20000)
    p.add_argument("--d", type=int, default=100)
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--missing", type=float, default=0.05)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--blas-threads", type=int, default=1)
    args = p.parse_args()

    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.n, args.d))
    X[rng.random(X.shape) < args.missing] = np.nan
    bound = missing_module._smallest_eigenvalue_bound

    def eigh_only(A: np.ndarray) -> np.ndarray:
        return np.full(A.shape[0], -np.inf)

    print(
        f"{args.n} x {args.d}, {args.missing:.0%} missing, k = {args.k}, "
        f"{args.blas_threads} BLAS thread(s), fastest of {args.repeats}"
    )
    print(f"{'estimator':<20} {'iterations':>10} {'LU + eigh':>10} {'eigh only':>10} {'ratio':>6}")
    with threadpool_limits(args.blas_threads):
        for name in ESTIMATORS:
            best = {"both": np.inf, "eigh": np.inf}
            for _ in range(args.repeats):
                for route, fn in (("both", bound), ("eigh", eigh_only)):
                    missing_module._smallest_eigenvalue_bound = fn
                    try:
                        seconds, n_iter = _fit(name, X, args.k)
                    finally:
                        missing_module._smallest_eigenvalue_bound = bound
                    best[route] = min(best[route], seconds)
            print(
                f"{name:<20} {n_iter:>10} {best['both']:>9.3f}s {best['eigh']:>9.3f}s "
                f"{best['eigh'] / best['both']:>5.2f}x"
            )


if __name__ == "__main__":
    main()
