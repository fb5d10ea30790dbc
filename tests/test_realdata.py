"""The claims of the papers on the real AT&T/ORL faces of ``../shared/data``.

Nie, Yuan & Huang (2014), Table 1: with 20% of the images occluded by a quarter-size block,
RPCA-OM reconstructs the clean images with a smaller total error sum_i ||x_rec - x_clean||
than PCA, PCA-L1 and R1-PCA at every dimension. Nie & Huang (sec. V.A, Fig. 2-4) claim
that PCA-L21 and R1-PCA beat PCA in the same setting. We check both for two fills of the
block (white and black) and two seeds. (On these faces PCA-L21 is in fact the best of all;
the papers never compare it with RPCA-OM, and we do not claim an order between them.)
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from robustpca import L1PCA, L21PCA, PCA, R1PCA, OptimalMeanPCA
from robustpca.datasets import load_orl

from .conftest import OCCLUSIONS, clean_error, occluded_faces, occlusion_id

DIMENSIONS = (10, 20, 30, 40, 50)


def total_errors(X, clean, method):
    errors = []
    for k in DIMENSIONS:
        model = method(n_components=k).fit(X)
        assert model.converged_, (method.__name__, k)
        errors.append(clean_error(model, X, clean))
    return np.array(errors)


@pytest.fixture(scope="module", params=OCCLUSIONS, ids=occlusion_id)
def table1_errors(request, orl):
    X, mask = occluded_faces(orl, *request.param)
    assert mask.any(axis=1).sum() == 80
    methods = {
        "PCA": PCA,
        "PCA-L1": L1PCA,
        "R1-PCA": R1PCA,
        "PCA-L21": L21PCA,
        "RPCA-OM": OptimalMeanPCA,
    }
    return {name: total_errors(X, orl.data, method) for name, method in methods.items()}


@pytest.mark.realdata
def test_table1_rpca_om_below_pca_and_r1_at_every_dimension(table1_errors):
    for baseline in ("PCA", "R1-PCA"):
        assert np.all(table1_errors["RPCA-OM"] < table1_errors[baseline]), baseline


@pytest.mark.realdata
def test_table1_rpca_om_below_pca_l1_from_20_components(table1_errors):
    """Where the claim does not reproduce: at k = 10, PCA-L1 reconstructs these faces
    slightly better than RPCA-OM in 3 of the 4 settings (e.g. 33.31e4 against 33.54e4 for
    seed 0, white block), while Table 1 has RPCA-OM ahead at every k (28.774e4 against
    28.948e4 at k = 10). From k = 20 on, RPCA-OM is below PCA-L1 in every setting."""
    assert np.all(table1_errors["RPCA-OM"][1:] < table1_errors["PCA-L1"][1:])


@pytest.mark.realdata
@pytest.mark.parametrize("method", ["PCA-L21", "R1-PCA"])
def test_niehuang_robust_methods_below_pca_at_every_dimension(table1_errors, method):
    assert np.all(table1_errors[method] < table1_errors["PCA"])


@pytest.mark.realdata
def test_rpca_om_downweights_the_occluded_faces(orl):
    X, mask = occluded_faces(orl, seed=3)
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
    X, _ = occluded_faces(faces)
    model = OptimalMeanPCA(n_components=20).fit(X)
    assert np.all(np.diff(model.objective_history_) <= 1e-10 * model.objective_history_[0])
    R = (X - model.mean_) - model.transform(X) @ model.components_
    objective = np.sqrt(np.einsum("ij,ij->i", R, R) + model.epsilon_).sum()
    np.testing.assert_allclose(model.objective_history_[-1], objective, rtol=1e-9)
    assert clean_error(model, X, faces.data) < clean_error(PCA(20).fit(X), X, faces.data)
