"""Where the burn-in of the online estimators ends (:mod:`._online_base`).

* It holds at least ``n_components + 1`` rows (``burn_in`` docstring): a first batch of
  exactly ``n_components`` rows is fitted exactly, with no residual scale to set the
  penalties by, so it must not start the model even with ``burn_in=0`` (the existing
  test covers fewer rows than components, not exactly as many).
* ``fit`` ends it with its first pass: a fit on fewer rows than ``burn_in`` is the fit
  whose burn-in is exactly those rows (its updates and penalties included), not a model
  left waiting for more rows.
"""

import numpy as np
import pytest

from robustpca import GRASTA, OnlineRobustPCA


def _stream(n=400, p=12, r=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, r)) * [10.0, 6.0, 3.0] @ rng.normal(size=(r, p)) + 0.5 * rng.normal(
        size=(n, p)
    )


@pytest.mark.parametrize("seed", range(3))
def test_a_first_batch_of_exactly_n_components_rows_is_not_the_start(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(2000, 3)) @ rng.normal(size=(3, 12)) + 0.01 * rng.normal(size=(2000, 12))
    model = OnlineRobustPCA(n_components=3, random_state=0, burn_in=0).partial_fit(X[:3])
    for start in range(3, 2000, 32):
        model.partial_fit(X[start : start + 32])
    # not the floor of an exact fit (1e-6 times the data's root mean square)
    assert model.scale_ > 1e-4
    residual = X - X @ model.components_.T @ model.components_
    assert np.linalg.norm(residual) < 0.02 * np.linalg.norm(X)


@pytest.mark.parametrize("cls", [OnlineRobustPCA, GRASTA])
def test_a_fit_shorter_than_burn_in_is_the_fit_with_that_burn_in(cls):
    X = _stream(n=60)
    short = cls(2, batch_size=20, burn_in=100, random_state=0).fit(X)
    exact = cls(2, batch_size=20, burn_in=60, random_state=0).fit(X)
    np.testing.assert_allclose(short.components_, exact.components_, atol=1e-12)
    np.testing.assert_allclose(short.objective_history_, exact.objective_history_, rtol=1e-12)
