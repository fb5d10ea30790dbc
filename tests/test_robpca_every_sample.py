"""ROBPCA whose h-subset is every sample (``h = n``: from ``n_samples - 1`` components,
where rrcov's ``PcaHubert`` stops) is classical PCA, and says so.

On rrcov's octane (39 spectra of 226 wavelengths, six documented outliers), ``None``
asks for 39 components; rrcov's ``PcaHubert(octane, k = 38, kmax = 38)`` stops with
"n == p+1 is too small sample size for MCD". Before the warning the fit silently was the
column means' classical PCA and flagged none of the six.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from robustpca import ROBPCA
from tests.conftest import load_table

OCTANE_OUTLIERS = [24, 25, 35, 36, 37, 38]  # the data README: 1-based 25, 26, 36-39


@pytest.mark.realdata
@pytest.mark.parametrize(("n_components", "alpha"), [(None, None), (38, None), (38, 0.5)])
def test_every_sample_kept_warns(shared_data, n_components, alpha):
    """The warning, and what it warns of: the classical centre, and none of the six
    documented outliers flagged."""
    X = load_table(shared_data, "octane")
    model = ROBPCA(n_components, alpha=alpha, random_state=0)
    with pytest.warns(UserWarning, match=r"holds all 39 samples .* classical PCA"):
        model.fit(X)
    assert model.h_ == X.shape[0]
    np.testing.assert_allclose(model.mean_, X.mean(axis=0), rtol=1e-12)
    assert not set(OCTANE_OUTLIERS) & set(np.flatnonzero(model.predict(X) == -1))


@pytest.mark.realdata
@pytest.mark.parametrize(("n_components", "alpha"), [("auto", None), (37, None), (38, 1.0)])
def test_a_proper_subset_or_alpha_one_is_silent(shared_data, n_components, alpha):
    """One component fewer keeps a proper subset, and flags the documented outliers
    at rrcov's default rank; ``alpha=1`` asks for every sample and is not warned of."""
    X = load_table(shared_data, "octane")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = ROBPCA(n_components, alpha=alpha, random_state=0).fit(X)
    if alpha is None:
        assert model.h_ < X.shape[0]
    if n_components == "auto":
        assert set(OCTANE_OUTLIERS) <= set(np.flatnonzero(model.predict(X) == -1))
