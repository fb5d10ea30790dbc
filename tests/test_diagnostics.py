"""Outlier diagnostics: nominal flag rates on clean data, planted outliers found."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA, OptimalMeanPCA
from robustpca.datasets import occlude_blocks
from robustpca.diagnostics import outlier_diagnostics, plot_outlier_map


def gaussian_subspace_data(seed, n=2000, d=10, k=3, noise=0.5):
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(d, k)))[0]
    X = rng.normal(size=(n, k)) * np.array([5.0, 3.0, 2.0])[:k] @ basis.T
    X += noise * rng.normal(size=(n, d))
    return X, basis


@pytest.mark.parametrize("seed", range(4))
def test_flag_rates_near_nominal_on_clean_gaussian_data(seed):
    X, _ = gaussian_subspace_data(seed)
    diag = outlier_diagnostics(PCA(3).fit(X), X)
    # each cutoff is a 97.5% quantile of its reference distribution: about 2.5% flagged.
    # The score scales and the OD cutoff are estimated from 2000 samples, so allow 1-5%.
    assert 0.01 <= diag.score_outliers.mean() <= 0.05
    assert 0.01 <= diag.orthogonal_outliers.mean() <= 0.05


@pytest.mark.parametrize("seed", range(4))
def test_planted_outliers_are_flagged_by_type(seed):
    X, basis = gaussian_subspace_data(seed, n=500)
    rng = np.random.default_rng(100 + seed)
    X[:25] += 15 * rng.normal(size=(25, X.shape[1]))  # off the subspace: orthogonal outliers
    # far along the subspace, with the inliers' noise: good leverage points
    X[25:50] = 40 * rng.normal(size=(25, 3)) @ basis.T + 0.5 * rng.normal(size=(25, 10))
    diag = outlier_diagnostics(OptimalMeanPCA(3).fit(X), X)
    assert diag.orthogonal_outliers[:25].all()
    # the leverage points are 40 * N(0, I_3) draws: now and then one falls near the centre
    assert diag.score_outliers[25:50].mean() >= 0.9
    assert diag.orthogonal_outliers[25:50].mean() <= 0.1
    assert diag.outliers[50:].mean() < 0.08


def test_reference_data_and_errors():
    X, _ = gaussian_subspace_data(0, n=300)
    model = PCA(3).fit(X)
    new = X[:10] + 100.0
    diag = outlier_diagnostics(model, new, reference=X)
    assert diag.orthogonal_outliers.all() or diag.score_outliers.all()
    with pytest.raises(ValueError, match="quantile"):
        outlier_diagnostics(model, X, quantile=1.5)


@pytest.mark.realdata
def test_occluded_faces_are_flagged(orl):
    """The OD cutoff is precise but conservative on occluded faces: at k = 10 it flags 21
    faces, all occluded (seeds 0 and 1), i.e. 26% of the 80 occluded ones. A quarter-size
    white block moves a 32 x 32 face less, relative to the spread of faces, than the
    Gaussian model behind the Wilson-Hilferty cutoff expects."""
    X, mask = occlude_blocks(orl.data, orl.image_shape, fill="max", random_state=0)
    occluded = mask.any(axis=1)
    diag = outlier_diagnostics(OptimalMeanPCA(10).fit(X), X)
    flagged = diag.orthogonal_outliers
    assert occluded[flagged].mean() > 0.9
    assert flagged[occluded].mean() > 0.2


def test_outlier_map_draws(tmp_path):
    X, _ = gaussian_subspace_data(1, n=200)
    X[:5] += 20.0
    diag = outlier_diagnostics(PCA(2).fit(X), X)
    ax = plot_outlier_map(diag, labels=[str(i) for i in range(len(X))])
    ax.figure.savefig(tmp_path / "map.png")
    assert (tmp_path / "map.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
