"""Properties of the paper-literal PCA-L1 (Kwak 2008) and PCA-L21 (Nie & Huang) codes that
the parity tests of ``test_paper_literal.py`` do not see.

* PCA-L1's recorded ``objective`` is the L1 dispersion :math:`\\sum_i |w^\\top x_i|` of
  the current direction on the deflated data, which Kwak's Theorem 1 makes
  non-decreasing within a direction; ``run_all.py`` compares it with ours.
* ``max_iter`` caps the iterations of *each* direction (the box has no cap).
* PCA-L21's eq. (23) sets :math:`\\alpha_i = 0` where :math:`W^\\top x_i = 0`: a sample
  exactly at the mean (zero once centred) must not turn the iteration into NaN, and the
  iterates stay those of ``robustpca.L21PCA``.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

import robustpca as rp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from paper_literal_l1 import l1_pca_paper_literal
from paper_literal_l21 import l21_pca_paper_literal
from paper_literal_pca import pca_paper_literal


def test_l1_literal_objective_is_the_l1_dispersion_and_never_decreases():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 8)) * [6, 4, 3, 2, 1, 1, 1, 1]
    X[:5] += 25.0
    lit = l1_pca_paper_literal(X, 2, 1000, np.random.default_rng(0))
    n1, n2 = lit["n_iter_per_component"]
    first, second = np.asarray(lit["objective"][:n1]), np.asarray(lit["objective"][n1:])
    assert len(second) == n2
    for hist in (first, second):
        assert np.all(np.diff(hist) >= -1e-10 * hist[-1])
    Xc = X - X.mean(axis=0)
    w1 = lit["basis"][:, 0]
    np.testing.assert_allclose(first[-1], np.abs(Xc @ w1).sum(), rtol=1e-12)
    deflated = Xc - np.outer(Xc @ w1, w1)
    np.testing.assert_allclose(second[-1], np.abs(deflated @ lit["basis"][:, 1]).sum(), rtol=1e-12)


def test_l1_literal_max_iter_caps_each_direction():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 6)) * [5, 3, 2, 1, 1, 1]
    lit = l1_pca_paper_literal(X, 3, 2, np.random.default_rng(0))
    assert lit["n_iter_per_component"] == [2, 2, 2]
    assert len(lit["objective"]) == 6
    np.testing.assert_allclose(lit["basis"].T @ lit["basis"], np.eye(3), atol=1e-12)


def test_l21_literal_with_a_sample_at_the_mean_matches_l21pca():
    rng = np.random.default_rng(0)
    A = np.round(rng.normal(size=(20, 6)) * [50, 30, 20, 10, 10, 10])
    # integers symmetric about an integer centre: the first row *is* the mean exactly
    X = np.vstack([np.zeros((1, 6)), A, -A]) + np.array([3.0, 1, 4, 1, 5, 9])
    assert np.array_equal(X[0], X.mean(axis=0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = rp.L21PCA(2, max_iter=5, tol=0.0).fit(X)
        lit = l21_pca_paper_literal(X, 2, 5, pca_paper_literal(X, 2)["basis"])
    assert np.all(np.isfinite(lit["basis"]))
    np.testing.assert_allclose(lit["objective"], model.objective_history_, rtol=1e-10)
