"""Every comparison method checks the source, also those that do not use it.

R-PCA and PCA document their ``source`` as "checked, not used": a source with NaN or
infinite entries is refused by all six methods with an error naming ``source``, before
any fit, instead of being ignored (R-PCA, PCA) or reaching a solver (S-PCA's SVD of a
stack with NaN). Existing tests check the source's column count only.
"""

import numpy as np
import pytest

from robustpca.transfer import COMPARISON_METHODS, recover_target


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("method", sorted(COMPARISON_METHODS))
def test_non_finite_source_is_refused_by_every_method(method, bad):
    rng = np.random.default_rng(0)
    source, target = rng.random((10, 6)), rng.random((8, 6))
    source[3, 2] = bad
    with pytest.raises(ValueError, match="source"):
        recover_target(method, source, target, n_shared=1, n_source=1, n_target=1, max_iter=3)
