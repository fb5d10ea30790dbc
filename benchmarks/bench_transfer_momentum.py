"""Guo's estimators with and without restarted momentum: speed against the estimate.

Usage (from the repository root)::

    python benchmarks/bench_transfer_momentum.py           # rrcov's tables, 3 Yale tasks
    python benchmarks/bench_transfer_momentum.py --quick   # 2 tables, 1 task, capped

``accelerate=True`` (:mod:`robustpca.solvers.transfer`) reaches the tolerance in far
fewer iterations and to a lower objective. This script measures what the converged fit
is worth, the question behind the estimators' default (``accelerate=False``, the paper's
Algorithm 1):

* ``RankConstrainedRobustPCA`` at its defaults on rrcov's tables (``ROBUSTPCA_DATA`` or
  ``../shared/data``; ``k = 2``, starsCYG 1): iterations, final objective, converged.
* Guo's sec. 5.1 denoising (Yale, tasks 6-1, 12-8 and 14-11, 5% salt noise drawn as in
  :mod:`robustpca.experiments.guo2013`, repeat 0) at 0-255 and [0, 1] pixels:
  ``RobustTransferPCA`` (ranks 8, 3, 3; ``max_iter=10000``) and
  ``RankConstrainedRobustPCA`` (rank 11; ``max_iter=5000``), both ways. Reported:
  iterations, objective, and the RMSE of the recovered target against the clean image
  on the [0, 1] scale (the reproduction's measure).

Nothing is asserted: a measurement, not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import data_home
from _rrcov import rrcov_tables
from robustpca import RankConstrainedRobustPCA, RobustTransferPCA
from robustpca.experiments.guo2013._common import face_images, noise_seed
from robustpca.transfer import add_salt_noise, rmse

TABLES = {"bushfire": 2, "wood": 2, "octane": 2, "hbk": 2, "starsCYG": 1}
TASKS = ((6, 1), (12, 8), (14, 11))
NOISE = 0.05


def quiet_fit(model, *args, **kwargs):
    """``model.fit`` without its ConvergenceWarning (the table reports ``converged_``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model.fit(*args, **kwargs)
    return model, time.perf_counter() - start


def tables(names: list[str], max_iter: int) -> list[dict]:
    rows = []
    for name, X in rrcov_tables(names).items():
        for accelerate in (False, True):
            model, seconds = quiet_fit(
                RankConstrainedRobustPCA(
                    n_components=TABLES[name], accelerate=accelerate, max_iter=max_iter
                ),
                X,
            )
            rows.append({
                "table": name, "accelerate": accelerate, "n_iter": model.n_iter_,
                "objective": float(model.objective_history_[-1]),
                "converged": bool(model.converged_), "seconds": seconds,
            })  # fmt: skip
    print("| table | accelerate | iterations | objective | converged | s |")
    print("|---|---|---:|---:|---|---:|")
    for r in rows:
        print(
            f"| {r['table']} | {r['accelerate']} | {r['n_iter']} | {r['objective']:.6g} "
            f"| {r['converged']} | {r['seconds']:.3f} |"
        )
    return rows


def denoising(tasks, scales, max_iter: tuple[int, int]) -> list[dict]:
    images, _ = face_images("yale", str(data_home()))
    rows = []
    for source, target in tasks:
        for pixel_max in scales:
            clean, src = images[target] * pixel_max, images[source] * pixel_max
            draw = noise_seed(0, source, target, NOISE, 0)
            noisy, _ = add_salt_noise(clean, NOISE, value=pixel_max, random_state=draw)
            for accelerate in (False, True):
                transfer, _ = quiet_fit(
                    RobustTransferPCA(
                        n_shared=8, n_source=3, n_target=3, accelerate=accelerate,
                        max_iter=max_iter[0],
                    ),
                    noisy, source=src,
                )  # fmt: skip
                alone, _ = quiet_fit(
                    RankConstrainedRobustPCA(
                        n_components=11, accelerate=accelerate, max_iter=max_iter[1]
                    ),
                    noisy,
                )
                for method, model in (("R-T-PCA", transfer), ("R-PCA", alone)):
                    rows.append({
                        "task": f"{source}-{target}", "pixels": pixel_max, "method": method,
                        "accelerate": accelerate, "n_iter": model.n_iter_,
                        "objective": float(model.objective_history_[-1]),
                        "converged": bool(model.converged_),
                        "rmse": rmse(model.low_rank_, clean) / pixel_max,
                    })  # fmt: skip
    print("\n| task | pixels | method | accelerate | iterations | objective | converged | RMSE |")
    print("|---|---:|---|---|---:|---:|---|---:|")
    for r in rows:
        print(
            f"| {r['task']} | {r['pixels']:g} | {r['method']} | {r['accelerate']} "
            f"| {r['n_iter']} | {r['objective']:.6g} | {r['converged']} | {r['rmse']:.4f} |"
        )
    return rows


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 tables, 1 task, capped")
    args = parser.parse_args(argv)
    if args.quick:
        return {
            "tables": tables(["wood", "starsCYG"], 200),
            "denoising": denoising(TASKS[:1], (255.0,), (50, 50)),
        }
    return {
        "tables": tables(list(TABLES), 5000),
        "denoising": denoising(TASKS, (1.0, 255.0), (10000, 5000)),
    }


if __name__ == "__main__":
    main()
