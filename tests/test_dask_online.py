"""OnlineRobustPCA and GRASTA on dask arrays: the row blocks streamed in order give the
in-memory fit, whatever the chunks; gaps, checks, the window of a later partial_fit,
lazy decompose, and a real clip."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca import GRASTA, OnlineRobustPCA

from .test_online_rpca import load_highway, planted_stream

da = pytest.importorskip("dask.array")

MODELS = [OnlineRobustPCA, GRASTA]


def _pair(cls, Xn, chunks, **params):
    params = {"n_components": 2, "random_state": 0, "batch_size": 32, **params}
    ours = cls(**params).fit(da.from_array(Xn, chunks=chunks))
    theirs = cls(**params).fit(Xn)
    return ours, theirs


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    ("dtype", "chunks", "n_passes"),
    [(np.float32, (77, 60), 1), (np.float64, (100, 25), 2), (np.float64, (500, 60), 1)],
)
def test_streamed_blocks_give_the_in_memory_fit(cls, dtype, chunks, n_passes):
    """Blocks that do not align with the batches (77 rows against 32), several column
    chunks, one block: the same batches, hence the same fit, to the bit."""
    Xn = planted_stream(0, n=430, d=60)[0].astype(dtype)
    ours, theirs = _pair(cls, Xn, chunks, n_passes=n_passes, contamination=0.1)
    np.testing.assert_array_equal(ours.components_, theirs.components_)
    np.testing.assert_array_equal(ours.objective_history_, theirs.objective_history_)
    assert ours.components_.dtype == dtype
    assert ours.n_samples_seen_ == theirs.n_samples_seen_ == 430 * n_passes
    assert ours.n_iter_ == theirs.n_iter_
    assert ours.offset_ == pytest.approx(theirs.offset_, rel=1e-5)
    labels = ours.predict(da.from_array(Xn, chunks=chunks))
    assert isinstance(labels, da.Array)
    assert np.mean(labels.compute() != theirs.predict(Xn)) <= 0.005


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_gaps_are_counted_and_fitted_as_in_memory(cls):
    Xn = planted_stream(1, n=300, d=40)[0]
    Xn[np.random.default_rng(0).random(Xn.shape) < 0.2] = np.nan
    ours, theirs = _pair(cls, Xn, (70, 40))
    np.testing.assert_array_equal(ours.components_, theirs.components_)
    assert ours.n_missing_ == theirs.n_missing_ == np.isnan(Xn).sum()


def test_a_gap_in_a_later_block_is_seen_by_the_burn_in():
    """The gap sits in the second block, inside the burn-in of the first 100 rows: the
    start sees it (no NaN comes out), as in memory."""
    Xn = planted_stream(2, n=200, d=20)[0]
    Xn[60, 3] = np.nan
    ours, theirs = _pair(OnlineRobustPCA, Xn, (50, 20))
    assert np.isfinite(ours.components_).all()
    np.testing.assert_array_equal(ours.components_, theirs.components_)


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_bad_blocks_raise_as_partial_fit_does(cls):
    Xn = planted_stream(3, n=120, d=10)[0]
    bad = Xn.copy()
    bad[90, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        cls(2, random_state=0).fit(da.from_array(bad, chunks=40))
    with pytest.raises(ValueError, match="features"):
        cls(2, random_state=0).fit(Xn[:, :5]).decompose(da.from_array(Xn, chunks=40))


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("n", [300, 1500])  # the window spans the last 1,000 rows
def test_partial_fit_after_a_dask_fit_continues_its_window(cls, n):
    Xn = planted_stream(4, n=n, d=30)[0]
    ours, theirs = _pair(cls, Xn, (64, 30))
    ours.partial_fit(Xn[:40])
    theirs.partial_fit(Xn[:40])
    np.testing.assert_allclose(ours._window.od, theirs._window.od, rtol=1e-10)
    np.testing.assert_allclose(ours.score_samples(Xn), theirs.score_samples(Xn), rtol=1e-9)


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_decompose_is_lazy_by_row_blocks(cls):
    Xn = planted_stream(5, n=200, d=30)[0]
    Xn[::7, ::5] = np.nan
    model = cls(2, random_state=0).fit(Xn)
    X = da.from_array(Xn, chunks=(45, 10))
    low, sparse = model.decompose(X)
    assert isinstance(low, da.Array) and low.chunks[0] == X.chunks[0]
    for start in range(0, 200, 45):  # each block as decompose splits it
        want_low, want_sparse = model.decompose(Xn[start : start + 45])
        np.testing.assert_allclose(low[start : start + 45].compute(), want_low, atol=1e-9)
        np.testing.assert_allclose(sparse[start : start + 45].compute(), want_sparse, atol=1e-9)


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_lazy_results_are_those_of_the_model_they_were_asked_of(cls):
    """A lazy result computed after the stream went on is still the model's at the call
    (``partial_fit`` updates the state ``decompose`` reads in place), as ``transform``'s.
    ``decompose`` splits by row blocks, so it is compared block by block."""
    Xn = planted_stream(6, n=400, d=20)[0]
    Q = Xn[:40] + 1.0
    dQ = da.from_array(Q, chunks=(20, 20))
    model = cls(2, burn_in=50, random_state=0).partial_fit(Xn[:200])
    names = ("score_samples", "decision_function", "predict", "transform")
    eager = {name: getattr(model, name)(Q) for name in names}
    blocks = [model.decompose(Q[start : start + 20]) for start in (0, 20)]
    eager["decompose"] = tuple(np.concatenate(part) for part in zip(*blocks, strict=True))
    lazy = {name: getattr(model, name)(dQ) for name in (*names, "decompose")}
    model.partial_fit(1.5 * Xn[200:] + 3.0)
    for name in names:
        np.testing.assert_array_equal(lazy[name].compute(), eager[name], err_msg=name)
    for part, expected in zip(lazy["decompose"], eager["decompose"], strict=True):
        np.testing.assert_array_equal(part.compute(), expected, err_msg="decompose")


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 120),
    rows=st.integers(1, 50),
    size=st.integers(1, 40),
)
def test_row_batches_are_the_slices_of_the_array(n, rows, size):
    from robustpca._dask.online import row_batches

    Xn = np.arange(n * 3, dtype=float).reshape(n, 3)
    got = list(row_batches(da.from_array(Xn, chunks=(rows, 3)), size))
    want = [Xn[s : s + size] for s in range(0, n, size)]
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.realdata
def test_highway_as_a_dask_array_is_fitted_as_in_memory(shared_data):
    X, _ = load_highway(shared_data)
    frames = da.from_array(X, chunks=(37, X.shape[1]))
    ours = OnlineRobustPCA(random_state=0, burn_in=50).fit(frames)
    theirs = OnlineRobustPCA(random_state=0, burn_in=50).fit(X)
    np.testing.assert_array_equal(ours.components_, theirs.components_)
    low, _ = ours.decompose(frames)
    np.testing.assert_allclose(low.compute(), theirs.decompose(X)[0], rtol=1e-4, atol=1e-2)


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_partial_fit_takes_a_dask_array_block_by_block(cls):
    """partial_fit and partial_fit_decompose of a dask array: its row blocks are the
    batches, in order, as if each were given on its own."""
    Xn = planted_stream(6, n=240, d=20)[0]
    Xn[::9, ::4] = np.nan
    X = da.from_array(Xn, chunks=(60, 7))
    ours, theirs = cls(2, random_state=0, burn_in=60), cls(2, random_state=0, burn_in=60)
    assert ours.partial_fit(X[:120]) is ours
    for start in (0, 60):
        theirs.partial_fit(Xn[start : start + 60])
    low, sparse = ours.partial_fit_decompose(X[120:])
    parts = [theirs.partial_fit_decompose(Xn[s : s + 60]) for s in (120, 180)]
    assert isinstance(low, np.ndarray) and low.shape == (120, 20)
    np.testing.assert_array_equal(low, np.concatenate([p[0] for p in parts]))
    np.testing.assert_array_equal(sparse, np.concatenate([p[1] for p in parts]))
    np.testing.assert_array_equal(ours.components_, theirs.components_)
    assert ours.n_samples_seen_ == theirs.n_samples_seen_ == 240
    assert ours.n_missing_ == theirs.n_missing_


@pytest.mark.parametrize("Estimator", [OnlineRobustPCA, GRASTA])
def test_a_row_with_no_observed_entry_is_fitted_as_by_partial_fit(Estimator):
    """docs/dask.md: such a row gets a zero fit, as in partial_fit; the training
    diagnostics' pass had refused it after the whole online pass had run."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 10)) + 5.0
    X[50] = np.nan
    model = Estimator(random_state=0, burn_in=20).fit(da.from_array(X, chunks=25))
    assert model.n_missing_ == 10 and np.isfinite(model.components_).all()
    complete = np.delete(X, 50, axis=0)
    assert np.isfinite(np.asarray(model.decision_function(complete))).all()
