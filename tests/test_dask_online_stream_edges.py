"""The online estimators on dask arrays over several passes and with a short last
batch: the stream of row blocks must be the in-memory stream (docs/dask.md, the
online route), so the counts are those of the in-memory fit, and the window that a
later ``partial_fit`` continues holds the documented last rows."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import OnlineRobustPCA
from robustpca.estimators._stream_reference import BATCH_ENTRIES, MIN_ROWS, WINDOW_ROWS

from .test_online_rpca import planted_stream

da = pytest.importorskip("dask.array")


def test_gaps_are_counted_once_over_several_passes():
    """``n_missing_`` is the number of missing entries of ``X``, as in memory, however
    many passes the stream makes: a second pass re-reads the same entries and must not
    count them again."""
    Xn = planted_stream(1, n=200, d=20)[0]
    Xn[np.random.default_rng(0).random(Xn.shape) < 0.1] = np.nan
    params = {"n_components": 2, "random_state": 0, "batch_size": 32, "n_passes": 2}
    ours = OnlineRobustPCA(**params).fit(da.from_array(Xn, chunks=(70, 20)))
    theirs = OnlineRobustPCA(**params).fit(Xn)
    assert ours.n_missing_ == theirs.n_missing_ == np.isnan(Xn).sum()
    np.testing.assert_array_equal(ours.components_, theirs.components_)


def test_window_seeded_by_a_dask_fit_holds_the_last_rows_after_a_short_batch():
    """A dask fit seeds the window of a later ``partial_fit`` with the stream's last rows,
    as many as one batch of a stream adds (docs/dask.md, the online route): here
    ``BATCH_ENTRIES // 300`` rows, fewer than the 1,000 rows of the stream. The stream
    ends with a short batch (1,000 rows in batches of 32), which must not cut the
    window below that size: the window holds exactly the last rows, with the fitted
    model's orthogonal distances."""
    Xn = planted_stream(4, n=1000, d=300)[0]
    params = {"n_components": 2, "random_state": 0, "batch_size": 32}
    model = OnlineRobustPCA(**params).fit(da.from_array(Xn, chunks=(128, 300)))
    size = min(WINDOW_ROWS, max(MIN_ROWS, BATCH_ENTRIES // Xn.shape[1]))
    assert size < Xn.shape[0]
    np.testing.assert_array_equal(model._window.index, np.arange(Xn.shape[0] - size, Xn.shape[0]))
    np.testing.assert_allclose(
        model._window.od, model.reconstruction_error(Xn[-size:]), rtol=1e-10, atol=1e-12
    )
