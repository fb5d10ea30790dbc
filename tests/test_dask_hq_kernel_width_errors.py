"""HQPCA's ``kernel_width`` errors on a dask array: the Dask fit validates the width
itself (``_dask.hq._kernel_width``), and must refuse exactly what the in-memory fit
refuses, with the same exception and message, before any pass."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import HQPCA

da = pytest.importorskip("dask.array")


def _error(X, width):
    with pytest.raises((TypeError, ValueError)) as info:
        HQPCA(n_components=2, kernel_width=width).fit(X)
    return type(info.value), str(info.value)


@pytest.mark.parametrize("width", [0.0, -1.0, np.inf, np.nan, 1e-200, True, "wide"])
def test_invalid_kernel_width_is_refused_as_in_memory(width):
    """Zero, negative, non-finite, underflowing (its square below the smallest normal
    float) and non-real widths raise the in-memory error on the dask route too."""
    Xn = np.random.default_rng(0).normal(size=(60, 5))
    assert _error(da.from_array(Xn, chunks=20), width) == _error(Xn, width)
