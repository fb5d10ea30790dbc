"""benchmarks/bench_outlier_noise.py on three small ADBench tables: repeat 0 is the
outlier benchmark's own fit, the shuffled repeats score the same rows, and the report
has its tables."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_outlier_noise as noise
import bench_outliers as bench

TABLES = ["14_glass", "15_Hepatitis", "21_Lymphography"]
DETECTORS = ["ROBPCA(n_components=0.95)", "PCA"]
HAS_PYOD = importlib.util.find_spec("pyod") is not None


def test_detector_spellings():
    from robustpca import PCA, ROBPCA

    model = noise.make("ROBPCA(n_components=0.95, alpha=0.6)", 3)
    assert isinstance(model, ROBPCA)
    assert (model.n_components, model.alpha, model.random_state) == (0.95, 0.6, 3)
    assert isinstance(noise.make("PCA", 0), PCA)  # robustpca's first
    assert noise.resolve("PCA") == ("robustpca", "PCA")
    assert noise.resolve("pyod PCA") == ("pyod", "PCA")
    assert noise.resolve("IForest") == ("pyod", "IForest")
    if HAS_PYOD:
        assert type(noise.make("pyod PCA", 0)).__module__.startswith("pyod")
        # detectors without a random_state (KNN, HBOS) raised a TypeError
        assert type(noise.make("pyod KNN", 3)).__name__ == "KNN"
        assert noise.make("pyod IForest", 3).random_state == 3


def test_a_failure_counts_as_chance(capsys):
    X = np.random.default_rng(0).normal(size=(30, 3))
    y = np.r_[np.ones(3), np.zeros(27)]
    assert noise.auc_of("PCA(n_components=7)", X, y, 0) == 0.5  # too many components
    assert "failed" in capsys.readouterr().out


@pytest.mark.realdata
def test_repeat_zero_is_the_benchmarks_fit_and_shuffles_are_scored_alike(adbench):
    results = noise.run(DETECTORS, TABLES, repeats=3, folder=adbench)
    assert list(results) == DETECTORS
    records = bench.evaluate(
        bench.robustpca_factory("ROBPCA", n_components=0.95), TABLES, folder=adbench
    )
    for record in records:
        assert results[DETECTORS[0]][record["table"]][0] == pytest.approx(record["auc"])
    # PCA has no random or order-dependent step: every repeat scores the same
    for table in TABLES:
        np.testing.assert_allclose(results["PCA"][table], results["PCA"][table][0], atol=1e-12)
        assert all(0.0 <= a <= 1.0 for a in results[DETECTORS[0]][table])
    text = noise.report(results)
    assert "| ROBPCA(n_components=0.95) - PCA |" in text
    assert text.count("| 14_glass |") == 1
