"""``fit(X, mask=...)`` of the low-rank plus sparse estimators refuses Dask input.

:func:`robustpca.estimators._masked._masked_input` documents that a Dask fit takes no
mask (its chunked fits need complete data) and tells the user to pass NumPy arrays. A
Dask ``X`` with a NumPy mask must be refused like a Dask mask, not computed into memory
behind the user's back and fitted on the in-memory route.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import AccAltProj, PrincipalComponentPursuit

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize(
    "make", [lambda: PrincipalComponentPursuit(), lambda: AccAltProj(n_components=2)]
)
@pytest.mark.parametrize("lazy", ["X", "mask", "both"])
@pytest.mark.parametrize("method", ["fit", "fit_transform", "fit_predict"])
def test_a_dask_array_with_a_mask_is_refused(make, lazy, method):
    """Whichever of ``X`` and ``mask`` is lazy, every masked method says so."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 6))
    mask = rng.random(X.shape) > 0.1
    if lazy in ("X", "both"):
        X = da.from_array(X, chunks=(10, 6))
    if lazy in ("mask", "both"):
        mask = da.from_array(mask, chunks=(10, 6))
    with pytest.raises(TypeError, match="Dask fit takes no mask"):
        getattr(make(), method)(X, mask=mask)
