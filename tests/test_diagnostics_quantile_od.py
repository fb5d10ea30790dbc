"""The OD cutoff follows the ``quantile`` asked for (rrcov's ``crit.pca.distances``):
``(m + s * qnorm(quantile))^(3/2)`` of the umcd/median rule on OD^(2/3). Mutation
audit: replacing ``stats.norm.ppf(quantile)`` by ``stats.norm.ppf(0.975)`` in
``DiagnosticReference.orthogonal_cutoff`` survived the suite."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from robustpca import ROBPCA
from robustpca.diagnostics import outlier_diagnostics


def _fit():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 6)) * np.array([6.0, 3.0, 1.0, 0.3, 0.3, 0.3])
    X[:10, 4] += 8.0  # orthogonal outliers
    return ROBPCA(n_components=2, random_state=0).fit(X), X


@pytest.mark.parametrize("quantile", [0.9, 0.975, 0.99, 0.999])
def test_od_cutoff_is_that_of_the_quantile(quantile):
    model, X = _fit()
    diag = outlier_diagnostics(model, X, quantile=quantile)
    m, s = diag.od_model
    assert s > 0
    expected = (m + s * stats.norm.ppf(quantile)) ** 1.5
    assert diag.orthogonal_cutoff == pytest.approx(expected, rel=1e-12)


def test_od_cutoff_grows_with_the_quantile():
    model, X = _fit()
    cut = [outlier_diagnostics(model, X, quantile=q).orthogonal_cutoff for q in (0.9, 0.975, 0.99)]
    assert cut[0] < cut[1] < cut[2]
