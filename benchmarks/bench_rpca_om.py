"""Benchmark RPCA-OM: robustpca's Gram route vs the paper-literal Algorithm 1 vs sklearn PCA.

Usage (from the repository root)::

    python benchmarks/bench_rpca_om.py                    # faces, 400 x 10304, k=30, 50 iter
    python benchmarks/bench_rpca_om.py --quick            # a smoke run of a few seconds
    python benchmarks/bench_rpca_om.py --json results.json

In one run it fits, on the same data,

* ``robustpca.OptimalMeanPCA(n_components=k, max_iter=n_iter, tol=0.0)``: the ``n x n``
  Gram matrix is formed once and every iteration works on it;
* ``rpca_om_paper_literal`` (``benchmarks/paper_literal.py``): Algorithm 1 of Nie, Yuan &
  Huang (ICML 2014) as printed, an SVD of ``X (D^{1/2} - D11^T D^{1/2} / 1^T D 1)`` every
  iteration, with the same smoothing ``epsilon`` as ours (``OptimalMeanPCA.epsilon_``);
* ``sklearn.decomposition.PCA(n_components=k)`` with ``svd_solver='full'`` and
  ``'randomized'``, for scale: one non-robust PCA fit.

It reports the best wall time over ``--repeat`` fits, the ``tracemalloc`` peak of one more
(untimed) fit, the iterations, the objectives of ours and of the paper-literal code and
their relative differences, and the time ratios. Nothing is asserted: this is a
measurement, not a test.

``tol=0.0`` does not always give ``max_iter`` iterations: the estimator stops when the
objective is *exactly* unchanged (a floating-point fixed point; on the faces this happens
after about 20 iterations). By default the paper-literal code is then run for the same
number of iterations as ours (``--literal-iter match``), so the two timings cover the
same work; ``--literal-iter full`` runs it for ``--n-iter`` iterations regardless.
"""

from __future__ import annotations

import datetime as _dt
import gc
import json
import os
import platform
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from _harness import benchmark_parser, data_home, timed  # noqa: E402
from _harness import peak_memory as harness_peak_memory  # noqa: E402
from paper_literal import rpca_om_paper_literal  # noqa: E402

ORL_SHAPE = (112, 92)  # rows x columns of one AT&T/ORL image
ORL_FEATURES = ORL_SHAPE[0] * ORL_SHAPE[1]  # 10304
ORL_SAMPLES = 400  # 40 subjects x 10 images


# --------------------------------------------------------------------------- data
def _read_pgm(path: Path) -> np.ndarray:
    """Read a binary (P5) or ASCII (P2) PGM without PIL."""
    raw = path.read_bytes()
    tokens: list[bytes] = []
    pos = 0
    while len(tokens) < 4:  # magic, width, height, maxval (comments start with '#')
        while raw[pos : pos + 1].isspace():
            pos += 1
        if raw[pos : pos + 1] == b"#":
            pos = raw.index(b"\n", pos) + 1
            continue
        end = pos
        while end < len(raw) and not raw[end : end + 1].isspace():
            end += 1
        tokens.append(raw[pos:end])
        pos = end
    magic, width, height, maxval = tokens[0], int(tokens[1]), int(tokens[2]), int(tokens[3])
    if magic == b"P5":
        dtype = np.uint8 if maxval < 256 else np.dtype(">u2")
        pixels = np.frombuffer(raw, dtype=dtype, count=width * height, offset=pos + 1)
    elif magic == b"P2":
        pixels = np.array(raw[pos:].split()[: width * height], dtype=np.int64)
    else:
        raise ValueError(f"{path}: not a PGM file (magic {magic!r})")
    return pixels.reshape(height, width)


def _read_image(path: Path) -> np.ndarray:
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - PIL is optional
        return _read_pgm(path)
    with Image.open(path) as img:
        return np.asarray(img)


