"""A Dask fit with weights of which one is fractional cuts where the NumPy fit does.

``contamination_offset`` rounds the target weight half up only "where every weight is
whole"; the Dask reference decides that with ``whole_weights`` of the dask weights (one
pass). With one row of weight 0.5 among the flagged rows the rounding moves the cut by a
row, so both routes must read the weights as not whole. ``test_fractional_weights.py``
scales *every* weight, which an ``any``-for-``all`` slip in the Dask reduction passes.
"""

from __future__ import annotations

import dask.array as da
import numpy as np

import robustpca


def test_dask_and_numpy_fits_flag_the_same_rows_with_one_fractional_weight():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2)) @ rng.normal(size=(2, 4)) + 0.1 * rng.normal(size=(20, 4))
    X[:6] += np.linspace(8.0, 3.0, 6)[:, None] * rng.normal(size=(6, 4))
    w = np.ones(20)
    w[0] = 0.5  # the farthest row: cumulative weights 0.5, 1.5, 2.5, ...
    # 0.22 of 19.5 is 4.29: nearest 4.5 (five rows); rounded to 4 it would be 3.5 (four)
    model = robustpca.PCA(n_components=2, contamination=0.22)
    in_memory = model.fit(X, sample_weight=w)
    labels = in_memory.predict(X)
    assert w[labels == -1].sum() == 4.5
    lazy = robustpca.PCA(n_components=2, contamination=0.22).fit(
        da.from_array(X, chunks=(7, 4)), sample_weight=da.from_array(w, chunks=7)
    )
    np.testing.assert_array_equal(lazy.predict(X), labels)
