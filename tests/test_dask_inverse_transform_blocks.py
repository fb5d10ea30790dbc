"""``inverse_transform`` of a dask array whose output is split along the features
(docs/dask.md: blocks of about dask's ``array.chunk-size``): with a small chunk size
the output has several column blocks, whose sizes add up to ``n_features`` and stay
within the chunk size, and equals the NumPy result; NaN in the scores is refused on
this path as on the one-block path."""

from __future__ import annotations

import dask
import numpy as np
import pytest

from robustpca import PCA

da = pytest.importorskip("dask.array")


def _model_and_scores():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 37))
    model = PCA(3).fit(X)
    return model, model.transform(X)


def test_blocked_inverse_transform_is_the_numpy_one():
    model, Z = _model_and_scores()
    with dask.config.set({"array.chunk-size": "1KiB"}):  # 128 float64 values a block
        out = model.inverse_transform(da.from_array(Z, chunks=(10, 3)))
    assert out.shape == (50, 37)
    widths = out.chunks[1]
    assert len(widths) > 1 and sum(widths) == 37
    assert max(widths) * max(out.chunks[0]) <= 128
    np.testing.assert_allclose(out.compute(), model.inverse_transform(Z), atol=1e-12)


def test_blocked_inverse_transform_refuses_nan():
    model, Z = _model_and_scores()
    Z[7, 1] = np.nan
    with dask.config.set({"array.chunk-size": "1KiB"}):
        out = model.inverse_transform(da.from_array(Z, chunks=(10, 3)))
    with pytest.raises(ValueError, match="inverse_transform contains NaN"):
        out.compute()


@pytest.mark.parametrize("width", [2, 4])
def test_scores_of_the_wrong_width_are_refused_as_in_numpy(width):
    """Scores with fewer or more columns than ``n_components`` raise the NumPy
    ``ValueError`` (a lazy inverse would otherwise drop or misread columns)."""
    model, _ = _model_and_scores()
    Zw = np.random.default_rng(1).normal(size=(50, width))
    with pytest.raises(ValueError, match="inverse_transform") as numpy_error:
        model.inverse_transform(Zw)
    with pytest.raises(ValueError, match="inverse_transform") as dask_error:
        model.inverse_transform(da.from_array(Zw, chunks=(10, width)))
    assert str(dask_error.value) == str(numpy_error.value)