def load_orl(n_samples: int) -> np.ndarray | None:
    """The first ``n_samples`` AT&T/ORL faces (subject-major order), or None if absent."""
    root = data_home() / "raw" / "orl" / "orl_faces"
    paths = [root / f"s{s}" / f"{m}.pgm" for s in range(1, 41) for m in range(1, 11)]
    paths = paths[:n_samples]
    if not all(p.is_file() for p in paths):
        return None
    X = np.empty((len(paths), ORL_FEATURES))
    for i, p in enumerate(paths):
        img = _read_image(p)
        if img.shape != ORL_SHAPE:
            raise ValueError(f"{p}: shape {img.shape}, expected {ORL_SHAPE}")
        X[i] = img.ravel()
    return X


def make_synthetic(n_samples: int, n_features: int, seed: int) -> np.ndarray:
    """Low rank (20) + Gaussian noise + 20% gross-outlier rows, on a 0-255 pixel scale."""
    rng = np.random.default_rng(seed)
    rank = min(20, n_samples, n_features)
    basis, _ = np.linalg.qr(rng.standard_normal((n_features, rank)))
    scales = 2000.0 / np.arange(1, rank + 1)  # decaying spectrum
    scores = rng.standard_normal((n_samples, rank)) * scales
    X = 128.0 + scores @ basis.T + 5.0 * rng.standard_normal((n_samples, n_features))
    n_out = round(0.2 * n_samples)
    rows = rng.choice(n_samples, n_out, replace=False)
    X[rows] = rng.uniform(0.0, 255.0, size=(n_out, n_features))
    return X


def load_data(n_samples: int, n_features: int, seed: int) -> tuple[np.ndarray, str]:
    if n_features == ORL_FEATURES and n_samples <= ORL_SAMPLES:
        X = load_orl(n_samples)
        if X is not None:
            return X, f"AT&T/ORL faces ({data_home() / 'raw/orl/orl_faces'}), first {n_samples}"
        note = f"ORL faces not found under {data_home()}"
    else:
        note = "requested shape is not the ORL faces' (<=400 x 10304)"
    return (
        make_synthetic(n_samples, n_features, seed),
        f"SYNTHETIC (seed {seed}): rank-20 + noise + 20% outlier rows; {note}",
    )


# ---------------------------------------------------------------------- measuring
def best_time(fit, repeat: int):
    """Best wall time of ``repeat`` calls of ``fit()``, best CPU time, and the last result,
    with a garbage collection (untimed) before each call.

    The CPU time (``time.process_time``, all threads of this process) is reported beside
    the wall time because it is much less sensitive to other processes competing for the
    cores.
    """
    t = timed(fit, repeat, before=gc.collect)
    return t.wall, t.cpu, t.result


def peak_memory(fit) -> int:
    """``tracemalloc`` peak (bytes) of one call of ``fit()`` above what was allocated before
    (after a garbage collection)."""
    gc.collect()
    return harness_peak_memory(fit)


def subspace_sin(U1: np.ndarray, U2: np.ndarray) -> float:
    """Sine of the largest principal angle between the column spans of U1 and U2."""
    s = np.linalg.svd(U1.T @ U2, compute_uv=False)
    return float(np.sqrt(max(0.0, 1.0 - s.min() ** 2)))


def machine_info() -> dict:
    info = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
    }
    if hasattr(os, "getloadavg"):
        info["loadavg_at_start"] = list(os.getloadavg())
    if hasattr(os, "sched_getaffinity"):
        info["cpus_usable"] = len(os.sched_getaffinity(0))
    try:
        from threadpoolctl import threadpool_info

        info["blas"] = [
            {k: d.get(k) for k in ("internal_api", "version", "num_threads", "architecture")}
            for d in threadpool_info()
            if d.get("user_api") == "blas"
        ]
    except ImportError:  # pragma: no cover
        info["blas"] = "threadpoolctl not installed"
    import scipy
    import sklearn

    import robustpca

    info["versions"] = {
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "robustpca": getattr(robustpca, "__version__", "?") + _git_describe(),
    }
    return info


