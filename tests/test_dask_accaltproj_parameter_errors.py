"""AccAltProj's parameter errors on a dask array: the Dask fit validates ``beta``,
``beta_init``, ``gamma`` and ``incoherence`` itself (``_dask.low_rank_sparse.
fit_accaltproj``) and must refuse exactly what the in-memory fit refuses (the
documented ranges: ``gamma`` in (0, 1), ``incoherence >= 1``), with the same message."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import AccAltProj

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize(
    "params",
    [{"incoherence": 0.5}, {"incoherence": -1.0}, {"gamma": 0.0}, {"gamma": 1.5}, {"beta": -1.0}],
    ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()),
)
def test_out_of_range_parameters_are_refused_as_in_memory(params):
    X = np.random.default_rng(0).normal(size=(60, 6))
    messages = []
    for data in (X, da.from_array(X, chunks=20)):
        with pytest.raises(ValueError) as info:
            AccAltProj(2, random_state=0, **params).fit(data)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
