"""Choosing ``n_components`` by cross-validation: how often ``GridSearchCV`` finds the
planted rank, one run.

Usage (from the repository root)::

    python benchmarks/bench_choosing_k.py                 # 10 seeds, every estimator
    python benchmarks/bench_choosing_k.py --seeds 3 --estimators ROBPCA OptimalMeanPCA

Data: the planted problem of issue 42 (``tests/test_score.py::planted``): 200 rows in 20
dimensions, rank 3 with standard deviations ``scales`` along random orthonormal
directions, isotropic noise of 0.3 and a random offset, and 10% of the rows replaced by
gross outliers, N(0, 10^2 I). Two settings: ``scales = (4, 3, 2)`` (the issue's) and
``(5, 3, 1)`` (a weak third direction, its variance 1 against a noise variance of 1.8 in
all). ``GridSearchCV`` over k = 1..8 with 5 shuffled folds, each estimator at its
defaults (``random_state=0``), ranked by its own ``score``.

Reported per estimator and setting: on how many seeds the search chose k = 3, the
choices, the median over the seeds of the largest principal angle (degrees) between the
planted subspace and the estimator's rank-3 fit on all the rows ("rank-3 fit's angle"),
and the time of the whole setting. A search can only find the rank its fits find: where
that angle is large, the rank-3 fit has taken an outlier direction instead of a planted
one, and no score can prefer it.

Nothing is asserted: a measurement, not a test.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy.linalg import subspace_angles
from sklearn.model_selection import GridSearchCV, KFold

import robustpca

#: The estimators of a chosen rank with a ``score`` (the convex methods' rank comes out
#: of their penalty; the 2-D methods take images).
ESTIMATORS = [
    "PCA", "ROBPCA", "SphericalPCA", "CovariancePCA", "ProjectionPursuitPCA",
    "OptimalMeanPCA", "L21PCA", "L1PCA", "R1PCA", "HQPCA", "GeneralizedMeanPCA",
    "AdaptiveNeighborsPCA", "GoDec", "AccAltProj", "OnlineRobustPCA", "GRASTA",
]  # fmt: skip
SETTINGS = {"(4, 3, 2)": (4.0, 3.0, 2.0), "(5, 3, 1)": (5.0, 3.0, 1.0)}
RANKS = list(range(1, 9))


def planted(seed: int, scales, n: int = 200, d: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """The rows and the planted basis (as ``tests/test_score.py::planted``)."""
    rng = np.random.default_rng(seed)
    W = np.linalg.qr(rng.normal(size=(d, len(scales))))[0]
    X = (rng.normal(size=(n, len(scales))) * scales) @ W.T
    X += 0.3 * rng.normal(size=(n, d)) + rng.normal(size=d)
    bad = rng.choice(n, round(0.1 * n), replace=False)
    X[bad] = 10.0 * rng.normal(size=(bad.size, d))
    return X, W


def make(name: str, **params):
    cls = getattr(robustpca, name)
    if "random_state" in cls().get_params():
        params.setdefault("random_state", 0)
    return cls(**params)


def run(name: str, scales, seeds: int) -> dict:
    choices, angles = [], []
    for seed in range(seeds):
        X, W = planted(seed, scales)
        cv = KFold(5, shuffle=True, random_state=seed)
        search = GridSearchCV(make(name), {"n_components": RANKS}, cv=cv, error_score=np.nan)
        choices.append(int(search.fit(X).best_params_["n_components"]))
        fit = make(name, n_components=3).fit(X)
        angles.append(float(np.degrees(subspace_angles(fit.components_.T, W).max())))
    return {"choices": choices, "angle": float(np.median(angles))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--estimators", nargs="+", default=ESTIMATORS)
    args = parser.parse_args(argv)
    print("| estimator | planted SDs | k = 3 chosen | choices | rank-3 fit's angle | time (s) |")
    print("|---|---|---:|---|---:|---:|")
    for name in args.estimators:
        for label, scales in SETTINGS.items():
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = run(name, scales, args.seeds)
            hits = sum(k == 3 for k in out["choices"])
            print(
                f"| {name} | {label} | {hits}/{args.seeds} | "
                f"{' '.join(map(str, out['choices']))} | {out['angle']:.1f} | "
                f"{time.perf_counter() - start:.0f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