def _git_describe() -> str:
    """`` (commit abc1234, modified)`` for a git checkout, else an empty string."""
    import subprocess

    try:
        run = lambda *cmd: subprocess.run(  # noqa: E731
            ["git", "-C", str(REPO), *cmd], capture_output=True, text=True, timeout=10
        )
        head = run("rev-parse", "--short", "HEAD").stdout.strip()
        if not head:
            return ""
        dirty = run("status", "--porcelain", "--", "src").stdout.strip()
        return f" (commit {head}{', src modified' if dirty else ''})"
    except (OSError, subprocess.SubprocessError):
        return ""


# -------------------------------------------------------------------------- main
def parse_args(argv=None):
    p = benchmark_parser(__doc__)
    p.add_argument("--n-samples", type=int, default=ORL_SAMPLES)
    p.add_argument("--n-features", type=int, default=ORL_FEATURES)
    p.add_argument("--k", type=int, default=30, help="n_components")
    p.add_argument("--n-iter", type=int, default=50, help="max_iter of ours")
    p.add_argument("--seed", type=int, default=0, help="synthetic data / randomized PCA")
    p.add_argument("--epsilon", default="auto", help="epsilon of OptimalMeanPCA ('auto')")
    p.add_argument("--repeat", type=int, default=3, help="timed fits of ours and sklearn")
    p.add_argument("--repeat-literal", type=int, default=1, help="timed paper-literal fits")
    p.add_argument(
        "--literal-iter",
        choices=("match", "full"),
        default="match",
        help="paper-literal iterations: as many as ours ran (match) or --n-iter (full)",
    )
    p.add_argument("--no-memory", action="store_true", help="skip the tracemalloc fits")
    p.add_argument("--quick", action="store_true", help="100 samples, 10 iterations, 1 repeat")
    p.add_argument("--json", type=Path, help="also write the results to this JSON file")
    args = p.parse_args(argv)
    if args.quick:
        args.n_samples, args.n_iter = min(args.n_samples, 100), min(args.n_iter, 10)
        args.repeat = args.repeat_literal = 1
    if args.epsilon != "auto":
        args.epsilon = float(args.epsilon)
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    if args.blas_threads is None:
        return run(args)
    # load every BLAS the run will use (NumPy's, SciPy's) before limiting them
    import scipy.linalg  # noqa: F401
    import sklearn.decomposition  # noqa: F401
    from threadpoolctl import threadpool_limits

    import robustpca  # noqa: F401

    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        return run(args)


