"""Chunked (dask) fits on lazily generated tall or wide data: passes, time per pass, peak RSS.

Usage (from the repository root)::

    python benchmarks/bench_dask.py                                  # RPCA-OM, 1M and 5M rows
    python benchmarks/bench_dask.py --n-samples 1000000 --estimators om pca l21 r1 gm an
    python benchmarks/bench_dask.py --n-samples 50000000 --json om50m.json
    python benchmarks/bench_dask.py --wide                           # 2,000 x 500,000 (8 GB)
    python benchmarks/bench_dask.py --wide --n-features 1500000 --estimators om pca
    python benchmarks/bench_dask.py --n-samples 1000000 --n-features 20 --rank 3 \
        --estimators robpca cov sph hq --in-memory --parity   # rrcov family, HQ-PCA
    python benchmarks/bench_dask.py --n-samples 200000 --estimators godec aap pcp \
        --in-memory --parity                                  # the L + S methods
    python benchmarks/bench_dask.py --n-samples 100000 --estimators godec --card 0.1
    python benchmarks/bench_dask.py --n-samples 1000000 --estimators pca daskml \
        --in-memory                                           # against dask-ml's PCA
    python benchmarks/bench_dask.py --n-samples 1000000 5000000 --estimators orpca
                                                  # the online route: a stream of blocks

Each (estimator, size) runs in a fresh Python process, so that ``ru_maxrss`` is the
peak resident memory of that fit alone. Tall data are those of
``examples/dask_out_of_core.py`` (64 features, rank 5, 10% outliers, chunks of rows);
wide data (``--wide``) those of ``examples/dask_wide.py`` (2,000 samples, rank 5, 10%
outliers, blocks of 5,000 whole columns), which take the Gram route. Both are generated
block by block from a seed: nothing is read from disk and nothing is cached between
passes. A dask callback times every ``dask.compute``, i.e. every pass; ``read`` is one
extra pass that only generates and sums the blocks (``X.sum(axis=0)``), the cost of the
data alone. ``CPU-s/pass`` (user + system time of all threads) is the number to
extrapolate from on a shared machine, where wall times depend on the other processes.
``--progress FILE`` appends a line per pass (its time, the CPU time and peak RSS so
far), so that a run of hours shows where it is. ``--pass-cache DIR`` keeps every pass's
result in ``DIR``: the same command started again (after a session ends, say) replays the
passes found there, checking that each asks for the same kernel with the same
parameters, and computes the rest; the report then adds the replayed passes' own time,
CPU time and peak RSS to this run's (:func:`cached_passes`). Nothing is asserted: it is
a measurement.

``--in-memory`` adds, for each estimator, a run that computes the array first and fits
the NumPy array (its wall time and peak RSS: the comparison of issue 41's speed target);
``--parity`` has the Dask run also fit the computed array in memory afterwards and report
the largest differences of eigenvalues (relative), centre and loadings, and whether the
MCD support and the flagged rows (training cutoffs) are the same; for the L + S methods
(``pcp``, ``op``, ``crpca``, ``aap``, ``godec``) also the largest differences of
``low_rank_`` and ``sparse_`` relative to the largest entry of ``low_rank_``.

``daskml`` is dask-ml's ``PCA`` (``svd_solver='tsqr'``, the exact one; a benchmark-only
dependency: ``pip install dask-ml``), fitted on the same dask array, its passes counted by
the same callback; with ``--in-memory`` its row is scikit-learn's ``PCA`` on the computed
array, with its default solver (``'auto'``: ``covariance_eigh`` on tall data). It fits
plain PCA only: compare it with ``pca`` (our ``PCA``, one pass).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "examples"))

ESTIMATORS = {
    "om": ("robustpca.estimators._optimal_mean", "OptimalMeanPCA"),
    "pca": ("robustpca.estimators._pca", "PCA"),
    "l21": ("robustpca.estimators._l21", "L21PCA"),
    "r1": ("robustpca.estimators._r1", "R1PCA"),
    "gm": ("robustpca.estimators._generalized_mean", "GeneralizedMeanPCA"),
    "an": ("robustpca.estimators._adaptive_neighbors", "AdaptiveNeighborsPCA"),
    "hq": ("robustpca.estimators._hq", "HQPCA"),
    "robpca": ("robustpca.estimators._robpca", "ROBPCA"),
    "robpca-skew": ("robustpca.estimators._robpca", "ROBPCA"),
    "cov": ("robustpca.estimators._covariance_pca", "CovariancePCA"),
    "sph": ("robustpca.estimators._spherical", "SphericalPCA"),
    "pcp": ("robustpca.estimators._convex", "PrincipalComponentPursuit"),
    "op": ("robustpca.estimators._convex", "OutlierPursuit"),
    "crpca": ("robustpca.estimators._convex", "ConvexOptimalMeanPCA"),
    "aap": ("robustpca.estimators._known_rank", "AccAltProj"),
    "godec": ("robustpca.estimators._known_rank", "GoDec"),
    "orpca": ("robustpca.estimators._online", "OnlineRobustPCA"),
    "grasta": ("robustpca.estimators._grasta", "GRASTA"),
    "daskml": ("dask_ml.decomposition", "PCA"),
}
#: The online estimators: a stream of the row blocks (their max_iter and tol are inner
#: iterations, left at their defaults), fitted with one more component than the
#: planted rank, since their model has no offset (the centre is a direction).
ONLINE = ("orpca", "grasta")
#: The estimators without max_iter / tol (closed-form or the rrcov family's own loops).
NO_ITERATION = ("pca", "robpca", "robpca-skew", "cov", "sph", "daskml", *ONLINE)
#: Row labels other than the class name (dask-ml's and scikit-learn's PCA).
LABELS = {
    ("daskml", False): "dask-ml PCA",
    ("daskml", True): "sklearn PCA",
    ("robpca-skew", False): "ROBPCA skew",
    ("robpca-skew", True): "ROBPCA skew",
}
#: The low-rank plus sparse estimators (``low_rank_`` and ``sparse_`` compared by --parity).
LOW_RANK_SPARSE = ("pcp", "op", "crpca", "aap", "godec")


def _parity(model, cls, params, X) -> dict:
    """The in-memory fit of the computed ``X`` against the Dask ``model``."""
    import numpy as np

    from robustpca.diagnostics import outlier_diagnostics

    Xn = X.compute()
    ref = cls(**params).fit(Xn)
    names = ("explained_variance_", "low_rank_singular_values_", "singular_values_", "weights_")
    spectrum = next((name for name in names if hasattr(ref, name)), None)
    out = {"parity_eigenvalues": float("nan")}
    if spectrum is not None and np.size(getattr(ref, spectrum)):
        a, b = getattr(model, spectrum), getattr(ref, spectrum)
        a = a.compute() if hasattr(a, "compute") else a
        out["parity_eigenvalues"] = float(np.max(np.abs(a - b)) / max(float(np.max(b)), 1e-300))
    out |= {
        "parity_mean": float(np.max(np.abs(model.mean_ - ref.mean_))),
        "parity_components": float(np.max(np.abs(model.components_ - ref.components_))),
    }
    if hasattr(ref, "support_") and ref.support_ is not None:
        out["same_support"] = bool(
            np.array_equal(np.asarray(model.support_.compute()), ref.support_)
        )
    flags = outlier_diagnostics(model, Xn, reference=Xn).outliers
    out["same_flags"] = bool(np.array_equal(flags, outlier_diagnostics(ref, Xn).outliers))
    out["n_flagged"] = int(flags.sum())
    if hasattr(ref, "low_rank_"):
        top = max(float(np.max(np.abs(ref.low_rank_))), 1e-300)
        for name in ("low_rank_", "sparse_"):
            got = np.asarray(getattr(model, name).compute())
            out[f"parity_{name[:-1]}"] = float(np.max(np.abs(got - getattr(ref, name)))) / top
    return out


def _fingerprint(obj, digest) -> None:
    """Feed ``obj``'s content to ``digest``: arrays by their bytes, containers and
    dataclasses by their items, functions by name; unlike a pickle, not by which objects
    are shared (a replayed pass's result is a copy)."""
    import dataclasses

    import numpy as np
    from dask.base import is_dask_collection, tokenize

    if isinstance(obj, np.ndarray):
        digest.update(f"{obj.dtype}{obj.shape}".encode())
        digest.update(np.ascontiguousarray(obj).tobytes())
    elif is_dask_collection(obj):
        digest.update(tokenize(obj).encode())
    elif isinstance(obj, dict):
        for key, value in obj.items():
            digest.update(repr(key).encode())
            _fingerprint(value, digest)
    elif isinstance(obj, list | tuple):
        digest.update(f"{type(obj).__name__}{len(obj)}".encode())
        for item in obj:
            _fingerprint(item, digest)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        digest.update(type(obj).__qualname__.encode())
        for field in dataclasses.fields(obj):
            _fingerprint(getattr(obj, field.name), digest)
    elif isinstance(obj, int | float | str | bytes | np.generic) or obj is None:
        digest.update(repr(obj).encode())
    elif callable(obj) and hasattr(obj, "__qualname__"):
        digest.update(f"{obj.__module__}.{obj.__qualname__}".encode())
    elif hasattr(obj, "__dict__"):
        digest.update(type(obj).__qualname__.encode())
        _fingerprint(vars(obj), digest)
    else:
        digest.update(repr(obj).encode())


@contextlib.contextmanager
def cached_passes(directory: Path, replayed: list):
    """Within the block, every ``DaskPassRunner`` pass keeps its result in ``directory``
    and the passes already there are replayed (a run stopped and started again with the
    same arguments), their records appended to ``replayed``. The fits are deterministic,
    so the passes come in the same order with the same parameters; a pass that does not
    (another kernel, or parameters of other content) stops the run."""
    import hashlib
    import pickle

    from dask_out_of_core import cpu_seconds, peak_rss_gb

    from robustpca._dask.fit import DaskPassRunner

    directory.mkdir(parents=True, exist_ok=True)
    original = DaskPassRunner.__call__
    state = {"count": 0}

    def call(self, kernel, rows=None, *, also=None, **params):
        path = directory / f"pass_{state['count']:03d}.pkl"
        state["count"] += 1
        name = getattr(kernel, "__qualname__", repr(kernel))
        digest = hashlib.sha256()
        _fingerprint((params, also), digest)
        key = digest.hexdigest()
        if path.exists():
            saved = pickle.loads(path.read_bytes())
            if (saved["kernel"], saved["key"]) != (name, key):
                raise RuntimeError(
                    f"{path} holds a pass of {saved['kernel']}, this run asks for {name}"
                    f"{' with other parameters' if saved['kernel'] == name else ''}: "
                    f"the cache is of another run; empty {directory}"
                )
            self.n_passes += 1
            replayed.append(saved)
            return saved["out"]
        tic, cpu = time.perf_counter(), cpu_seconds()
        out = original(self, kernel, rows, also=also, **params)
        record = {
            "kernel": name,
            "key": key,
            "out": out,
            "seconds": time.perf_counter() - tic,
            "cpu": cpu_seconds() - cpu,
            "rss_gb": peak_rss_gb(),
        }
        partial = path.with_suffix(".partial")
        partial.write_bytes(pickle.dumps(record))
        partial.replace(path)
        return out

    DaskPassRunner.__call__ = call
    try:
        yield replayed
    finally:
        DaskPassRunner.__call__ = original


def run_one(args) -> dict:
    """One fit in this process; returns the measurements."""
    import importlib

    import dask
    import numpy as np
    from dask.callbacks import Callback
    from dask_out_of_core import cpu_seconds, largest_angle, lazy_low_rank_data, peak_rss_gb
    from dask_wide import lazy_wide_data
    from sklearn.exceptions import ConvergenceWarning

    replayed: list = []
    cache = (
        cached_passes(args.pass_cache, replayed)
        if args.pass_cache is not None
        else contextlib.nullcontext()
    )

    class PassTimer(Callback):
        def __init__(self, progress=None):
            super().__init__()
            self.seconds = []
            self.progress = progress
            self.began = time.perf_counter()

        def _start(self, dsk):
            self._tic = time.perf_counter()

        def _finish(self, dsk, state, errored):
            now = time.perf_counter()
            self.seconds.append(now - self._tic)
            if self.progress is not None:  # one line a pass, for runs of hours
                with open(self.progress, "a", encoding="utf-8") as log:
                    print(
                        f"pass {len(replayed) + len(self.seconds)} at "
                        f"{now - self.began:.0f} s: "
                        f"{self.seconds[-1]:.1f} s, CPU {cpu_seconds():.0f} s, "
                        f"peak RSS {peak_rss_gb():.2f} GB",
                        file=log,
                    )

    module, name = ESTIMATORS[args.estimator]
    if args.estimator == "daskml" and args.in_memory:
        module, name = "sklearn.decomposition", "PCA"
    cls = getattr(importlib.import_module(module), name)
    if args.wide:
        X, planted = lazy_wide_data(
            args.n_samples, args.n_features, rank=args.rank, chunk_cols=args.chunk_cols
        )
    else:
        X, basis, center = lazy_low_rank_data(
            args.n_samples, args.n_features, rank=args.rank, chunk_rows=args.chunk_rows
        )
    params = {"n_components": args.rank + (args.estimator in ONLINE)}
    if args.estimator not in NO_ITERATION:
        params.update(max_iter=args.max_iter, tol=args.tol)
    seeded = ("robpca", "robpca-skew", "cov", "aap", "godec", *LOW_RANK_SPARSE[:3], *ONLINE)
    if args.estimator in seeded:
        params["random_state"] = 0
    if args.estimator == "robpca-skew":
        params["skew"] = True
    if args.estimator == "godec" and args.card != "auto":
        params["card"] = float(args.card) if "." in args.card else int(args.card)
    if args.estimator == "daskml" and not args.in_memory:
        params["svd_solver"] = "tsqr"  # in memory: scikit-learn's default, its fastest here
    model = cls(**params)
    timer = PassTimer(args.progress)
    data = X.compute() if args.in_memory else X
    with dask.config.set(scheduler="threads"), timer, cache, warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        tic, cpu = time.perf_counter(), cpu_seconds()
        model.fit(data)
        fit_seconds, cpu = time.perf_counter() - tic, cpu_seconds() - cpu
    del data
    if replayed:  # the replayed passes' own measurements, from the run that computed them
        fit_seconds += sum(r["seconds"] for r in replayed)
        cpu += sum(r["cpu"] for r in replayed)
        timer.seconds = [r["seconds"] for r in replayed] + timer.seconds
    n_passes = int(getattr(model, "n_passes_", len(timer.seconds)))
    if args.in_memory:
        timer.seconds = [fit_seconds]
        n_passes = 1
    if args.wide:
        basis, center = planted()
    out = {
        "estimator": LABELS.get((args.estimator, args.in_memory), name)
        + (" (in memory)" if args.in_memory else ""),
        "layout": "wide" if args.wide else "tall",
        "n_samples": args.n_samples,
        "n_features": args.n_features,
        "chunks": X.numblocks[1] if args.wide else X.numblocks[0],
        "chunk_shape": [max(c) for c in X.chunks],
        "gb": X.nbytes / 1e9,
        "n_iter": int(getattr(model, "n_iter_", 1)),
        "n_passes": n_passes,
        "converged": bool(getattr(model, "converged_", True)),
        "fit_s": fit_seconds,
        "pass_s_mean": float(np.mean(timer.seconds)),
        "pass_s_min": float(np.min(timer.seconds)),
        "pass_s_max": float(np.max(timer.seconds)),
        "cpu_s_per_pass": cpu / max(n_passes, 1),
        "angle_deg": largest_angle(model.components_, basis),
        "mean_rms_error": float(np.linalg.norm(model.mean_ - center) / np.sqrt(args.n_features)),
        "explained_variance": np.asarray(getattr(model, "explained_variance_", [])).tolist(),
    }
    if args.parity and not args.in_memory and args.estimator != "daskml":
        out.update(_parity(model, cls, params, X))
    if args.read_pass and not args.in_memory:
        with dask.config.set(scheduler="threads"):
            tic = time.perf_counter()
            X.sum(axis=0).compute()
            out["read_pass_s"] = time.perf_counter() - tic
    out["peak_rss_gb"] = max([peak_rss_gb(), *(r["rss_gb"] for r in replayed)])
    if args.pass_cache is not None:
        out["replayed_passes"] = len(replayed)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wide", action="store_true", help="wide data chunked by columns")
    ap.add_argument("--n-samples", type=int, nargs="+", default=None)
    ap.add_argument("--estimators", nargs="+", default=["om"], choices=sorted(ESTIMATORS))
    ap.add_argument("--n-features", type=int, default=None)
    ap.add_argument("--chunk-rows", type=int, default=50_000)
    ap.add_argument("--chunk-cols", type=int, default=5000)
    ap.add_argument("--rank", type=int, default=5)
    ap.add_argument("--max-iter", type=int, default=100)
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--card", default="auto", help="GoDec's card: 'auto', an int or a share")
    ap.add_argument("--no-read-pass", dest="read_pass", action="store_false")
    ap.add_argument("--json", type=Path, help="write every measurement to this file")
    ap.add_argument("--in-memory", action="store_true", help="also fit the computed array")
    ap.add_argument("--parity", action="store_true", help="compare with the in-memory fit")
    ap.add_argument("--progress", type=Path, help="append a line per pass to this file")
    ap.add_argument("--pass-cache", type=Path, help="keep and replay the passes' results here")
    ap.add_argument("--single", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--estimator", default="om", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.n_samples is None:
        args.n_samples = [2000] if args.wide else [1_000_000, 5_000_000]
    if args.n_features is None:
        args.n_features = 500_000 if args.wide else 64
    if args.single:  # child process: one fit, one JSON line
        args.n_samples = args.n_samples[0]
        print(json.dumps(run_one(args)))
        return 0

    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}; BLAS threads: "
        f"{os.environ.get('OPENBLAS_NUM_THREADS', 'default')}; scheduler: threads; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"{'estimator':>22} {'n x d':>19} {'GB':>6} {'iter':>5} {'passes':>6} "
        f"{'fit s':>8} {'s/pass':>7} {'CPU-s/pass':>10} {'read s':>7} {'RSS GB':>7} "
        f"{'angle':>7}"
    )
    rows = []
    modes = (False, True) if args.in_memory else (False,)
    runs = [(n, key, memory) for n in args.n_samples for key in args.estimators for memory in modes]
    for n, key, memory in runs:
        cmd = [
            sys.executable, __file__, "--single", "--estimator", key, "--n-samples", str(n),
            "--n-features", str(args.n_features), "--chunk-rows", str(args.chunk_rows),
            "--chunk-cols", str(args.chunk_cols), "--rank", str(args.rank),
            "--max-iter", str(args.max_iter), "--tol", str(args.tol), "--card", args.card,
        ]  # fmt: skip
        if args.wide:
            cmd.append("--wide")
        if not args.read_pass:
            cmd.append("--no-read-pass")
        if memory:
            cmd.append("--in-memory")
        if args.parity and not memory:
            cmd.append("--parity")
        if args.progress is not None:
            cmd += ["--progress", str(args.progress)]
        if args.pass_cache is not None and not memory:
            cmd += ["--pass-cache", str(args.pass_cache / f"{key}-{n}")]
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        row = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(row)
        size = f"{n:,} x {args.n_features:,}"
        print(
            f"{row['estimator']:>22} {size:>19} {row['gb']:>6.1f} {row['n_iter']:>5} "
            f"{row['n_passes']:>6} {row['fit_s']:>8.1f} {row['pass_s_mean']:>7.2f} "
            f"{row['cpu_s_per_pass']:>10.2f} "
            f"{row.get('read_pass_s', float('nan')):>7.2f} {row['peak_rss_gb']:>7.2f} "
            f"{row['angle_deg']:>7.3f}",
            flush=True,
        )
        if "parity_eigenvalues" in row:
            print(
                f"{'':>22} parity: eigenvalues {row['parity_eigenvalues']:.1e} (relative), "
                f"centre {row['parity_mean']:.1e}, loadings {row['parity_components']:.1e}, "
                f"same support {row.get('same_support')}, same flags {row['same_flags']} "
                f"({row['n_flagged']} flagged)"
                + (
                    f"; low_rank_ {row['parity_low_rank']:.1e}, sparse_ {row['parity_sparse']:.1e}"
                    if "parity_low_rank" in row
                    else ""
                ),
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
