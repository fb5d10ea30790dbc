"""benchmarks/run_all.py's rows, as its docstring defines them.

Pinned: the synthetic data (rank ``k`` with score sds ``10 / sqrt(i)``, noise, an offset
of 5 shared by the 10% of gross-outlier rows), 20% of the faces occluded, a literal code
run for the *same* number of iterations and, when time-boxed, compared at its own last
iteration and never on its subspace; a non-steady estimator's per-iteration time is its
fit time over its iterations; the literal footprint counts its n x d and d x d arrays in
8-byte floats and is compared with ``--max-literal-gb`` in GB; ``--memory-iter`` caps the
tracemalloc fit; scikit-learn is timed as the best of at least two fits.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import run_all


def test_synthetic_data_is_rank_k_plus_ten_percent_outlier_rows_at_the_same_offset():
    X = run_all.synthetic(2000, 30, 3, seed=0)
    centred = X - np.median(X, axis=0)
    _, _, Vt = np.linalg.svd(centred, full_matrices=False)
    residual = np.linalg.norm(centred - centred @ Vt[:3].T @ Vt[:3], axis=1)
    outliers = residual > 5.0
    assert outliers.sum() == 200
    np.testing.assert_allclose(X[~outliers].mean(axis=0), 5.0, atol=1.0)
    np.testing.assert_allclose(X[outliers].mean(axis=0), 5.0, atol=1.0)
    spectrum = np.linalg.eigvalsh(np.cov(X[~outliers].T))[::-1][:3]
    np.testing.assert_allclose(spectrum * np.arange(1, 4), 100.0, rtol=0.2)


@pytest.mark.realdata
def test_a_fifth_of_the_faces_are_occluded(shared_data, monkeypatch):
    from robustpca.datasets import load_orl

    monkeypatch.setenv("ROBUSTPCA_DATA", str(shared_data))
    case = run_all.load_case("att", quick=True, seed=0)
    clean = load_orl(shared_data, resolution="32x32").data[:80]
    clean = clean.reshape(80, 32, 32)[:, ::2, ::2].reshape(80, -1)
    changed = np.any(case.X != clean, axis=1)
    assert case.X.shape == (80, 256) and changed.sum() == 16


def _quick_case(key):
    return run_all.load_case(key, quick=True, seed=0)


def test_literal_footprint_counts_its_arrays_in_float64():
    specs = {s.name: s for s in run_all.build_specs(5)}
    for key in ("tall", "wide"):
        case = _quick_case(key)
        n, d = case.X.shape
        for spec in specs.values():
            if spec.literal_bytes is not None and key in spec.shapes:
                assert spec.literal_bytes(case) >= case.X.nbytes, (key, spec.name)
        # PCA's literal code holds the data and its d x d covariance
        assert specs["PCA"].literal_bytes(case) >= 8 * (n * d + d * d)


def test_memory_limit_is_in_gigabytes():
    need = run_all.build_specs(5)[0].literal_bytes(_quick_case("wide"))
    argv = ["--quick", "--shapes", "wide", "--estimators", "PCA", "--no-memory"]
    row = run_all.main([*argv, "--max-literal-gb", str(1.01 * need / 1e9)])["shapes"]["wide"][
        "rows"
    ][0]
    assert row["literal_status"] == "ran"


def test_literal_codes_run_the_same_iterations_and_non_steady_times_are_per_iteration():
    argv = ["--quick", "--shapes", "wide", "--estimators", "OptimalMeanPCA,L1PCA"]
    results = run_all.main([*argv, "--memory-iter", "2", "--no-literal-memory"])
    om, l1 = results["shapes"]["wide"]["rows"]
    assert om["literal_status"] == "ran" and om["literal_iter"] == om["ours_iter"] == 5
    assert om["memory_iter"] == 2
    # PCA-L1 (not time-boxed, its own stopping test): compared on its subspace
    assert l1["subspace_sin"] < 1e-6
    assert l1["ours_steady"] == pytest.approx(l1["ours_wall"] / l1["ours_iter"])


def test_a_time_boxed_literal_is_compared_at_its_last_iteration_only():
    argv = ["--quick", "--shapes", "wide", "--estimators", "OptimalMeanPCA", "--no-memory"]
    (row,) = run_all.main([*argv, "--literal-budget", "1e-9"])["shapes"]["wide"]["rows"]
    assert row["literal_status"] == "time-boxed" and row["literal_iter"] < row["ours_iter"]
    assert row["objective_rel_diff"] < 1e-8  # ours at the same iteration
    assert "subspace_sin" not in row  # subspaces only when on par


def test_sklearn_is_timed_as_the_best_of_at_least_two_fits(monkeypatch):
    repeats = []
    real = run_all.timed

    def spy(fn, repeat=1, **kw):
        repeats.append(repeat)
        return real(fn, repeat, **kw)

    monkeypatch.setattr(run_all, "timed", spy)
    args = SimpleNamespace(repeat=1, memory=False, seed=0)
    out = run_all.run_sklearn(_quick_case("tall"), args, lambda msg: None)
    assert list(out) == list(run_all.SKLEARN_SOLVERS) and len(repeats) == 3
    assert min(repeats) >= 2