def run(args) -> dict:
    from sklearn.decomposition import PCA
    from sklearn.exceptions import ConvergenceWarning

    from robustpca import OptimalMeanPCA

    X, source = load_data(args.n_samples, args.n_features, args.seed)
    n, d = X.shape
    k = args.k
    print(f"# RPCA-OM benchmark, {_dt.datetime.now().isoformat(timespec='seconds')}")
    print(f"data: {source}; X is {n} x {d}, k = {k}, max_iter = {args.n_iter}")
    machine = machine_info()
    print(
        f"machine: {machine['platform']}, {machine['cpu_count']} CPUs"
        + (f" ({machine['cpus_usable']} usable)" if "cpus_usable" in machine else "")
        + f", Python {machine['python']}"
        + (
            f"; load average {machine['loadavg_at_start'][0]:.2f} (other processes compete"
            " for the CPUs when it is well above 0)"
            if "loadavg_at_start" in machine
            else ""
        )
    )
    for b in machine["blas"] if isinstance(machine["blas"], list) else []:
        print(
            f"BLAS: {b['internal_api']} {b['version']}, {b['num_threads']} threads, "
            f"{b['architecture']}"
        )
    print("versions: " + ", ".join(f"{a} {v}" for a, v in machine["versions"].items()))
    sys.stdout.flush()

    # ---- ours
    def fit_ours():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return OptimalMeanPCA(
                n_components=k, max_iter=args.n_iter, tol=0.0, epsilon=args.epsilon
            ).fit(X)

    t_ours, c_ours, est = best_time(fit_ours, args.repeat)
    eps = float(est.epsilon_)
    it_ours = int(est.n_iter_)
    hist_ours = np.asarray(est.objective_history_)

    # ---- paper-literal
    it_lit = it_ours if args.literal_iter == "match" else args.n_iter
    t_lit, c_lit, (U_lit, b_lit, hist_lit) = best_time(
        lambda: rpca_om_paper_literal(X, k, it_lit, eps), args.repeat_literal
    )

    # ---- sklearn
    t_skf, c_skf, _ = best_time(lambda: PCA(n_components=k, svd_solver="full").fit(X), args.repeat)
    t_skr, c_skr, _ = best_time(
        lambda: PCA(n_components=k, svd_solver="randomized", random_state=args.seed).fit(X),
        args.repeat,
    )

    # ---- memory (separate, untimed fits: tracemalloc slows allocation down)
    mem = {}
    mem_lit_iter = min(it_lit, 2)
    if not args.no_memory:
        mem["ours"] = peak_memory(fit_ours)
        # every paper-literal iteration allocates the same arrays, so two show the peak
        mem["paper_literal"] = peak_memory(lambda: rpca_om_paper_literal(X, k, mem_lit_iter, eps))
        mem["sklearn_full"] = peak_memory(lambda: PCA(n_components=k, svd_solver="full").fit(X))
        mem["sklearn_randomized"] = peak_memory(
            lambda: PCA(n_components=k, svd_solver="randomized", random_state=args.seed).fit(X)
        )

    # ---- agreement of the objectives
    common = min(it_ours, len(hist_lit))
    rel_hist = np.abs(hist_ours[:common] - hist_lit[:common]) / np.abs(hist_lit[:common])
    final_ours, final_lit_same_iter = float(hist_ours[common - 1]), float(hist_lit[common - 1])
    rel_final = abs(final_ours - final_lit_same_iter) / abs(final_lit_same_iter)
    rel_final_last = abs(final_ours - float(hist_lit[-1])) / abs(float(hist_lit[-1]))
    U_ours = est.components_.T
    sin_angle = subspace_sin(U_ours, U_lit) if common == len(hist_lit) else float("nan")
    mean_rel = (
        float(np.linalg.norm(est.mean_ - b_lit) / np.linalg.norm(b_lit))
        if common == len(hist_lit)
        else float("nan")
    )

    fits = {
        "ours": ("robustpca OptimalMeanPCA (Gram route)", it_ours, t_ours, c_ours, final_ours),
        "paper_literal": (
            "paper-literal Algorithm 1 (SVD of X H_d)",
            it_lit,
            t_lit,
            c_lit,
            float(hist_lit[-1]),
        ),
        "sklearn_full": ("sklearn PCA svd_solver='full'", None, t_skf, c_skf, None),
        "sklearn_randomized": ("sklearn PCA svd_solver='randomized'", None, t_skr, c_skr, None),
    }
    print()
    print(
        "| method | iterations | best fit time (s) | time / iteration (ms) | CPU time (s) "
        "| peak memory (MiB) | final objective |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for key, (name, its, t, cpu, obj) in fits.items():
        m = mem.get(key)
        mem_s = f"{m / 2**20:.1f}" if m is not None else "n/a"
        obj_s = f"{obj:.10g}" if obj is not None else "-"
        per = f"{1e3 * t / its:.1f}" if its else "-"
        its_s = str(its) if its else "-"
        print(f"| {name} | {its_s} | {t:.3f} | {per} | {cpu:.3f} | {mem_s} | {obj_s} |")
    print()
    ratio_lit = t_lit / t_ours
    ratio_lit_per_iter = (t_lit / it_lit) / (t_ours / it_ours)
    ratio_lit_cpu = c_lit / c_ours
    print(
        f"- paper-literal / ours (fit time): **{ratio_lit:.1f}x**"
        f" (per iteration: {ratio_lit_per_iter:.1f}x; CPU time: {ratio_lit_cpu:.1f}x)"
    )
    print(
        f"- ours / sklearn full: {t_ours / t_skf:.2f}x;"
        f" ours / sklearn randomized: {t_ours / t_skr:.2f}x"
    )
    print(f"- epsilon (both): {eps:.6g}")
    print(
        f"- final objective: ours {final_ours:.17g}, paper-literal {final_lit_same_iter:.17g}"
        f" (iteration {common}); relative difference {rel_final:.2e}"
    )
    if len(hist_lit) > common:
        print(
            f"- paper-literal at its iteration {len(hist_lit)}: {hist_lit[-1]:.17g};"
            f" relative difference to ours' final {rel_final_last:.2e}"
        )
    print(
        f"- max relative difference over the objective history ({common} iterations):"
        f" {rel_hist.max():.2e} (at iteration {int(rel_hist.argmax()) + 1})"
    )
    if np.isfinite(sin_angle):
        print(
            f"- subspaces: sin(largest principal angle) = {sin_angle:.2e};"
            f" means: relative difference {mean_rel:.2e}"
        )
    if it_ours < args.n_iter:
        print(
            f"- note: ours stopped after {it_ours} of max_iter={args.n_iter} iterations:"
            f" {est.stop_reason_} (tol=0.0 stops on an exactly unchanged objective)"
        )
    if not args.no_memory:
        print(
            f"- memory: tracemalloc peak of one separate fit (paper-literal: {mem_lit_iter}"
            " iterations, whose per-iteration peak is the same); BLAS/LAPACK-internal"
            " workspace is not seen by tracemalloc"
        )
    if hasattr(os, "getloadavg"):
        machine["loadavg_at_end"] = list(os.getloadavg())
        print(f"- load average at the end: {machine['loadavg_at_end'][0]:.2f}")
    if (n, d) != (ORL_SAMPLES, ORL_FEATURES):
        print(f"- (the targets below are stated for {ORL_SAMPLES} x {ORL_FEATURES} data)")
    ok_speed = ratio_lit >= 20.0
    ok_obj = rel_hist.max() <= 1e-8
    print(
        f"- target >= 20x faster: {'met' if ok_speed else 'NOT met'};"
        f" objectives within 1e-8 relative: {'yes' if ok_obj else 'NO'}"
    )

    results = {
        "date": _dt.datetime.now().isoformat(timespec="seconds"),
        "data": source,
        "shape": [n, d],
        "k": k,
        "max_iter": args.n_iter,
        "epsilon": eps,
        "machine": machine,
        "fits": {
            key: {
                "label": name,
                "iterations": its,
                "time_s": t,
                "cpu_time_s": cpu,
                "peak_bytes": mem.get(key),
                "final_objective": obj,
                "repeat": args.repeat_literal if key == "paper_literal" else args.repeat,
            }
            for key, (name, its, t, cpu, obj) in fits.items()
        },
        "ours_stop_reason": str(est.stop_reason_),
        "ratios": {
            "paper_literal_over_ours": ratio_lit,
            "paper_literal_over_ours_per_iteration": ratio_lit_per_iter,
            "paper_literal_over_ours_cpu_time": ratio_lit_cpu,
            "ours_over_sklearn_full": t_ours / t_skf,
            "ours_over_sklearn_randomized": t_ours / t_skr,
        },
        "objective": {
            "ours_history": hist_ours.tolist(),
            "paper_literal_history": hist_lit.tolist(),
            "final_relative_difference": rel_final,
            "max_relative_difference_history": float(rel_hist.max()),
            "subspace_sin_angle": sin_angle,
            "mean_relative_difference": mean_rel,
        },
        "targets": {"speedup_20x": ok_speed, "objective_1e-8": ok_obj},
    }
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2, default=str) + "\n")
        print(f"\nresults written to {args.json}")
    return results


if __name__ == "__main__":
    main()
