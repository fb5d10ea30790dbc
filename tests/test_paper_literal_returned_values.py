"""Values the paper-literal codes return besides the basis and the objective.

``test_paper_literal.py`` compares bases and objective histories with ours; the other
documented returns are compared here with the estimators' attributes:

* HQ-PCA's ``weights`` are the last auxiliary variables ``p_i = g(r_i)`` of the
  half-quadratic iteration (He et al.), ``HQPCA.weights_``;
* PCA-L21's ``mean`` is the arithmetic mean used to centre ("X is centralized"),
  ``L21PCA.mean_``.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

import robustpca as rp

from .conftest import planted_outlier_data

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from paper_literal_hq import hq_pca_paper_literal
from paper_literal_l21 import l21_pca_paper_literal
from paper_literal_pca import pca_paper_literal


def fit(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X)


def test_hq_literal_weights_are_hqpcas():
    X = planted_outlier_data(0, n_samples=120, n_features=15)[0]
    model = fit(rp.HQPCA(3, max_iter=8, tol=0.0), X)
    lit = hq_pca_paper_literal(X, 3, model.n_iter_)
    np.testing.assert_allclose(lit["weights"], model.weights_, rtol=1e-9, atol=1e-12)
    assert lit["weights"].min() < 0.5 * lit["weights"].max()  # the outliers weigh less


def test_l21_literal_mean_is_l21pcas():
    X = planted_outlier_data(0, n_samples=120, n_features=15)[0]
    model = fit(rp.L21PCA(3, max_iter=4, tol=0.0), X)
    lit = l21_pca_paper_literal(X, 3, model.n_iter_, pca_paper_literal(X, 3)["basis"])
    np.testing.assert_allclose(lit["mean"], model.mean_, rtol=1e-12, atol=1e-12)
