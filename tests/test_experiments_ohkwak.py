"""The protocols of Oh & Kwak (2016): Figures 1 and 2 on the paper's synthetic data.

The generators follow sec. 3.1-3.2, the rows agree with direct computations, seeds
reproduce, and the claim counts of the tables match the rows. No real data: both
figures are toy examples (the paper's sec. 4 is not in our copy of the text).
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA, GeneralizedMeanPCA, generalized_sample_mean
from robustpca.experiments import RunConfig, run_experiment
from robustpca.experiments.ohkwak import (
    SAMPLE_MEAN,
    _figure1_table,
    _figure2_table,
    _figure2_tasks,
    figure1_samples,
    figure1_task,
    figure2_objective,
    figure2_samples,
    figure2_task,
)


def test_figure1_generator():
    """100 inliers from N(0, 0.5 I) then 10 outliers from N([5, 5], 0.3 I); seeded."""
    X, inliers = figure1_samples(0)
    assert X.shape == (110, 2) and inliers.sum() == 100 and inliers[:100].all()
    np.testing.assert_array_equal(X, figure1_samples(0)[0])
    assert not np.array_equal(X, figure1_samples(1)[0])
    pooled = np.vstack([figure1_samples(s)[0] for s in range(40)])
    mask = np.tile(inliers, 40)
    np.testing.assert_allclose(pooled[mask].mean(0), 0.0, atol=0.05)
    np.testing.assert_allclose(pooled[~mask].mean(0), 5.0, atol=0.1)
    np.testing.assert_allclose(pooled[mask].var(0), 0.5, rtol=0.1)
    np.testing.assert_allclose(pooled[~mask].var(0), 0.3, rtol=0.2)


def test_figure1_rows_match_direct_computation():
    rows = figure1_task(3, [0.1, 0.2], 500)
    X, inliers = figure1_samples(3)
    by = {r["method"]: r for r in rows}
    assert list(by) == [SAMPLE_MEAN, "m_G, p = 0.1", "m_G, p = 0.2"]
    np.testing.assert_allclose([by[SAMPLE_MEAN]["mean_x"], by[SAMPLE_MEAN]["mean_y"]], X.mean(0))
    for p in (0.1, 0.2):
        m = generalized_sample_mean(X, p, max_iter=500)
        r = by[f"m_G, p = {p:g}"]
        np.testing.assert_allclose([r["mean_x"], r["mean_y"]], m, rtol=1e-12)
        assert r["distance_to_origin"] == pytest.approx(np.linalg.norm(m))
        assert r["distance_to_inlier_mean"] == pytest.approx(np.linalg.norm(m - X[inliers].mean(0)))
    assert figure1_task(3, [0.1, 0.2], 500) == rows


def test_figure1_claim_over_ten_draws():
    """m_G (p = 0.1, 0.2) is closer to the origin than the sample mean in every draw and
    the outliers carry the smallest weights (as in tests/test_generalized_mean.py)."""
    rows = [r for seed in range(10) for r in figure1_task(seed, [0.1, 0.2], 500)]
    text = _figure1_table(rows, RunConfig(datasets=()))
    assert "| m_G, p = 0.1 | 10/10 |" in text and "| m_G, p = 0.2 | 10/10 |" in text
    for r in rows:
        if r["method"] != SAMPLE_MEAN:
            assert r["outliers_lightest"] and r["converged"]


def test_figure2_generator():
    """x ~ N(0, 1), y = x + e with e ~ N(0, 0.5^2) for 100 inliers, N(0, 3^2) for 10."""
    pooled = [figure2_samples(s) for s in range(40)]
    X = np.vstack([p[0] for p in pooled])
    mask = np.concatenate([p[1] for p in pooled])
    e = X[:, 1] - X[:, 0]
    assert np.std(X[:, 0]) == pytest.approx(1.0, rel=0.05)
    assert np.std(e[mask]) == pytest.approx(0.5, rel=0.05)
    assert np.std(e[~mask]) == pytest.approx(3.0, rel=0.15)
    np.testing.assert_array_equal(figure2_samples(7)[0], figure2_samples(7)[0])


def test_figure2_objective_is_eq10():
    X, _ = figure2_samples(0)
    mean, delta, p = X.mean(0) + 0.1, 1e-4, 0.3
    for theta in (10.0, 47.0, 120.0):
        w = np.array([np.cos(np.radians(theta)), np.sin(np.radians(theta))])
        Xc = X - mean
        e = np.sum(Xc**2, axis=1) - (Xc @ w) ** 2
        expected = np.sum((e + delta) ** p)
        assert figure2_objective(X, mean, [theta], p, delta)[0] == pytest.approx(expected)


def _degrees(v):
    return float(np.degrees(np.arctan2(v[1], v[0])) % 180.0)


def test_figure2_rows_match_direct_fits():
    rows = figure2_task(4, [0.3], 100_000, 1e-13)
    X, inliers = figure2_samples(4)
    by = {r["method"]: r for r in rows}
    assert by["PCA"]["angle"] == pytest.approx(_degrees(PCA(1).fit(X).components_[0]))
    reference = _degrees(PCA(1).fit(X[inliers]).components_[0])
    assert by["PCA, inliers only"]["angle"] == pytest.approx(reference)
    model = GeneralizedMeanPCA(1, p=0.3, max_iter=100_000, tol=1e-13).fit(X)
    theta = _degrees(model.components_[0])
    assert by["PCA-GM"]["angle"] == pytest.approx(theta)
    assert by["PCA-GM"]["distance_to_reference"] == pytest.approx(abs(theta - reference))
    grid = np.arange(0.0, 180.0, 0.01)
    values = figure2_objective(X, model.mean_, grid, 0.3, model.delta_)
    assert by["min of (9) on a grid"]["angle"] == pytest.approx(grid[np.argmin(values)])
    # seed 4: Algorithm 2 ends at the global minimum (up to the 0.01-degree grid)
    at_theta = figure2_objective(X, model.mean_, [theta], 0.3, model.delta_)[0]
    assert at_theta <= values.min() <= at_theta * (1 + 1e-5)
    assert figure2_task(4, [0.3], 100_000, 1e-13) == rows


@pytest.mark.slow
def test_figure2_known_outcome_over_ten_draws():
    """Seeds 0-9, p = 0.3: PCA-GM is closer to 45 degrees and to PCA of the inliers alone
    than PCA in every draw and ends at a local minimum of (9); it lands in 45-50 degrees
    in only 4 draws (PCA-GM: 47.9, 51.5, 55.3, 45.5, 49.7, 47.3, 52.4, 55.7, 54.0, 50.3;
    PCA: 47.4-65.2; PCA of the inliers: 46.2-50.3), while the global grid
    minimiser of (9) is within 44-50 in 9 (seed 2: 55.3). One step from 30 degrees moves
    to 30.4-34.3 (paper: 32.1), always short of the PCA-GM limit."""
    rows = [r for seed in range(10) for r in figure2_task(seed, [0.3], 100_000, 1e-13)]
    text = _figure2_table(rows, RunConfig(datasets=()))
    assert "| 0.3 | 10/10 | 10/10 | 4/10 | 9/10 | 10/10 | 10/10 |" in text
    steps = [r["angle"] for r in rows if r["method"] == "one step from 30°"]
    assert 30.0 < min(steps) and max(steps) < 35.0


def test_synthetic_experiments_take_no_data_set():
    with pytest.raises(ValueError, match="datasets"):
        run_experiment("ohkwak-figure1", datasets=["orl"], quick=True)
    with pytest.raises(ValueError, match="datasets"):
        _figure2_tasks(RunConfig(datasets=("orl",)))
    tasks = _figure2_tasks(RunConfig(datasets=(), seed=3))
    assert [t.params["seed"] for t in tasks] == list(range(3, 53))
    assert tasks[0].params["powers"] == [0.1, 0.3, 0.5, 0.7]
