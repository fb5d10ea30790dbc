"""Batch PCP on video shapes (issue 40, item 5): the default lambda against the video rule.

A clip of ``n`` frames of ``d`` pixels (one frame per row) is a wide matrix. For each clip
this script fits, in one run on ``--blas-threads`` BLAS threads (default 1):

* ``auto``: ``PrincipalComponentPursuit()`` (``lam = 1/sqrt(max(n, d))``);
* ``video``: ``PrincipalComponentPursuit(lam="video", center="median")``;
* ``pyrpca``: pyrpca's IALM (Lin et al.'s Algorithm 5 with a full SVD every iteration)
  at the same lambda as ``auto`` and, with ``--pyrpca-video``, as ``video`` on the
  median-centred frames; it stops on Lin et al.'s primal rule (no certificate);
* the temporal median as a baseline of the foreground score.

It reports the time, the iterations, the rank of the low-rank part, the certified duality
gap and, where the clip has CDnet ground truth, the F-measure of ``|S|`` at the best
global threshold (:func:`robustpca.metrics.change_detection.best_threshold_f_measure`).
Frames are grey, box-resized by ``--scale`` (highway 0.5: 160 x 120; fall 0.25: 180 x
120). Nothing is asserted.

Measured on the shared 2-core machine (2026-12-02, one BLAS thread, a load of 5-13 from
other jobs; wall times were 3-5 times the CPU times, which the script prints too):
highway 300 at ``lam="auto"``: 30.8 s (9.4 s of CPU), 43 iterations, rank 97, gap
9.3e-4, F best 0.847; pyrpca 174.8 s (57.2 s of CPU), F best 0.840: 5.7x (6.1x by CPU
time). ``video``: 11.6 s (3.5 s of CPU), 22 iterations, rank 3, gap 7.3e-4, F best
0.842. The earlier runs and the reasons are in ``docs/design-notes/pcp.md``.

Usage::

    python benchmarks/bench_pcp_video.py                       # highway 300 frames
    python benchmarks/bench_pcp_video.py --clips highway300 fall highway --no-pyrpca
    python benchmarks/bench_pcp_video.py --quick               # 60 frames: a smoke run
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

# every BLAS library is loaded before --blas-threads limits them
from scipy import linalg as sla
from sklearn.decomposition import PCA  # noqa: F401
from threadpoolctl import threadpool_limits

from robustpca import PrincipalComponentPursuit
from robustpca.datasets import load_cdnet
from robustpca.metrics.change_detection import best_threshold_f_measure

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _harness import benchmark_parser, data_home, write_json  # noqa: E402

#: clip name -> (folder, scale, CDnet frame numbers or None for all)
CLIPS = {
    "highway300": ("highway", 0.5, (1050, 1349)),
    "highway": ("highway", 0.5, None),
    "fall": ("fall", 0.25, None),
}


def load(name: str, quick: bool):
    """``(X, clip)``: the frames as rows of a float64 matrix, and the CDnet clip (None for
    the escalator, which has no ground truth)."""
    video = data_home("video") / "video"
    if name == "escalator":
        from scipy.io import loadmat

        # one frame per column, 130 x 160 in Fortran order: frames as rows
        X = np.asarray(loadmat(video / "escalator.mat")["X"], dtype=np.float64).T
        return (X[:60] if quick else X), None
    folder, scale, numbers = CLIPS[name]
    if quick:
        numbers = (1050, 1109) if folder == "highway" else (1451, 1510)
    clip = load_cdnet(video / folder, scale=scale, numbers=numbers)
    return clip.frames.reshape(len(clip.frames), -1).astype(np.float64), clip


def best_f(scores: np.ndarray, clip) -> float | None:
    if clip is None:
        return None
    shaped = np.abs(scores).reshape(clip.frames.shape)
    return best_threshold_f_measure(shaped, clip.labels, clip.roi, scored=clip.scored)[0]


def fit_ours(X, clip, **params) -> dict:
    start, cpu = time.perf_counter(), time.process_time()
    model = PrincipalComponentPursuit(random_state=0, **params).fit(X)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "cpu_seconds": time.process_time() - cpu,
        "iterations": int(model.n_iter_),
        "rank": int(model.rank_),
        "gap": float(model.duality_gap_),
        "lam": float(model.lam_),
        "f_best": best_f(model.sparse_, clip),
    }


def fit_pyrpca(X, clip, lam: float) -> dict:
    from pyrpca import rpca_pcp_ialm

    start, cpu = time.perf_counter(), time.process_time()
    L, S = rpca_pcp_ialm(X, lam, verbose=False)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    rank = int(np.count_nonzero(sla.svdvals(L) > 1e-8 * max(sla.svdvals(L)[0], 1e-300)))
    return {
        "seconds": seconds,
        "cpu_seconds": cpu,
        "rank": rank,
        "lam": lam,
        "f_best": best_f(S, clip),
    }


def line(name: str, row: dict) -> str:
    parts = [f"{name}: {row['seconds']:.2f} s ({row['cpu_seconds']:.2f} s of CPU)"]
    if "iterations" in row:
        parts.append(f"{row['iterations']} iterations, gap {row['gap']:.1e}")
    parts.append(f"rank {row['rank']}, lam {row['lam']:.5f}")
    if row.get("f_best") is not None:
        parts.append(f"F best {row['f_best']:.3f}")
    return ", ".join(parts)


def run(args) -> dict:
    results = {}
    for name in args.clips:
        X, clip = load(name, args.quick)
        med = np.median(X, axis=0)
        row: dict = {"shape": list(X.shape), "median_f_best": best_f(X - med, clip)}
        print(f"{name}: {X.shape[0]} frames x {X.shape[1]} pixels")
        if row["median_f_best"] is not None:
            print(f"  temporal median: F best {row['median_f_best']:.3f}")
        for key, params in (("video", {"lam": "video", "center": "median"}), ("auto", {})):
            if key == "auto" and name in args.skip_auto:
                continue
            row[key] = fit_ours(X, clip, **params)
            print("  ours " + line(key, row[key]))
        if args.pyrpca and "auto" in row:
            row["pyrpca_auto"] = fit_pyrpca(X, clip, row["auto"]["lam"])
            print("  " + line("pyrpca at the auto lambda", row["pyrpca_auto"]))
            ratio = row["pyrpca_auto"]["seconds"] / row["auto"]["seconds"]
            print(f"  pyrpca / ours at the auto lambda: {ratio:.1f}x")
            cpu = row["pyrpca_auto"]["cpu_seconds"] / row["auto"]["cpu_seconds"]
            print(f"  by CPU time (steadier on a loaded machine): {cpu:.1f}x")
        if args.pyrpca_video:
            row["pyrpca_video"] = fit_pyrpca(X - med, clip, row["video"]["lam"])
            print("  " + line("pyrpca at the video lambda, centred", row["pyrpca_video"]))
            ratio = row["pyrpca_video"]["seconds"] / row["video"]["seconds"]
            print(f"  pyrpca / ours at the video lambda: {ratio:.1f}x")
            cpu = row["pyrpca_video"]["cpu_seconds"] / row["video"]["cpu_seconds"]
            print(f"  by CPU time (steadier on a loaded machine): {cpu:.1f}x")
        results[name] = row
    return results


def main(argv=None) -> dict:
    parser = benchmark_parser(__doc__, blas_threads=1)
    parser.add_argument(
        "--clips",
        nargs="+",
        default=["highway300"],
        choices=[*CLIPS, "escalator"],
        help="clips to fit (default: highway300)",
    )
    parser.add_argument(
        "--skip-auto",
        nargs="*",
        default=[],
        help="clips on which lam='auto' is not fitted (it takes minutes on all of highway)",
    )
    parser.add_argument("--no-pyrpca", dest="pyrpca", action="store_false")
    parser.add_argument("--pyrpca-video", action="store_true")
    parser.add_argument("--quick", action="store_true", help="60 frames of each clip")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        results = run(args)
    write_json(args.json, results)
    return results


if __name__ == "__main__":
    main()
