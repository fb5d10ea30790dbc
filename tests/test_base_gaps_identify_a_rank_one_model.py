"""A share or ``"auto"`` ``n_components`` on data with gaps still needs the observed
entries of a rank-1 model.

With missing entries, ``fit`` refuses data whose observed entries are fewer than the
parameters of the rank it fits (``check_observed``: ``d + k (d - k) + n k``). For a
variance share or ``"auto"`` the rank is chosen later, on a filled spectrum, and is at
least 1, so the check uses ``k = 1``: ten observed entries of 10 x 5 data identify no
line (19 parameters), whatever share is asked for.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA


@pytest.mark.parametrize("n_components", [0.9, "auto"])
def test_too_few_observed_entries_for_a_line_are_refused(n_components):
    rng = np.random.default_rng(0)
    X = np.full((10, 5), np.nan)
    X[np.arange(10), np.arange(10) % 5] = rng.normal(size=10)  # one entry a row
    with pytest.raises(ValueError, match="parameters"):
        PCA(n_components=n_components).fit(X)
    with pytest.raises(ValueError, match="parameters"):
        PCA(n_components=1).fit(X)
