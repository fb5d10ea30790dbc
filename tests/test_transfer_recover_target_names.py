"""``recover_target`` answers any method that is not a key of ``COMPARISON_METHODS``
with the ValueError listing the valid names, also for an unhashable value (a list,
as from a config file), where a bare dict lookup raises an unhelpful
``TypeError: unhashable type``. The existing test passes a misspelt string only.
"""

import numpy as np
import pytest

from robustpca.transfer import recover_target


@pytest.mark.parametrize("method", ["pca", ["PCA"], {"R-T-PCA": 1}, None])
def test_unknown_methods_name_the_valid_ones(method):
    rng = np.random.default_rng(0)
    source, target = rng.random((6, 4)), rng.random((5, 4))
    with pytest.raises(ValueError, match=r"is not one of \['PCA', 'R-2Step-PCA'"):
        recover_target(method, source, target)
