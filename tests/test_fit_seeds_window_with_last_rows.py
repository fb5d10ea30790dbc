"""``fit`` seeds the stream's reference window with the
distances of its *last* rows (``_seed_window``), so that ``partial_fit`` after ``fit``
judges new rows against the stream's latest regime: on a stream whose noise grows,
``contamination=0.1`` still flags about a tenth of new rows of the late regime."""

import numpy as np
import pytest

from robustpca import GRASTA, OnlineRobustPCA


@pytest.mark.parametrize("cls", [OnlineRobustPCA, GRASTA])
def test_partial_fit_after_fit_judges_against_the_latest_rows(cls):
    rng = np.random.default_rng(0)
    n, p = 2400, 20
    u = rng.uniform(1, 2, p)
    noise = np.where(np.arange(n) < 1200, 0.5, 3.0)[:, None]  # quiet, then noisy
    X = np.outer(20 + rng.normal(size=n), u) + noise * rng.normal(size=(n, p))
    model = cls(1, contamination=0.1, random_state=0).fit(X[:2000])
    model.partial_fit(X[2000:2010])  # the window: the fit's last rows and these
    flagged = np.mean(model.predict(X[2010:]) == -1)
    assert flagged < 0.25
