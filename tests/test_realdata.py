"""The claims of the papers on the real AT&T/ORL faces of ``../shared/data``.

Nie, Yuan & Huang (2014), Table 1: with 20% of the images occluded by a quarter-size block,
RPCA-OM reconstructs the clean images with a smaller total error sum_i ||x_rec - x_clean||
than PCA at every dimension. Nie & Huang (sec. V.A, Fig. 2-4) make the same claim for
PCA-L21. We check it for two fills of the block (white and black) and several seeds.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from robustpca import L21PCA, PCA, OptimalMeanPCA
from robustpca.datasets import load_orl, occlude_blocks
from robustpca.metrics import total_reconstruction_error

DIMENSIONS = (10, 20, 30, 40, 50)


@pytest.fixture(scope="module")
def orl(shared_data):
    return load_orl(shared_data)


def occluded(orl, seed, fill):
    X, mask = occlude_blocks(
        orl.data,
        orl.image_shape,
        image_fraction=0.2,
        block_fraction=0.25,
        fill=fill,
        random_state=seed,
    )
    assert mask.any(axis=1).sum() == 80
    return X


@pytest.mark.realdata
@pytest.mark.parametrize("fill", ["max", "min"])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("method", [OptimalMeanPCA, L21PCA], ids=["RPCA-OM", "PCA-L21"])
def test_table1_claim_robust_below_pca_at_every_dimension(orl, seed, fill, method):
    X = occluded(orl, seed, fill)
    for k in DIMENSIONS:
        robust = method(n_components=k).fit(X)
        pca = PCA(n_components=k).fit(X)
        err_robust = total_reconstruction_error(robust.reconstruct(X), orl.data)
        err_pca = total_reconstruction_error(pca.reconstruct(X), orl.data)
        assert robust.converged_
        assert err_robust < err_pca, (k, err_robust, err_pca)


@pytest.mark.realdata
def test_rpca_om_downweights_the_occluded_faces(orl):
    X, mask = occlude_blocks(orl.data, orl.image_shape, fill="max", random_state=3)
    model = OptimalMeanPCA(n_components=30).fit(X)
    occluded_rows = mask.any(axis=1)
    # the occluded faces get the smallest weights: ranking by weight finds them well
    # (area under the ROC curve about 0.9; a random ranking gives 0.5)
    assert roc_auc_score(occluded_rows, -model.weights_) > 0.85
    assert np.median(model.weights_[occluded_rows]) < 0.8 * np.median(
        model.weights_[~occluded_rows]
    )
    # and the optimal mean is closer to the clean mean than the arithmetic mean is
    clean_mean = orl.data.mean(axis=0)
    assert np.linalg.norm(model.mean_ - clean_mean) < np.linalg.norm(X.mean(0) - clean_mean)


@pytest.mark.realdata
def test_gram_route_on_original_resolution_faces(shared_data):
    """400 x 10304 faces: the wide (Gram) route fits and agrees with its own objective."""
    faces = load_orl(shared_data, resolution="112x92")
    X, _ = occlude_blocks(faces.data, faces.image_shape, random_state=0)
    model = OptimalMeanPCA(n_components=20).fit(X)
    assert np.all(np.diff(model.objective_history_) <= 1e-10 * model.objective_history_[0])
    R = (X - model.mean_) - model.transform(X) @ model.components_
    objective = np.sqrt(np.einsum("ij,ij->i", R, R) + model.epsilon_).sum()
    np.testing.assert_allclose(model.objective_history_[-1], objective, rtol=1e-9)
    err = total_reconstruction_error(model.reconstruct(X), faces.data)
    err_pca = total_reconstruction_error(PCA(n_components=20).fit(X).reconstruct(X), faces.data)
    assert err < err_pca
