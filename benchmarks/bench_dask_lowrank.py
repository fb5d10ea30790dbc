"""The convex L + S estimators on tall dask arrays: in memory against Dask, and PCP beyond.

Usage (from the repository root)::

    python benchmarks/bench_dask_lowrank.py                      # 200,000 x 100: pcp, op, om, aap
    python benchmarks/bench_dask_lowrank.py --estimators pcp --n-samples 20000 --n-features 50
    python benchmarks/bench_dask_lowrank.py --big                # PCP on 5,000,000 x 50, Dask only
    python benchmarks/bench_dask_lowrank.py --json out.json

**Parity runs** (default): for each estimator, the same data are fitted in memory (NumPy)
and on Dask (threaded scheduler), each in a fresh Python process so that ``ru_maxrss`` is
the peak resident memory of that fit alone. The data are generated block by block from a
seed (rank 5; PCP and AccAltProj (``n_components=5``): 5% of the entries gross, 10
times the typical entry; outlier pursuit and CRPCA-OM: 10% of the rows replaced by gross
outliers), so the Dask fit reads them
lazily (nothing is held but its state) while the in-memory fit first computes them. Each
run saves ``low_rank_`` and ``sparse_``; the table gives the largest absolute differences
between the two fits, relative to the largest entry of ``X``. The peak RSS is read right after
``fit``, before the arrays are computed for that comparison.

**--big**: PCP on 5,000,000 x 50 (2 GB) in chunks of 100,000 rows, on the threaded
scheduler, with ``X`` persisted (generated once, held chunk by chunk): besides ``X`` the
multiplier and ``X - L`` (which becomes ``S``) are the only ``n x d`` arrays held
(persisted chunk by chunk, updated in place), so the peak RSS is compared with 3.5 times
the data (``X``, ``S``, the multiplier and working blocks).

Time per pass is the fit's wall time divided by its passes (``n_passes_``), first and
last pass included. Nothing is asserted: it is a measurement (wall times depend on the
other processes of a shared machine).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from _process import peak_rss_bytes

ESTIMATORS = {
    "pcp": ("PrincipalComponentPursuit", "entries"),
    "op": ("OutlierPursuit", "rows"),
    "om": ("ConvexOptimalMeanPCA", "rows"),
    "aap": ("AccAltProj", "entries"),
}


def _block(block_info=None, *, V, kind, seed, scale):
    """Block ``i`` of the data, from a generator seeded by ``(seed, i)``."""
    (start, stop), _ = block_info[None]["array-location"]
    i = block_info[None]["chunk-location"][0]
    rng = np.random.default_rng((seed, i))
    rows = stop - start
    X = rng.normal(size=(rows, V.shape[0])) @ V
    if kind == "entries":
        mask = rng.random(X.shape) < 0.05
        X[mask] += scale * rng.normal(size=int(mask.sum()))
    else:
        X += 0.01 * rng.normal(size=X.shape)
        bad = rng.random(rows) < 0.1
        X[bad] = 2.0 + scale * rng.normal(size=(int(bad.sum()), X.shape[1]))
    return X


def lazy_data(n_samples, n_features, *, kind, rank=5, chunk_rows=20_000, seed=0):
    """The lazy ``(n_samples, n_features)`` dask array of the runs."""
    import dask.array as da

    V = np.random.default_rng(seed).normal(size=(rank, n_features)) / np.sqrt(rank)
    sizes = [chunk_rows] * (n_samples // chunk_rows)
    if n_samples % chunk_rows:
        sizes.append(n_samples % chunk_rows)
    return da.map_blocks(
        _block,
        chunks=(tuple(sizes), (n_features,)),
        dtype=np.float64,
        meta=np.empty((0, 0)),
        V=V,
        kind=kind,
        seed=seed,
        scale=10.0,
    )


def peak_rss_gb() -> float:
    """Peak resident memory of this process in GB (:func:`_process.peak_rss_bytes`);
    NaN where the platform does not say."""
    peak = peak_rss_bytes()
    return float("nan") if peak is None else peak / 1e9


def run_one(args) -> dict:
    """One fit in this process; saves its arrays under ``args.out``; returns measures."""
    import dask
    from sklearn.exceptions import ConvergenceWarning

    import robustpca

    name, kind = ESTIMATORS[args.estimator]
    X = lazy_data(
        args.n_samples, args.n_features, kind=kind, rank=args.rank, chunk_rows=args.chunk_rows
    )
    params = {"n_components": args.rank} if name == "AccAltProj" else {}
    model = getattr(robustpca, name)(random_state=0, **params)
    start = peak_rss_gb()  # the interpreter and its imports
    with dask.config.set(scheduler="threads"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if args.route == "memory":
            X = X.compute()
        elif args.persist:  # X held in memory, chunk by chunk (generated once)
            X = X.persist()
        base = peak_rss_gb()
        tic = time.perf_counter()
        model.fit(X)
        seconds = time.perf_counter() - tic
        peak = peak_rss_gb()  # before the arrays are computed for the comparison
        low_rank = np.asarray(model.low_rank_) if args.route == "memory" else None
        if args.out:
            if low_rank is None:
                low_rank, sparse = dask.compute(model.low_rank_, model.sparse_)
            else:
                sparse = np.asarray(model.sparse_)
            np.save(Path(args.out) / "low_rank.npy", low_rank)
            np.save(Path(args.out) / "sparse.npy", sparse)
            np.save(Path(args.out) / "objective.npy", model.objective_history_)
    passes = getattr(model, "n_passes_", None)
    return {
        "estimator": name,
        "route": args.route,
        "shape": [args.n_samples, args.n_features],
        "gb": args.n_samples * args.n_features * 8 / 1e9,
        "n_iter": int(model.n_iter_),
        "stop": model.stop_reason_,
        "rank": int(model.rank_),
        "duality_gap": float(getattr(model, "duality_gap_", np.nan)),
        "n_passes": passes,
        "passes_per_iter": None if passes is None else passes / model.n_iter_,
        "fit_s": seconds,
        "pass_s": None if passes is None else seconds / passes,
        "peak_rss_gb": peak,
        "rss_before_fit_gb": base,
        "rss_at_start_gb": start,
    }


def _child(argv: list[str]) -> dict:
    cmd = [sys.executable, __file__, "--child", *argv]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def parity_runs(args) -> list[dict]:
    rows = []
    for est in args.estimators:
        with tempfile.TemporaryDirectory() as tmp:
            fits = {}
            for route in ("memory", "dask"):
                folder = Path(tmp) / route
                folder.mkdir()
                common = [
                    f"--estimator={est}",
                    f"--route={route}",
                    f"--out={folder}",
                    f"--n-samples={args.n_samples}",
                    f"--n-features={args.n_features}",
                    f"--chunk-rows={args.chunk_rows}",
                    f"--rank={args.rank}",
                ]
                fits[route] = _child(common)
                print(json.dumps(fits[route]), flush=True)
            a = {k: np.load(Path(tmp) / "memory" / f"{k}.npy") for k in ("low_rank", "sparse")}
            b = {k: np.load(Path(tmp) / "dask" / f"{k}.npy") for k in ("low_rank", "sparse")}
            top = max(np.abs(a["low_rank"] + a["sparse"]).max(), 1e-300)
            oa = np.load(Path(tmp) / "memory" / "objective.npy")
            ob = np.load(Path(tmp) / "dask" / "objective.npy")
            parity = {
                "low_rank_max_diff": float(np.abs(a["low_rank"] - b["low_rank"]).max() / top),
                "sparse_max_diff": float(np.abs(a["sparse"] - b["sparse"]).max() / top),
                "objective_rel_diff": float(np.abs(oa - ob).max() / oa[-1])
                if oa.shape == ob.shape
                else None,
            }
            rows.append({"memory": fits["memory"], "dask": fits["dask"], "parity": parity})
            print(json.dumps({"estimator": est, **parity}), flush=True)
    return rows


def table(rows: list[dict]) -> str:
    head = (
        "| estimator | route | iterations | passes | passes/iter | wall | time/pass "
        "| peak RSS | max diff L / S (rel.) |\n|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for row in rows:
        for route in ("memory", "dask"):
            r = row[route]
            p = row["parity"]
            diff = (
                f"{p['low_rank_max_diff']:.1e} / {p['sparse_max_diff']:.1e}"
                if route == "dask"
                else ""
            )
            per_iter = "" if r["n_passes"] is None else f"{r['passes_per_iter']:.2f}"
            per_pass = "" if r["pass_s"] is None else f"{r['pass_s']:.2f} s"
            lines.append(
                f"| {r['estimator']} | {route} | {r['n_iter']} | {r['n_passes'] or ''} | "
                f"{per_iter} | {r['fit_s']:.1f} s | {per_pass} | "
                f"{r['peak_rss_gb']:.2f} GB | {diff} |"
            )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--estimator", default="pcp", help=argparse.SUPPRESS)
    parser.add_argument("--route", default="dask", help=argparse.SUPPRESS)
    parser.add_argument("--out", default="", help=argparse.SUPPRESS)
    parser.add_argument("--persist", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--estimators", nargs="+", default=list(ESTIMATORS), choices=ESTIMATORS)
    parser.add_argument("--n-samples", type=int, default=200_000)
    parser.add_argument("--n-features", type=int, default=100)
    parser.add_argument("--chunk-rows", type=int, default=20_000)
    parser.add_argument("--rank", type=int, default=5)
    parser.add_argument("--big", action="store_true", help="PCP on 5,000,000 x 50, Dask only")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(run_one(args)))
        return 0
    if args.big:
        argv_big = [
            "--estimator=pcp",
            "--route=dask",
            f"--n-samples={5_000_000 if args.n_samples == 200_000 else args.n_samples}",
            f"--n-features={50 if args.n_features == 100 else args.n_features}",
            f"--chunk-rows={100_000 if args.chunk_rows == 20_000 else args.chunk_rows}",
            f"--rank={args.rank}",
            "--persist",
        ]
        result = _child(argv_big)
        result["rss_over_data"] = result["peak_rss_gb"] / result["gb"]
        result["rss_over_data_less_start"] = (
            result["peak_rss_gb"] - result["rss_at_start_gb"]
        ) / result["gb"]
        print(json.dumps(result, indent=1))
        results: object = result
    else:
        results = parity_runs(args)
        print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
