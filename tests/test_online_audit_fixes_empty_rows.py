"""Rows with no observed entry in the streams of the online estimators (audit).

``fit`` and every in-memory ``partial_fit`` refuse a row with no observed entry
(docs/user_guide/missing.rst). The streams of OR-PCA and GRASTA take it on purpose (a
dropped video frame must not stop a stream; ``_dask/reference.py``), but gave it an
undefined treatment: it entered the updates (OR-PCA's statistics decayed by it, and a
first batch of such rows could start the model), and ``decompose`` and
``partial_fit_decompose`` returned a low-rank part of zeros, a fit of nothing presented
as the background. Now such a row is counted in ``n_samples_seen_`` and passed over:
the model, the burn-in and the reference are those of the stream without it, and its
low-rank part is the model's typical row (the centre of the reference's scores on the
components), its sparse part zero, on every route (``partial_fit_decompose``, the
residual route of the video pipeline, ``decompose``, the Dask ``fit`` and
``decompose``). ``transform`` and ``reconstruct`` still refuse it, as documented.
"""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

from robustpca import GRASTA, OnlineRobustPCA
from robustpca.background_subtraction import subtract_background

ONLINE = [OnlineRobustPCA, GRASTA]


def _frames(n=120, p=60, seed=0):
    rng = np.random.default_rng(seed)
    X = np.outer(1 + 0.05 * rng.normal(size=n), 100 + 20 * rng.random(p))
    X += np.outer(rng.normal(size=n), rng.normal(size=p))
    return X + rng.normal(size=X.shape)


def _with_empty(X, rows):
    Y = X.copy()
    Y[rows] = np.nan
    return Y


def _batches(model, X, batch, decompose=False):
    parts = []
    for start in range(0, X.shape[0], batch):
        rows = X[start : start + batch]
        parts.append(model.partial_fit_decompose(rows) if decompose else model.partial_fit(rows))
    return parts


@pytest.mark.parametrize("cls", ONLINE)
@pytest.mark.parametrize("where", [[0], [5], [70, 71]])  # first row, burn-in, after it
def test_an_empty_row_moves_nothing(cls, where):
    """The stream with empty rows is the stream without them (the same batches, less
    those rows): model, counts aside, and reference."""
    X = _frames()
    X[::9, :6] = np.nan  # a stream with gaps (the route that takes NaN)
    gappy = _with_empty(X, where)
    kw = {"n_components": 2, "random_state": 0, "burn_in": 40}
    model = cls(**kw)
    _batches(model, gappy, 10)
    without = cls(**kw)
    for start in range(0, gappy.shape[0], 10):
        rows = gappy[start : start + 10]
        rows = rows[~np.isnan(rows).all(axis=1)]
        if rows.shape[0]:
            without.partial_fit(rows)
    assert model.n_samples_seen_ == 120 and without.n_samples_seen_ == 120 - len(where)
    assert model.n_missing_ == without.n_missing_ + 60 * len(where)
    np.testing.assert_allclose(model.components_, without.components_, rtol=0, atol=1e-12)
    complete = np.delete(gappy, where, axis=0)
    np.testing.assert_allclose(
        model.decision_function(complete), without.decision_function(complete), atol=1e-9
    )


@pytest.mark.parametrize("cls", ONLINE)
def test_an_empty_row_gets_the_typical_low_rank_part(cls):
    X = _frames()
    gappy = _with_empty(X, [95])
    gappy[::7, :5] = np.nan
    model = cls(n_components=2, random_state=0, burn_in=40)
    parts = _batches(model, gappy, 10, decompose=True)
    low = np.concatenate([p[0] for p in parts])
    sparse = np.concatenate([p[1] for p in parts])
    assert np.all(sparse[95] == 0) and np.isfinite(low).all()
    # the background of the frames around it, not zeros
    assert np.linalg.norm(low[95] - low[94]) < 0.1 * np.linalg.norm(low[94])
    # decompose: the centre of the reference's scores on the components
    expected = model._outlier_reference.score_center @ model.components_
    d_low, d_sparse = model.decompose(gappy[90:100])
    np.testing.assert_allclose(d_low[5], expected, rtol=1e-12)
    assert np.all(d_sparse[5] == 0)
    only_empty = model.decompose(np.full((2, 60), np.nan))
    np.testing.assert_allclose(only_empty[0], np.vstack([expected, expected]), rtol=1e-12)
    with pytest.raises(ValueError, match="no observed entry"):
        model.transform(gappy[95:96])


@pytest.mark.parametrize("cls", ONLINE)
def test_a_batch_of_empty_rows_only(cls):
    X = _frames()
    model = cls(n_components=2, random_state=0, burn_in=20)
    low, sparse = model.partial_fit_decompose(np.full((3, 60), np.nan))  # nothing seen
    assert not hasattr(model, "components_") and model.n_samples_seen_ == 3
    assert np.isfinite(low).all() and np.all(sparse == 0)
    _batches(model, X[:60], 10)
    before = model.components_.copy()
    low, sparse = model.partial_fit_decompose(np.full((2, 60), np.nan))
    np.testing.assert_array_equal(model.components_, before)
    assert model.n_samples_seen_ == 65
    assert np.linalg.norm(low[0] - X[59]) < 0.1 * np.linalg.norm(X[59])


def test_the_residual_route_of_a_video_with_a_dropped_frame():
    """subtract_background (OR-PCA's residual route): the dropped frame's background is
    the stream's, not black, and it has no foreground."""
    rng = np.random.default_rng(0)
    frames = 100 + 20 * rng.random((60, 12, 16))
    frames *= (1 + 0.05 * rng.normal(size=(60, 1, 1))).astype(frames.dtype)
    frames = frames.astype(np.float32)
    frames[33] = np.nan
    parts = list(subtract_background((frames[s : s + 10] for s in range(0, 60, 10)),
                                     n_components=1))  # fmt: skip
    part = parts[3]
    background = part.background() if callable(part.background) else part.background
    background = np.asarray(background).reshape(part.frames.shape)
    assert np.isfinite(background).all()
    assert abs(float(background[3].mean()) - float(np.nanmean(frames[30:33]))) < 10.0
    assert not part.masks[3].any()


@pytest.mark.parametrize("cls", ONLINE)
def test_the_dask_fit_passes_over_empty_rows_as_the_stream(cls):
    X = _frames()
    X[::9, :6] = np.nan
    gappy = _with_empty(X, [50])
    kw = {"n_components": 2, "random_state": 0, "burn_in": 20, "batch_size": 10}
    model = cls(**kw).fit(da.from_array(gappy, chunks=25))
    assert model.n_samples_seen_ == 120 and np.isfinite(model.components_).all()
    low, sparse = model.decompose(da.from_array(gappy[45:55], chunks=5))
    expected = model._outlier_reference.score_center @ model.components_
    np.testing.assert_allclose(np.asarray(low)[5], expected, rtol=1e-12)
    assert np.all(np.asarray(sparse)[5] == 0)
