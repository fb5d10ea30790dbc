"""``callback(iteration, state)``: called after each iteration; ``True`` stops the fit.

Every estimator with a ``callback`` keeps that contract on every route, complete data
and missing entries alike. With gaps it did not everywhere: PCP, outlier pursuit and
CRPCA-OM (the observed-entries ALM) and PCA-L1 (its EM) never called it, and PCA-GM
called it per pass, numbered from 1 in each, and went on to the next pass after a
``True`` (6 iterations where the callback asked to stop at 2).
"""

from __future__ import annotations

import numpy as np
import pytest

import robustpca
from robustpca.solvers import StopReason

from .conftest import load_table, make_estimator, quiet_fit, random_gaps

#: the convex programs' penalty sets their rank; R-T-PCA's ranks are three parameters
PENALISED = {"PrincipalComponentPursuit", "OutlierPursuit", "ConvexOptimalMeanPCA"}
PARAMS = {"RobustTransferPCA": {"n_shared": 1, "n_source": 1, "n_target": 1}}
NAMES = [n for n in robustpca.ESTIMATOR_NAMES if "callback" in getattr(robustpca, n)().get_params()]
CASES = [(n, False) for n in NAMES] + [
    (n, True) for n in NAMES if getattr(robustpca, n)._supports_missing
]
STOP_AT = 2


def _model(name: str, callback):
    params = dict(PARAMS.get(name, {"n_components": 2}))
    if name in PENALISED:
        params = {}
    return make_estimator(name, callback=callback, **params)


@pytest.mark.realdata
@pytest.mark.parametrize(("name", "gaps"), CASES, ids=[f"{n}-{g}" for n, g in CASES])
def test_callback_is_called_each_iteration_and_stops_the_fit(shared_data, name, gaps):
    """Bushfire, complete and with a tenth of its cells missing: the callback sees
    iterations 1 and 2 with a finite state, and its ``True`` at 2 ends the fit there,
    not converged, with finite fitted attributes."""
    X = load_table(shared_data, "bushfire")
    if gaps:
        X = random_gaps(X, 0)[0]
    seen = []

    def callback(iteration, state):
        for value in (state.components, state.mean):
            assert value is None or np.isfinite(value).all()
        if state.mean is not None and state.components is not None:
            assert state.mean.shape == state.components.shape[1:]  # KernelL21PCA: its embedding
        seen.append(iteration)
        return iteration >= STOP_AT

    model = quiet_fit(_model(name, callback), X)
    assert seen == list(range(1, STOP_AT + 1))
    assert model.n_iter_ == STOP_AT
    assert model.stop_reason_ == StopReason.CALLBACK
    assert not model.converged_
    for attribute in ("components_", "mean_"):
        assert np.isfinite(getattr(model, attribute)).all()
    assert np.isfinite(model.score_samples(np.nan_to_num(X, nan=np.nanmedian(X)))).all()
