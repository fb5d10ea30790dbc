"""``predict`` on a Dask array labels a row whose decision is exactly 0 as the NumPy
route does: an inlier.

scikit-learn's detectors flag ``decision_function < 0``; ``offset_at_cut`` can put an
offset exactly on a value (adjacent floats), and a user may set ``offset_`` to a score,
so a decision of exactly 0 occurs. ``test_contamination_flag_edges.py`` pins the NumPy route;
the Dask route builds its labels lazily with its own comparison, which no test pinned.
"""

from __future__ import annotations

import dask.array as da
import numpy as np

import robustpca
from robustpca.solvers.contamination_cut import offset_at_cut


def test_dask_predict_keeps_a_row_on_the_offset_as_the_numpy_route_does(monkeypatch):
    low = -3.0
    scores = np.array([low, np.nextafter(low, 0.0), -1.0, -0.9, -0.8, -0.7, -0.6, -0.5, -0.4, -0.3])
    offset = offset_at_cut(scores, 1)  # between adjacent floats: the upper one
    assert offset == scores[1]
    X = np.random.default_rng(0).standard_normal((10, 3))
    model = robustpca.PCA(n_components=1, contamination=0.1).fit(X)
    model.offset_ = offset

    def fake(X, method):
        return da.from_array(scores, chunks=4) if isinstance(X, da.Array) else scores.copy()

    monkeypatch.setattr(model, "_score_samples", fake)
    lazy = model.predict(da.from_array(X, chunks=(4, 3)))
    assert isinstance(lazy, da.Array)
    expected = [-1] + [1] * 9
    np.testing.assert_array_equal(lazy.compute(), expected)
    np.testing.assert_array_equal(model.predict(X), expected)
