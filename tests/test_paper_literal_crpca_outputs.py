"""The paper-literal CRPCA-OM (Nie, Yuan & Huang 2014, Algorithm 3): what it returns besides
the objective, and its penalty cap.

``test_paper_literal.py`` compares the objective and the low-rank part with ours, always
with a cap ``mu_max`` so high that it is never reached. Here:

* step 4 is ``mu = min(rho mu, mu_bar)``: with a cap reached after a few iterations the
  literal iteration is still ours (same penalties, same objective history);
* ``mean`` is the optimal mean ``b`` of problem (30) (ours: ``mean_``), not the
  arithmetic mean;
* ``basis`` holds the feature-space singular vectors of the *kept* singular values:
  as many orthonormal columns as the rank of ``Z``, spanning its rows.
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

from paper_literal_crpca import crpca_om_paper_literal


def data():
    return planted_outlier_data(0, n_samples=60, n_features=15)[0]


def test_crpca_literal_with_a_reached_cap_is_our_iteration():
    X = data()
    mu = rp.ConvexOptimalMeanPCA(gap_tol=None, random_state=0).fit(X).mu_
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = rp.ConvexOptimalMeanPCA(
            gap_tol=None, random_state=0, mu=mu, mu_max=3 * mu, max_iter=30, tol=0.0
        ).fit(X)
    assert model.residuals_["mu"][-1] == 3 * mu  # the cap is reached
    lit = crpca_om_paper_literal(X, model.gamma_, mu=mu, mu_max=3 * mu, max_iter=30, tol=0.0)
    np.testing.assert_allclose(lit["objective"], model.objective_history_, rtol=1e-10)
    np.testing.assert_allclose(lit["mean"], model.mean_, rtol=1e-10, atol=1e-10)
    assert np.abs(lit["mean"] - X.mean(axis=0)).max() > 1e-3  # not the arithmetic mean


def test_crpca_literal_basis_spans_the_low_rank_part():
    X = data()
    model = rp.ConvexOptimalMeanPCA(gap_tol=None, random_state=0).fit(X)
    lit = crpca_om_paper_literal(X, 2 * model.gamma_, mu=model.mu_, mu_max=1e9 * model.mu_)
    Z = lit["low_rank"] - lit["mean"]
    basis = lit["basis"]
    rank = np.linalg.matrix_rank(Z)
    assert 0 < rank < X.shape[1] and basis.shape == (X.shape[1], rank)
    np.testing.assert_allclose(basis.T @ basis, np.eye(rank), atol=1e-12)
    residual = Z - (Z @ basis) @ basis.T
    assert np.linalg.norm(residual) < 1e-10 * np.linalg.norm(Z)
