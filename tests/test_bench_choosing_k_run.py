"""What ``benchmarks/bench_choosing_k.py`` reports per estimator and setting.

The docstring: ``GridSearchCV`` over k = 1..8 with 5 shuffled folds (seeded by the data
seed), the estimator at its defaults, ranked by its own ``score``; "the median over the
seeds of the largest principal angle (degrees) between the planted subspace and the
estimator's rank-3 fit on all the rows". The smoke test only checks the ranges of the
printed cells; here ``run`` is compared with those definitions, computed independently,
for L21PCA (fast, and choosing k = 4 on these seeds) on two seeds.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.linalg import subspace_angles
from sklearn.model_selection import GridSearchCV, KFold

import robustpca

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_choosing_k as bench


@pytest.mark.filterwarnings("ignore")  # the fits' convergence warnings, as the script
def test_run_reports_the_documented_search_and_angle():
    scales = bench.SETTINGS["(5, 3, 1)"]
    out = bench.run("L21PCA", scales, 2)
    seeded = {"random_state": 0} if "random_state" in robustpca.L21PCA().get_params() else {}
    choices, angles = [], []
    for seed in range(2):
        X, W = bench.planted(seed, scales)
        search = GridSearchCV(
            robustpca.L21PCA(**seeded),
            {"n_components": list(range(1, 9))},
            cv=KFold(5, shuffle=True, random_state=seed),
        )
        choices.append(search.fit(X).best_params_["n_components"])
        fit = robustpca.L21PCA(n_components=3, **seeded).fit(X)
        angles.append(np.degrees(subspace_angles(fit.components_.T, W).max()))
    assert out["choices"] == choices
    assert out["angle"] == np.median(angles)
    assert angles[0] != angles[1]  # two seeds, two data sets
    assert max(choices) > 3  # the grid goes beyond the planted rank
