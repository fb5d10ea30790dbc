"""benchmarks/bench_outlier_candidates.py's candidates keep the definitions of their
docstrings: DD-SIMCA's fitted degrees of freedom stay in [0.05, 1e5]; its full distance
weighs SD^2 and OD^2 each by its own chi-square fit (on Gaussian data the SD^2 weight is
1, and the distance does not change when the data are rescaled); the diagonal-noise
likelihood reduces to the probabilistic PCA likelihood for rows on the fitted plane; the
cross-validated rank reaches d - 1."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_outlier_candidates as cand
import bench_outliers as bench


def test_chi2_weight_clamps_the_degrees_of_freedom_to_their_range():
    """Median over IQR below that of chi-square(0.05) (a log-normal of huge spread) fits
    N = 0.05; above that of chi-square(1e5) (nearly constant) fits N = 1e5. In both,
    N u / u0 is chi-square(N): the weight times the median is that chi-square's median."""
    rng = np.random.default_rng(0)
    skewed = np.exp(40.0 * rng.normal(size=1001))
    assert cand.chi2_weight(skewed) * np.median(skewed) == pytest.approx(
        stats.chi2.median(0.05), rel=1e-9
    )
    flat = 1.0 + 1e-4 * rng.normal(size=1001)
    assert cand.chi2_weight(flat) * np.median(flat) == pytest.approx(
        stats.chi2.median(1e5), rel=1e-9
    )


def _gaussian_plane(seed=0, n=400, d=6, k=2):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n, k)) * np.linspace(3.0, 1.5, k)
    basis = np.linalg.qr(rng.normal(size=(d, k)))[0]
    return scores @ basis.T + 0.3 * rng.normal(size=(n, d))


def test_full_distance_weighs_a_chi_square_score_distance_by_one():
    """Gaussian rows: SD^2 is already chi-square(k) (u0 = N), so DD-SIMCA's weight N / u0
    of the h = SD^2 term is about 1."""
    model = cand.FullDistance().fit(_gaussian_plane())
    assert model.weights_[0] == pytest.approx(1.0, rel=0.25)


def test_full_distance_is_unchanged_by_rescaling_the_data():
    """SD is scale-free and the OD^2 weight scales as 1 / c^2: the full distance, each term
    in its own chi-square units, does not depend on the units of the data."""
    X = _gaussian_plane(seed=1)
    X[:10] += 2.0
    base = cand.FullDistance().fit(X).decision_function(X)
    scaled = cand.FullDistance().fit(7.0 * X).decision_function(7.0 * X)
    np.testing.assert_allclose(scaled, base, rtol=1e-6)


def test_diagonal_noise_likelihood_is_the_ppca_likelihood_on_the_fitted_plane():
    """A row on the fitted plane has no residual: both likelihoods are its SD^2 alone."""
    from robustpca import ROBPCA

    X = _gaussian_plane(seed=2)
    diag = cand.DiagonalNoiseLikelihood().fit(X)
    assert diag.n_components_ == 2  # the recommended configuration's two components
    ppca = bench.LikelihoodOutlyingness(ROBPCA(n_components=2, random_state=0)).fit(X)
    on_plane = diag.estimator_.reconstruct(X[:20] * 1.5)
    np.testing.assert_allclose(
        diag.decision_function(on_plane), ppca.decision_function(on_plane), rtol=1e-6
    )
    assert np.ptp(diag.decision_function(on_plane)) > 1.0  # the rows differ in SD


def test_cross_validated_rank_reaches_d_minus_one_and_is_the_rank_scored():
    """Four columns, three of signal: the rank of largest held-out likelihood is 3 = d - 1,
    the largest the search allows, and the rows are ranked by the likelihood at that
    rank (ROBPCA's automatic rank here is 2)."""
    from robustpca import ROBPCA

    X = _gaussian_plane(seed=3, n=300, d=4, k=3)
    model = cand.CVLikelihood().fit(X)
    assert model.n_components_ == 3
    ppca = bench.LikelihoodOutlyingness(ROBPCA(n_components=3, kmax=10, random_state=0))
    np.testing.assert_allclose(
        model.decision_function(X), ppca.fit(X).decision_function(X), rtol=1e-12
    )


def test_rank_average_at_one_rank_is_the_likelihood_ranking():
    """One direction of signal: ROBPCA's automatic rank K is 1, and the average over
    ``k = 1 .. K`` is the normalised rank of the likelihood at rank 1."""
    from scipy.stats import rankdata

    from robustpca import ROBPCA

    X = _gaussian_plane(seed=3, n=300, d=5, k=1)
    model = cand.RankAveragedLikelihood().fit(X)
    assert model.n_components_ == 1
    ppca = bench.LikelihoodOutlyingness(ROBPCA(n_components=1, kmax=10, random_state=0))
    m2 = -ppca.fit(X).decision_function(X)
    np.testing.assert_allclose(model.decision_function(X), -rankdata(m2) / 300)


def test_rank_average_keeps_the_mean_normalised_rank():
    """Every rank's normalised ranks average (n + 1) / 2n; so does their mean over the
    ranks (a maximum over them would not)."""
    X = _gaussian_plane(seed=3, n=200, d=6, k=2)
    model = cand.RankAveragedLikelihood().fit(X)
    assert model.n_components_ >= 2
    assert -np.mean(model.decision_function(X)) == pytest.approx(201 / 400, rel=1e-12)


def test_diagonal_noise_leaves_out_a_coordinate_without_residual():
    """A constant column has no training residual (spread 0): it is left out, and the
    rows score as without it, finite."""
    X = _gaussian_plane(seed=4, n=300, d=5)
    Z = np.column_stack([X, np.full(300, 3.0)])
    with_constant = cand.DiagonalNoiseLikelihood().fit(Z)
    assert with_constant.noise_scales_[-1] == 0
    scores = with_constant.decision_function(Z)
    assert np.all(np.isfinite(scores))
    without = cand.DiagonalNoiseLikelihood().fit(X).decision_function(X)
    np.testing.assert_allclose(scores, without, rtol=1e-9)
