"""Short fits on tall data at one and at more BLAS threads (two OpenBLAS libraries).

NumPy's and SciPy's wheels each bundle an OpenBLAS. A fit that alternates between them
runs one library's threads against the other's spinning ones, so with more than one BLAS
thread a fit of a fraction of a second can be several times *slower* than with one
(``docs/performance.md``, "More than one BLAS thread"). This script fits each estimator
``--repeats`` times in a fresh process per thread count (the count set by
``OPENBLAS_NUM_THREADS`` before NumPy loads, as a user's environment would) and prints
the median time of each::

    python benchmarks/bench_blas_threads.py                       # 20,000 x 100, k = 5
    python benchmarks/bench_blas_threads.py --threads 1,2,4 --n 200000 --d 256 --k 20
    python benchmarks/bench_blas_threads.py --n 400 --d 2000 --k 10 --missing 0.05

The data: rank-``k`` signal, noise 0.1 and 5% of the rows gross outliers, seed 0; with
``--missing``, that fraction of the entries NaN (the fits with gaps).
To compare two versions, run it with ``PYTHONPATH=<other checkout>/src``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings

DEFAULT = "PCA,OptimalMeanPCA,HQPCA,GeneralizedMeanPCA,AdaptiveNeighborsPCA,R1PCA,L21PCA,L1PCA"


def _worker(args: argparse.Namespace) -> None:
    import numpy as np

    import robustpca

    rng = np.random.default_rng(0)
    n, d, k = args.n, args.d, args.k
    X = rng.normal(size=(n, k)) @ rng.normal(size=(k, d)) + 0.1 * rng.normal(size=(n, d))
    X[: n // 20] += 5.0 * rng.normal(size=(n // 20, d))
    if args.missing:
        X[rng.random(X.shape) < args.missing] = np.nan
    out = {}
    for name in args.estimators.split(","):
        cls = getattr(robustpca, name)
        times = []
        for _ in range(args.repeats + 1):  # the first fit warms the caches and threads
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cls(k).fit(X)
            times.append(time.perf_counter() - t0)
        out[name] = float(np.median(times[1:]))
    print(json.dumps(out))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=20000)
    p.add_argument("--d", type=int, default=100)
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--missing", type=float, default=0.0, help="fraction of entries NaN")
    p.add_argument("--threads", default="1,2", help="comma-separated BLAS thread counts")
    p.add_argument("--estimators", default=DEFAULT)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        _worker(args)
        return
    counts = [int(t) for t in args.threads.split(",")]
    results = {}
    for t in counts:
        env = dict(os.environ, OPENBLAS_NUM_THREADS=str(t), OMP_NUM_THREADS=str(t))
        cmd = [sys.executable, __file__, "--worker", *sys.argv[1:]]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        results[t] = json.loads(done.stdout.strip().splitlines()[-1])
    gaps = f", {args.missing:.0%} missing" if args.missing else ""
    print(f"{args.n} x {args.d}, k = {args.k}{gaps}, median of {args.repeats} fits (seconds)")
    print("| estimator | " + " | ".join(f"{t} thread{'s' * (t > 1)}" for t in counts) + " |")
    print("|---" * (len(counts) + 1) + "|")
    for name in args.estimators.split(","):
        cells = " | ".join(f"{results[t][name]:.3f}" for t in counts)
        print(f"| {name} | {cells} |")


if __name__ == "__main__":
    main()
