"""A fixed bug: a Dask fit of an online estimator on data with fewer rows than features
(video frames of many pixels) did not seed the window that a later ``partial_fit``
continues, unlike a tall Dask fit and the in-memory fit.

``_dask.online.fit_online`` leaves the stream's last rows in ``_dask_stream_tail`` for
``_dask.reference.set_outlier_reference`` to seed the window; that function's wide
branch (``n < d``) returned before the seeding, so the window after the first
``partial_fit`` held only that batch's rows, and the tail stayed on the estimator.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import GRASTA, OnlineRobustPCA

from .test_online_rpca import planted_stream

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("cls", [OnlineRobustPCA, GRASTA], ids=lambda c: c.__name__)
def test_a_wide_dask_fit_seeds_the_partial_fit_window(cls):
    """After fitting a wide stream (200 frames of 400 pixels), ``partial_fit`` continues
    the window of the fit's rows as in memory: the same rows' distances, hence the same
    ``score_samples``."""
    Xn = planted_stream(4, n=200, d=400)[0]
    params = {"n_components": 2, "random_state": 0, "batch_size": 32}
    ours = cls(**params).fit(da.from_array(Xn, chunks=(64, 400)))
    theirs = cls(**params).fit(Xn)
    ours.partial_fit(Xn[:40])
    theirs.partial_fit(Xn[:40])
    assert ours._window.od.shape == theirs._window.od.shape
    np.testing.assert_allclose(ours._window.od, theirs._window.od, rtol=1e-10)
    np.testing.assert_allclose(ours.score_samples(Xn), theirs.score_samples(Xn), rtol=1e-9)
    assert "_dask_stream_tail" not in vars(ours)
