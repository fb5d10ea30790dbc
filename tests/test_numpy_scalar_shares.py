"""A variance share given as a NumPy float is that share, not an integer.

``ROBPCA`` resolved its ``k`` by ``isinstance(n_components, float)``, which
``np.float32`` fails: ``int(np.float32(0.95))`` is 0, the solver ran with ``k = 0`` and
the estimator quietly fitted one component: on rrcov's octane spectra one where the
share 0.95 keeps two (and with the octane number left in the table, no row flagged
instead of the documented outliers 25, 26 and 36-39, 1-based).
"""

from __future__ import annotations

import numpy as np
import pytest

import robustpca

from .conftest import load_table, make_estimator, quiet_fit

SHARES = [0.95, np.float64(0.95), np.float32(0.95)]


def _takes_a_share(name: str) -> bool:
    """Whether ``name`` takes ``n_components=0.9`` (the others refuse it by name)."""
    try:
        make_estimator(name, n_components=0.9).fit(np.random.default_rng(0).normal(size=(30, 4)))
    except (TypeError, ValueError) as error:
        assert "n_components" in str(error)
        return False
    return True


@pytest.fixture(scope="module")
def octane(shared_data):
    return load_table(shared_data, "octane")


def test_robpca_flags_octanes_outliers_at_a_float32_share(octane):
    for share in SHARES:
        model = robustpca.ROBPCA(n_components=share, random_state=0).fit(octane)
        assert model.n_components_ == 2
        np.testing.assert_array_equal(
            np.flatnonzero(model.predict(octane) == -1) + 1, [25, 26, 36, 37, 38, 39]
        )


@pytest.mark.parametrize("skew", [False, True])
def test_robpca_on_dask_takes_a_float32_share(skew):
    da = pytest.importorskip("dask.array")
    X = np.random.default_rng(1).normal(size=(60, 6)) * [5, 4, 3, 1, 0.5, 0.1]
    fits = [
        robustpca.ROBPCA(n_components=share, skew=skew, random_state=0).fit(
            da.from_array(X, chunks=(20, 6))
        )
        for share in (0.9, np.float32(0.9))
    ]
    assert fits[0].n_components_ == fits[1].n_components_ > 1


@pytest.mark.parametrize("name", [n for n in robustpca.ESTIMATOR_NAMES if _takes_a_share(n)])
def test_every_share_estimator_reads_numpy_floats_alike(name):
    X = np.random.default_rng(2).normal(size=(40, 6)) * [5, 4, 3, 1, 0.5, 0.1]
    ks = {quiet_fit(make_estimator(name, n_components=s), X).n_components_ for s in SHARES}
    assert len(ks) == 1
