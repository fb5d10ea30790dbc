"""SphericalPCA: ``scale_on`` chooses the diagnostics' rule as documented.

Mutation audit of ``estimators/_spherical.py``: giving the data-scale fit
(``scale_on="data"``, the default) rrcov's "robust" rule, which takes Locantore's
data-scale eigenvalues for the variances of consistent ones, left the suite passing.
"""

from __future__ import annotations

import numpy as np

from robustpca import SphericalPCA
from robustpca.diagnostics import outlier_diagnostics


def _data():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 4)) * np.array([3.0, 1.5, 0.4, 0.2])
    X[:6] += np.array([0.0, 0.0, 8.0, 8.0])
    return X


def test_data_scale_takes_the_scores_rule():
    """``scale_on="data"``: the eigenvalues are not those of a consistent covariance, so
    the score distances take the "scores" rule (the training scores' median and MAD),
    not rrcov's, which would read them as the variances of the scores."""
    X = _data()
    model = SphericalPCA(n_components=2).fit(X)
    diag = outlier_diagnostics(model, X)
    assert diag.rule == "scores"
    T = model.transform(X)
    med = np.median(T, axis=0)
    mad = 1.4826 * np.median(np.abs(T - med), axis=0)
    np.testing.assert_allclose(diag.score_distances, np.linalg.norm((T - med) / mad, axis=1))


def test_sphere_scale_takes_rrcovs_robust_rule():
    """``scale_on="sphere"`` reproduces rrcov: the "robust" rule, score distances from
    the fit's eigenvalues with no re-centring."""
    X = _data()
    model = SphericalPCA(n_components=2, scale_on="sphere").fit(X)
    diag = outlier_diagnostics(model, X)
    assert diag.rule == "robust"
    T = model.transform(X)
    np.testing.assert_allclose(
        diag.score_distances, np.sqrt(np.sum(T**2 / model.explained_variance_, axis=1))
    )
