"""A variance share given as any real non-integral number (a NumPy ``float32`` or a
``Fraction``, as well as a Python float) is refused by a Dask fit for the Dask reason
(the share is chosen on the whole spectrum, which its passes do not form), not as a
value the estimator never takes: the in-memory fit takes the same share."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from robustpca import OptimalMeanPCA

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("share", [np.float32(0.5), Fraction(1, 2)], ids=["float32", "fraction"])
def test_a_share_of_any_real_type_is_refused_for_the_dask_reason(share):
    X = np.random.default_rng(0).normal(size=(60, 6))
    assert OptimalMeanPCA(share).fit(X).n_components_ >= 1
    with pytest.raises(ValueError, match="a Dask fit of OptimalMeanPCA takes a whole number"):
        OptimalMeanPCA(share).fit(da.from_array(X, chunks=20))
